// Benchmark: all-pairs random-walk loss (docs/math.md §5.3, Thm 7.7 closed form) on Erdos-Renyi graphs (c = 1.2,
// as thesis Fig. 7.3a), anonymous and sender-known views. Usage: bench_walk_loss [--device cpu|cuda] [--sizes
// 512,1024,2048] [--repeats R] [--method spectral|finite] Prints one CSV line per (n, view): median and min
// of R runs of netdp::walk_loss into a checksum sink, T = T_RW (sigma = 1), and the eigendecomposition time
// of the last run.
#include <omp.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>

#include "bench_common.hpp"
#include "netdp/accounting/walk_loss.hpp"
#include "netdp/core/graph_generators.hpp"
#include "netdp/core/spectral.hpp"
#include "netdp/core/weighting.hpp"

int main(int argc, char** argv) {
  std::string device = "cpu", method = "spectral";
  std::vector<int> sizes = {512, 1024, 2048, 4096};
  int repeats = 3;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--device")) device = argv[i + 1];
    if (!std::strcmp(argv[i], "--sizes")) sizes = netdp::bench::parse_sizes(argv[i + 1]);
    if (!std::strcmp(argv[i], "--repeats")) repeats = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--method")) method = argv[i + 1];
  }
  std::printf("graph,n,edges,steps,method,sender,device,threads,median_s,min_s,eigen_s,repeats,checksum\n");
  for (int n : sizes) {
    netdp::Graph g = netdp::erdos_renyi_graph(n, 1.2 * std::log(double(n)) / n, 1);
    auto w = netdp::gossip_matrix(g, netdp::Weighting::metropolis);
    netdp::WalkLossParams p;
    p.device = netdp::parse_device_spec(device);
    p.method = netdp::parse_walk_loss_method(method);
    p.steps =
        netdp::random_walk_horizon(g.n, 1.0, netdp::spectral_summary(w).gap(netdp::GapDefinition::second));
    for (auto sender : {netdp::SenderView::anonymous, netdp::SenderView::known}) {
      p.sender = sender;
      netdp::WalkLossRun run;
      auto t = netdp::bench::time_runs(
          repeats, [&](netdp::LossRowSink& sink) { run = netdp::walk_loss(g, w, p, sink); });
      std::printf("er-c1.2,%d,%lld,%d,%s,%s,%s,%d,%.4f,%.4f,%.4f,%d,%.10g\n", g.n,
                  static_cast<long long>(g.num_edges()), p.steps, method.c_str(), to_string(sender).c_str(),
                  device.c_str(), omp_get_max_threads(), t.median, t.min, run.eigen_seconds, repeats,
                  t.checksum);
      std::fflush(stdout);
    }
  }
  return 0;
}
