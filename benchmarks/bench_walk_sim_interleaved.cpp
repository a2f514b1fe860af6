// Benchmark: interleaved CPU walks (docs/walk_sim.md "Interleaved CPU walks"). Usage:
//   bench_walk_sim_interleaved [--repeats R] [--er-nodes N] [--runs R] [--steps T] [--lanes K1,K2,...]
// Prints one CSV line per case, every case in the same run:
//  * `plain-loop`: a plain one-walk-per-thread loop written here, the baseline: OpenMP over the R walks, per
//    position kernels::walk::next_node (the engine's own rule, same words) and a per-thread visit count;
//  * `netdp-lanes-K`: netdp::walk_sim (plain walks: visit, return-time and hitting-time statistics) with
//    walks_in_flight = K for every K of --lanes (default 1,8,16,32,0; 1 = one walk at a time per thread, the
//    engine before interleaving; 0 = automatic, reported as the K it chose);
// on the uniform and the Metropolis walk of ER(N, 1.5 ln N / N, seed 1) (default N = 10^6, R = 32 per
// thread, T = 10^6), then on the implicit complete graph (n = 100 and 10^4, 4 walks per thread, T = 5 10^7 /
// (walks)) where the engine keeps one walk at a time (no dependent loads to hide). Times are the median and
// min of R calls; steps/s = R T / median; speedup = the plain loop's median / this median (ER cases).
// Every row of one graph has the same checksum (total visits of node 0 and return-time sum): the same walks.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "bench_common.hpp"
#include "common/walk_sim_bodies.hpp"
#include "netdp/core/graph_generators.hpp"
#include "netdp/core/philox.hpp"
#include "netdp/simulation/walk_sim.hpp"

namespace {

using netdp::node_t;

// The baseline: each thread runs whole walks one after the other, one dependent lookup chain at a time.
template <netdp::WalkKind kKind>
double plain_loop(const netdp::WalkModel& m, const netdp::WalkSimParams& p) {
  const netdp::kernels::walk::ModelView view{m.n, m.offsets.data(), m.targets.data(), m.thresholds.data()};
  std::vector<std::int64_t> visits0(static_cast<std::size_t>(omp_get_max_threads()), 0);
#pragma omp parallel
  {
    std::vector<std::int64_t> visits(static_cast<std::size_t>(m.n), 0);
#pragma omp for schedule(dynamic, 1)
    for (std::int64_t run = 0; run < p.runs; ++run) {
      netdp::PhiloxStream words(
          p.seed, netdp::walk_subsequence(netdp::WalkStream::walk, static_cast<std::uint64_t>(run)));
      const netdp::kernels::walk::Retry retry{p.seed, static_cast<std::uint64_t>(run)};
      node_t v = netdp::walk_start(m, p, run);
      ++visits[v];
      for (std::int64_t t = 1; t < p.steps; ++t) {
        v = netdp::kernels::walk::next_node<kKind>(view, v, words, retry, t);
        ++visits[v];
      }
    }
    visits0[static_cast<std::size_t>(omp_get_thread_num())] = visits[0];
  }
  double total = 0;
  for (std::int64_t c : visits0) total += double(c);
  return total;
}

struct Row {
  double median = 0;
};

Row print(const char* graph, const std::string& variant, const netdp::WalkModel& m,
          const netdp::WalkSimParams& p, const netdp::bench::Timing& t, double baseline, double checksum) {
  const double positions = double(p.steps) * double(p.runs);
  std::printf("%s,%s,%d,%lld,%lld,%lld,%d,%.4f,%.4f,%.4g,%.2f,%.10g\n", graph, variant.c_str(), m.n,
              static_cast<long long>(m.edges), static_cast<long long>(p.steps),
              static_cast<long long>(p.runs), omp_get_max_threads(), t.median, t.min, positions / t.median,
              baseline > 0 ? baseline / t.median : 0.0, checksum);
  std::fflush(stdout);
  return {t.median};
}

// The netdp rows of one graph: walk_sim with each walks_in_flight of `lanes`.
void netdp_rows(const char* graph, const netdp::WalkModel& m, netdp::WalkSimParams p, int repeats,
                const std::vector<int>& lanes, double baseline) {
  for (int k : lanes) {
    p.walks_in_flight = k;
    double checksum = 0;
    std::int64_t used = 1;
    const netdp::bench::Timing t = netdp::bench::time_runs(repeats, [&](netdp::LossRowSink&) {
      const netdp::WalkSimResult r = netdp::walk_sim(m, p);
      checksum = double(r.visits[0]);
      used = r.walks_in_flight;
    });
    const std::string variant = "netdp-lanes-" + std::to_string(used) + (k == 0 ? "-auto" : "");
    print(graph, variant, m, p, t, baseline, checksum);
  }
}

}  // namespace

int main(int argc, char** argv) {
  int repeats = 3, er_nodes = 1'000'000;
  const int threads = omp_get_max_threads();
  std::int64_t runs = 32 * std::int64_t{threads}, steps = 1'000'000;
  std::vector<int> lanes{1, 8, 16, 32, 0};
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--repeats")) repeats = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--er-nodes")) er_nodes = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--runs")) runs = std::atoll(argv[i + 1]);
    if (!std::strcmp(argv[i], "--steps")) steps = std::atoll(argv[i + 1]);
    if (!std::strcmp(argv[i], "--lanes")) lanes = netdp::bench::parse_sizes(argv[i + 1]);
  }
  if (repeats < 1 || er_nodes < 2 || runs < 1 || steps < 1 || lanes.empty()) {
    std::fprintf(stderr, "bench_walk_sim_interleaved: --repeats, --er-nodes (>= 2), --runs, --steps >= 1\n");
    return 2;
  }
  std::printf(
      "graph,variant,n,edges,steps,runs,threads,median_s,min_s,steps_per_s,speedup_vs_plain_loop,"
      "checksum\n");

  const auto generated = std::chrono::steady_clock::now();
  const netdp::Graph g = netdp::erdos_renyi_graph(er_nodes, 1.5 * std::log(double(er_nodes)) / er_nodes, 1);
  std::fprintf(stderr, "ER graph: %d nodes, %lld edges in %.1f s\n", g.n,
               static_cast<long long>(g.num_edges()),
               std::chrono::duration<double>(std::chrono::steady_clock::now() - generated).count());
  netdp::WalkSimParams p;
  p.accounting = false;
  p.device = {netdp::DeviceKind::cpu, 0};
  p.runs = runs;
  p.steps = steps;
  p.seed = 1;
  for (const char* rule : {"uniform", "metropolis"}) {
    const netdp::WalkModel m = netdp::csr_walk(g, netdp::parse_walk_weights(rule));
    const std::string graph = std::string("er-") + rule;
    double checksum = 0;
    const netdp::bench::Timing loop = netdp::bench::time_runs(repeats, [&](netdp::LossRowSink&) {
      checksum = m.kind == netdp::WalkKind::uniform ? plain_loop<netdp::WalkKind::uniform>(m, p)
                                                    : plain_loop<netdp::WalkKind::weighted>(m, p);
    });
    const Row base = print(graph.c_str(), "plain-loop", m, p, loop, loop.median, checksum);
    netdp_rows(graph.c_str(), m, p, repeats, lanes, base.median);
  }

  p.runs = 4 * std::int64_t{threads};
  p.steps = 50'000'000 / p.runs;
  for (node_t n : {100, 10'000}) {
    const std::string graph = "complete-" + std::to_string(n);
    netdp_rows(graph.c_str(), netdp::complete_walk(n), p, repeats, {1, 0}, 0.0);
  }
  return 0;
}
