#pragma once
// The matrix-factorization models (docs/mf.md): `netdp mf-loss` (pairwise sensitivities and Renyi losses of a
// correlation under a trust model) and the specification both MF models read. Outputs: docs/outputs.md.
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "netdp/io/run_result.hpp"

#include "netdp/mf/mf_correlation.hpp"

namespace netdp {

/// What both MF models read: the graph and W, the horizon, the participation and the correlation.
struct MfSpec {
  std::string graph;                // graph spec; may be empty for mf-factorize of graph-free families
  std::string weights = "average";  // average = D^-1 (A + I), or a netdp weighting
  int steps = 10;
  std::string participation = "every";
  std::string correlation = "ldp";
  mf::CorrelationSpec options;  // symmetric Toeplitz, band, surrogate, max iterations (kind/path from text)
};

struct MfLossJob {
  MfSpec spec;
  std::string trust = "pndp";
  std::string attackers = "all";  // "all" or a comma list of nodes
  double alpha = 2, sigma = 1;
  double secret_ratio = 1;  // trust secldp: each edge secret's std over the local noise's (docs/math.md §9.4)
  // trust observation (docs/mf.md "User-supplied observation models"): .npy paths; b required, the others
  // optional (c: the global N x N C, default the node-major diag of C_local; a: checked A = B C; pi: the
  // victims' participation sets, default node-major from the participation).
  std::string observation_b, observation_c, observation_a, observation_pi;
  std::optional<double> delta;  // given: epsilon.npy at this delta in (0, 1)
  std::string conversion = "gdp";
  // "muffliato": also the earlier Muffliato-SGD bound (docs/math.md §6.5 "muffliato_mfdl") at the same T,
  // alpha and sigma, for the PNDP attackers: baseline_loss.npy, baseline_by_distance.csv, summary "baseline".
  std::string baseline = "none";
  std::string out_dir;
  bool progress = true;
  nlohmann::json invocation;
};

/// Checks that need no graph (participation, correlation, trust, alpha, sigma).
void check_mf_loss_job(const MfLossJob& job);
/// sensitivity.npy, loss.npy, epsilon.npy (with delta), C.npy, by_distance.csv (not for trust observation),
/// baseline_loss.npy and baseline_by_distance.csv (baseline muffliato) and the summary as a typed result (the
/// writer stage writes them, docs/outputs.md).
RunResult run_mf_loss_job(const MfLossJob& job);

}  // namespace netdp
