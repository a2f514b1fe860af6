#pragma once
// The device memory a run may plan with (docs/design.md principle 5), decided once before anything is
// allocated and named in InsufficientMemory messages. The only CUDA call is cudaMemGetInfo; the arithmetic
// (one share of the free memory, the memory limit, tiles and staging) is the pure code of
// common/memory_plan.hpp, which builds and is tested without CUDA.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "common/memory_plan.hpp"
#include "cuda/base/runtime_check.hpp"
#include "cuda/base/stream.hpp"
#include "netdp/ground/errors.hpp"

namespace netdp::kernels::cuda {

/// Free memory of the current device, in bytes.
inline std::int64_t free_device_bytes() {
  std::size_t free_bytes = 0, total_bytes = 0;
  NETDP_CUDA_TRY(cudaMemGetInfo(&free_bytes, &total_bytes));
  return static_cast<std::int64_t>(free_bytes);
}

struct MemoryBudget {
  std::int64_t bytes = 0;
  std::string source;  // where the figure comes from, for messages
};

/// `share` of the free memory of the current device (`device` only names it), or memory_limit when it is
/// > 0 and smaller. The accountants plan with memory_plan::kDeviceMemoryShare through memory_plan::Limits;
/// this form serves the simulators' drivers.
inline MemoryBudget device_memory_budget(int device, double share, std::int64_t memory_limit = 0) {
  const memory_plan::Budget budget =
      memory_plan::device_budget_with_share(free_device_bytes(), share, memory_limit);
  return {budget.bytes, memory_plan::describe(budget, device, share)};
}

/// The batch of a run of `items` items of `per_item` bytes beside `fixed` on `device`
/// (memory_plan::plan_run_batch in the accountants' share of its free memory, or memory_limit); refuses with
/// InsufficientMemory when not even one item fits: "WHAT: one ITEM needs B bytes beside F bytes of FIXED,
/// more than ...; use device cpu".
inline memory_plan::RunBatchPlan plan_device_batch(int device, std::int64_t memory_limit, std::int64_t items,
                                                   std::int64_t fixed, std::int64_t per_item,
                                                   const std::string& what, const std::string& item,
                                                   const std::string& fixed_part) {
  const DeviceGuard guard(device);
  const MemoryBudget budget = device_memory_budget(device, memory_plan::kDeviceMemoryShare, memory_limit);
  const memory_plan::RunBatchPlan plan = memory_plan::plan_run_batch(
      {.items = items, .fixed = fixed, .per_item = per_item, .budget = budget.bytes});
  if (plan.fits < 1)
    throw InsufficientMemory(what + ": one " + item + " needs " + std::to_string(per_item) +
                             " bytes beside " + std::to_string(fixed) + " bytes of " + fixed_part +
                             ", more than " + budget.source + " (" + std::to_string(budget.bytes) +
                             " bytes); use device cpu");
  return plan;
}

}  // namespace netdp::kernels::cuda
