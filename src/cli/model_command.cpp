// The model subcommands, built from the registry (docs/design_models.md): one option per parameter ("--" +
// its name), with the parameter's help, default, choices and type; the values are converted and checked by
// the registry, which names the parameter in its errors (main shows them as "--name: ...").
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <map>
#include <memory>

#include "cli/options.hpp"
#include "netdp/io/results_dir.hpp"
#include "netdp/jobs/model.hpp"

namespace netdp::cli {

namespace {

using jobs::Model;
using jobs::Parameter;
using jobs::ParameterType;

/// "TEXT", "FLOAT", or the choices "{second|abs}" (docs/reliability.md: every command shows choices alike).
std::string type_name(const Parameter& p) {
  std::string name;
  switch (p.type) {
    case ParameterType::integer:
      name = "INT";
      break;
    case ParameterType::natural:
      name = "UINT";
      break;
    case ParameterType::real:
    case ParameterType::reals:
      name = "FLOAT";
      break;
    default:
      name = "TEXT";
  }
  if (!p.choices.empty()) {
    name = "{";
    for (std::size_t i = 0; i < p.choices.size(); ++i) name += (i ? "|" : "") + p.choices[i];
    name += "}";
  }
  return name;
}

CLI::Option* add_parameter(CLI::App& command, const Parameter& p) {
  const std::string flag = "--" + p.name;
  if (p.type == ParameterType::flag) return command.add_flag(flag, p.help);
  CLI::Option* option = command.add_option(flag, p.help);
  option->type_name(type_name(p));
  if (p.default_value)
    option->default_str(p.type == ParameterType::reals ? "[" + *p.default_value + "]" : *p.default_value);
  if (p.required) option->required();
  if (p.type == ParameterType::reals) {
    option->delimiter(',');
    if (p.items)
      option->expected(static_cast<int>(p.items));
    else
      option->expected(1, CLI::detail::expected_max_vector_size);
  }
  return option;
}

/// The values given on the command line, by parameter name.
jobs::Values::TextItems given_values(const Model& model, const std::map<std::string, CLI::Option*>& options) {
  jobs::Values::TextItems given;
  for (const Parameter& p : model.parameters) {
    const CLI::Option* option = options.at(p.name);
    if (option->count() == 0) continue;
    given.emplace_back(p.name,
                       p.type == ParameterType::flag ? std::vector<std::string>{} : option->results());
  }
  return given;
}

// A single command stopped by SIGINT or SIGTERM removes the temporaries it was writing, says so, and dies of
// the signal (exit status 130 / 143 in a shell): nothing it leaves can look complete (docs/reliability.md
// §3).
extern "C" void remove_temporaries_and_die(int signal) {
  remove_temporaries_now();
  static const char message[] = "\nnetdp: interrupted: the temporary files of this run were removed\n";
  [[maybe_unused]] auto written = ::write(2, message, sizeof message - 1);
  std::signal(signal, SIG_DFL);
  std::raise(signal);
}

class CleanupOnSignals {
 public:
  CleanupOnSignals() {
    for (int s : {SIGINT, SIGTERM})
      previous_[s == SIGINT ? 0 : 1] = std::signal(s, remove_temporaries_and_die);
  }
  ~CleanupOnSignals() {
    std::signal(SIGINT, previous_[0]);
    std::signal(SIGTERM, previous_[1]);
  }
  CleanupOnSignals(const CleanupOnSignals&) = delete;
  CleanupOnSignals& operator=(const CleanupOnSignals&) = delete;

 private:
  void (*previous_[2])(int) = {SIG_DFL, SIG_DFL};
};

int run_model(const Model& model, const std::map<std::string, CLI::Option*>& options,
              const nlohmann::json& invocation) {
  const jobs::Values values = jobs::Values::from_text(model, given_values(model, options));
  jobs::RunContext context;
  if (const Parameter* out = model.with_role(jobs::ParameterRole::out_dir))
    context.out_dir = values.text(out->name);
  if (const Parameter* quiet = model.with_role(jobs::ParameterRole::quiet))
    context.quiet = values.flag(quiet->name);
  context.invocation = invocation;
  const CleanupOnSignals cleanup;
  const nlohmann::json summary = model.run(values, context);
  std::fputs(model.report(summary, context).c_str(), stdout);
  return 0;
}

}  // namespace

std::vector<Command> add_model_commands(CLI::App& app, const nlohmann::json& invocation) {
  std::vector<Command> commands;
  std::map<std::string, CLI::App*> groups;
  for (const Model& model : jobs::models()) {
    CLI::App* parent = &app;
    std::string name = model.name;
    if (const auto space = name.find(' '); space != std::string::npos) {
      const std::string group = name.substr(0, space);
      name = name.substr(space + 1);
      CLI::App*& g = groups[group];
      if (!g) {
        std::string help;
        for (const auto& known : jobs::model_groups())
          if (known.name == group) help = known.help;
        g = app.add_subcommand(group, help);
        g->require_subcommand(1);
      }
      parent = g;
    }
    CLI::App* command = parent->add_subcommand(name, model.help);
    if (!model.footer.empty()) command->footer(model.footer);
    auto options = std::make_shared<std::map<std::string, CLI::Option*>>();
    for (const Parameter& p : model.parameters) (*options)[p.name] = add_parameter(*command, p);
    for (const Parameter& p : model.parameters)
      for (const auto& other : p.excludes) (*options)[p.name]->excludes(options->at(other));
    commands.push_back(
        {command, [&model, options, invocation] { return run_model(model, *options, invocation); }});
  }
  return commands;
}

nlohmann::json invocation_json(int argc, char** argv) {
  nlohmann::json args = nlohmann::json::array();
  for (int i = 0; i < argc; ++i) args.push_back(argv[i]);
  return args;
}

}  // namespace netdp::cli
