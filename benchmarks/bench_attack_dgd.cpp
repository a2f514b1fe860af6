// Benchmark: the D-GD reconstruction attack (docs/attack.md "D-GD", docs/math.md §7.3) on the sizes of the
// examples and one larger graph: building the knowledge matrix, its covariance and exact identifiability, the
// OLS/GLS estimators of every prefix t = 1..T, then one simulated run under Assumption 4.7 (p = 10) estimated
// from every prefix. Prints one CSV line per case: wall median and min over K runs, the CPU time of the last
// run (getrusage), and the number of identifiable targets. Usage: bench_attack_dgd [--repeats K]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "bench_attack_common.hpp"
#include "netdp/attack/attack_dgd.hpp"
#include "netdp/core/graph_spec.hpp"

namespace {

// The whole attack for one set of attackers; returns the number of identifiable targets.
long run_attack(const netdp::Graph& g, const netdp::WeightsSpec& w,
                const std::vector<netdp::node_t>& attackers, int steps) {
  using namespace netdp::attack;
  const DgdKnowledge k = dgd_knowledge(g, w, attackers, steps, 1);
  const int dim = 10;
  std::vector<double> theta0(static_cast<std::size_t>(g.n) * dim, 0.0);
  const UpdateFunction update = [](netdp::node_t v, std::span<const double>, std::span<double> out) {
    for (std::size_t q = 0; q < out.size(); ++q) out[q] = double((v * 7 + static_cast<int>(q)) % 11) - 5;
  };
  const DgdRun run = simulate_dgd(k, theta0, dim, update, {.steps = steps, .sigma = 0.01});
  const std::vector<double> y = remove_contributions(k, theta0, run);
  for (int t = 1; t <= steps; ++t) estimate_gradients(dgd_estimator(k, t), y, dim);
  return std::count_if(k.identifiable_after.begin(), k.identifiable_after.end(), [](int a) { return a > 0; });
}

}  // namespace

int main(int argc, char** argv) {
  int repeats = 3;
  for (int i = 1; i < argc; ++i)
    if (!std::strcmp(argv[i], "--repeats") && i + 1 < argc) repeats = std::atoi(argv[++i]);
  using namespace netdp;
  using bench::time_case;
  const WeightsSpec lap{Weighting::max_degree, ""};
  std::printf("case,wall_median_s,wall_min_s,cpu_s_last,identifiable\n");
  const Graph line = make_graph("path:n=31");
  time_case("path31_T31", repeats, [&] { return run_attack(line, lap, {0}, 31); });
  const Graph florentine = make_graph("florentine");
  time_case("florentine_every_attacker_T7", repeats, [&] {
    long s = 0;
    for (node_t a = 0; a < florentine.n; ++a) s += run_attack(florentine, lap, {a}, 7);
    return s;
  });
  const Graph er = make_graph("er:n=200,c=2,seed=1");
  time_case("er200_one_T20", repeats, [&] { return run_attack(er, lap, {0}, 20); });
  return 0;
}
