// The writer stage (include/netdp/io/run_result.hpp): a run's typed result written in order, the summary and
// the manifest last, node_map.csv, refusals before anything is published, and the CSV table held in memory
// spelling exactly what the streamed writer spells.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "netdp/io/run_result.hpp"
#include "support/test_support.hpp"

using namespace netdp;
using namespace netdp::testing;
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

std::string bytes_of(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

}  // namespace

TEST(RunResult, ATableHoldsTheTextWrittenByHand) {
  CsvTable table("t.csv", {{"i", CsvType::int64}, {"x", CsvType::float64}, {"s", CsvType::text}});
  table.row({1, 2.0, "a,b"});
  table.row({-3, 0.25, csv_empty});
  EXPECT_EQ(table.text(), "i,x,s\n1,2.0,\"a,b\"\n-3,0.25,\n");
  EXPECT_EQ(table.rows(), 2);
  EXPECT_THROW(table.row({1, 2.0}), std::logic_error);         // a cell short
  EXPECT_THROW(table.row({1.5, 2.0, "s"}), std::logic_error);  // a float in an int64 column
  EXPECT_EQ(table.rows(), 2);
}

TEST(RunResult, TheStreamedWriterSpellsWhatTheTableHolds) {
  // More than the writer's 1 MiB buffer, so the streamed file is written in several pieces.
  ScratchDir dir;
  ResultsDir out(dir.path() / "run");
  CsvTable table("big.csv", {{"k", CsvType::int64}, {"v", CsvType::float64}});
  CsvWriter writer(out, "big.csv", {{"k", CsvType::int64}, {"v", CsvType::float64}});
  for (int k = 0; k < 200000; ++k) {
    table.row({k, k / 7.0});
    writer.row({k, k / 7.0});
  }
  writer.commit();
  ASSERT_GT(table.text().size(), std::size_t(1) << 21);
  EXPECT_EQ(bytes_of(dir.path() / "run/big.csv"), table.text());
}

TEST(RunResult, OutputsAreWrittenInOrderThenTheSummaryThenTheManifest) {
  ScratchDir dir;
  RunResult result;
  result.node_ids = {10, 20, 5};
  CsvTable& curves = result.table("curves.csv", {{"t", CsvType::int64}, {"y", CsvType::float64}});
  result.matrix("m.npy", 2, 3, std::vector<double>{1, 2, 3, 4, 5, 6});
  curves.row({0, 1.5});  // the reference stays valid after later additions
  result.matrix("mask.npy", 2, 2, std::vector<std::int8_t>{1, 0, 0, 1});
  result.document("extra.json", {{"k", 1}});
  result.summary = {{"model", "test"}, {"value", 0.5}};
  result.manifest = {{"command", "test"}, {"parameters", {{"a", 1}}}};
  EXPECT_EQ(result.files(), (std::vector<std::string>{"curves.csv", "m.npy", "mask.npy", "extra.json"}));

  const json summary = write_results(dir.path() / "run", result, 1.25);
  EXPECT_EQ(summary, result.summary);
  const fs::path run = dir.path() / "run";
  EXPECT_EQ(read_text((run / "curves.csv").string()), "t,y\n0,1.5\n");
  const NpyArray m = read_npy((run / "m.npy").string());
  EXPECT_EQ(m.shape, (std::vector<std::int64_t>{2, 3}));
  EXPECT_EQ(m.values, (std::vector<double>{1, 2, 3, 4, 5, 6}));
  // int8 .npy: the header says |i1 and the data are the 4 bytes after it.
  const std::string mask = bytes_of(run / "mask.npy");
  EXPECT_NE(mask.find("'descr': '|i1'"), std::string::npos);
  EXPECT_EQ(mask.substr(mask.size() - 4), std::string("\x01\x00\x00\x01", 4));
  EXPECT_EQ(json::parse(read_text((run / "extra.json").string())), json({{"k", 1}}));
  EXPECT_EQ(json::parse(read_text((run / "summary.json").string())), result.summary);
  EXPECT_EQ(read_text((run / "node_map.csv").string()), "index,file_id\n0,10\n1,20\n2,5\n");

  const json manifest = json::parse(read_text((run / "manifest.json").string()));
  EXPECT_EQ(manifest["command"], "test");
  EXPECT_EQ(manifest["parameters"]["a"], 1);
  EXPECT_EQ(manifest["seconds"], 1.25);
  EXPECT_EQ(manifest["files"],
            json({"curves.csv", "m.npy", "mask.npy", "extra.json", "summary.json", "node_map.csv"}));
  EXPECT_EQ(manifest["tables"]["curves.csv"], json({{"t", "int64"}, {"y", "float64"}}));
}

TEST(RunResult, TheSummaryTakesTheNameTheResultGivesIt) {
  ScratchDir dir;
  RunResult result;
  result.summary_name = "stats.json";
  result.summary = {{"n", 3}};
  write_results(dir.path() / "run", result, 0);
  EXPECT_TRUE(fs::exists(dir.path() / "run/stats.json"));
  EXPECT_FALSE(fs::exists(dir.path() / "run/summary.json"));
  const json manifest = json::parse(read_text((dir.path() / "run/manifest.json").string()));
  EXPECT_EQ(manifest["files"], json({"stats.json"}));
}

TEST(RunResult, AStreamedFileIsListedInItsPlaceAndMustExist) {
  ScratchDir dir;
  ResultsDir out(dir.path() / "run");
  {
    AtomicFile f(out.file("edges.txt"));
    f.stream() << "0 1\n";
    f.commit();
  }
  RunResult result;
  result.table("a.csv", {{"x", CsvType::int64}});
  result.streamed("edges.txt");
  write_results(out, result, 0);
  const json manifest = json::parse(read_text((dir.path() / "run/manifest.json").string()));
  EXPECT_EQ(manifest["files"], json({"a.csv", "edges.txt", "summary.json"}));

  ResultsDir other(dir.path() / "other");
  RunResult missing;
  missing.streamed("loss.npy");
  EXPECT_THROW(write_results(other, missing, 0), std::logic_error);
  EXPECT_FALSE(fs::exists(dir.path() / "other/manifest.json"));  // nothing published as complete
}

TEST(RunResult, AMatrixThatDoesNotFillItsShapeIsRefusedBeforeTheManifest) {
  ScratchDir dir;
  RunResult result;
  result.matrix("m.npy", 2, 2, std::vector<double>{1, 2, 3});
  EXPECT_THROW(write_results(dir.path() / "run", result, 0), std::logic_error);
  EXPECT_FALSE(fs::exists(dir.path() / "run/m.npy"));
  EXPECT_FALSE(fs::exists(dir.path() / "run/manifest.json"));
}
