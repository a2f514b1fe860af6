// `netdp gossip-loss`: pairwise privacy loss of private gossip (MATH_SPEC 6.1-6.2) into a results directory.
#include <cstdio>
#include <memory>

#include "cli/options.hpp"

namespace netdp::cli {

Command add_gossip_loss_command(CLI::App& app, const nlohmann::json& invocation) {
  auto* command = app.add_subcommand(
      "gossip-loss",
      "pairwise Renyi loss f(u, v) of private gossip averaging (Muffliato, Thm 6.1) on a graph");
  auto options = std::make_shared<GossipOptions>();
  add_gossip_options(*command, *options);
  return {command,
          [options, invocation] {
            auto summary = run_gossip_loss_job(make_gossip_job(*options, invocation));
            report("gossip-loss: n = %d, T = %d, mean loss %.6g, max %.6g (LDP %.6g), %s, %.3f s -> %s\n",
                   summary["n"].get<int>(), summary["steps"].get<int>(), summary["mean_loss"].get<double>(),
                   summary["max_loss"].get<double>(), summary["ldp_loss"].get<double>(),
                   summary["device"].get<std::string>().c_str(), summary["seconds"].get<double>(),
                   options->out.c_str());
            return 0;
          },
          true, [options, invocation] { check_gossip_loss_job(make_gossip_job(*options, invocation)); }};
}

}  // namespace netdp::cli
