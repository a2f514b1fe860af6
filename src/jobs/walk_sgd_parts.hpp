#pragma once
// walk-sgd's heterogeneous-data report (docs/walk_sgd.md "Heterogeneous data", docs/math.md §11 E15).
#include <functional>
#include <string>
#include <vector>

#include "netdp/io/csv_table.hpp"
#include "netdp/jobs/walk_sgd_job.hpp"
#include "netdp/simulation/walk_sim_model.hpp"

namespace netdp {

/// The node positions (x0, y0, x1, ...) of an rgg:n=N,r=R[,seed=S] spec, from the same generator and seed
/// as the graph; InvalidParameter "node-data" for any other family.
std::vector<double> walk_sgd_rgg_positions(const std::string& graph);

/// Writes by_distance.csv into `out` and returns its name: the unordered pairs in `quantiles` classes of
/// equal size by Euclidean distance; per class its distance range, the mean pairwise loss (eps_{u->v} +
/// eps_{v->u}) / 2 of walk_loss at loss.sigma (nan when 0), and at every evaluated step the estimate
/// discrepancy of walk_sgd_discrepancy (its runs reported to `progress`).
CsvTable walk_sgd_by_distance_table(const WalkModel& walk, const LocalData& data, const WalkSgdParams& p,
                                    const std::vector<double>& positions, const WalkSgdGraph& symmetric,
                                    const WalkLossParams& loss, int quantiles,
                                    const std::function<void(double)>& progress);

}  // namespace netdp
