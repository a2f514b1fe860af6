// `netdp run STUDY.toml --out DIR` and `netdp merge`: the study runner (docs/study.md).
#include <charconv>
#include <memory>

#include "cli/options.hpp"
#include "netdp/core/error.hpp"
#include "netdp/study/study_runner.hpp"

namespace netdp::cli {

namespace {

struct RunCommandOptions {
  std::string study, shard = "0/1";
  study::RunOptions run;
};

/// "i/N" -> (i, N).
std::pair<int, int> parse_shard(const std::string& text) {
  const auto slash = text.find('/');
  int i = -1, n = 0;
  const bool ok =
      slash != std::string::npos &&
      std::from_chars(text.data(), text.data() + slash, i).ptr == text.data() + slash &&
      std::from_chars(text.data() + slash + 1, text.data() + text.size(), n).ptr == text.data() + text.size();
  if (!ok || n < 1 || i < 0 || i >= n)
    throw InvalidInput("--shard: expected i/N with 0 <= i < N, got '" + text + "'");
  return {i, n};
}

}  // namespace

Command add_run_command(CLI::App& app, const nlohmann::json& invocation) {
  auto* c = app.add_subcommand("run",
                               "run a study file: experiments x grid points x replicates, resumable, on "
                               "local workers, MPI ranks or shards (docs/study.md)");
  auto o = std::make_shared<RunCommandOptions>();
  c->add_option("study", o->study, "study file (TOML)")->required();
  c->add_option("--out", o->run.out, "results directory; running the same command again resumes it");
  c->add_flag("--dry-run", o->run.dry_run,
              "validate and print the work units, their memory and time estimates and the device plan");
  c->add_flag(
      "--update", o->run.update,
      "the study file changed: keep the finished units whose parameters and seed are unchanged, run the "
      "rest (new points, replicates, experiments)");
  c->add_option("--workers", o->run.workers, "CPU workers per process when no GPU is used (0 = 1)")
      ->capture_default_str();
  c->add_option("--devices", o->run.devices,
                "auto (one worker per GPU that answers, else CPU workers) | cpu | GPU ordinals, e.g. 0,1")
      ->capture_default_str();
  c->add_option("--shard", o->shard,
                "run only the units i, i + N, i + 2N, ... (job arrays); then netdp merge")
      ->capture_default_str();
  c->add_flag("--quiet", o->run.quiet, "no progress on stderr");
  return {c, [o, invocation] {
            if (o->run.out.empty() && !o->run.dry_run) throw InvalidInput("run: --out DIR is required");
            std::tie(o->run.shard, o->run.shards) = parse_shard(o->shard);
            o->run.invocation = invocation;
            const study::ModelCatalog& catalog = study::registry_catalog();
            const auto spec = study::read_study_file(o->study, catalog);
            return study::run_study(spec, catalog, o->run);
          }};
}

Command add_merge_command(CLI::App& app, const nlohmann::json& invocation) {
  auto* c = app.add_subcommand("merge",
                               "combine the results directories of a study's shards into one "
                               "(docs/study.md)");
  auto inputs = std::make_shared<std::vector<std::string>>();
  auto out = std::make_shared<std::string>();
  c->add_option("inputs", *inputs, "shard results directories")->required();
  c->add_option("--out", *out, "merged results directory (may be one of the inputs)")->required();
  return {c, [inputs, out, invocation] {
            std::vector<std::filesystem::path> dirs(inputs->begin(), inputs->end());
            return study::merge_studies(dirs, *out, study::registry_catalog(), invocation);
          }};
}

}  // namespace netdp::cli
