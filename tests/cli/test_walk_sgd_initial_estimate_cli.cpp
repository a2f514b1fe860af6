// walk-sgd --initial-estimate (docs/walk_sgd.md "Heterogeneous data"): the summary key, by_distance.csv's
// step 0 and a bad value exiting 2 with one line.
#include <gtest/gtest.h>

#include <string>

#include "support/test_support.hpp"

namespace netdp::testing {
namespace {

TEST(WalkSgdInitialEstimateCli, SummaryAndStepZero) {
  ScratchDir dir;
  const auto out = dir / "e15";
  ASSERT_TRUE(
      run_cli_into("walk-sgd --graph rgg:n=12,r=0.6,seed=1 --weights metropolis --objective quadratic "
                   "--node-data coordinates --initial-estimate local --sigma 0.1 --steps 20 --eval-every 10 "
                   "--step-size 0.1 --cap 0 --distance-quantiles 2",
                   out, {"by_distance.csv"}));
  EXPECT_EQ(read_json(out / "summary.json")["initial_estimate"], "local");
  // The first class at step 0: the nodes' own targets x + y differ, so the discrepancy is positive.
  const auto rows = read_csv_cells(out / "by_distance.csv");
  ASSERT_GE(rows.size(), 2u);
  EXPECT_EQ(rows[1][5], "0");
  EXPECT_GT(std::stod(rows[1][6]), 0.0);
  expect_refused("walk-sgd --graph complete:n=4 --initial-estimate first", dir / "bad", "initial-estimate");
}

}  // namespace
}  // namespace netdp::testing
