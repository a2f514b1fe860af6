#pragma once
// How a single-source body runs (docs/cuda_backend.md "Single-source bodies and the device-bodies tests"): a
// body is a functor with `NETDP_HD void operator()(std::int64_t i) const` over plain pointers; the CUDA
// backends launch it with device_for_each (a grid-stride __global__ wrapper, nothing else in it), the
// device-bodies tests run the very same functor on the host with host_for_each (an OpenMP loop), and the
// atomics it uses are 64-bit integer additions on either side (exact and order free).
#include <cstdint>

#include "common/hd.hpp"

namespace netdp::kernels {

/// atomicAdd on the device, a relaxed atomic fetch-add on the host; returns the previous value.
NETDP_HD inline unsigned long long atomic_add(unsigned long long* target, unsigned long long value) {
#if defined(__CUDA_ARCH__)
  return atomicAdd(target, value);
#else
  return __atomic_fetch_add(target, value, __ATOMIC_RELAXED);
#endif
}

/// *flag = 1 where several threads may store the same value at once (a plain store on the device; a relaxed
/// atomic store on the host, where concurrent plain stores would be a data race).
NETDP_HD inline void set_flag(unsigned char* flag) {
#if defined(__CUDA_ARCH__)
  *flag = 1;
#else
  __atomic_store_n(flag, static_cast<unsigned char>(1), __ATOMIC_RELAXED);
#endif
}

/// body(0) .. body(count - 1) on the host threads (any order, as on the device).
template <class Body>
void host_for_each(std::int64_t count, const Body& body) {
#if defined(_OPENMP)
#pragma omp parallel for schedule(dynamic, 64)
#endif
  for (std::int64_t i = 0; i < count; ++i) body(i);
}

#if defined(__CUDACC__)
namespace {  // internal linkage: every .cu gets its own copy, no relocatable device code

/// The grid-stride wrapper of every body: thread g runs body(g), body(g + grid), ...
template <class Body>
__global__ void device_for_each(std::int64_t count, const Body body) {
  const std::int64_t grid = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += grid)
    body(i);
}

}  // namespace
#endif

}  // namespace netdp::kernels
