// Benchmark: the Monte Carlo walk engine (docs/walk_sim.md). Usage: bench_walk_sim [--repeats R] [--er-nodes
// N]
// [--quick 1]. Prints one CSV line per case: plain walks on the implicit complete graph (n = 100 and 10^4),
// plain uniform walks on a connected Erdos-Renyi CSR graph (10^6 nodes, c = 1.5), and the accounted Fig. 7.1b
// setting (complete graph, n = 100, T = 100 n, 10 runs, eps0 = 0.1, delta = 1e-7, Gaussian, known view).
// Times are the median and min of R calls of netdp::walk_sim (graph generation excluded); steps/s = R T /
// median.
#include <omp.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>

#include "bench_common.hpp"
#include "netdp/graph_generators.hpp"
#include "netdp/walk_sim.hpp"

namespace {

void run_case(const char* name, const netdp::WalkModel& m, const netdp::WalkSimParams& p, int repeats) {
  double checksum = 0;
  auto t = netdp::bench::time_runs(repeats, [&](netdp::LossRowSink&) {
    const netdp::WalkSimResult r = netdp::walk_sim(m, p);
    checksum = double(r.return_times.sum) + r.network.mean();
  });
  const double positions = double(p.steps) * double(p.runs);
  std::printf("%s,%d,%lld,%lld,%lld,%s,%d,%.4f,%.4f,%.4g,%d,%.10g\n", name, m.n,
              static_cast<long long>(m.edges), static_cast<long long>(p.steps),
              static_cast<long long>(p.runs), p.accounting ? "yes" : "no", omp_get_max_threads(), t.median,
              t.min, positions / t.median, repeats, checksum);
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  int repeats = 5, er_nodes = 1'000'000;
  bool quick = false;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--repeats")) repeats = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--er-nodes")) er_nodes = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--quick")) quick = std::atoi(argv[i + 1]) != 0;
  }
  const std::int64_t scale = quick ? 10 : 1;
  std::printf("case,n,edges,steps,runs,accounting,threads,median_s,min_s,steps_per_s,repeats,checksum\n");

  netdp::WalkSimParams plain;
  plain.accounting = false;
  plain.runs = 2 * omp_get_max_threads();
  plain.steps = 100'000'000 / scale;
  run_case("complete-plain", netdp::complete_walk(100), plain, repeats);
  run_case("complete-plain", netdp::complete_walk(10'000), plain, repeats);

  const auto generated = std::chrono::steady_clock::now();
  const netdp::Graph g = netdp::erdos_renyi_graph(er_nodes, 1.5 * std::log(double(er_nodes)) / er_nodes, 1);
  std::fprintf(stderr, "ER graph: %d nodes, %lld edges in %.1f s\n", g.n,
               static_cast<long long>(g.num_edges()),
               std::chrono::duration<double>(std::chrono::steady_clock::now() - generated).count());
  const netdp::WalkModel er = netdp::csr_walk(g, netdp::parse_walk_weights("uniform"));
  plain.steps = 20'000'000 / scale;
  run_case("er-csr-uniform-plain", er, plain, repeats);
  const netdp::WalkModel er_metropolis = netdp::csr_walk(g, netdp::parse_walk_weights("metropolis"));
  run_case("er-csr-metropolis-plain", er_metropolis, plain, repeats);

  netdp::WalkSimParams figure;  // Fig. 7.1b: n = 100, T = 100 n, 10 runs (MATH_SPEC 4.1.3, E2)
  figure.steps = 10'000;
  figure.runs = 10;
  figure.seed = 1;
  run_case("fig7.1b-accounted", netdp::complete_walk(100), figure, repeats);
  figure.mechanism = netdp::WalkMechanism::histogram;
  run_case("fig-d1-histogram-accounted", netdp::complete_walk(100), figure, repeats);
  return 0;
}
