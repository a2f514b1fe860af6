// The memory plans (kernels/common/memory_plan.hpp), without a GPU: the CUDA accountants at the target sizes
// and the host drivers' batches and tiles, pure functions of the sizes, the free memory and the limits
// (docs/cuda_backend.md, "One memory plan"). Every expected figure is derived by hand in the comments; "80
// GiB free" is an H100 80 GB's figure rounded up, so that the numbers are easy to check (85,899,345,920
// bytes).
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <vector>

#include "common/memory_plan.hpp"

namespace {

namespace mp = netdp::kernels::memory_plan;

constexpr std::int64_t kGiB = std::int64_t{1} << 30;
constexpr std::int64_t kFree80 = 80 * kGiB;  // 85,899,345,920
// floor(85,899,345,920 * 85 / 100) = 859,993,459 * 85 + 20 * 85 / 100 = 73,014,444,015 + 17.
constexpr std::int64_t kBudget80 = 73'014'444'032;

// The plans are constexpr: they could run at compile time, so they certainly make no CUDA call.
static_assert(mp::device_budget(100, 0).bytes == 85);
static_assert(mp::plan_staging(1, 1).chunk_columns == 1);

TEST(MemoryPlan, BudgetIsOneShareOfTheFreeMemoryOrTheLimit) {
  EXPECT_EQ(mp::kDeviceMemoryPercent, 85);
  EXPECT_DOUBLE_EQ(mp::kDeviceMemoryShare, 0.85);
  const mp::Budget share = mp::device_budget(kFree80, 0);
  EXPECT_EQ(share.bytes, kBudget80);
  EXPECT_FALSE(share.from_limit);
  EXPECT_EQ(mp::describe(share, 0), "85% of the free memory of CUDA device 0");
  // A limit below the share wins; one above it does not.
  const mp::Budget limited = mp::device_budget(kFree80, 8 * kGiB);
  EXPECT_EQ(limited.bytes, 8 * kGiB);
  EXPECT_TRUE(limited.from_limit);
  EXPECT_EQ(mp::describe(limited, 0), "the memory limit");
  EXPECT_EQ(mp::device_budget(kFree80, 79 * kGiB).bytes, kBudget80);
  // Exact integers, no rounding of a double: 99 * 85 / 100 = 84.15 -> 84.
  EXPECT_EQ(mp::device_budget(99, 0).bytes, 84);
  // The simulators' form with their own share.
  EXPECT_EQ(mp::device_budget_with_share(1000, 0.5, 0).bytes, 500);
  EXPECT_EQ(mp::describe(mp::device_budget_with_share(1000, 0.5, 0), 1, 0.5),
            "50% of the free memory of CUDA device 1");
}

TEST(MemoryPlan, BalancedTilesNeverAddATile) {
  EXPECT_EQ(mp::balanced_tile(65'536, 34'791), 32'768);  // 2 tiles either way, of 32,768
  EXPECT_EQ(mp::balanced_tile(65'536, 32'767), 21'846);  // 3 tiles: 21,846 + 21,846 + 21,844
  EXPECT_EQ(mp::balanced_tile(150, 7), 7);               // ceil(150 / 7) = 22 tiles; 150 / 22 -> 7
  EXPECT_EQ(mp::balanced_tile(10, 100), 10);             // clamped to the count
  EXPECT_EQ(mp::balanced_tile(0, 5), 0);
  EXPECT_EQ(mp::balanced_tile(5, 0), 0);
  EXPECT_EQ(mp::max_block_columns(65'536), 32'767);  // (2^31 - 1) / 2^16, rounded down
  EXPECT_EQ(mp::max_block_columns(16'384), 131'071);
}

TEST(MemoryPlan, StagingIsTwoChunksOfAtMost256MiB) {
  // n = 65,536: a row is 512 KiB, so 256 MiB holds 512 rows; two chunks = 512 MiB, whatever the tile.
  const mp::Staging big = mp::plan_staging(65'536, 21'846);
  EXPECT_EQ(big.chunk_columns, 512);
  EXPECT_EQ(big.bytes, 536'870'912);
  // A tile narrower than a chunk: chunks of the tile's width (7 rows of 150 doubles, twice).
  const mp::Staging small = mp::plan_staging(150, 7);
  EXPECT_EQ(small.chunk_columns, 7);
  EXPECT_EQ(small.bytes, 2 * 7 * 150 * 8);
  // A row longer than a chunk (n = 40,000,000: 320 MB): one row per chunk.
  EXPECT_EQ(mp::plan_staging(40'000'000, 3).chunk_columns, 1);
  EXPECT_EQ(mp::plan_staging(0, 3).bytes, 0);
}

// Gossip on the d = 16 hypercube, n = 65,536, metropolis W (degree 16, so nnz = 17 n = 1,114,112 with the
// diagonal; adjacency 16 n = 1,048,576 ids), T = 64 steps:
//   W in 64-bit CSR     (n + 1) 8 + nnz (4 + 8)      =    524,296 + 13,369,344 = 13,893,640
//   adjacency           (n + 1) 8 + 4 * 1,048,576    =    524,296 +  4,194,304 =  4,718,600
//   norms               T n 8 = 64 * 524,288                                   = 33,554,432
//   fixed                                                                       = 52,166,672
//   per source          X, Y, S, losses = 4 n 8                                 =  2,097,152
constexpr mp::GossipLossSizes kGossip65k{65'536, 1'114'112, 1'048'576, 64, false, 65'536};
constexpr std::int64_t kGossipFixed = 52'166'672;

TEST(MemoryPlan, GossipAt65536NodesOn80GiB) {
  // (73,014,444,032 - 52,166,672) / 2,097,152 = 34,791 (remainder 262,128), above the block limit 32,767
  // ((2^31 - 1) / 65,536): 3 tiles, balanced to ceil(65,536 / 3) = 21,846 sources.
  const mp::GossipLossPlan plan = mp::plan_gossip_loss(kGossip65k, {kFree80, 0, 0});
  ASSERT_TRUE(plan.fits);
  EXPECT_EQ(plan.budget.bytes, kBudget80);
  EXPECT_EQ(plan.fixed_bytes, kGossipFixed);
  EXPECT_EQ(plan.per_source_bytes, 2'097'152);
  EXPECT_EQ(plan.norms_tile, 21'846);
  EXPECT_EQ(plan.tile, 21'846);
  EXPECT_EQ(plan.tiles, 3);
  EXPECT_EQ(plan.block_columns, 21'846);
  // Device: fixed + 2 n 8 (21,846 + 21,846) = 52,166,672 + 1,048,576 * 43,692 = 45,866,549,264 (42.7 GiB).
  EXPECT_EQ(plan.device_bytes, 45'866'549'264);
  EXPECT_LE(plan.device_bytes, plan.budget.bytes);
  // Pinned: 2 x 512 rows of 512 KiB = 512 MiB, where a tile-sized buffer would take 21,846 rows = 11.5 GB
  // (18.2 GB with the 34,791-wide tile of the old plan).
  EXPECT_EQ(plan.staging.chunk_columns, 512);
  EXPECT_EQ(plan.staging.bytes, 536'870'912);
}

TEST(MemoryPlan, GossipAt65536NodesOn40GiBAndUnderLimits) {
  // 40 GiB free: budget floor(42,949,672,960 * 0.85) = 36,507,222,016; (36,507,222,016 - 52,166,672) /
  // 2,097,152 = 17,383 -> 4 tiles of exactly 16,384.
  const mp::GossipLossPlan plan40 = mp::plan_gossip_loss(kGossip65k, {40 * kGiB, 0, 0});
  EXPECT_EQ(plan40.budget.bytes, 36'507'222'016);
  EXPECT_EQ(plan40.tile, 16'384);
  EXPECT_EQ(plan40.tiles, 4);

  // --memory-limit 1 GiB: (1,073,741,824 - 52,166,672) / 2,097,152 = 487 -> ceil(65,536 / 487) = 135
  // tiles, balanced to ceil(65,536 / 135) = 486; chunks of 486 rows (the tile is narrower than 512).
  const mp::GossipLossPlan limited = mp::plan_gossip_loss(kGossip65k, {kFree80, kGiB, 0});
  EXPECT_TRUE(limited.budget.from_limit);
  EXPECT_EQ(limited.tile, 486);
  EXPECT_EQ(limited.tiles, 135);
  EXPECT_EQ(limited.staging.chunk_columns, 486);
  EXPECT_EQ(limited.device_bytes, kGossipFixed + 4 * 524'288 * std::int64_t{486});  // 1,071,382,544
  EXPECT_LE(limited.device_bytes, kGiB);

  // 50 MB: not even fixed + one source = 54,263,824 bytes.
  const mp::GossipLossPlan refused = mp::plan_gossip_loss(kGossip65k, {kFree80, 50'000'000, 0});
  EXPECT_FALSE(refused.fits);
  EXPECT_EQ(refused.needed_bytes, 54'263'824);
  EXPECT_EQ(refused.tile, 0);
}

TEST(MemoryPlan, GossipSingleSourceAndForcedTiles) {
  // --source: pass 2 has one column, pass 1 still covers all n in 3 tiles of 21,846; X and Y are sized for
  // pass 1. Device: fixed + 2 n 8 (21,846 + 1) = 22,960,406,544; staging: two chunks of one row (1 MiB).
  mp::GossipLossSizes one = kGossip65k;
  one.count = 1;
  const mp::GossipLossPlan single = mp::plan_gossip_loss(one, {kFree80, 0, 0});
  EXPECT_EQ(single.norms_tile, 21'846);
  EXPECT_EQ(single.tile, 1);
  EXPECT_EQ(single.tiles, 1);
  EXPECT_EQ(single.block_columns, 21'846);
  EXPECT_EQ(single.device_bytes, 22'960'406'544);
  EXPECT_EQ(single.staging.bytes, 2 * 524'288);

  // --tile-sources 7: used as given (no fit check, as before): ceil(65,536 / 7) = 9,363 tiles.
  const mp::GossipLossPlan forced = mp::plan_gossip_loss(kGossip65k, {kFree80, 0, 7});
  EXPECT_TRUE(forced.fits);
  EXPECT_EQ(forced.tile, 7);
  EXPECT_EQ(forced.tiles, 9'363);
  // --tile-sources 40,000: held to the block limit.
  EXPECT_EQ(mp::plan_gossip_loss(kGossip65k, {kFree80, 0, 40'000}).tile, 32'767);
}

TEST(MemoryPlan, GossipDenseWIsFixed) {
  // The dense path holds the Propagator's 32-bit CSR ((n + 1) 4 + nnz 12 = 13,631,492, not the 64-bit one)
  // and n^2 doubles: 65,536^2 * 8 = 34,359,738,368; with the adjacency and the norms, 34,411,642,892.
  mp::GossipLossSizes dense = kGossip65k;
  dense.dense = true;
  const mp::GossipLossPlan plan = mp::plan_gossip_loss(dense, {kFree80, 0, 0});
  EXPECT_EQ(plan.fixed_bytes, 13'631'492 + 4'718'600 + 33'554'432 + 34'359'738'368);
  EXPECT_EQ(plan.fixed_bytes, 34'411'642'892);
  // (73,014,444,032 - 34,411,642,892) / 2,097,152 = 18,407 -> 4 tiles of 16,384.
  EXPECT_EQ(plan.tile, 16'384);
  EXPECT_EQ(plan.tiles, 4);
}

// Eigensolver (walk loss, spectral / finite) at n = 16,384, anonymous sender (no adjacency on the device):
//   V                    n^2 8                    = 2,147,483,648
//   small arrays         eigenvalues, g: 2 n 8 + devInfo 4 = 262,148
//   fixed                                          = 2,147,745,796
//   syevd workspace (LAPACK's 1 + 6 n + 2 n^2 doubles) = 536,969,217 * 8 = 4,295,753,736
//   eigen peak           fixed + workspace         = 6,443,499,532 (the 6 GiB of docs/walk_loss.md)
//   per source           B and the G block: 2 n 8  =       262,144
constexpr std::int64_t kEigenN = 16'384;
constexpr mp::WalkLossSizes kEigen16k{kEigenN, 17 * kEigenN, 16 * kEigenN, false, kEigenN};

TEST(MemoryPlan, EigensolverAt16384NodesOn80GiB) {
  const std::int64_t workspace = mp::syevd_workspace_doubles(kEigenN) * 8;
  EXPECT_EQ(workspace, 4'295'753'736);
  // Before the solver's figure is known: V, the small arrays and max(one source, CSR) only.
  const mp::WalkSpectralPlan before = mp::plan_walk_spectral(kEigen16k, {kFree80, 0, 0}, 0);
  EXPECT_TRUE(before.fits);
  EXPECT_EQ(before.fixed_bytes, 2'147'745'796);
  // CSR: 16,385 * 4 + 278,528 * 12 = 3,407,876 bytes.
  EXPECT_EQ(before.csr_bytes, 3'407'876);

  const mp::WalkSpectralPlan plan = mp::plan_walk_spectral(kEigen16k, {kFree80, 0, 0}, workspace);
  ASSERT_TRUE(plan.fits);
  EXPECT_EQ(plan.vectors_bytes, 2'147'483'648);
  EXPECT_EQ(plan.eigen_peak_bytes, 6'443'499'532);
  EXPECT_EQ(plan.per_source_bytes, 262'144);
  // (73,014,444,032 - 2,147,745,796) / 262,144 = 270,334 sources would fit: one tile of all 16,384.
  EXPECT_EQ(plan.tile, kEigenN);
  EXPECT_EQ(plan.tiles, 1);
  // Tile phase: 2,147,745,796 + 16,384 * 262,144 = 6,442,713,092, below the eigen peak.
  EXPECT_EQ(plan.device_bytes, 6'443'499'532);
  // Staging: a row is 128 KiB, 256 MiB holds 2,048 rows; two chunks = 512 MiB (not the 2 GiB of the tile).
  EXPECT_EQ(plan.staging.chunk_columns, 2'048);
  EXPECT_EQ(plan.staging.bytes, 536'870'912);

  // The sender-known view adds the adjacency: 16,385 * 8 + 262,144 * 4 = 1,179,656 bytes.
  mp::WalkLossSizes known = kEigen16k;
  known.sender_known = true;
  EXPECT_EQ(mp::plan_walk_spectral(known, {kFree80, 0, 0}, workspace).fixed_bytes, 2'147'745'796 + 1'179'656);
}

TEST(MemoryPlan, EigensolverRefusedWhenTheWorkspaceDoesNotFit) {
  // --memory-limit 6 GiB = 6,442,450,944: V and one source fit (the first check), V and the workspace do not,
  // by 6,443,499,532 - 6,442,450,944 = 1,048,588 bytes.
  const mp::Limits limits{kFree80, 6 * kGiB, 0};
  EXPECT_TRUE(mp::plan_walk_spectral(kEigen16k, limits, 0).fits);
  const mp::WalkSpectralPlan plan =
      mp::plan_walk_spectral(kEigen16k, limits, mp::syevd_workspace_doubles(kEigenN) * 8);
  EXPECT_FALSE(plan.fits);
  EXPECT_EQ(plan.needed_bytes, 6'443'499'532);
  EXPECT_EQ(plan.tile, 0);
}

TEST(MemoryPlan, EigensolverSizesAre64Bit) {
  // The 32-bit cuSOLVER API returns the workspace as an int count of doubles: 1 + 6 n + 2 n^2 is
  // 2,147,418,109 at n = 32,766 (fits) and 2,147,549,181 > 2^31 - 1 at n = 32,767 (overflows).
  EXPECT_EQ(mp::syevd_workspace_doubles(32'766), 2'147'418'109);
  EXPECT_FALSE(mp::int_lwork_overflows(32'766));
  EXPECT_EQ(mp::syevd_workspace_doubles(32'767), 2'147'549'181);
  EXPECT_TRUE(mp::int_lwork_overflows(32'767));
  EXPECT_TRUE(mp::int_lwork_overflows(65'536));
  EXPECT_FALSE(mp::int_lwork_overflows(16'384));

  // n = 32,767 in 64-bit arithmetic: V = 32,767^2 * 8 = 8,589,410,312, fixed 8,589,934,588 (+ 2 n 8 + 4),
  // workspace 17,180,393,448, peak 25,770,328,036: fits an 80 GiB device.
  const mp::WalkLossSizes n32k{32'767, 17 * 32'767, 16 * 32'767, false, 32'767};
  const mp::WalkSpectralPlan plan32k =
      mp::plan_walk_spectral(n32k, {kFree80, 0, 0}, mp::syevd_workspace_doubles(32'767) * 8);
  EXPECT_EQ(plan32k.vectors_bytes, 8'589'410'312);
  EXPECT_EQ(plan32k.eigen_peak_bytes, 25'770'328'036);
  EXPECT_TRUE(plan32k.fits);
  EXPECT_EQ(plan32k.tiles, 1);  // 122,883 sources of 524,272 bytes would fit beside the fixed part

  // n = 65,536: V = 34,359,738,368, workspace 68,722,622,472, peak 103,083,409,420 > 73,014,444,032: refused
  // with the true figure (no int wrapped to a small or negative size).
  const mp::WalkLossSizes n64k{65'536, 17 * 65'536, 16 * 65'536, false, 65'536};
  const mp::WalkSpectralPlan plan64k =
      mp::plan_walk_spectral(n64k, {kFree80, 0, 0}, mp::syevd_workspace_doubles(65'536) * 8);
  EXPECT_EQ(plan64k.needed_bytes, 103'083'409'420);
  EXPECT_FALSE(plan64k.fits);
}

// The walk plans on the d = 16 hypercube (anonymous sender): W's 64-bit CSR is the fixed part, 13,893,640
// bytes, and the widest tile is above the block limit 32,767, so both split the 65,536 sources into 3 tiles
// of 21,846.
constexpr mp::WalkLossSizes kWalk65k{65'536, 1'114'112, 1'048'576, false, 65'536};

template <class Plan>
void expect_three_tiles(const Plan& plan, std::int64_t per_source) {
  ASSERT_TRUE(plan.fits);
  EXPECT_EQ(plan.fixed_bytes, 13'893'640);
  EXPECT_EQ(plan.per_source_bytes, per_source);
  EXPECT_EQ(plan.tile, 21'846);
  EXPECT_EQ(plan.tiles, 3);
}

TEST(MemoryPlan, WalkSeriesAt65536Nodes) {
  // Series: per source X, Y, S = 3 n 8 = 1,572,864; (73,014,444,032 - 13,893,640) / 1,572,864 = 46,412.
  // Device: 13,893,640 + 21,846 * 1,572,864 = 34,374,680,584.
  const mp::WalkSeriesPlan plan = mp::plan_walk_series(kWalk65k, {kFree80, 0, 0});
  expect_three_tiles(plan, 1'572'864);
  EXPECT_EQ(plan.device_bytes, 34'374'680'584);
  EXPECT_EQ(plan.staging.bytes, 536'870'912);
  // The fit check holds with a forced tile too: 1 MB is less than the CSR.
  EXPECT_FALSE(mp::plan_walk_series(kWalk65k, {kFree80, 1'000'000, 7}).fits);
}

TEST(MemoryPlan, WalkChebyshevAt65536Nodes) {
  // Chebyshev: per source t_k, t_{k-1}, y, s = 4 n 8 = 2,097,152, its source index 8 and three lane means 24:
  // 2,097,184; (73,014,444,032 - 13,893,640) / 2,097,184 = 34,808.
  const mp::WalkChebyshevPlan plan = mp::plan_walk_chebyshev(kWalk65k, {kFree80, 0, 0});
  expect_three_tiles(plan, 2'097'184);
  EXPECT_EQ(plan.needed_bytes, 15'990'824);
  // The sender-known view adds the adjacency, (n + 1) 8 + 4 * 1,048,576 = 4,718,600.
  mp::WalkLossSizes known = kWalk65k;
  known.sender_known = true;
  EXPECT_EQ(mp::plan_walk_chebyshev(known, {kFree80, 0, 0}).fixed_bytes, 13'893'640 + 4'718'600);
  // 15 MB is less than fixed + one source: refused, forced tile or not.
  EXPECT_FALSE(mp::plan_walk_chebyshev(kWalk65k, {kFree80, 15'000'000, 0}).fits);
  EXPECT_FALSE(mp::plan_walk_chebyshev(kWalk65k, {kFree80, 15'000'000, 7}).fits);
  EXPECT_EQ(mp::plan_walk_chebyshev(kWalk65k, {kFree80, 0, 7}).tile, 7);
}

TEST(MemoryPlan, AMillionWalks) {
  // The walk simulator's scratch is 3 words of 8 bytes per node and walk, plus a 4-byte start
  // (walk_sim_cuda.cu, without visit counts above the cap). n = 100 (complete:n=100, Fig. 7.1b): 2,404
  // bytes per walk; 73,014,444,032 / 2,404 = 30,372,064 walks fit, so 10^6 walks are one batch.
  const mp::Budget budget = mp::device_budget(kFree80, 0);
  const mp::BatchPlan small = mp::plan_batch(1'000'000, 0, 2'404, budget, std::int64_t{1} << 22);
  EXPECT_EQ(small.batch, 1'000'000);
  EXPECT_EQ(small.batches, 1);
  EXPECT_EQ(small.bytes, 2'404'000'000);
  // n = 100,000: 2,400,004 bytes per walk; 30,422 fit -> ceil(10^6 / 30,422) = 33 batches, balanced to
  // ceil(10^6 / 33) = 30,304 walks (72,729,721,216 bytes).
  const mp::BatchPlan large = mp::plan_batch(1'000'000, 0, 2'400'004, budget, std::int64_t{1} << 22);
  EXPECT_EQ(large.batch, 30'304);
  EXPECT_EQ(large.batches, 33);
  EXPECT_EQ(large.bytes, 72'729'721'216);
  // The cap of automatic batches (2^22 walks in walk_sim_cuda.cu) binds for tiny walks.
  EXPECT_EQ(mp::plan_batch(10'000'000, 0, 8, budget, std::int64_t{1} << 22).batches, 3);
  // Not one walk: refused.
  EXPECT_FALSE(mp::plan_batch(1'000'000, 0, budget.bytes + 1, budget, 0).fits);
}

// ---- The host drivers' budgets, tiles and batches (gossip-sim, the exact gossip accountants, row tiles)
// ----

static_assert(mp::host_budget(1'000, 0) == 800);
static_assert(mp::plan_run_batch({.items = 10, .fixed = 100, .per_item = 30, .budget = 190}).batch == 3);

TEST(MemoryPlan, HostBudgetIsFourFifthsOfTheAvailableMemoryOrTheLimit) {
  EXPECT_EQ(mp::host_budget(1'000, 0), 800);
  EXPECT_EQ(mp::host_budget(1'003, 0), 802);  // 4,012 / 5 = 802.4, rounded down
  EXPECT_EQ(mp::host_budget(1'000, 300), 300);
  EXPECT_EQ(mp::host_budget(1'000, 5'000), 5'000);  // the limit is the user's, even above the machine's
}

TEST(MemoryPlan, ItemsThatFitBesideTheFixedPart) {
  // fixed 100 + 3 items of 30 = 190 exactly.
  EXPECT_EQ(mp::items_that_fit(100, 30, 190), 3);
  EXPECT_EQ(mp::items_that_fit(100, 30, 189), 2);  // one byte less: 89 / 30
  EXPECT_EQ(mp::items_that_fit(100, 30, 130), 1);
  EXPECT_EQ(mp::items_that_fit(100, 30, 129), 0);  // not one
  EXPECT_EQ(mp::items_that_fit(200, 30, 190), 0);  // the fixed part alone is above the budget
}

TEST(MemoryPlan, RunBatchesFitTheBudgetExactly) {
  mp::RunBatchRequest r{.items = 10, .fixed = 100, .per_item = 30, .budget = 190};
  mp::RunBatchPlan plan = mp::plan_run_batch(r);  // 3 items fit exactly
  EXPECT_EQ(plan.fits, 3);
  EXPECT_EQ(plan.batch, 3);
  EXPECT_EQ(plan.batches, 4);  // 3 + 3 + 3 + 1, in order (not balanced)
  EXPECT_EQ(plan.bytes, 190);
  EXPECT_TRUE(plan.forced_fits);
  r.budget = 189;  // one byte less: 2 items
  plan = mp::plan_run_batch(r);
  EXPECT_EQ(plan.batch, 2);
  EXPECT_EQ(plan.batches, 5);
  EXPECT_EQ(plan.bytes, 160);
  r.budget = 129;  // not one item: batch 0, the caller's InsufficientMemory
  plan = mp::plan_run_batch(r);
  EXPECT_EQ(plan.fits, 0);
  EXPECT_EQ(plan.batch, 0);
  EXPECT_EQ(plan.batches, 0);
  r.fixed = 200;  // the fixed part above the budget: the same
  r.budget = 190;
  EXPECT_EQ(mp::plan_run_batch(r).fits, 0);
  // More room than items: one batch of all of them; no items plans as one.
  EXPECT_EQ(mp::plan_run_batch({.items = 10, .fixed = 0, .per_item = 1, .budget = 1'000}).batch, 10);
  const mp::RunBatchPlan none = mp::plan_run_batch({.items = 0, .fixed = 0, .per_item = 1, .budget = 1'000});
  EXPECT_EQ(none.batch, 1);
  EXPECT_EQ(none.batches, 1);
}

TEST(MemoryPlan, ForcedRunBatchesAreUsedAsGivenOrRefused) {
  mp::RunBatchRequest r{.items = 10, .fixed = 100, .per_item = 30, .budget = 190, .forced = 3};
  EXPECT_TRUE(mp::plan_run_batch(r).forced_fits);  // 3 of 3 that fit
  r.forced = 4;  // one more than fits: reported with its own bytes, for the message
  mp::RunBatchPlan plan = mp::plan_run_batch(r);
  EXPECT_FALSE(plan.forced_fits);
  EXPECT_EQ(plan.batch, 4);
  EXPECT_EQ(plan.bytes, 220);
  EXPECT_EQ(plan.fits, 3);
  r.forced = 2;  // below what fits: as given, not widened
  plan = mp::plan_run_batch(r);
  EXPECT_EQ(plan.batch, 2);
  EXPECT_EQ(plan.batches, 5);
  r.forced = 50;  // clamped to the items first
  r.budget = 100'000;
  EXPECT_EQ(mp::plan_run_batch(r).batch, 10);
  // A forced batch is not given the automatic preference nor the panel trim.
  r.forced = 9;
  r.preferred = 2;
  r.columns_per_item = 1;
  r.panel_lanes = 8;
  EXPECT_EQ(mp::plan_run_batch(r).batch, 9);
}

TEST(MemoryPlan, AutomaticRunBatchesArePreferredTrimmedAndCapped) {
  // Room for 30 items, preferred 4: 4 a batch, 3 batches for 10.
  mp::RunBatchRequest r{.items = 10, .fixed = 0, .per_item = 10, .budget = 300, .preferred = 4};
  EXPECT_EQ(mp::plan_run_batch(r).batch, 4);
  EXPECT_EQ(mp::plan_run_batch(r).batches, 3);
  // gossip-sim's whole panels (D = 1, 8 lanes): 9 fit of 37, trimmed to 8 = one panel.
  r = {.items = 37, .fixed = 0, .per_item = 10, .budget = 95, .columns_per_item = 1, .panel_lanes = 8};
  EXPECT_EQ(mp::plan_run_batch(r).fits, 9);
  EXPECT_EQ(mp::plan_run_batch(r).batch, 8);
  EXPECT_EQ(mp::plan_run_batch(r).batches, 5);
  // D = 3: 7 runs are 21 columns, 21 mod 8 = 5 columns over, floor(5 / 3) = 1 run less: 6.
  r.columns_per_item = 3;
  r.budget = 75;
  EXPECT_EQ(mp::plan_run_batch(r).batch, 6);
  // No trim when the batch covers every item, nor when it would leave no run (5 runs of D = 1 < 8 lanes).
  r = {.items = 9, .fixed = 0, .per_item = 10, .budget = 95, .columns_per_item = 1, .panel_lanes = 8};
  EXPECT_EQ(mp::plan_run_batch(r).batch, 9);
  r.items = 37;
  r.budget = 55;
  EXPECT_EQ(mp::plan_run_batch(r).batch, 5);
  // The cap (32-bit sizes) binds automatic batches; a forced batch that does not fit is reported uncapped.
  r = {.items = 1'000, .fixed = 0, .per_item = 1, .budget = 100, .cap = 7};
  EXPECT_EQ(mp::plan_run_batch(r).batch, 7);
  EXPECT_EQ(mp::plan_run_batch(r).batches, 143);  // ceil(1,000 / 7)
  r.forced = 500;
  EXPECT_FALSE(mp::plan_run_batch(r).forced_fits);
  EXPECT_EQ(mp::plan_run_batch(r).batch, 500);
  r.forced = 50;
  EXPECT_EQ(mp::plan_run_batch(r).batch, 7);
}

TEST(MemoryPlan, ConsecutiveBatchesTakeObserversInOrder) {
  // Room 7: {3, 4} = 7 (2 would make 9), {2, 5} = 7 (1 would make 8), {1}.
  const std::vector<double> bytes{3, 4, 2, 5, 1};
  const mp::ConsecutiveBatches plan = mp::plan_consecutive_batches(bytes, 7);
  EXPECT_EQ(plan.counts, (std::vector<std::int64_t>{2, 2, 1}));
  EXPECT_EQ(plan.largest_bytes, 7);
  // One byte less of room: {3}, {4, 2}, {5, 1}.
  const mp::ConsecutiveBatches tighter = mp::plan_consecutive_batches(bytes, 6.99);
  EXPECT_EQ(tighter.counts, (std::vector<std::int64_t>{1, 2, 2}));
  EXPECT_EQ(tighter.largest_bytes, 6);
  // An observer larger than the room still gets a batch of its own (the caller checked one fits).
  const std::vector<double> large{10, 1};
  EXPECT_EQ(mp::plan_consecutive_batches(large, 5).counts, (std::vector<std::int64_t>{1, 1}));
  EXPECT_EQ(mp::plan_consecutive_batches(large, 5).largest_bytes, 10);
  EXPECT_TRUE(mp::plan_consecutive_batches({}, 5).counts.empty());
}

TEST(MemoryPlan, OutputTilesAreAbout64MiBOfRows) {
  // 64 MiB = 67,108,864 bytes; n = 1,000: 8,000 bytes a row, 8,388 rows (clamped to the 1,000 there are).
  EXPECT_EQ(mp::output_tile(1'000, 1'000), 1'000);
  EXPECT_EQ(mp::output_tile(100'000, 1'000), 8'388);
  EXPECT_EQ(mp::output_tile(1'000'000, 1'000'000), 8);        // 67,108,864 / 8,000,000 = 8.39
  EXPECT_EQ(mp::output_tile(1, 1'000), 1);                    // one source
  EXPECT_EQ(mp::output_tile(100, std::int64_t{1} << 24), 1);  // a row above 64 MiB: still one
}

TEST(MemoryPlan, HostRowTilesLeaveThreeQuartersForTheSink) {
  // n = 1,000, fixed 10^6, 16,000 bytes a row, budget 2 * 10^6: a quarter of the 10^6 left holds 15 rows
  // (250,000 / 16,000 = 15.6), under the preferred max(8,388, 32 * 2 threads).
  mp::RowTilePlan plan = mp::plan_row_tile(1'000, 1'000, 1'000'000, 16'000, 2'000'000, 0, 2);
  EXPECT_TRUE(plan.fits);
  EXPECT_EQ(plan.tile, 15);
  EXPECT_EQ(plan.tiles, 67);  // ceil(1,000 / 15)
  EXPECT_EQ(plan.bytes, 1'240'000);
  // Exactly one row beside the fixed part: fits, a tile of 1; one byte less does not fit.
  plan = mp::plan_row_tile(1'000, 1'000, 1'000'000, 16'000, 1'016'000, 0, 2);
  EXPECT_TRUE(plan.fits);
  EXPECT_EQ(plan.tile, 1);
  EXPECT_FALSE(mp::plan_row_tile(1'000, 1'000, 1'000'000, 16'000, 1'015'999, 0, 2).fits);
  // Forced tiles as given, clamped to the count.
  EXPECT_EQ(mp::plan_row_tile(1'000, 1'000, 0, 16'000, 2'000'000, 7, 2).tiles, 143);
  EXPECT_EQ(mp::plan_row_tile(1'000, 1'000, 0, 16'000, 2'000'000, 5'000, 2).tile, 1'000);
  // Plenty of memory: the preferred width, 8,388 rows of 64 MiB or 32 rows a thread when that is more.
  EXPECT_EQ(mp::plan_row_tile(1'000, 20'000, 0, 16'000, std::int64_t{1} << 40, 0, 2).tile, 8'388);
  EXPECT_EQ(mp::plan_row_tile(1'000, 20'000, 0, 16'000, std::int64_t{1} << 40, 0, 300).tile, 9'600);
}

}  // namespace
