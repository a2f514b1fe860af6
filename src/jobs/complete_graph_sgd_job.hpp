#pragma once
// The options the DP-SGD bounds share (`bound sgd-rdp`, `sgd-closed-form`, `sgd-sigma`; docs/math.md §4.3).
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "jobs/bound_job.hpp"

namespace netdp::jobs {

/// The grid, the walk options with deltas 1e-6 and T = 10 n, lipschitz and delta, bound to job.p's lipschitz
/// and delta (bounds::SgdParams, bounds::SigmaSearchParams).
template <class Job>
std::vector<Parameter> sgd_parameters(Binding<Job>& bind, const std::string& default_lipschitz) {
  using namespace declare;
  std::vector<Parameter> parameters = bound::walk_grid_parameters(bind, "10", "1e-06");
  append(
      parameters,
      {bind(real("lipschitz", "Lipschitz constant L of the losses").fallback(default_lipschitz),
            [](Job& job, double lipschitz) { job.p.lipschitz = lipschitz; }),
       bind(real("delta", "delta").fallback("1e-06"), [](Job& job, double delta) { job.p.delta = delta; })});
  return parameters;
}
/// The walk options, lipschitz, eps (the local level or the target) and delta as manifest parameters.
nlohmann::json sgd_manifest(const bound::WalkValues& w, double lipschitz, double eps, double delta);

}  // namespace netdp::jobs
