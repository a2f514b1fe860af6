// Links every layer of an installed netdp: a graph from its spec (core), a Gaussian RDP value (dp).
#include <cmath>
#include <cstdio>

#include "netdp/core/graph.hpp"
#include "netdp/core/graph_spec.hpp"
#include "netdp/core/philox.hpp"
#include "netdp/dp/gaussian.hpp"

int main() {
  const netdp::Graph g = netdp::make_graph("hypercube:dim=3");
  const bool graph_ok = g.n == 8 && netdp::diameter(g) == 3;
  // Gaussian mechanism of noise multiplier s: RDP of order alpha is alpha / (2 s^2).
  const bool dp_ok = std::abs(netdp::dp::gaussian_rdp(2.0, 2.0) - 0.25) < 1e-15;
  // Philox4x32-10 known-answer test (Salmon et al., Random123 kat_vectors): key 0, counter 0.
  netdp::PhiloxStream zeros(0, 0, 0);
  const bool philox_ok = zeros.next_u32() == 0x6627e8d5u;
  std::printf("graph %s, dp %s, philox %s\n", graph_ok ? "ok" : "WRONG", dp_ok ? "ok" : "WRONG",
              philox_ok ? "ok" : "WRONG");
  return graph_ok && dp_ok && philox_ok ? 0 : 1;
}
