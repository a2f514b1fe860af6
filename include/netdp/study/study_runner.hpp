#pragma once
// `netdp run` and `netdp merge` (docs/study.md): validate, plan, run the unfinished units on local workers,
// MPI ranks or one shard of a job array, and gather finished studies into results.csv and manifest.json.
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "netdp/study/study_file.hpp"

namespace netdp::study {

struct RunOptions {
  std::filesystem::path out;
  bool dry_run = false;
  bool update = false;  // accept a changed study file in --out: keep the units whose parameters are unchanged
  bool quiet = false;   // no progress on stderr
  int workers = 0;      // CPU workers per process (0 = 1)
  std::string devices = "auto";  // auto: one worker per GPU that answers, else CPU workers | cpu | 0,1,...
  int shard = 0, shards = 1;     // this process runs units whose index % shards == shard
  nlohmann::json invocation;     // the command line, for the manifest
};

/// Exit code: 0 when every unit of this process finished (and, when the whole study is finished, after
/// writing results.csv and manifest.json), 1 when some units failed (they are retried by the next run).
/// Throws InvalidInput for a bad study or a results directory holding another study.
int run_study(const StudySpec& spec, const ModelCatalog& catalog, const RunOptions& options);

/// Combines the results directories of shards (or partial runs) of one study into `out` and writes its
/// results.csv and manifest.json. Exit code 0, or 1 when units are missing from every input.
int merge_studies(const std::vector<std::filesystem::path>& inputs, const std::filesystem::path& out,
                  const ModelCatalog& catalog, const nlohmann::json& invocation);

}  // namespace netdp::study
