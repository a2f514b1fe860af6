#pragma once
// One Muffliato-GD study from specs to a results directory: what `netdp muffliato-gd` runs. Outputs are
// described in docs/muffliato_gd.md.
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "netdp/io/run_result.hpp"

#include "netdp/accounting/gossip_loss.hpp"  // ObserverKnowledge
#include "netdp/core/weighting.hpp"
#include "netdp/simulation/muffliato_gd.hpp"

namespace netdp {

struct MuffliatoGdJob {
  std::string graph;    // graph spec: W's graph, or (er_c) n and the hop distances of the privacy summary
  WeightsSpec weights;  // W of the graph (fixed W)
  MuffliatoGdParams params;    // edge_probability comes from er_c, spectral_gap from the graph
  std::optional<double> er_c;  // a fresh G(n, q), q = c ln(n) / n, per outer iteration (docs/math.md §6.4)
  std::string data;            // CSV file; empty: synthetic data from the seed
  int dim = 0;                 // p: required for synthetic data; 0 = from the CSV file
  int samples = 0;             // synthetic examples per node; 0 = 1 for quadratic, 10 otherwise
  double alpha = 2.0;          // Renyi order of the privacy accounting
  std::optional<double>
      sensitivity;                // Delta_phi; unset: 2 L with clipping, 0.5 for the reference code, else 1
  bool cap_ldp = true;            // cap the pairwise losses at T x the LDP level
  std::int64_t memory_limit = 0;  // bytes the privacy accountant may use (0 = what the machine has free)
  std::optional<node_t> source;   // accountant rows of this source only; source of the ER sum (default 0)
  std::string device = "auto";    // cpu or auto: the run is the CPU's
  bool device_given = false;      // device given explicitly (cuda refused), not a study worker's default
  std::string out_dir;
  bool progress = true;       // progress lines on stderr for runs longer than a few seconds
  nlohmann::json invocation;  // how the job was asked for (command line), copied to the manifest

  // "exact" | "ldp" | "theorem"; empty: exact for linear runs, else ldp (docs/muffliato_gd.md "Privacy")
  std::string accounting;
  std::optional<double> delta;  // exact or ldp: also epsilon at this delta (analytic Gaussian curve)
  // exact accounting: whether v's own noise is known to it (docs/math.md §6.9 "What v knows"); given with
  // another accounting it is refused, since that accounting ignores it.
  ObserverKnowledge observer_knows = ObserverKnowledge::input_and_noise;
  bool observer_knows_given = false;
};

/// Runs the job: curves.csv, privacy.csv (sigma > 0) and the summary as a typed result (the writer stage
/// writes them, docs/outputs.md). Bad input throws InvalidInput before any work.
RunResult run_muffliato_gd_job(const MuffliatoGdJob& job);

}  // namespace netdp
