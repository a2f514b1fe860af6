// Benchmark: all-pairs random-walk loss (docs/math.md §5.3, Thm 7.7 closed form) end to end, by solver
// (docs/walk_loss.md "Solvers"), against NumPy's eigh + GEMM path measured in the same run.
// Usage: bench_walk_loss_scaling [--graph er|hypercube|rgg] [--sizes 1024,2048] [--solver
// auto|eigen|chebyshev] [--steps T (0 = T_RW)] [--repeats R] [--numpy SCRIPT|none] [--device cpu|cuda]
// (run from the source root: SCRIPT defaults to benchmarks/walk_loss_numpy.py)
// One CSV line per n: end-to-end median and min of R runs (graph, metropolis W, Lanczos spectrum, walk_loss
// into a checksum sink: no disk I/O), the process CPU seconds per run (both threads together) and the
// 1-minute load average before the runs (the machine is shared), the solver, its degree and error bound,
// and NumPy's seconds and checksum (benchmarks/walk_loss_numpy.py with /usr/bin/python3, eigh + GEMM,
// loading not timed) unless --numpy none. Writing the n^2 losses is measured apart, with the CLI
// (benchmarks/RESULTS.md).
#include <omp.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <string>

#include "bench_common.hpp"
#include "netdp/accounting/walk_loss.hpp"
#include "netdp/core/graph_generators.hpp"
#include "netdp/core/spectral.hpp"
#include "netdp/core/weighting.hpp"

namespace {

netdp::Graph make_graph(const std::string& kind, int n) {
  if (kind == "hypercube") return netdp::hypercube_graph(static_cast<int>(std::lround(std::log2(double(n)))));
  if (kind == "rgg") {
    // Radius twice the connectivity threshold sqrt(ln n / (pi n)): a small gap; the first connected seed.
    const double radius = 2.0 * std::sqrt(std::log(double(n)) / (3.14159265358979 * n));
    for (std::uint64_t seed = 1;; ++seed) {
      netdp::Graph g = netdp::random_geometric_graph(n, radius, seed);
      netdp::node_t components = 0;
      netdp::connected_components(g, &components);
      if (components == 1) return g;
    }
  }
  return netdp::erdos_renyi_graph(n, 1.2 * std::log(double(n)) / n, 1);
}

double process_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

double load_average() {
  double load = -1;
  if (FILE* f = std::fopen("/proc/loadavg", "r")) {
    if (std::fscanf(f, "%lf", &load) != 1) load = -1;
    std::fclose(f);
  }
  return load;
}

}  // namespace

int main(int argc, char** argv) {
  std::string kind = "er", solver = "auto", script = "benchmarks/walk_loss_numpy.py", device = "cpu";
  std::vector<int> sizes = {1024, 2048};
  int repeats = 3, fixed_steps = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--graph")) kind = argv[i + 1];
    if (!std::strcmp(argv[i], "--sizes")) sizes = netdp::bench::parse_sizes(argv[i + 1]);
    if (!std::strcmp(argv[i], "--solver")) solver = argv[i + 1];
    if (!std::strcmp(argv[i], "--steps")) fixed_steps = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--repeats")) repeats = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--numpy")) script = argv[i + 1];
    if (!std::strcmp(argv[i], "--device")) device = argv[i + 1];
  }
  std::printf(
      "graph,n,edges,steps,gap,solver,degree,error_bound,threads,median_s,min_s,cpu_s,load,repeats,checksum,"
      "numpy_s,numpy_checksum\n");
  for (int n : sizes) {
    netdp::WalkLossParams p;
    p.device = netdp::parse_device_spec(device);
    p.solver = netdp::parse_walk_loss_solver(solver);
    netdp::WalkLossRun run;
    netdp::Graph g;
    netdp::CsrMatrix w;
    double gap = 0;
    const double load = load_average(), cpu_started = process_cpu_seconds();
    auto t = netdp::bench::time_runs(repeats, [&](netdp::LossRowSink& sink) {
      g = make_graph(kind, n);
      w = netdp::gossip_matrix(g, netdp::Weighting::metropolis);
      const netdp::SpectralSummary spectrum = netdp::spectral_summary(w);
      gap = spectrum.gap(netdp::GapDefinition::second);
      p.steps = fixed_steps > 0 ? fixed_steps : netdp::random_walk_horizon(g.n, 1.0, gap);
      p.lambda_2 = spectrum.lambda_2;
      p.lambda_min = spectrum.lambda_min;
      run = netdp::walk_loss(g, w, p, sink);
    });
    const double cpu_seconds = (process_cpu_seconds() - cpu_started) / repeats;
    double numpy_seconds = 0, numpy_checksum = 0;
    if (script != "none") {
      const std::string file = "/tmp/netdp_bench_walk_w.txt";
      {
        std::ofstream out(file);
        out.precision(17);
        for (netdp::node_t i = 0; i < w.n; ++i)
          for (auto k = w.offsets[i]; k < w.offsets[i + 1]; ++k)
            out << i << ' ' << w.columns[k] << ' ' << w.values[k] << '\n';
      }
      const std::string command =
          "/usr/bin/python3 " + script + " " + file + " " + std::to_string(n) + " " + std::to_string(p.steps);
      if (FILE* pipe = popen(command.c_str(), "r")) {
        if (std::fscanf(pipe, "%lf,%lf", &numpy_seconds, &numpy_checksum) != 2) numpy_seconds = -1;
        pclose(pipe);
      }
    }
    std::printf("%s,%d,%lld,%d,%.5g,%s,%d,%.3g,%d,%.4f,%.4f,%.2f,%.1f,%d,%.10g,%.4f,%.10g\n", kind.c_str(),
                g.n, static_cast<long long>(g.num_edges()), p.steps, gap, run.solver.c_str(), run.degree,
                run.error_bound, omp_get_max_threads(), t.median, t.min, cpu_seconds, load, repeats,
                t.checksum, numpy_seconds, numpy_checksum);
    std::fflush(stdout);
  }
  return 0;
}
