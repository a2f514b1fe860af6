#pragma once
// Widths of the panels of source columns the CPU engines propagate (cpu/power_panels.hpp); the library's
// gossip simulator (kernels/cpu/gossip_sim_cpu.cpp) lays its runs out in the same sparse panels.

namespace netdp::kernels {

constexpr int kSparseLanes = 8;  // one 64-byte cache line of doubles per row of the panel
constexpr int kDenseLanes = 64;  // wide enough for GEMM to run near peak

}  // namespace netdp::kernels
