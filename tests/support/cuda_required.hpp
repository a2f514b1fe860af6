#pragma once
// The one skip path of the CUDA test suites (docs/cuda_backend.md "The GPU check"): a case that needs a CUDA
// device skips when none answers, naming why (the loader's reason: no driver, a library the module lacks, a
// module of another build, the runtime's error), and fails instead under NETDP_REQUIRE_CUDA=1, so that a GPU
// run whose module cannot load is never read as a pass.
#include <gtest/gtest.h>

#include <string>

#include "netdp/core/device.hpp"

/// First statement of a case that needs a CUDA device.
#define NETDP_NEEDS_CUDA_DEVICE()                                                             \
  do {                                                                                        \
    if (const std::string netdp_why = ::netdp::no_cuda_device_reason(); !netdp_why.empty()) { \
      if (::netdp::cuda_required()) GTEST_FAIL() << "NETDP_REQUIRE_CUDA=1: " << netdp_why;    \
      GTEST_SKIP() << netdp_why;                                                              \
    }                                                                                         \
  } while (false)
