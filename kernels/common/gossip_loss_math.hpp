#pragma once
// Per-element maths of the gossip accountant, shared by the CPU and CUDA backends (docs/math.md §6.1, eq. M1).
#include "common/hd.hpp"

namespace netdp::kernels {

/// One message's share of the loss: (W^t)_{w,u}^2 / ||row w of W^t||^2 (Theorem 6.1). x = (W^t)_{w,u},
/// row_norm_sq = ||row w of W^t||^2 >= 1/n > 0 for a doubly stochastic W.
NETDP_HD inline double message_share(double x, double row_norm_sq) {
  return x * x / row_norm_sq;
}

/// f(u, v) from the accumulated shares of v's neighbours: scale * sum, then min with the LDP level `scale`
/// when capping (v's view is a post-processing of the one noisy vector x + eta, docs/math.md §6.1); 0 when u = v.
NETDP_HD inline double pair_loss(double share_sum, double scale, bool cap_ldp, bool same_node) {
  if (same_node) return 0.0;
  double f = scale * share_sum;
  return (cap_ldp && f > scale) ? scale : f;
}

}  // namespace netdp::kernels
