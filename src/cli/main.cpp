// netdp command line: parses, fills library structs, dispatches (docs/design.md: the CLI holds no logic).
// Exit codes: 0 success, 2 bad input (docs/design.md principle 6), 1 runtime failure.
#include <algorithm>
#include <cstdio>
#include <exception>
#include <new>
#include <string>
#include <vector>

#include "cli/options.hpp"
#include "netdp/core/error.hpp"
#include "netdp/core/version.hpp"

namespace {

using netdp::excerpt;

/// Edit distance with adjacent transpositions counted as one ("grpah" is 1 from "graph").
std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i)
    for (std::size_t j = 1; j <= b.size(); ++j) {
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] != b[j - 1])});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

/// " (did you mean --graph?)": the nearest of `known` to `word` (at most 3 tied), "" when none is near.
std::string nearest(const std::string& word, const std::vector<std::string>& known,
                    const std::string& prefix) {
  const std::size_t limit = std::max<std::size_t>(2, word.size() / 3);
  std::size_t best = limit + 1;
  std::vector<std::string> names;
  for (const auto& k : known) {
    const std::size_t d = edit_distance(word, k);
    if (d > limit) continue;
    if (d < best) best = d, names.clear();
    if (d == best && names.size() < 3 && std::find(names.begin(), names.end(), k) == names.end())
      names.push_back(k);
  }
  std::string text;
  for (std::size_t i = 0; i < names.size(); ++i)
    text += (i == 0 ? " (did you mean " : i + 1 == names.size() ? " or " : ", ") + prefix + names[i];
  return text.empty() ? "" : text + "?)";
}

std::vector<std::string> subcommand_names(CLI::App& app) {
  std::vector<std::string> names;
  for (CLI::App* c : app.get_subcommands([](CLI::App*) { return true; })) names.push_back(c->get_name());
  return names;
}

/// What CLI11 reports is often not the first fault (a typo "--grpah x" reads as "--graph is required"): name
/// an unknown command or option of the command at hand, with the nearest valid ones (docs/reliability.md
/// §1). `at` is the command at hand, `next` the index of the first word after its name. "" when none.
std::string unknown_word(CLI::App& at, int next, int argc, char** argv) {
  if (!at.get_subcommands([](CLI::App*) { return true; }).empty()) {  // a group (netdp, bound)
    if (next < argc && argv[next][0] != '-' &&
        at.get_subcommands([&](CLI::App* c) { return c->get_name() == argv[next]; }).empty())
      return "unknown command '" + excerpt(argv[next]) + "'" + nearest(argv[next], subcommand_names(at), "");
    return "";
  }
  std::vector<std::string> options;
  for (const CLI::Option* o : at.get_options())
    if (!o->get_group().empty())
      for (const auto& name : o->get_lnames()) options.push_back(name);
  for (int i = next; i < argc; ++i) {
    const std::string word = argv[i];
    if (word == "--") break;
    if (!word.starts_with("--") || word.size() == 2) continue;
    const std::string name =
        word.substr(2, word.find('=') == std::string::npos ? word.npos : word.find('=') - 2);
    if (at.get_option_no_throw("--" + name) == nullptr)
      return "unknown option --" + excerpt(name) + nearest(name, options, "--");
  }
  return "";
}

}  // namespace

int main(int argc, char** argv) {
  using namespace netdp;
  CLI::App app{"netdp: privacy accounting and simulation for decentralized learning"};
  app.set_version_flag("--version", std::string(version()) + " (" + git_commit() + ")");
  app.require_subcommand(1);
  app.footer(
      "Exit codes: 0 success; 2 bad input, refused before any work with one line on stderr; 1 runtime "
      "failure; 130 / 143 stopped by SIGINT / SIGTERM (docs/reliability.md).\n"
      "Example: netdp gossip-loss --graph ring:n=16 --steps 20 --out out/ring   (netdp CMD --help for each "
      "command)\n"
      "Figure: netdp plot out/ring   (writes out/ring/figure.png; --out FILE.svg|.pdf; docs/plot.md)");
  const auto invocation = cli::invocation_json(argc, argv);
  auto commands = cli::add_model_commands(app, invocation);
  commands.push_back(cli::add_demo_command(app, invocation));
  commands.push_back(cli::add_run_command(app, invocation));
  commands.push_back(cli::add_merge_command(app, invocation));
  commands.push_back(cli::add_plot_command(app));
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // Name what was wrong and point to the help of the command at hand (docs/reliability.md).
    std::string help = "netdp", message = e.what();
    CLI::App* at = &app;
    int next = 1;                                     // the first word after the command at hand
    for (; !at->get_subcommands().empty(); ++next) {  // nested commands: netdp bound sgd-sigma
      at = at->get_subcommands().front();
      help += " " + at->get_name();
    }
    help += " --help";
    if (const std::string unknown = unknown_word(*at, next, argc, argv); !unknown.empty()) message = unknown;
    std::fprintf(stderr, "netdp: error: %s (see %s)\n", excerpt(message, 240).c_str(), help.c_str());
    return 2;
  }
  try {
    for (const auto& command : commands)
      if (command.app->parsed()) return command.run();
    return 1;
  } catch (const InvalidParameter& e) {  // the registry names the parameter; here it is an option
    std::fprintf(stderr, "netdp: error: --%s\n", e.what());
    return 2;
  } catch (const InvalidInput& e) {
    std::fprintf(stderr, "netdp: error: %s\n", e.what());
    return 2;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr,
                 "netdp: error: out of memory (the graph or the problem is too large for this machine)\n");
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "netdp: failure: %s\n", e.what());
    return 1;
  }
}
