#include "cli/options.hpp"

#include <omp.h>

#include <atomic>
#include <charconv>
#include <cstdarg>
#include <cstdio>

#include "netdp/core/error.hpp"
#include "netdp/core/graph_spec.hpp"

namespace netdp::cli {

namespace {
std::atomic<bool> reports_enabled{true};
}

void report(const char* format, ...) {
  if (!reports_enabled) return;
  va_list args;
  va_start(args, format);
  std::vfprintf(stdout, format, args);
  va_end(args);
}

void set_reports(bool enabled) {
  reports_enabled = enabled;
}

std::vector<Command> add_model_commands(CLI::App& app, const nlohmann::json& invocation) {
  std::vector<Command> commands{
      add_graph_command(app, invocation),        add_gossip_loss_command(app, invocation),
      add_walk_loss_command(app, invocation),    add_demo_command(app, invocation),
      add_bound_command(app, invocation),        add_gossip_sim_command(app, invocation),
      add_muffliato_gd_command(app, invocation), add_walk_sim_command(app, invocation)};
  return commands;
}

void add_graph_options(CLI::App& command, std::string& graph, std::string& weights) {
  command
      .add_option("--graph", graph,
                  "graph spec FAMILY:key=value,... (see docs/graphs.md), e.g. hypercube:dim=11")
      ->required();
  command
      .add_option("--weights", weights,
                  "gossip matrix W: metropolis | hamilton-literal | max-degree | lazy-uniform | file:PATH")
      ->capture_default_str();
}

void add_loss_options(CLI::App& c, LossOptions& o, const std::string& sigma_help,
                      const std::string& steps_help) {
  add_graph_options(c, o.graph, o.weights);
  c.add_option("--alpha", o.alpha, "Renyi order alpha > 1")->capture_default_str();
  c.add_option("--sigma", o.sigma, sigma_help)->capture_default_str();
  c.add_option("--steps", o.steps, steps_help)->capture_default_str();
  c.add_option("--gap", o.gap,
               "spectral gap for --steps auto: second (1 - lambda_2) or abs (min 1 - |lambda|)")
      ->check(CLI::IsMember({"second", "abs"}))
      ->capture_default_str();
  c.add_option("--source", o.source, "compute only the row of this source node u");
  c.add_option("--device", o.device, "auto | cpu | cuda | cuda:N")->capture_default_str();
  c.add_option("--tile-sources", o.tile_sources, "sources per tile (0 = from the memory available)")
      ->capture_default_str();
  c.add_option("--memory-limit", o.memory_limit_gib, "GiB the run may use (0 = what the machine has free)")
      ->capture_default_str();
  c.add_option("--threads", o.threads, "CPU threads (0 = OMP_NUM_THREADS or all cores)")
      ->capture_default_str();
  c.add_option("--out", o.out, "output directory")->required();
  c.add_flag("--quiet", o.quiet, "no progress lines on stderr");
  c.add_flag("--no-matrix", o.no_matrix,
             "do not write loss.npy (by_distance.csv, per_observer.csv and summary.json only: large sweeps)");
}

CommonLossValues parse_loss_options(const LossOptions& o) {
  if (o.threads < 0) throw InvalidInput("--threads must be >= 0");
  if (o.threads > 0) omp_set_num_threads(o.threads);
  CommonLossValues v;
  if (o.steps == "auto") {
    v.auto_steps = true;
  } else {
    auto [end, ec] = std::from_chars(o.steps.data(), o.steps.data() + o.steps.size(), v.steps);
    if (ec != std::errc() || end != o.steps.data() + o.steps.size())
      throw InvalidInput("--steps: expected a positive integer or auto, got '" + o.steps + "'");
  }
  if (o.source < -1 || o.source > 0x7fffffff)
    throw InvalidInput("--source " + std::to_string(o.source) + " is not a node id");
  if (o.source >= 0) v.source = static_cast<node_t>(o.source);
  v.device = parse_device_spec(o.device);
  if (o.tile_sources < 0) throw InvalidInput("--tile-sources must be >= 0");
  if (o.memory_limit_gib < 0) throw InvalidInput("--memory-limit must be >= 0");
  v.memory_limit = static_cast<std::int64_t>(o.memory_limit_gib * double(1LL << 30));
  return v;
}

void add_gossip_options(CLI::App& c, GossipOptions& o) {
  add_loss_options(c, o, "absolute std of the Gaussian noise added once by every node",
                   "gossip rounds T, or auto for the stopping time T_stop (MATH_SPEC 2.3)");
  c.add_option("--sensitivity", o.sensitivity, "l2 sensitivity Delta of a node's value")
      ->capture_default_str();
  c.add_option("--t-start", o.t_start, "first power of W: 0 = Theorem 6.1, 1 = the reference figure code")
      ->capture_default_str();
  c.add_option("--cap", o.cap, "ldp: report min(f, alpha Delta^2/(2 sigma^2)); none: the raw sum")
      ->check(CLI::IsMember({"ldp", "none"}))
      ->capture_default_str();
  c.add_option("--propagation", o.propagation,
               "auto | sparse (SpMM) | dense (GEMM); auto = dense above 25% fill")
      ->check(CLI::IsMember({"auto", "sparse", "dense"}))
      ->capture_default_str();
}

GossipLossJob make_gossip_job(const GossipOptions& o, const nlohmann::json& invocation) {
  const CommonLossValues common = parse_loss_options(o);
  GossipLossJob job;
  job.graph = o.graph;
  job.weights = parse_weights_spec(o.weights);
  job.gap = parse_gap_definition(o.gap);
  job.out_dir = o.out;
  job.progress = !o.quiet;
  job.write_matrix = !o.no_matrix;
  job.invocation = invocation;
  job.auto_steps = common.auto_steps;
  auto& p = job.params;
  p.alpha = o.alpha;
  p.sigma = o.sigma;
  p.sensitivity = o.sensitivity;
  p.steps = common.steps;
  p.t_start = o.t_start;
  p.cap_ldp = o.cap == "ldp";
  p.source = common.source;
  p.device = common.device;
  p.propagation = o.propagation == "dense"    ? Propagation::dense
                  : o.propagation == "sparse" ? Propagation::sparse
                                              : Propagation::automatic;
  p.tile_sources = o.tile_sources;
  p.memory_limit = common.memory_limit;
  return job;
}

nlohmann::json invocation_json(int argc, char** argv) {
  nlohmann::json args = nlohmann::json::array();
  for (int i = 0; i < argc; ++i) args.push_back(argv[i]);
  return args;
}

}  // namespace netdp::cli
