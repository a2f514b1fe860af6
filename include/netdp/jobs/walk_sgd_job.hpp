#pragma once
// `netdp walk-sgd` as a library call (docs/walk_sgd.md): data, the noise calibration of the chosen variant,
// the runs of random-walk DP-SGD, curves.csv and summary.json.
#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "netdp/bounds/complete_graph_sgd_sigma.hpp"
#include "netdp/simulation/walk_sgd.hpp"

namespace netdp {

/// The noise of a variant for a target (epsilon, delta) (docs/walk_sgd.md "Calibration", docs/math.md
/// §4.3.3): bounds::sgd_sigma_search on n users and T steps with the clip norm L as Lipschitz constant; the
/// variant picks sigma_central, sigma_local or sigma_network. The cap K of the local and network variants is
/// the contribution count of the search: ceil(cap_factor T / n) (procedure code) or ceil(N_u) (thesis, CB1);
/// centralized: no cap (0).
struct WalkSgdCalibration {
  double sigma = 0;
  std::int64_t cap = 0;
  bounds::SigmaSearch search;
};
WalkSgdCalibration calibrate_walk_sgd(WalkSgdVariant variant, double n, const bounds::SigmaSearchParams& p);

struct WalkSgdJob {
  std::string graph, weights = "auto";
  WalkSgdParams params;              // sigma and cap filled by the run unless given
  std::optional<double> sigma;       // given: no calibration
  std::optional<std::int64_t> cap;   // given (0 = none); else the calibration's
  bounds::SigmaSearchParams search;  // epsilon, delta, procedure, slope/cap factors, central constant
  std::string data;                  // CSV path; empty: synthetic
  std::int64_t synthetic_rows = 20640;
  int synthetic_dim = 8;
  std::uint64_t data_seed = 0;  // synthetic data and split (params.seed: walks and noise)
  double test_fraction = 0.2;
  bool intercept = true;
  std::int64_t eval_points = 200;  // eval_every = max(1, T / eval_points) unless params.eval_every was given
  bool eval_every_given = false;
  std::string out_dir;
  nlohmann::json invocation;
};

/// curves.csv, summary.json, manifest.json; returns the summary.
nlohmann::json run_walk_sgd_job(const WalkSgdJob& job);

}  // namespace netdp
