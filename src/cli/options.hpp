#pragma once
// The command line's pieces (the only user of CLI11): the model subcommands, built from the registry, and the
// hand-written `demo`, `run`, `merge` and `plot`; main parses and dispatches.
#include <functional>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

namespace netdp::cli {

/// A registered subcommand and what it runs once the command line parsed (returns the exit code).
struct Command {
  CLI::App* app;
  std::function<int()> run;
};

/// One subcommand per model of the registry (netdp/jobs/model.hpp), "bound X" nested under `bound`.
std::vector<Command> add_model_commands(CLI::App& app, const nlohmann::json& invocation);

/// The command line as a JSON array, for manifests.
nlohmann::json invocation_json(int argc, char** argv);

Command add_demo_command(CLI::App& app, const nlohmann::json& invocation);
Command add_run_command(CLI::App& app, const nlohmann::json& invocation);
Command add_merge_command(CLI::App& app, const nlohmann::json& invocation);
/// `netdp plot DIR`: runs the Python package's netdp.plot (docs/plot.md).
Command add_plot_command(CLI::App& app);

}  // namespace netdp::cli
