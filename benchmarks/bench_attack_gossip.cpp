// Benchmark: the exact gossip reconstruction attack (docs/attack.md, docs/math.md §7.2). The cases:
// every node of the ego-Facebook graph 414 (lcc=1, 148 nodes) alone as attacker at T = 10 (only when its edge
// file is given), one attacker on er:n=2048,c=1,seed=3 at T = 10, and the grid of Fig. 4.2 (1, 2, 3 attackers
// on 20 connected G(n, 20p/n) per cell, n = 20..100, p = 0.15..0.30, T = int(min(n p / |A|, n / 2)): 1200
// independent attacks run in parallel over the OpenMP threads). Prints one CSV line per case: wall median and
// min over K runs, and the CPU time of the last run (getrusage: all threads), with a checksum of the result.
// Usage: bench_attack_gossip [--graph414 PATH/414.edges] [--repeats K] [--no-float-check]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "bench_attack_common.hpp"
#include "netdp/attack/attack_gossip.hpp"
#include "netdp/core/graph_spec.hpp"

namespace {

// The cells of Fig. 4.2 (docs/math.md §11 E17) with the reference code's horizon, 20 graphs each.
struct GridCase {
  netdp::Graph graph;
  std::vector<netdp::node_t> attackers;
  int steps = 0;
};
std::vector<GridCase> figure_4_2_grid() {
  std::vector<GridCase> cases;
  for (int k = 1; k <= 3; ++k)
    for (int n : {20, 40, 60, 80, 100})
      for (double p : {0.15, 0.20, 0.25, 0.30})
        for (int seed = 0; seed < 20; ++seed) {
          GridCase c;
          char spec[96];
          std::snprintf(spec, sizeof spec, "er:n=%d,p=%.6g,seed=%d", n, 20 * p / n, seed);
          c.graph = netdp::make_graph(spec);
          for (int a = 0; a < k; ++a) c.attackers.push_back(a);
          c.steps = static_cast<int>(std::min(n * p / k, n / 2.0));
          cases.push_back(std::move(c));
        }
  return cases;
}

}  // namespace

int main(int argc, char** argv) {
  std::string ego;
  int repeats = 5;
  bool float_check = true;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--graph414") && i + 1 < argc) ego = argv[++i];
    if (!std::strcmp(argv[i], "--repeats") && i + 1 < argc) repeats = std::atoi(argv[++i]);
    if (!std::strcmp(argv[i], "--no-float-check")) float_check = false;
  }
  using namespace netdp;
  using bench::time_case;
  std::printf("case,wall_median_s,wall_min_s,cpu_s_last,checksum\n");
  attack::GossipAttackParams p;
  p.steps = 10;
  if (ego.empty()) {
    std::printf("ego414_all_T10,skipped (give --graph414 PATH),,,\n");
  } else {
    const Graph g414 = make_graph("file:" + ego + ",lcc=1");
    const attack::GossipRounds r414(g414, WeightsSpec{}, p);
    time_case("ego414_all_T10", repeats, [&] {
      const auto r = attack::attack_gossip_all(r414, p, float_check);
      long s = 0;
      for (int x : r.reconstructed) s += x;
      return s;
    });
  }
  const Graph er = make_graph("er:n=2048,c=1,seed=3");
  const attack::GossipRounds rer(er, WeightsSpec{}, p);
  time_case("er2048_one_T10", repeats, [&] {
    const auto r = attack::attack_gossip(rer, {0}, p, true, float_check);
    return static_cast<long>(r.reconstructible.size() * 100000 + r.rank);
  });
  const std::vector<GridCase> grid = figure_4_2_grid();
  time_case("fig4_2_grid_1200", repeats, [&] {
    std::vector<long> found(grid.size(), 0);
#pragma omp parallel for schedule(dynamic, 1)
    for (std::size_t i = 0; i < grid.size(); ++i) {
      attack::GossipAttackParams q;
      q.steps = grid[i].steps;
      const attack::GossipRounds rounds(grid[i].graph, WeightsSpec{}, q);
      found[i] = static_cast<long>(
          attack::attack_gossip(rounds, grid[i].attackers, q, false, float_check).reconstructible.size());
    }
    long s = 0;
    for (long x : found) s += x;
    return s;
  });
  return 0;
}
