#pragma once
// Checks of a whole plan before anything runs (docs/study.md "Validation"): every grid point parses as a
// model invocation, and the estimates fit the study's memory limit and time budget.
#include <vector>

#include "netdp/study/study_plan.hpp"

namespace netdp::study {

/// One estimate per unit (units of one grid point share it). `progress`: lines on stderr when the checks take
/// more than a few seconds (core/progress.hpp; a study of 10^4+ grid points).
std::vector<UnitEstimate> check_plan(const StudySpec& spec, const StudyPlan& plan,
                                     const ModelCatalog& catalog, int parallel_workers,
                                     bool progress = false);

}  // namespace netdp::study
