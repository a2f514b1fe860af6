// `netdp bound ...` end to end: files, grids of n (list, logspace, rounding), Appendix Z values through the
// CLI, --skip-invalid, and exit 2 with no manifest.json on bad input.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/test_support.hpp"

namespace netdp {
namespace {

using namespace testing;  // tests/support/test_support.hpp
namespace fs = std::filesystem;

// bound.csv as one map column -> value per row.
std::vector<std::map<std::string, double>> read_csv(const fs::path& path) {
  auto cells = testing::read_csv_cells(path);
  std::vector<std::map<std::string, double>> rows;
  for (std::size_t r = 1; r < cells.size(); ++r) {
    rows.emplace_back();
    for (std::size_t c = 0; c < cells[0].size(); ++c)
      rows.back()[cells[0][c]] = std::stod(cells[r].at(c));  // "nan" and "inf" parse too
  }
  return rows;
}

TEST(CliBound, CompleteSumWritesTheAppendixZ4Curve) {
  ScratchDir dir;
  const auto out = dir / "sum";
  auto r = run_cli("bound complete-sum --n 1e6,10,20,24,100,1000,1e4 --out " + out.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* file : {"bound.csv", "summary.json", "manifest.json"}) EXPECT_TRUE(fs::exists(out / file));
  const auto rows = read_csv(out / "bound.csv");
  ASSERT_EQ(rows.size(), 7u);  // sorted by n
  const double ndp[] = {11.388, 7.508, 6.751, 3.043, 0.909, 0.282, 0.0280};
  for (std::size_t i = 0; i < rows.size(); ++i) {
    EXPECT_NEAR(rows[i].at("eps"), ndp[i], 1e-3 * ndp[i]);
    EXPECT_NEAR(rows[i].at("eps_ldp"), 9.1758, 5e-5);
    EXPECT_NEAR(rows[i].at("N_v"), 169.537, 1e-3);
  }
  EXPECT_DOUBLE_EQ(rows[0].at("n"), 10);
  const auto summary = read_json(out / "summary.json");
  EXPECT_EQ(summary["bound"], "complete-sum");
  EXPECT_DOUBLE_EQ(summary["first_n_network_below_ldp"].get<double>(), 20);
  const auto manifest = read_json(out / "manifest.json");
  EXPECT_EQ(manifest["command"], "bound complete-sum");
  EXPECT_EQ(manifest["parameters"]["composition"], "optimal_min");
  EXPECT_EQ(manifest["parameters"]["nv_formula"], "proof");
  EXPECT_EQ(manifest["grid"]["values"].size(), 7u);
}

TEST(CliBound, LogspaceGridIsNotRoundedByDefault) {
  ScratchDir dir;
  const auto out = dir / "grid";
  auto r = run_cli("bound complete-sum --n-logspace 0,10,30 --nv-formula code --out " + out.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto rows = read_csv(out / "bound.csv");
  ASSERT_EQ(rows.size(), 30u);
  EXPECT_NEAR(rows[3].at("n"), 10.826367338740546, 1e-12);  // Appendix Z 4b
  EXPECT_NEAR(rows[3].at("N_v"), 261.8, 0.05);
  EXPECT_NEAR(rows[3].at("eps_ldp"), 11.94, 0.005);
  EXPECT_NEAR(rows[3].at("eps"), 13.0, 0.05);
  EXPECT_NEAR(rows[4].at("eps"), 9.01, 0.005);
  EXPECT_NEAR(read_json(out / "summary.json")["first_n_network_below_ldp"].get<double>(), rows[4].at("n"), 0);
  EXPECT_TRUE(read_json(out / "summary.json").contains("warnings"));  // the code N_v is no Chernoff bound

  const auto rounded = dir / "rounded";
  r = run_cli("bound complete-sum --n-logspace 0,1,10 --n-round nearest --cycle-bound exact_max --out " +
              rounded.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto rows2 = read_csv(rounded / "bound.csv");
  std::vector<double> ns;
  for (const auto& row : rows2) ns.push_back(row.at("n"));
  EXPECT_EQ(ns, (std::vector<double>{1, 2, 3, 4, 5, 6, 8, 10}));
}

TEST(CliBound, EverySubcommandRuns) {
  ScratchDir dir;
  const std::string commands[] = {"complete-sum --analysis preprint --n 10,100",
                                  "complete-histogram --analysis numerical --n 100,1e4",
                                  "complete-histogram --analysis closed --n 1e4 --sender-known",
                                  "complete-histogram --analysis preprint --n 1e6 --colluders 10",
                                  "ring-sum --n 10,100 --turns 3",
                                  "ring-histogram --n 2000 --gamma literal",
                                  "sgd-rdp --n 100,2000 --steps 20000 --horizon finite",
                                  "sgd-closed-form --n 2000 --steps 20000 --eps 1",
                                  "sgd-sigma --n 2000 --steps 20000 --eps 1 --procedure code",
                                  "sgd-sigma --n 2000 --eps 1 --sender-known"};
  int i = 0;
  for (const auto& c : commands) {
    const auto out = dir.path() / "c" += std::to_string(i++);
    auto r = run_cli("bound " + c + " --out " + out.string());
    ASSERT_EQ(r.exit_code, 0) << c << "\n" << r.err;
    EXPECT_TRUE(fs::exists(out / "manifest.json")) << c;
  }
  // Appendix Z 5 and 6 through the CLI.
  EXPECT_NEAR(read_csv(dir / "c7" / "bound.csv")[0].at("eps"), 7.3745, 5e-5);
  EXPECT_NEAR(read_csv(dir / "c8" / "bound.csv")[0].at("sigma_network"), 10.983, 5e-4);
}

TEST(CliBound, SkipInvalidWritesNanRows) {
  ScratchDir dir;
  const auto out = dir / "skip";
  auto r =
      run_cli("bound complete-histogram --analysis closed --n 100,1e4 --skip-invalid --out " + out.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto rows = read_csv(out / "bound.csv");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_TRUE(std::isnan(rows[0].at("eps")));
  EXPECT_TRUE(std::isfinite(rows[1].at("eps")));
  const auto summary = read_json(out / "summary.json");
  ASSERT_EQ(summary["skipped"].size(), 1u);
  EXPECT_NE(summary["skipped"][0]["reason"].get<std::string>().find("Thm D.1"), std::string::npos);
}

TEST(CliBound, BadInputExitsTwoWithoutAManifest) {
  ScratchDir dir;
  const std::string bad[] = {"complete-sum --n 10 --eps 0",
                             "complete-sum --n 10 --delta 1.5",
                             "complete-sum --n 0",
                             "complete-sum --n 10 --steps 0.5",
                             "complete-sum --n 10 --eps 2",  // the closed cycle bound needs eps <= 1
                             "complete-sum --n 10 --colluders 10",
                             "complete-sum --eps 0.1",  // no n
                             "complete-sum --n-logspace 0,10,2.5",
                             "complete-sum --n 10 --steps 100 --steps-per-node 10",
                             "complete-sum --n 10.5 --delta-cycle exact_gaussian",
                             "complete-histogram --analysis closed --n 100",
                             "ring-sum --n 10.5",
                             "ring-histogram --n 500",
                             "sgd-rdp --n 2000 --alpha 1",
                             "sgd-closed-form --n 2000 --eps 1.5",
                             "sgd-sigma --n 2000 --eps 0",
                             "sgd-sigma --n 2000 --slope-factor 3"};
  int i = 0;
  for (const auto& c : bad) {
    const auto out = dir.path() / "bad" += std::to_string(i++);
    auto r = run_cli("bound " + c + " --out " + out.string());
    EXPECT_EQ(r.exit_code, 2) << c << "\n" << r.err;
    EXPECT_FALSE(fs::exists(out / "manifest.json")) << c;
    EXPECT_EQ(r.err.rfind("netdp: error: ", 0), 0u) << c << "\n" << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << c << "\n" << r.err;
  }
}

}  // namespace
}  // namespace netdp
