// The model subcommands, built from the registry (docs/design_models.md): one option per parameter ("--" +
// its name), with the parameter's help, default, choices and type; the values are converted and checked by
// the registry, which names the parameter in its errors (main shows them as "--name: ...").
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>

#include "cli/options.hpp"
#include "cli/staged_out.hpp"
#include "netdp/core/error.hpp"
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
  const std::vector<std::string>& words = !p.choices.empty() ? p.choices : p.forms;
  if (p.type == ParameterType::count_or_auto) name = "{INT|auto}";
  if (!words.empty()) {
    name = "{";
    for (std::size_t i = 0; i < words.size(); ++i) name += (i ? "|" : "") + words[i];
    name += "}";
  }
  return name;
}

/// The option's names: "--eps0" and, hidden behind it, its older spellings ("--eps0,--eps").
std::string option_names(const Parameter& p) {
  std::string names = "--" + p.name;
  for (const auto& old : p.aliases) names += ",--" + old;
  return names;
}

/// The help line: a renamed parameter says what it was called; a deprecated one is hidden.
std::string option_help(const Parameter& p) {
  std::string help = p.help;
  for (std::size_t i = 0; i < p.aliases.size(); ++i)
    help +=
        std::string(i ? ", " : " (formerly ") + "--" + p.aliases[i] + (i + 1 == p.aliases.size() ? ")" : "");
  return help;
}

CLI::Option* add_parameter(CLI::App& command, const Parameter& p) {
  const std::string flag = option_names(p), help = option_help(p);  // CLI11 2.3 wants an lvalue help
  if (p.type == ParameterType::flag) {
    CLI::Option* option = command.add_flag(flag, help);
    if (!p.replaced_by.empty()) option->group("");  // hidden; docs/<command>.md lists it
    return option;
  }
  CLI::Option* option = command.add_option(flag, help);
  if (!p.replaced_by.empty()) option->group("");
  option->type_name(type_name(p));
  if (p.default_value)
    option->default_str(p.type == ParameterType::reals ? "[" + *p.default_value + "]" : *p.default_value);
  if (p.required) option->required();
  // A value given twice, under one spelling or two, is refused by given_values with the parameter's name.
  if (p.type != ParameterType::reals) option->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  if (p.type == ParameterType::reals) {
    option->delimiter(',');
    if (p.items)
      option->expected(static_cast<int>(p.items));
    else
      option->expected(1, CLI::detail::expected_max_vector_size);
  }
  return option;
}

/// The line for an older spelling or a deprecated parameter, naming what to give instead ("" when neither).
std::string deprecation_note(const Parameter& p, const std::vector<std::string>& argv) {
  if (!p.replaced_by.empty())
    return "netdp: warning: --" + p.name + " is deprecated: give --" + p.replaced_by;
  for (const auto& old : p.aliases)
    for (const auto& word : argv)
      if (word == "--" + old || word.starts_with("--" + old + "="))
        return "netdp: warning: --" + old + " is the old name of --" + p.name + ": give --" + p.name;
  return "";
}

/// The values given on the command line, by parameter name, and the deprecation lines of the spellings used.
jobs::Values::TextItems given_values(const Model& model, const std::map<std::string, CLI::Option*>& options,
                                     const std::vector<std::string>& argv, std::vector<std::string>& notes) {
  jobs::Values::TextItems given;
  for (const Parameter& p : model.parameters) {
    const CLI::Option* option = options.at(p.name);
    if (option->count() == 0) continue;
    if (p.type != ParameterType::flag && p.type != ParameterType::reals && option->count() > 1) {
      std::string older;  // the older spelling used, if any
      for (const auto& old : p.aliases)
        for (const auto& word : argv)
          if (older.empty() && (word == "--" + old || word.starts_with("--" + old + "="))) older = old;
      throw InvalidParameter(p.name, p.name + " is given twice" +
                                         (older.empty() ? "" : " (" + older + " is its older spelling)"));
    }
    if (auto note = deprecation_note(p, argv); !note.empty()) notes.push_back(note);
    // A flag keeps its values ("--quiet=false" is off, "--quiet" alone is "true"): the registry reads them
    // as a study file's booleans (docs/reliability.md "Flags").
    given.emplace_back(p.name, option->results());
  }
  return given;
}

// A single command stopped by SIGINT or SIGTERM removes the temporaries it was writing and its staging
// directory, says so, and dies of the signal (exit status 130 / 143 in a shell): the earlier result under
// --out stays whole, and nothing the run leaves can look complete (docs/reliability.md §3).
extern "C" void remove_temporaries_and_die(int signal) {
  remove_temporaries_now();
  remove_staging_now();
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
  std::vector<std::string> notes;
  const jobs::Values values = jobs::Values::from_text(
      model, given_values(model, options, invocation.get<std::vector<std::string>>(), notes));
  jobs::RunContext context;
  if (const Parameter* out = model.with_role(jobs::ParameterRole::out_dir))
    context.out_dir = values.text(out->name);
  if (const Parameter* quiet = model.with_role(jobs::ParameterRole::quiet))
    context.quiet = values.flag(quiet->name);
  context.invocation = invocation;
  const CleanupOnSignals cleanup;
  // The run writes into a staging directory beside --out, which replaces --out only when the run succeeds: a
  // failure, a refusal or a stop leaves the earlier result whole and nothing new (docs/outputs.md §1.1).
  std::optional<StagedOut> staged;
  const std::filesystem::path out = context.out_dir;
  if (!out.empty()) {
    staged.emplace(out);
    context.out_dir = staged->staging();
  }
  const nlohmann::json summary = model.run(values, context);
  if (staged) staged->publish();
  context.out_dir = out;  // the report names --out, not the staging directory
  std::fputs(model.report(summary, context).c_str(), stdout);
  // After the run, so that a refused run still prints exactly one line (its error).
  for (const auto& note : notes) std::fprintf(stderr, "%s\n", note.c_str());
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
    // Every command's help ends with an example (docs/reliability.md).
    std::string footer = model.footer;
    if (!model.example.empty())
      footer +=
          (footer.empty() ? "" : "\n") + std::string("Example: netdp ") + model.name + " " + model.example;
    if (!footer.empty()) command->footer(footer);
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
