// netdp command line: parses, fills library structs, dispatches (docs/design.md: the CLI holds no logic).
// Exit codes: 0 success, 2 bad input (docs/design.md principle 6), 1 runtime failure.
#include <cstdio>
#include <exception>
#include <new>
#include <string>

#include "cli/options.hpp"
#include "netdp/core/error.hpp"
#include "netdp/core/version.hpp"

int main(int argc, char** argv) {
  using namespace netdp;
  CLI::App app{"netdp: privacy accounting and simulation for decentralized learning"};
  app.set_version_flag("--version", std::string(version()) + " (" + git_commit() + ")");
  app.require_subcommand(1);
  app.footer(
      "Exit codes: 0 success; 2 bad input, refused before any work with one line on stderr; 1 runtime "
      "failure; 130 / 143 stopped by SIGINT / SIGTERM (docs/reliability.md).\n"
      "Example: netdp gossip-loss --graph ring:n=16 --steps 20 --out out/ring   (netdp CMD --help for each "
      "command)");
  const auto invocation = cli::invocation_json(argc, argv);
  auto commands = cli::add_model_commands(app, invocation);
  commands.push_back(cli::add_demo_command(app, invocation));
  commands.push_back(cli::add_run_command(app, invocation));
  commands.push_back(cli::add_merge_command(app, invocation));
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
    std::string help = "netdp --help", message = e.what();
    if (!app.get_subcommands().empty()) {
      help = "netdp";
      for (CLI::App* c = &app; !c->get_subcommands().empty();) {  // nested commands: netdp bound sgd-sigma
        c = c->get_subcommands().front();
        help += " " + c->get_name();
      }
      help += " --help";
    } else if (argc > 1 && argv[1][0] != '-' &&
               app.get_subcommands([&](CLI::App* c) { return c->get_name() == argv[1]; }).empty()) {
      message = "unknown command '" + excerpt(argv[1]) + "'";
    }
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
