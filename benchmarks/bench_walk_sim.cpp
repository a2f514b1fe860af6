// Benchmark: the Monte Carlo walk engine (docs/walk_sim.md). Usage: bench_walk_sim [--device cpu|cuda]
// [--repeats R] [--er-nodes N] [--quick 1]. Prints one CSV line per case: plain walks on the implicit
// complete graph (n = 100 and 10^4), plain uniform and Metropolis walks on a connected Erdos-Renyi CSR graph
// (10^6 nodes, c = 1.5), the accounted Fig. 7.1b / D.1 settings (complete graph, n = 100, T = 100 n, 10 runs,
// eps0 = 0.1, delta = 1e-7, known view), and on CUDA the accounted n = 10^4, T = 100 n, 1000 runs of issue 4.
// Walks per case: 2 per thread on the CPU, 2^16 on CUDA (plain; the memory plan batches them). Times are the
// median and min of R calls of netdp::walk_sim (graph generation excluded); steps/s = R T / median.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>

#include "bench_common.hpp"
#include "netdp/core/device.hpp"
#include "netdp/core/graph_generators.hpp"
#include "netdp/simulation/walk_sim.hpp"

namespace {

void run_case(const char* name, const netdp::WalkModel& m, const netdp::WalkSimParams& p, int repeats) {
  double checksum = 0;
  auto t = netdp::bench::time_runs(repeats, [&](netdp::LossRowSink&) {
    const netdp::WalkSimResult r = netdp::walk_sim(m, p);
    checksum = double(r.return_times.sum) + r.network.mean();
  });
  const double positions = double(p.steps) * double(p.runs);
  std::printf("%s,%d,%lld,%lld,%lld,%s,%s,%d,%.4f,%.4f,%.4g,%d,%.10g\n", name, m.n,
              static_cast<long long>(m.edges), static_cast<long long>(p.steps),
              static_cast<long long>(p.runs), p.accounting ? "yes" : "no",
              p.device.kind == netdp::DeviceKind::cuda ? "cuda" : "cpu", omp_get_max_threads(), t.median,
              t.min, positions / t.median, repeats, checksum);
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  int repeats = 5, er_nodes = 1'000'000;
  bool quick = false;
  netdp::DeviceSpec device{netdp::DeviceKind::cpu, 0};
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--device")) device = netdp::parse_device_spec(argv[i + 1]);
    if (!std::strcmp(argv[i], "--repeats")) repeats = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--er-nodes")) er_nodes = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--quick")) quick = std::atoi(argv[i + 1]) != 0;
  }
  const std::int64_t scale = quick ? 10 : 1;
  const bool gpu = device.kind == netdp::DeviceKind::cuda;
  if (gpu && device.index >= netdp::cuda_device_count()) {
    std::fprintf(stderr, "no CUDA device %d answers on this machine\n", device.index);
    return 2;
  }
  std::printf(
      "case,n,edges,steps,runs,accounting,device,threads,median_s,min_s,steps_per_s,repeats,checksum\n");

  netdp::WalkSimParams plain;
  plain.device = device;
  plain.accounting = false;
  plain.runs = gpu ? std::int64_t{1} << 16 : 2 * omp_get_max_threads();
  plain.steps = (gpu ? 1'000'000 : 100'000'000) / scale;
  run_case("complete-plain", netdp::complete_walk(100), plain, repeats);
  run_case("complete-plain", netdp::complete_walk(10'000), plain, repeats);

  const auto generated = std::chrono::steady_clock::now();
  const netdp::Graph g = netdp::erdos_renyi_graph(er_nodes, 1.5 * std::log(double(er_nodes)) / er_nodes, 1);
  std::fprintf(stderr, "ER graph: %d nodes, %lld edges in %.1f s\n", g.n,
               static_cast<long long>(g.num_edges()),
               std::chrono::duration<double>(std::chrono::steady_clock::now() - generated).count());
  const netdp::WalkModel er = netdp::csr_walk(g, netdp::parse_walk_weights("uniform"));
  plain.steps = (gpu ? 200'000 : 20'000'000) / scale;
  run_case("er-csr-uniform-plain", er, plain, repeats);
  const netdp::WalkModel er_metropolis = netdp::csr_walk(g, netdp::parse_walk_weights("metropolis"));
  run_case("er-csr-metropolis-plain", er_metropolis, plain, repeats);

  netdp::WalkSimParams figure;  // Fig. 7.1b: n = 100, T = 100 n, 10 runs (docs/math.md §4.1.3, E2)
  figure.steps = 10'000;
  figure.runs = 10;
  figure.seed = 1;
  figure.device = device;
  run_case("fig7.1b-accounted", netdp::complete_walk(100), figure, repeats);
  figure.mechanism = netdp::WalkMechanism::histogram;
  run_case("fig-d1-histogram-accounted", netdp::complete_walk(100), figure, repeats);
  if (gpu) {  // issue 4: n = 10^4 with 1000 runs "practical on one GPU"
    netdp::WalkSimParams large = figure;
    large.mechanism = netdp::WalkMechanism::gaussian;
    large.steps = 1'000'000 / scale;
    large.runs = 1000;
    run_case("n1e4-accounted", netdp::complete_walk(10'000), large, std::min(repeats, 3));
  }
  return 0;
}
