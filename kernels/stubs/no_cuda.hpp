#pragma once
// The answer of every CUDA entry point in a build without the CUDA backend. Device selection
// (kernels/device.cpp) never resolves to CUDA in such a build, so reaching a stub is a caller's error.
#include <string>

#include "netdp/ground/errors.hpp"

namespace netdp::kernels {

[[noreturn]] inline void no_cuda(const char* entry) {
  throw DeviceUnavailable(std::string(entry) +
                          ": this netdp was built without CUDA (configure with -DNETDP_CUDA=ON)");
}

}  // namespace netdp::kernels
