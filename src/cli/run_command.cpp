// `netdp run STUDY.toml --out DIR` and `netdp merge`: the study runner (docs/study.md).
#include <charconv>
#include <cstdio>
#include <filesystem>
#include <memory>

#include "cli/options.hpp"
#include "netdp/core/error.hpp"
#include "netdp/study/study_runner.hpp"

namespace netdp::cli {

namespace {

struct RunCommandOptions {
  std::string study, shard = "0/1", device = "auto", devices;
  study::RunOptions run;
};

/// --device in the models' spelling (auto | cpu | cuda:0,1) -> the runner's (auto | cpu | 0,1); the older
/// --devices spelling (auto | cpu | 0,1) is still accepted (docs/study.md "Execution").
std::string runner_devices(const RunCommandOptions& o) {
  if (!o.devices.empty()) return o.devices;
  if (o.device == "auto" || o.device == "cpu") return o.device;
  if (o.device.starts_with("cuda:") && o.device.size() > 5) return o.device.substr(5);
  throw InvalidInput("--device: expected auto, cpu or cuda:0,1 (GPU ordinals), got '" + excerpt(o.device) +
                     "'");
}

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
  o->run.workers = 1;
  c->add_option("--workers", o->run.workers, "CPU workers per process when no GPU is used")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  c->add_option(
       "--device", o->device,
       "auto: one worker per GPU that answers, else CPU workers; cpu: CPU workers only; cuda:0,1: one "
       "worker per listed GPU")
      ->type_name("{auto|cpu|cuda:LIST}")
      ->capture_default_str();
  c->add_option("--devices", o->devices, "the older spelling of --device (auto | cpu | 0,1)")->group("");
  c->add_option("--shard", o->shard,
                "run only the units i, i + N, i + 2N, ... (job arrays); then netdp merge")
      ->capture_default_str();
  c->add_flag("--quiet", o->run.quiet, "no progress on stderr");
  return {c, [o, invocation, c] {
            if (o->run.out.empty() && !o->run.dry_run) throw InvalidInput("run: --out DIR is required");
            if (!o->devices.empty() && c->count("--device") > 0)
              throw InvalidInput("--devices excludes --device (--devices is its older spelling)");
            std::tie(o->run.shard, o->run.shards) = parse_shard(o->shard);
            o->run.devices = runner_devices(*o);
            o->run.invocation = invocation;
            if (std::filesystem::is_directory(o->study))  // `netdp run DIR`: name what is expected
              throw InvalidInput(
                  "run: '" + excerpt(o->study) +
                  "' is a directory; give the study file (TOML), e.g. netdp run study.toml --out " +
                  excerpt(o->study));
            const study::ModelCatalog& catalog = study::registry_catalog();
            const auto spec = study::read_study_file(o->study, catalog);
            int status = 0;
            try {
              status = study::run_study(spec, catalog, o->run);
            } catch (const InvalidParameter& e) {  // the runner names its option "devices"
              if (e.parameter() != "devices" || !o->devices.empty()) throw;
              throw InvalidInput("--device: " + e.detail());
            }
            // After the run, so that a refused run still prints exactly one line (its error).
            if (!o->devices.empty())
              std::fputs(
                  "netdp: warning: --devices is the old name of --device: give --device (cuda:0,1 "
                  "for GPUs)\n",
                  stderr);
            return status;
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
