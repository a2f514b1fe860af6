#pragma once
// Products and sums rounded one at a time on both backends (docs/cuda_backend.md "Single-source bodies and
// the device-bodies tests"). nvcc contracts a * b + c into one fused multiply-add by default, which rounds
// once where the CPU rounds twice; the bodies that promise the CPU's bits write rn_add(rn_mul(a, b), c),
// which is __dadd_rn(__dmul_rn(a, b), c) on the device (never contracted) and a * b + c on the host (the
// host build does not contract: x86-64 without FMA flags, docs/cuda_backend.md).
#include "common/hd.hpp"

namespace netdp::kernels {

NETDP_HD inline double rn_mul(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dmul_rn(a, b);
#else
  return a * b;
#endif
}

NETDP_HD inline double rn_add(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dadd_rn(a, b);
#else
  return a + b;
#endif
}

NETDP_HD inline double rn_sub(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dsub_rn(a, b);
#else
  return a - b;
#endif
}

}  // namespace netdp::kernels
