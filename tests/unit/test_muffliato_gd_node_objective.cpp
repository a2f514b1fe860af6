// Muffliato-GD's node_objective curve (docs/muffliato_gd.md "Cost"): rows of the state that are equal bit for
// bit reuse the row before's value. Checked against the plain definition, (1/n) sum_v phi(theta_v) with phi
// evaluated at every node, on the states of the same run (muffliato_gd_trajectory): exact averaging (every
// row equal), t = 0 (every row 0) and gossip (rows all different).
#include <gtest/gtest.h>

#include "netdp/core/graph_spec.hpp"
#include "netdp/core/weighting.hpp"
#include "netdp/simulation/muffliato_gd.hpp"

namespace netdp {
namespace {

/// (1/n) sum_v phi(theta_v), every node evaluated, summed in node order as the library does.
double node_objective(const LocalData& d, const std::vector<double>& theta) {
  double sum = 0;
  for (node_t v = 0; v < d.n; ++v)
    sum +=
        global_objective(Objective::logistic, d, 0.0,
                         std::span<const double>(theta.data() + static_cast<std::size_t>(v) * d.dim, d.dim));
  return sum / d.n;
}

void expect_plain_definition(bool exact_averaging) {
  const Graph g = make_graph("er:n=40,c=2,seed=3");
  const CsrMatrix w = gossip_matrix(g, Weighting::metropolis);
  const LocalData d = synthetic_data(Objective::logistic, 40, 3, 4, 5);
  MuffliatoGdParams p;
  p.objective = Objective::logistic;
  p.steps = 4;
  p.gossip_steps = 2;
  p.step_size = 0.5;
  p.sigma = 0.8;
  p.runs = 1;
  p.seed = 9;
  p.exact_averaging = exact_averaging;
  const auto r = muffliato_gd(g, w, d, p);
  const auto states = muffliato_gd_trajectory(g, w, d, p, 0);
  ASSERT_EQ(states.size(), 5u);
  for (int t = 0; t <= p.steps; ++t) EXPECT_EQ(r.node_objective.mean[t], node_objective(d, states[t])) << t;
  // The cases the reuse covers (all rows equal) and the one it does not (gossip: every row its own).
  const auto row = [&](int t, node_t v) {
    return std::vector<double>(states[t].begin() + v * d.dim, states[t].begin() + (v + 1) * d.dim);
  };
  EXPECT_EQ(row(0, 0), row(0, 39));
  if (exact_averaging)
    EXPECT_EQ(row(3, 0), row(3, 39));
  else
    EXPECT_NE(row(3, 0), row(3, 1));
}

TEST(MuffliatoGdNodeObjective, ExactAveragingEqualsThePlainDefinition) {
  expect_plain_definition(true);
}

TEST(MuffliatoGdNodeObjective, GossipEqualsThePlainDefinition) {
  expect_plain_definition(false);
}

}  // namespace
}  // namespace netdp
