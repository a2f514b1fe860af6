// Benchmark: all-pairs gossip loss (docs/math.md §6.2) on Erdos-Renyi (c = 1) and hypercube graphs.
// Usage: bench_gossip_loss [--device cpu|cuda] [--sizes 256,1024,...] [--repeats R] [--steps T]
// Prints one CSV line per (graph, n): the median and min of R timed runs of netdp::gossip_loss with a sink
// that only checksums the rows (no disk I/O), T = T_stop unless --steps is given.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "bench_common.hpp"
#include "netdp/accounting/gossip_loss.hpp"
#include "netdp/core/graph_generators.hpp"
#include "netdp/core/spectral.hpp"
#include "netdp/core/weighting.hpp"

int main(int argc, char** argv) {
  std::string device = "cpu";
  std::vector<int> sizes = {256, 1024, 2048, 4096, 8192};
  int repeats = 5, steps = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--device")) device = argv[i + 1];
    if (!std::strcmp(argv[i], "--sizes")) sizes = netdp::bench::parse_sizes(argv[i + 1]);
    if (!std::strcmp(argv[i], "--repeats")) repeats = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--steps")) steps = std::atoi(argv[i + 1]);
  }
  std::printf("graph,n,edges,steps,device,threads,median_s,min_s,repeats,checksum\n");
  for (const char* family : {"er", "hypercube"}) {
    for (int n : sizes) {
      netdp::Graph g = std::strcmp(family, "er") == 0
                           ? netdp::erdos_renyi_graph(n, std::log(double(n)) / n, 1)
                           : netdp::hypercube_graph(static_cast<int>(std::lround(std::log2(double(n)))));
      auto w = netdp::gossip_matrix(g, netdp::Weighting::metropolis);
      netdp::GossipLossParams p;
      p.device = netdp::parse_device_spec(device);
      p.steps = steps > 0 ? steps
                          : netdp::muffliato_stopping_time(
                                g.n, p.sigma, netdp::spectral_summary(w).gap(netdp::GapDefinition::second));
      auto t = netdp::bench::time_runs(repeats,
                                       [&](netdp::LossRowSink& sink) { netdp::gossip_loss(g, w, p, sink); });
      std::printf("%s,%d,%lld,%d,%s,%d,%.4f,%.4f,%d,%.10g\n", family, g.n,
                  static_cast<long long>(g.num_edges()), p.steps, device.c_str(), omp_get_max_threads(),
                  t.median, t.min, repeats, t.checksum);
      std::fflush(stdout);
    }
  }
  return 0;
}
