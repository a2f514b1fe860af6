// `netdp demo`: the built-in default study. Gossip loss by hop distance on four topologies of about 256
// nodes, in the setting of thesis Fig. 6.1a (alpha = 2, sigma = 1, metropolis W, T = T_stop): the exact loss
// (each pair's Gaussian view, docs/math.md §6.9), with Theorem 6.1's per-message sum beside it, which the
// papers plot and which is not an upper bound.
#include <cstdio>
#include <limits>
#include <memory>

#include "cli/options.hpp"
#include "netdp/accounting/loss_report.hpp"
#include "netdp/io/csv_table.hpp"
#include "netdp/jobs/model.hpp"

namespace netdp::cli {

namespace {

struct Topology {
  const char* name;
  const char* spec;
};
// The exact accountant costs O(n r^2) per observer (r <= n, the dimension of its view): about 256 nodes keep
// the demo within a minute on 2 cores (docs/gossip_loss.md).
constexpr Topology kTopologies[] = {
    {"hypercube", "hypercube:dim=8"},
    {"erdos-renyi", "er:n=256,c=1,seed=1"},
    {"geometric", "rgg:n=256,r=0.15,seed=1"},
    {"grid", "grid:rows=16,cols=16"},
};

constexpr int kShownDistances = 6;  // distances printed per topology; by_distance.csv has them all

/// One gossip-loss run of the demo into out/dir.
nlohmann::json run_one(const Topology& t, const std::string& accounting, const std::string& device,
                       const std::filesystem::path& dir, const nlohmann::json& invocation) {
  const jobs::Model& gossip_loss = *jobs::find_model("gossip-loss");
  jobs::Values::TextItems given{{"graph", {t.spec}}, {"accounting", {accounting}}};
  if (accounting == "theorem") given.push_back({"device", {device}});
  const auto values = jobs::Values::from_text(gossip_loss, given);
  jobs::RunContext context;
  context.out_dir = dir;
  context.invocation = invocation;
  context.quiet = accounting == "theorem";  // its warning is said once, below
  return gossip_loss.run(values, context);
}

int run_demo(const std::string& out_dir, const std::string& device, const nlohmann::json& invocation) {
  ResultsDir out(out_dir);
  CsvTable table("by_distance.csv", {{"topology", CsvType::text},
                                     {"accounting", CsvType::text},
                                     {"distance", CsvType::int64},  // "inf": unreachable pairs
                                     {"pairs", CsvType::int64},
                                     {"mean", CsvType::float64},
                                     {"min", CsvType::float64},
                                     {"max", CsvType::float64}});
  std::printf(
      "Pairwise Renyi loss of private gossip (alpha = 2, sigma = 1: the LDP level is 1), exact: each pair's\n"
      "Gaussian view (docs/math.md §6.9). Theorem 6.1's per-message sum, which the papers plot, is shown\n"
      "beside it: it assumes independent noise per message and is not an upper bound.\n\n");
  std::printf("%-12s %5s %4s %8s %8s  %s %d)\n", "topology", "n", "T", "exact", "theorem",
              "exact mean loss by distance (the first", kShownDistances);
  nlohmann::json runs = nlohmann::json::array();
  for (const auto& t : kTopologies) {
    const auto exact = run_one(t, "exact", device, out.path() / t.name, invocation);
    const auto theorem =
        run_one(t, "theorem", device, out.path() / (std::string(t.name) + "-theorem"), invocation);
    runs.push_back(
        {{"topology", t.name}, {"graph", t.spec}, {"summary", exact}, {"theorem_summary", theorem}});
    std::string means;
    int shown = 0;
    for (const auto& [accounting, summary] : {std::pair{"exact", &exact}, std::pair{"theorem", &theorem}})
      for (const auto& r : (*summary)["by_distance"]) {
        table.row({t.name, accounting,
                   r["distance"].is_string() ? CsvCell(std::numeric_limits<double>::infinity())
                                             : CsvCell(r["distance"].get<std::int64_t>()),
                   r["pairs"].get<std::int64_t>(), r["mean"].get<double>(), r["min"].get<double>(),
                   r["max"].get<double>()});
        if (summary == &exact && shown++ < kShownDistances)
          means += format_double(r["mean"]).substr(0, 6) + " ";
      }
    if (shown > kShownDistances) means += "(+" + std::to_string(shown - kShownDistances) + " more)";
    std::printf("%-12s %5d %4d %8.4f %8.4f  %s\n", t.name, exact["n"].get<int>(), exact["steps"].get<int>(),
                exact["mean_loss"].get<double>(), theorem["mean_loss"].get<double>(), means.c_str());
  }
  write_table(out, table);
  auto manifest = manifest_header("demo", invocation);
  manifest["runs"] = runs;
  out.commit_manifest(manifest);
  std::printf("demo: exact and theorem loss by distance for %zu topologies -> %s/by_distance.csv\n",
              std::size(kTopologies), out_dir.c_str());
  return 0;
}

}  // namespace

Command add_demo_command(CLI::App& app, const nlohmann::json& invocation) {
  auto* command =
      app.add_subcommand("demo", "built-in default study: exact gossip loss by distance on four topologies");
  auto out = std::make_shared<std::string>("netdp-demo");
  auto device = std::make_shared<std::string>("auto");
  command->add_option("--out", *out, "output directory")->capture_default_str();
  command
      ->add_option("--device", *device,
                   "auto | cpu | cuda | cuda:N (the theorem runs; the exact ones run on the CPU)")
      ->capture_default_str();
  return {command, [out, device, invocation] { return run_demo(*out, *device, invocation); }};
}

}  // namespace netdp::cli
