// results_long.csv of `netdp run` (docs/study.md "Outputs"): one row per experiment, grid point, statistic
// and distance, checked by hand on a tiny study (tests/data/studies/tiny_ring.toml: a ring of 5 nodes, 10
// ordered pairs at each distance 1 and 2).
#include <gtest/gtest.h>

#include <filesystem>
#include <map>

#include "support/test_support.hpp"

namespace netdp {
namespace {

using namespace testing;  // tests/support/test_support.hpp
namespace fs = std::filesystem;

const std::string kTinyStudy = source_path("tests/data/studies/tiny_ring.toml");

using Row = std::map<std::string, std::string>;

/// The rows of a CSV file (no quoted cells) keyed by its header.
std::vector<Row> rows_of(const fs::path& path) {
  const auto cells = read_csv_cells(path);
  std::vector<Row> rows;
  for (std::size_t i = 1; i < cells.size(); ++i) {
    Row row;
    for (std::size_t j = 0; j < cells[0].size(); ++j)
      row[cells[0][j]] = j < cells[i].size() ? cells[i][j] : "";
    rows.push_back(row);
  }
  return rows;
}

TEST(StudyLongCli, OneRowPerStatisticAndDistanceWithEachParameterAColumn) {
  ScratchDir dir;
  auto r = run_cli("run " + kTinyStudy + " --out " + (dir / "out").string() + " --quiet");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto header = read_csv_cells(dir / "out/results_long.csv").at(0);
  EXPECT_EQ(header, (std::vector<std::string>{"experiment", "point", "model", "graph", "no-matrix", "steps",
                                              "sigma", "n", "statistic", "distance", "replicates", "mean",
                                              "stderr", "min", "max"}));
  const auto rows = rows_of(dir / "out/results_long.csv");
  // Every row of results.csv is one row here: the same statistics, renamed.
  EXPECT_EQ(rows.size(), rows_of(dir / "out/results.csv").size());

  int pair_rows = 0, mean_rows = 0, theory_rows = 0;
  for (const auto& row : rows) {
    // No record labels in the names (by_distance[distance=1].mean); positions stay (the bound's n[0]).
    EXPECT_EQ(row.at("statistic").find('='), std::string::npos) << row.at("statistic");
    if (row.at("experiment") == "theory") {
      ++theory_rows;
      EXPECT_EQ(row.at("n"), "100");
      EXPECT_EQ(row.at("sigma"), "");     // not a parameter of the bound
      EXPECT_EQ(row.at("distance"), "");  // no by-distance records
      continue;
    }
    // The grid's floats are written as floats; the point p0000 is sigma 1, p0001 sigma 2.
    EXPECT_EQ(row.at("sigma"), row.at("point") == "p0000" ? "1.0" : "2.0");
    EXPECT_EQ(row.at("graph"), "ring:n=5");
    EXPECT_EQ(row.at("replicates"), "2");
    EXPECT_EQ(row.at("stderr"), "0.0");  // gossip-loss is deterministic: both replicates agree
    if (row.at("statistic") == "by_distance.pairs") {
      ++pair_rows;
      EXPECT_TRUE(row.at("distance") == "1" || row.at("distance") == "2") << row.at("distance");
      EXPECT_EQ(row.at("mean"), "10.0");  // 5 nodes x 2 neighbours at each distance, ordered pairs
    }
    if (row.at("statistic") == "by_distance.mean") {
      ++mean_rows;
      // The unit's own by_distance.csv (rows: distance 1, then 2) holds the same mean.
      const auto unit = rows_of(dir / "out/ring" / row.at("point") / "rep-0/by_distance.csv");
      const std::size_t at = row.at("distance") == "1" ? 0 : 1;
      ASSERT_EQ(unit.size(), 2u);
      EXPECT_EQ(unit[at].at("distance"), row.at("distance"));
      EXPECT_DOUBLE_EQ(std::stod(row.at("mean")), std::stod(unit[at].at("mean")));
      EXPECT_NE(row.at("mean").find_first_of(".e"), std::string::npos) << row.at("mean");  // a float's text
    }
  }
  EXPECT_EQ(pair_rows, 4);  // 2 points x 2 distances
  EXPECT_EQ(mean_rows, 4);
  EXPECT_GT(theory_rows, 0);
  const auto manifest = read_json(dir / "out/manifest.json");
  EXPECT_EQ(manifest["outputs"], nlohmann::json({"study.toml", "results.csv", "results_long.csv"}));
}

TEST(StudyLongCli, MergeWritesTheLongTableToo) {
  ScratchDir dir;
  for (const char* shard : {"0/2", "1/2"}) {
    auto r = run_cli("run " + kTinyStudy + " --out " + (dir / ("s" + std::string(1, shard[0]))).string() +
                     " --quiet --shard " + shard);
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  auto merged = run_cli("merge " + (dir / "s0").string() + " " + (dir / "s1").string() + " --out " +
                        (dir / "merged").string());
  ASSERT_EQ(merged.exit_code, 0) << merged.err;
  auto single = run_cli("run " + kTinyStudy + " --out " + (dir / "single").string() + " --quiet");
  ASSERT_EQ(single.exit_code, 0) << single.err;
  EXPECT_EQ(read_text((dir / "merged/results_long.csv").string()),
            read_text((dir / "single/results_long.csv").string()));
}

}  // namespace
}  // namespace netdp
