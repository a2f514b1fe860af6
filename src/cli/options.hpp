#pragma once
// Option groups shared by several subcommands (each fills a library struct; main parses and dispatches).
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "netdp/jobs/gossip_loss_job.hpp"

namespace netdp::cli {

/// A registered subcommand and what it runs once the command line parsed (returns the exit code).
/// Study models (docs/study.md) write summary.json into --out; `bound` holds one model per subcommand.
struct Command {
  CLI::App* app;
  std::function<int()> run;
  bool study_model = false;
  std::function<void()> check = {};  // the parsed options' checks without running (InvalidInput), if any
};

/// Every subcommand but the study runner's own (`run`, `merge`); main and the study catalog share the list.
std::vector<Command> add_model_commands(CLI::App& app, const nlohmann::json& invocation);

/// The one-line report of a command on stdout; the study runner turns reports off for its units.
void report(const char* format, ...) __attribute__((format(printf, 1, 2)));
void set_reports(bool enabled);

/// --graph SPEC (required) and --weights W.
void add_graph_options(CLI::App& command, std::string& graph, std::string& weights);

/// Options every pairwise-loss command shares; `steps` holds "auto" or a number until parsed.
struct LossOptions {
  std::string graph, weights = "metropolis", steps = "auto", device = "auto", gap = "second", out;
  double alpha = 2.0, sigma = 1.0;
  int threads = 0;
  long long source = -1, tile_sources = 0;
  double memory_limit_gib = 0;
  bool quiet = false, no_matrix = false;
};
/// Registers them; `sigma_help` and `steps_help` say what sigma and auto mean for the model.
void add_loss_options(CLI::App& command, LossOptions& o, const std::string& sigma_help,
                      const std::string& steps_help);

/// The common values, parsed and checked.
struct CommonLossValues {
  bool auto_steps = false;
  int steps = 1;
  std::optional<node_t> source;
  DeviceSpec device;
  std::int64_t memory_limit = 0;
};
CommonLossValues parse_loss_options(const LossOptions& o);

struct GossipOptions : LossOptions {
  std::string cap = "ldp", propagation = "auto";
  double sensitivity = 1.0;
  int t_start = 0;
};
void add_gossip_options(CLI::App& command, GossipOptions& o);
GossipLossJob make_gossip_job(const GossipOptions& o, const nlohmann::json& invocation);

/// The command line as a JSON array, for manifests.
nlohmann::json invocation_json(int argc, char** argv);

Command add_graph_command(CLI::App& app, const nlohmann::json& invocation);
Command add_gossip_loss_command(CLI::App& app, const nlohmann::json& invocation);
Command add_demo_command(CLI::App& app, const nlohmann::json& invocation);
Command add_walk_loss_command(CLI::App& app, const nlohmann::json& invocation);
Command add_gossip_sim_command(CLI::App& app, const nlohmann::json& invocation);
Command add_bound_command(CLI::App& app, const nlohmann::json& invocation);
Command add_walk_sim_command(CLI::App& app, const nlohmann::json& invocation);
Command add_muffliato_gd_command(CLI::App& app, const nlohmann::json& invocation);
Command add_run_command(CLI::App& app, const nlohmann::json& invocation);
Command add_merge_command(CLI::App& app, const nlohmann::json& invocation);

}  // namespace netdp::cli
