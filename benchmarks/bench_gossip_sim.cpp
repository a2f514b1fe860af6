// Benchmark: the batched gossip simulator (docs/math.md §6.2, Alg 6.1 without acceleration), sync protocol, on
// Erdos-Renyi (c = 1) and hypercube graphs, in runs x nodes x rounds per second.
// Usage: bench_gossip_sim [--device cpu|cuda] [--sizes 2048,65536] [--dims 1,64] [--steps T] [--seconds S]
//                         [--repeats K] [--sigma S] [--stream-mib M]
// R is calibrated so that one call of netdp::gossip_sim (all R runs) takes about S seconds. Only t = 0 and T
// are recorded (--record-every T), so the time is the noise draw, T propagation steps and two error sums.
// Prints one CSV line per (graph, n, D) with the median and min of K timed calls, and the memory-bandwidth
// floor of the propagation (docs/gossip_sim.md): per step and batch, W's CSR once (12 nnz + 8 (n + 1)
// bytes) and the n x (D B) state read and written (16 n D B bytes), at the copy bandwidth measured first
// (all CPU threads, or a device-to-device copy on CUDA).
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "bench_common.hpp"
#include "netdp/core/device.hpp"
#include "netdp/core/graph_generators.hpp"
#include "netdp/core/weighting.hpp"
#include "netdp/simulation/gossip_sim.hpp"

namespace {

/// STREAM-like copy with all threads: bytes read + written per second (best of 5).
double copy_bandwidth(std::size_t mib) {
  const std::size_t count = mib * (1 << 20) / sizeof(double);
  std::vector<double> a(count, 1.0), b(count, 0.0);
  double best = 0;
  for (int rep = 0; rep < 5; ++rep) {
    const auto start = std::chrono::steady_clock::now();
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < static_cast<std::int64_t>(count); ++i) b[i] = a[i];
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    best = std::max(best, 2.0 * double(count) * sizeof(double) / s);
    a[rep] = b[count - 1 - rep];  // keep the copies observable
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> sizes = {2048, 65536}, dims = {1, 64};
  int steps = 20, repeats = 3, stream_mib = 512;
  double seconds = 3.0, sigma = 1.0;
  netdp::DeviceSpec device{netdp::DeviceKind::cpu, 0};
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--device")) device = netdp::parse_device_spec(argv[i + 1]);
    if (!std::strcmp(argv[i], "--sizes")) sizes = netdp::bench::parse_sizes(argv[i + 1]);
    if (!std::strcmp(argv[i], "--dims")) dims = netdp::bench::parse_sizes(argv[i + 1]);
    if (!std::strcmp(argv[i], "--steps")) steps = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--repeats")) repeats = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--seconds")) seconds = std::atof(argv[i + 1]);
    if (!std::strcmp(argv[i], "--sigma")) sigma = std::atof(argv[i + 1]);
    if (!std::strcmp(argv[i], "--stream-mib")) stream_mib = std::atoi(argv[i + 1]);
  }
  const bool gpu = device.kind == netdp::DeviceKind::cuda;
  if (gpu && device.index >= netdp::cuda_device_count()) {
    std::fprintf(stderr, "no CUDA device %d answers on this machine\n", device.index);
    return 2;
  }
  const auto stream_bytes = static_cast<std::size_t>(stream_mib) << 20;
  const double bandwidth = gpu ? netdp::cuda_copy_bandwidth(device.index, stream_bytes)
                               : copy_bandwidth(static_cast<std::size_t>(stream_mib));
  std::printf("# copy bandwidth (%d MiB arrays, %s): %.2f GB/s read + written\n", stream_mib,
              gpu ? netdp::resolve_device(device).name.c_str()
                  : (std::to_string(omp_get_max_threads()) + " threads").c_str(),
              bandwidth / 1e9);
  std::printf(
      "graph,n,nnz,steps,dim,runs,batch_runs,device,threads,median_s,min_s,runs_nodes_rounds_per_s,"
      "columns_nodes_rounds_per_s,floor_s,median_over_floor\n");
  for (const char* family : {"er", "hypercube"}) {
    for (int n : sizes) {
      const netdp::Graph g =
          std::strcmp(family, "er") == 0
              ? netdp::erdos_renyi_graph(n, std::log(double(n)) / n, 1)
              : netdp::hypercube_graph(static_cast<int>(std::lround(std::log2(double(n)))));
      const auto w = netdp::gossip_matrix(g, netdp::Weighting::metropolis);
      for (int dim : dims) {
        netdp::GossipSimParams p;
        p.protocol = netdp::GossipProtocol::sync;
        p.steps = steps;
        p.record_every = steps;
        p.dim = dim;
        p.sigma = sigma;
        p.seed = 1;
        p.device = device;
        const std::vector<double> x(static_cast<std::size_t>(g.n) * dim, 0.0);
        // Calibrate R: start with 16 columns per thread, grow until a call takes a third of the target, then
        // scale to the target time.
        p.runs = std::max<std::int64_t>(1, 16 * omp_get_max_threads() / dim);
        double probe = 0;
        for (;;) {
          const auto start = std::chrono::steady_clock::now();
          netdp::gossip_sim(g, w, x, p);
          probe = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
          if (probe >= seconds / 3) break;
          p.runs *= std::clamp<std::int64_t>(std::llround(seconds / 3 / std::max(probe, 1e-3)), 2, 16);
        }
        p.runs = std::max<std::int64_t>(1, std::llround(double(p.runs) * seconds / probe));
        netdp::GossipSimResult last;
        const auto t = netdp::bench::time_runs(
            repeats, [&](netdp::LossRowSink&) { last = netdp::gossip_sim(g, w, x, p); });
        const double work = double(p.runs) * g.n * steps;
        const double csr = 12.0 * double(w.nnz()) + 8.0 * (g.n + 1);
        const double bytes = steps * (double(last.batches) * csr + 16.0 * g.n * dim * double(p.runs));
        const double floor = bytes / bandwidth;
        std::printf("%s,%d,%lld,%d,%d,%lld,%lld,%s,%d,%.4f,%.4f,%.4g,%.4g,%.4f,%.2f\n", family, g.n,
                    static_cast<long long>(w.nnz()), steps, dim, static_cast<long long>(p.runs),
                    static_cast<long long>(last.batch_runs), gpu ? "cuda" : "cpu", omp_get_max_threads(),
                    t.median, t.min, work / t.median, work * dim / t.median, floor, t.median / floor);
        std::fflush(stdout);
      }
    }
  }
  return 0;
}
