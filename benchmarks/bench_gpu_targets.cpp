// Benchmark: the target case of each CUDA engine, measured beside the model of docs/cuda_backend.md
// ("The GPU check" lists the cases and where each model comes from). Usage: bench_gpu_targets
// [--case NAME|all] [--device cpu|cuda[:N]] [--repeats R] [--tiny] [--list]. One CSV line per case: the
// median of R timed calls, the figure (steps/s or modelled bytes/s), the model's figure and figure / model.
// --tiny shrinks every case to milliseconds (the GPU check's dry run, the tests); on the CPU the figures are
// the CPU's (the models are a GPU's). The losses go to a sink that touches one value per chunk, so the host
// does not bound the time. Exit 2 on a bad argument or a CUDA device that does not answer (with the reason).
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "netdp/accounting/gossip_loss.hpp"
#include "netdp/accounting/walk_loss.hpp"
#include "netdp/core/device.hpp"
#include "netdp/core/graph.hpp"
#include "netdp/core/graph_generators.hpp"
#include "netdp/core/spectral.hpp"
#include "netdp/core/weighting.hpp"
#include "netdp/simulation/gossip_sim.hpp"
#include "netdp/simulation/walk_sim.hpp"
#include "walk_sim_kernels.hpp"

namespace {

using netdp::DeviceKind;

struct Options {
  netdp::DeviceSpec device{DeviceKind::cpu, 0};
  int repeats = 1;
  bool tiny = false;
};

/// What a case reports: the work done per call (positions walked, or modelled device bytes) and the model's
/// figure in the same unit per second.
struct Outcome {
  double work = 0, model = 0;
  std::string engine, size;
};

class TouchSink : public netdp::LossRowSink {
 public:
  void consume(netdp::node_t, netdp::node_t, std::span<const double> rows) override {
    if (!rows.empty()) touched += rows.front();
  }
  double touched = 0;
};

double seconds_of(const std::function<void()>& call, int repeats) {
  std::vector<double> s;
  for (int r = 0; r < repeats; ++r) {
    const auto start = std::chrono::steady_clock::now();
    call();
    s.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(s.begin(), s.end());
  return s[s.size() / 2];
}

/// Plain walks of the stepping mode: on CUDA the engine itself (walk_steps_cuda, no visit totals: the mode
/// the model describes), on the CPU walk_sim's visits mode. Engine set-up is not timed.
double stepping(const netdp::WalkModel& m, std::int64_t runs, std::int64_t steps, const Options& o) {
  if (o.device.kind == DeviceKind::cpu) {
    netdp::WalkSimParams p;
    p.runs = runs;
    p.steps = steps;
    p.accounting = false;
    p.statistics = netdp::WalkStatistics::visits;
    p.device = o.device;
    return seconds_of([&] { (void)netdp::walk_sim(m, p); }, o.repeats);
  }
  const netdp::kernels::WalkTables tables{m.kind, m.n, m.offsets, m.targets, m.thresholds};
  netdp::kernels::WalkRunSpec spec;
  spec.seed = 1;
  spec.steps = steps;
  spec.runs = runs;
  const auto engine =
      netdp::kernels::walk_steps_cuda(tables, spec, netdp::resolve_device(o.device).index, false);
  const std::int64_t batch = engine->plan().batch_runs;
  return seconds_of(
      [&] {
        for (std::int64_t first = 0; first < runs; first += batch)
          (void)engine->run_batch(first, std::min(batch, runs - first), {});
      },
      o.repeats);
}

std::string stepping_engine(const Options& o) {
  return o.device.kind == DeviceKind::cpu ? "cpu visits" : "stepping";
}

// The cases: docs/cuda_backend.md "Walk engine for throughput" (walks), "Gossip-loss: source tiles of 32",
// "Chebyshev solver on the GPU", "Gossip-sim, fixed W (sync, accelerated)".
Outcome stepping_er(const Options& o, double& seconds) {
  const netdp::node_t n = o.tiny ? 4096 : 10'000'000;
  const std::int64_t runs = o.tiny ? 256 : std::int64_t{1} << 20, steps = o.tiny ? 1000 : 10'000;
  // Mean degree 18 (about 16, the model's; 1e7 e^-18 = 0.15 isolated nodes expected): the first connected
  // seed.
  netdp::Graph g;
  for (std::uint64_t seed = 1; seed == 1 || !netdp::is_connected(g); ++seed)
    g = netdp::erdos_renyi_graph(n, 18.0 / n, seed);
  const netdp::WalkModel m = netdp::csr_walk(g, netdp::parse_walk_weights("uniform"));
  seconds = stepping(m, runs, steps, o);
  return {double(runs) * steps, 1e10, stepping_engine(o), "er n=" + std::to_string(n) + " d=18"};
}

Outcome stepping_complete(const Options& o, double& seconds) {
  const std::int64_t runs = o.tiny ? 256 : std::int64_t{1} << 20, steps = o.tiny ? 1000 : 100'000;
  seconds = stepping(netdp::complete_walk(1000), runs, steps, o);
  return {double(runs) * steps, 1.2e11, stepping_engine(o), "complete n=1000"};
}

Outcome statistics_complete(const Options& o, double& seconds) {
  netdp::WalkSimParams p;
  p.runs = o.tiny ? 64 : std::int64_t{1} << 17;
  p.steps = o.tiny ? 1000 : 100'000;
  p.accounting = false;
  p.device = o.device;
  const netdp::WalkModel m = netdp::complete_walk(64);
  seconds = seconds_of([&] { (void)netdp::walk_sim(m, p); }, o.repeats);
  return {double(p.runs) * p.steps, 5e10, "statistics", "complete n=64"};
}

Outcome gossip_loss_hypercube(const Options& o, double& seconds) {
  const int dim = o.tiny ? 8 : 16;
  const netdp::Graph g = netdp::hypercube_graph(dim);
  const netdp::CsrMatrix w = netdp::gossip_matrix(g, netdp::Weighting::metropolis);
  netdp::GossipLossParams p;
  p.steps = 33;
  p.device = o.device;
  TouchSink sink;
  seconds = seconds_of([&] { netdp::gossip_loss(g, w, p, sink); }, o.repeats);
  // Per power and tile of 32 sources: pass 1 (12 d + 8) n + 16 n b + 16 n, pass 2 (12 d + 8) n + 32 n b.
  const double n = g.n, d = double(w.nnz()) / n, b = 32, tiles = std::ceil(n / b);
  const double bytes = p.steps * tiles * (2 * (12 * d + 8) * n + 48 * n * b + 16 * n);
  // The model: 8.8 TB at n = 65,536 in about 7 s (the gathers' L2 bandwidth bounds it).
  return {bytes, 1.25e12, "gossip-loss", "hypercube n=" + std::to_string(g.n) + " T=33"};
}

Outcome walk_loss_chebyshev(const Options& o, double& seconds) {
  const netdp::node_t n = o.tiny ? 256 : 16'384;
  const netdp::Graph g = netdp::erdos_renyi_graph(n, 1.2 * std::log(double(n)) / n, 1);
  const netdp::CsrMatrix w = netdp::gossip_matrix(g, netdp::Weighting::metropolis);
  const netdp::SpectralSummary spectrum = netdp::spectral_summary(w);
  netdp::WalkLossParams p;
  p.solver = netdp::parse_walk_loss_solver("chebyshev");
  p.steps = netdp::random_walk_horizon(g.n, 1.0, spectrum.gap(netdp::GapDefinition::second));
  p.lambda_2 = spectrum.lambda_2;
  p.lambda_min = spectrum.lambda_min;
  p.device = o.device;
  TouchSink sink;
  netdp::WalkLossRun run;
  seconds = seconds_of([&] { run = netdp::walk_loss(g, w, p, sink); }, o.repeats);
  const double bytes = 72.0 * double(n) * double(n) * run.degree;  // 72 n bytes per source and degree
  return {bytes, 2.8e12, "walk-loss chebyshev",
          "er n=" + std::to_string(n) + " K=" + std::to_string(run.degree)};
}

Outcome gossip_sim_hypercube(const Options& o, double& seconds) {
  const netdp::Graph g = netdp::hypercube_graph(o.tiny ? 8 : 16);
  const netdp::CsrMatrix w = netdp::gossip_matrix(g, netdp::Weighting::metropolis);
  netdp::GossipSimParams p;
  p.protocol = netdp::GossipProtocol::sync;
  p.steps = 20;
  p.record_every = p.steps;
  p.runs = o.tiny ? 64 : 10'000;
  p.seed = 1;
  p.device = o.device;
  const std::vector<double> x(static_cast<std::size_t>(g.n), 0.0);
  seconds = seconds_of([&] { (void)netdp::gossip_sim(g, w, x, p); }, o.repeats);
  // Node-major step with slabs of 32: W (12 d + 8) n C / 32, X gathered and Y written 16 n C.
  const double n = g.n, d = double(w.nnz()) / n, c = double(p.runs);
  const double bytes = p.steps * ((12 * d + 8) * n * c / 32 + 16 * n * c);
  return {bytes, 3.35e12, "gossip-sim sync",
          "hypercube n=" + std::to_string(g.n) + " runs=" + std::to_string(p.runs)};
}

struct Case {
  const char* name;
  Outcome (*run)(const Options&, double&);
  const char* unit;
};
// Cheapest first: the last case (ER n = 10^7, built on the host) takes whatever time the check has left.
const Case kCases[] = {{"stepping-complete", stepping_complete, "steps/s"},
                       {"statistics-complete", statistics_complete, "steps/s"},
                       {"gossip-sim-hypercube", gossip_sim_hypercube, "B/s"},
                       {"walk-loss-chebyshev", walk_loss_chebyshev, "B/s"},
                       {"gossip-loss-hypercube", gossip_loss_hypercube, "B/s"},
                       {"stepping-er", stepping_er, "steps/s"}};

int usage(const std::string& why) {
  std::fprintf(stderr,
               "bench_gpu_targets: %s\nusage: bench_gpu_targets [--case NAME|all] [--device cpu|cuda[:N]] "
               "[--repeats R] [--tiny] [--list]\n",
               why.c_str());
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  std::string only = "all";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--tiny") {
      o.tiny = true;
    } else if (a == "--list") {
      for (const Case& c : kCases) std::printf("%s\n", c.name);
      return 0;
    } else if (i + 1 < argc && (a == "--case" || a == "--device" || a == "--repeats")) {
      const std::string v = argv[++i];
      if (a == "--case") only = v;
      if (a == "--repeats") o.repeats = std::atoi(v.c_str());
      if (a == "--device") {
        try {
          o.device = netdp::parse_device_spec(v);
        } catch (const std::exception& e) {
          return usage(e.what());
        }
      }
    } else {
      return usage("unknown or incomplete argument '" + a + "'");
    }
  }
  if (o.repeats < 1) return usage("--repeats must be >= 1");
  if (only != "all" &&
      std::none_of(std::begin(kCases), std::end(kCases), [&](const Case& c) { return only == c.name; }))
    return usage("no case '" + only + "' (--list names them)");
  try {  // auto: a CUDA device when one answers; cuda without one: its reason (docs/cuda_loader.md)
    const netdp::ResolvedDevice resolved = netdp::resolve_device(o.device);
    o.device = {resolved.kind, resolved.index};
  } catch (const std::exception& e) {
    return usage(e.what());
  }
  std::printf("case,engine,size,device,threads,repeats,seconds,work,figure,unit,model,ratio\n");
  for (const Case& c : kCases) {
    if (only != "all" && only != c.name) continue;
    double seconds = 0;
    const Outcome out = c.run(o, seconds);
    const double figure = out.work / seconds;
    std::printf("%s,%s,%s,%s,%d,%d,%.4g,%.4g,%.4g,%s,%.4g,%.4g\n", c.name, out.engine.c_str(),
                out.size.c_str(), o.device.kind == DeviceKind::cuda ? "cuda" : "cpu", omp_get_max_threads(),
                o.repeats, seconds, out.work, figure, c.unit, out.model, figure / out.model);
    std::fflush(stdout);
  }
  return 0;
}
