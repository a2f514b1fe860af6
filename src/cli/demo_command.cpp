// `netdp demo`: the built-in default study. Gossip loss by hop distance on four topologies of about 1024
// nodes, in the setting of thesis Fig. 6.1a (alpha = 2, sigma = 1, metropolis W, T = T_stop), scaled down.
#include <cstdio>
#include <memory>
#include <sstream>

#include "cli/options.hpp"
#include "netdp/accounting/loss_report.hpp"
#include "netdp/io/results_dir.hpp"
#include "netdp/jobs/model.hpp"

namespace netdp::cli {

namespace {

struct Topology {
  const char* name;
  const char* spec;
};
constexpr Topology kTopologies[] = {
    {"hypercube", "hypercube:dim=10"},
    {"erdos-renyi", "er:n=1024,c=1,seed=1"},
    {"geometric", "rgg:n=1024,r=0.1,seed=1"},
    {"grid", "grid:rows=32,cols=32"},
};

constexpr int kShownDistances = 8;  // distances printed per topology; by_distance.csv has them all

int run_demo(const std::string& out_dir, const std::string& device, const nlohmann::json& invocation) {
  ResultsDir out(out_dir);
  std::ostringstream table;
  table << "topology,distance,pairs,mean,min,max\n";
  std::printf("%-12s %5s %5s %10s  %s %d)\n", "topology", "n", "T", "mean loss",
              "mean loss by distance (the first", kShownDistances);
  nlohmann::json runs = nlohmann::json::array();
  const jobs::Model& gossip_loss = *jobs::find_model("gossip-loss");
  for (const auto& t : kTopologies) {
    const auto values = jobs::Values::from_text(gossip_loss, {{"graph", {t.spec}}, {"device", {device}}});
    jobs::RunContext context;
    context.out_dir = out.path() / t.name;
    context.invocation = invocation;
    auto summary = gossip_loss.run(values, context);
    runs.push_back({{"topology", t.name}, {"graph", t.spec}, {"summary", summary}});
    std::string means;
    int shown = 0;
    for (const auto& r : summary["by_distance"]) {
      const std::string d = r["distance"].is_string() ? "inf" : std::to_string(r["distance"].get<int>());
      table << t.name << ',' << d << ',' << r["pairs"].get<std::int64_t>() << ',' << format_double(r["mean"])
            << ',' << format_double(r["min"]) << ',' << format_double(r["max"]) << '\n';
      if (shown++ < kShownDistances) means += format_double(r["mean"]).substr(0, 7) + " ";
    }
    if (shown > kShownDistances)  // the table is cut; the file has every distance
      means += "(+" + std::to_string(shown - kShownDistances) + " more in by_distance.csv)";
    std::printf("%-12s %5d %5d %10.4g  %s\n", t.name, summary["n"].get<int>(), summary["steps"].get<int>(),
                summary["mean_loss"].get<double>(), means.c_str());
  }
  out.write_text("by_distance.csv", table.str());
  auto manifest = manifest_header("demo", invocation);
  manifest["runs"] = runs;
  out.commit_manifest(manifest);
  std::printf("demo: loss by distance for %zu topologies -> %s/by_distance.csv\n", std::size(kTopologies),
              out_dir.c_str());
  return 0;
}

}  // namespace

Command add_demo_command(CLI::App& app, const nlohmann::json& invocation) {
  auto* command =
      app.add_subcommand("demo", "built-in default study: gossip loss by distance on four topologies");
  auto out = std::make_shared<std::string>("netdp-demo");
  auto device = std::make_shared<std::string>("auto");
  command->add_option("--out", *out, "output directory")->capture_default_str();
  command->add_option("--device", *device, "auto | cpu | cuda | cuda:N")->capture_default_str();
  return {command, [out, device, invocation] { return run_demo(*out, *device, invocation); }};
}

}  // namespace netdp::cli
