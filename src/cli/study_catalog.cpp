#include "cli/study_catalog.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>

#include "cli/options.hpp"
#include "netdp/core/error.hpp"
#include "netdp/study/study_plan.hpp"

namespace netdp::cli {

using json = nlohmann::json;

namespace {

/// A fresh command tree: CLI11 options keep their values, so every parse gets its own.
struct Tree {
  CLI::App app{"netdp"};
  std::vector<Command> commands;
  explicit Tree(const json& invocation = json::array()) { commands = add_model_commands(app, invocation); }

  /// "bound complete-sum" -> the nested subcommand; nullptr when it is not a study model.
  CLI::App* find(const std::string& model) {
    std::istringstream words(model);
    std::string word;
    CLI::App* at = &app;
    bool first = true;
    while (words >> word) {
      const auto children = at->get_subcommands({});
      auto child =
          std::find_if(children.begin(), children.end(), [&](CLI::App* a) { return a->get_name() == word; });
      if (child == children.end()) return nullptr;
      at = *child;
      if (first) {
        auto it = std::find_if(commands.begin(), commands.end(), [&](auto& c) { return c.app == at; });
        if (it == commands.end() || !it->study_model) return nullptr;
        first = false;
      }
    }
    return at != &app && at->get_subcommands({}).empty() ? at : nullptr;
  }
};

bool is_flag(const CLI::Option& option) {
  return option.get_items_expected_max() == 0;
}

CLI::App* model_app(Tree& tree, const std::string& model) {
  CLI::App* app = tree.find(model);
  if (!app) throw InvalidInput("unknown model '" + model + "'");
  return app;
}

std::vector<std::string> command_line(const std::string& model, const study::Arguments& arguments,
                                      CLI::App& app) {
  std::vector<std::string> argv{"netdp"};
  std::istringstream words(model);
  for (std::string word; words >> word;) argv.push_back(word);
  for (const auto& [key, value] : arguments) {
    const CLI::Option* option = app.get_option_no_throw("--" + key);
    if (option && is_flag(*option)) {
      if (value.is_boolean() && value.get<bool>()) argv.push_back("--" + key);
    } else {
      argv.push_back("--" + key);
      argv.push_back(study::argument_text(value));
    }
  }
  return argv;
}

void parse(Tree& tree, std::vector<std::string> argv) {
  std::vector<char*> pointers;
  for (auto& a : argv) pointers.push_back(a.data());
  try {
    tree.app.parse(static_cast<int>(pointers.size()), pointers.data());
  } catch (const CLI::ParseError& e) {
    throw InvalidInput(e.what());
  }
}

bool has(CLI::App& app, const std::string& key) {
  return app.get_option_no_throw("--" + key) != nullptr;
}

bool given(const study::Arguments& arguments, const std::string& key) {
  return std::any_of(arguments.begin(), arguments.end(), [&](auto& kv) { return kv.first == key; });
}

}  // namespace

CliModelCatalog::CliModelCatalog() {
  Tree tree;
  for (const auto& c : tree.commands) {
    if (!c.study_model) continue;
    const auto nested = c.app->get_subcommands({});
    if (nested.empty()) models_.push_back(c.app->get_name());
    for (const auto* sub : nested) models_.push_back(c.app->get_name() + " " + sub->get_name());
  }
}

bool CliModelCatalog::has_model(const std::string& model) const {
  return std::find(models_.begin(), models_.end(), model) != models_.end();
}

std::vector<std::string> CliModelCatalog::parameters(const std::string& model) const {
  Tree tree;
  std::vector<std::string> keys;
  for (const CLI::Option* option : model_app(tree, model)->get_options())
    for (const auto& name : option->get_lnames())
      if (name != "help") keys.push_back(name);
  return keys;
}

void CliModelCatalog::check_parameter(const std::string& model, const std::string& key,
                                      const json& value) const {
  Tree tree;
  CLI::Option* option = model_app(tree, model)->get_option_no_throw("--" + key);
  if (!option) throw InvalidInput("unknown parameter '" + key + "' of model '" + model + "'");
  if (is_flag(*option)) {
    if (!value.is_boolean()) throw InvalidInput("'" + key + "' is a flag: write true or false");
    return;
  }
  if (value.is_boolean()) throw InvalidInput("'" + key + "' takes a value, not true/false");
  if (value.is_array() && value.empty()) throw InvalidInput("'" + key + "' is an empty list");
  try {
    option->add_result(study::argument_text(value));
    option->run_callback();
  } catch (const CLI::Error& e) {
    throw InvalidInput("'" + key + "' = " + value.dump() + ": " + e.what());
  }
}

void CliModelCatalog::check_unit(const std::string& model, const study::Arguments& arguments) const {
  Tree tree;
  CLI::App* app = model_app(tree, model);
  auto argv = command_line(model, arguments, *app);
  if (has(*app, "out")) argv.insert(argv.end(), {"--out", "unused"});
  parse(tree, argv);
  for (const auto& c : tree.commands)
    if (c.app->parsed() && c.check) c.check();
}

study::UnitEstimate CliModelCatalog::estimate(const std::string& model,
                                              const study::Arguments& arguments) const {
  return estimate_model(model, arguments);
}

json CliModelCatalog::run(const std::string& model, const study::Arguments& arguments,
                          const study::UnitContext& context) const {
  Tree probe;
  CLI::App* app = model_app(probe, model);
  auto argv = command_line(model, arguments, *app);
  argv.insert(argv.end(), {"--out", context.out_dir.string()});
  if (has(*app, "quiet")) argv.push_back("--quiet");
  if (has(*app, "device") && !given(arguments, "device"))
    argv.insert(argv.end(), {"--device", context.device});
  if (has(*app, "threads") && !given(arguments, "threads") && context.threads > 0)
    argv.insert(argv.end(), {"--threads", std::to_string(context.threads)});
  Tree tree{json(argv)};
  parse(tree, argv);
  for (const auto& c : tree.commands)
    if (c.app->parsed()) {
      if (const int code = c.run(); code != 0)
        throw std::runtime_error(model + " ended with exit code " + std::to_string(code));
      std::ifstream in(context.out_dir / "summary.json");
      const json summary = json::parse(in, nullptr, false);
      if (summary.is_discarded()) throw std::runtime_error(model + " wrote no readable summary.json");
      return summary;
    }
  throw std::logic_error("no command parsed for model " + model);
}

}  // namespace netdp::cli
