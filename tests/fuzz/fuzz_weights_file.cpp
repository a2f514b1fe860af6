// libFuzzer target (docs/reliability.md §5): a W given as a file (`--weights file:PATH`) on a small fixed
// graph, through the path the commands take: make_weights (reader, size n, support on the edges), then the
// check they apply (validate_gossip_matrix for gossip-loss, gossip-sim, muffliato and the attacks,
// validate_row_stochastic for walk-sim and the MF commands), then what gossip-loss and gossip-sim compute
// from an accepted W: its spectrum, gap and stopping time, and W^t e_w (the accountants' rows). graph_file
// already fuzzes load_weight_matrix alone; this target looks for a W that passes the checks and still breaks
// a later assumption. Built by scripts/fuzz.sh.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "fuzz_input.hpp"
#include "netdp/core/error.hpp"
#include "netdp/core/graph_generators.hpp"
#include "netdp/core/sparse_matrix.hpp"
#include "netdp/core/spectral.hpp"
#include "netdp/core/weighting.hpp"

namespace {

// Checks on an accepted input: a violation aborts, so that libFuzzer keeps the input.
void require(bool ok) {
  if (!ok) std::abort();
}

// What the accountants assume of W^t e_w for a symmetric doubly stochastic W: finite entries, no mass lost or
// gained beyond rounding, and no entry below the tolerance the check allows.
void check_powers(const netdp::CsrMatrix& w) {
  const std::size_t n = static_cast<std::size_t>(w.n);
  std::vector<double> x(n), y(n);
  for (netdp::node_t source = 0; source < w.n; ++source) {
    std::fill(x.begin(), x.end(), 0.0);
    x[static_cast<std::size_t>(source)] = 1.0;
    for (int t = 1; t <= 8; ++t) {
      netdp::csr_multiply(w, x.data(), y.data(), 1, false);
      double sum = 0;
      for (double v : y) {
        require(std::isfinite(v) && v >= -1e-6);
        sum += v;
      }
      require(std::abs(sum - 1.0) <= 1e-6);
      x.swap(y);
    }
  }
}

void check_spectrum(const netdp::CsrMatrix& w) {
  const netdp::SpectralSummary s = netdp::spectral_summary(w);
  // Eigenvalues of a symmetric stochastic W lie in [-1, 1]; the check's tolerance moves them by about n 1e-9.
  require(std::isfinite(s.lambda_2) && std::isfinite(s.lambda_min));
  require(s.lambda_min >= -1 - 1e-6 && s.lambda_2 <= 1 + 1e-6 && s.lambda_min <= s.lambda_2 + 1e-12);
  for (auto d : {netdp::GapDefinition::second, netdp::GapDefinition::absolute}) {
    const double gap = s.gap(d);
    require(std::isfinite(gap));
    try {  // a zero gap (a W that does not mix) is a refusal here, not a crash
      require(netdp::muffliato_stopping_time(w.n, 1.0, gap) >= 1);
      require(netdp::random_walk_horizon(w.n, 1.0, gap) >= 1);
      const double gamma = netdp::chebyshev_gamma(gap);
      require(gamma >= 1 && gamma <= 2);
    } catch (const netdp::InvalidInput&) {
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // The first byte picks the graph, the check and the file format; the rest is the file.
  std::uint8_t flags = 0;
  if (!netdp::fuzzing::take_flags(data, size, flags)) return 0;
  static const netdp::Graph graphs[] = {netdp::ring_graph(5), netdp::complete_graph(4), netdp::path_graph(4),
                                        netdp::star_graph(4)};
  const netdp::Graph& g = graphs[flags & 3];
  const bool gossip = !(flags & 4);
  const std::string path = netdp::fuzzing::write_input((flags & 8) ? ".mtx" : ".txt", data, size);
  netdp::CsrMatrix w;
  try {
    w = netdp::make_weights(g, netdp::parse_weights_spec("file:" + path));
    if (gossip)
      netdp::validate_gossip_matrix(w, g);
    else
      netdp::validate_row_stochastic(w, g);
  } catch (const netdp::InvalidInput&) {  // a refusal is the expected answer to most inputs
    std::remove(path.c_str());
    return 0;
  }
  std::remove(path.c_str());
  if (!gossip) return 0;
  check_powers(w);
  check_spectrum(w);
  return 0;
}
