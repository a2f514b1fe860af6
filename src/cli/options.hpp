#pragma once
// Option groups shared by several subcommands (each fills a library struct; main parses and dispatches).
#include <functional>
#include <string>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "netdp/gossip_loss_job.hpp"

namespace netdp::cli {

/// A registered subcommand and what it runs once the command line parsed (returns the exit code).
struct Command {
  CLI::App* app;
  std::function<int()> run;
};

/// --graph SPEC (required) and --weights W.
void add_graph_options(CLI::App& command, std::string& graph, std::string& weights);

/// The gossip accountant's options; `steps` holds "auto" or a number until resolved by fill_gossip_job.
struct GossipOptions {
  std::string graph, weights = "metropolis", steps = "auto", cap = "ldp", device = "auto",
                     propagation = "auto", gap = "second", out;
  double alpha = 2.0, sigma = 1.0, sensitivity = 1.0;
  int t_start = 0, threads = 0;
  long long source = -1, tile_sources = 0;
  double memory_limit_gib = 0;
  bool quiet = false;
};
void add_gossip_options(CLI::App& command, GossipOptions& o);
GossipLossJob make_gossip_job(const GossipOptions& o, const nlohmann::json& invocation);

/// The command line as a JSON array, for manifests.
nlohmann::json invocation_json(int argc, char** argv);

Command add_graph_command(CLI::App& app, const nlohmann::json& invocation);
Command add_gossip_loss_command(CLI::App& app, const nlohmann::json& invocation);
Command add_demo_command(CLI::App& app, const nlohmann::json& invocation);

}  // namespace netdp::cli
