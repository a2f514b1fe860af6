#pragma once
// The device memory a run may plan with (DESIGN principle 5), decided once before anything is allocated and
// named in InsufficientMemory messages.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "cuda/base/cuda_check.hpp"

namespace netdp::kernels::cuda {

struct MemoryBudget {
  std::int64_t bytes = 0;
  std::string source;  // where the figure comes from, for messages
};

/// `share` of the free memory of the current device (`device` only names it), or memory_limit when it is
/// > 0 and smaller. The rest of the free memory is headroom for library workspaces.
inline MemoryBudget device_memory_budget(int device, double share, std::int64_t memory_limit = 0) {
  std::size_t free_bytes = 0, total_bytes = 0;
  NETDP_CUDA_TRY(cudaMemGetInfo(&free_bytes, &total_bytes));
  MemoryBudget budget{static_cast<std::int64_t>(share * static_cast<double>(free_bytes)),
                      std::to_string(static_cast<int>(share * 100 + 0.5)) +
                          "% of the free memory of CUDA device " + std::to_string(device)};
  if (memory_limit > 0 && memory_limit < budget.bytes) budget = {memory_limit, "the memory limit"};
  return budget;
}

}  // namespace netdp::kernels::cuda
