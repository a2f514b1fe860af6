#pragma once
// The options the DP-SGD bounds share (`bound sgd-rdp`, `sgd-closed-form`, `sgd-sigma`; docs/math.md §4.3).
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "jobs/bound_job.hpp"

namespace netdp::jobs {

/// The grid, the walk options with deltas 1e-6 and T = 10 n, lipschitz and delta.
std::vector<Parameter> sgd_parameters(const std::string& default_lipschitz);
/// The walk options, lipschitz, eps and delta as manifest parameters.
nlohmann::json sgd_manifest(const Values& v);

}  // namespace netdp::jobs
