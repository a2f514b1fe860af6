// The CSV writer of the results directories (include/netdp/io/csv_table.hpp): spellings by column type,
// refusals of cells that do not fit their column, atomicity, and the column types in manifest.json.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <limits>
#include <stdexcept>

#include "netdp/io/csv_table.hpp"
#include "support/test_support.hpp"

using namespace netdp;
using namespace netdp::testing;
namespace fs = std::filesystem;

TEST(CsvTable, DoublesAlwaysReadAsFloats) {
  EXPECT_EQ(csv_double(1.0), "1.0");
  EXPECT_EQ(csv_double(-3.0), "-3.0");
  EXPECT_EQ(csv_double(-0.0), "-0.0");
  EXPECT_EQ(csv_double(0.0), "0.0");
  EXPECT_EQ(csv_double(0.5), "0.5");
  EXPECT_EQ(csv_double(0.1), "0.1");  // shortest round trip, not 0.1000000000000000055511151231257827
  EXPECT_EQ(csv_double(1e300), "1e+300");
  EXPECT_EQ(csv_double(1e-300), "1e-300");
  EXPECT_EQ(csv_double(std::numeric_limits<double>::infinity()), "inf");
  EXPECT_EQ(csv_double(-std::numeric_limits<double>::infinity()), "-inf");
  EXPECT_EQ(csv_double(std::nan("")), "nan");
  for (double x : {1.0, 0.1, 1.0 / 3.0, 1e300, -2.5e-7, 123456789.0})  // every spelling reads back exactly
    EXPECT_EQ(std::stod(csv_double(x)), x) << csv_double(x);
}

TEST(CsvTable, TextIsQuotedOnlyWhereRfc4180AsksIt) {
  EXPECT_EQ(csv_text("ring:n=5"), "ring:n=5");
  EXPECT_EQ(csv_text("a,b"), "\"a,b\"");
  EXPECT_EQ(csv_text("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(csv_text("two\nlines"), "\"two\nlines\"");
}

TEST(CsvTable, CellsAreSpeltByTheirColumnsType) {
  const CsvColumn count{"count", CsvType::int64}, mean{"mean", CsvType::float64}, name{"name", CsvType::text};
  EXPECT_EQ(CsvCell(7).spell(count), "7");
  EXPECT_EQ(CsvCell(std::int64_t(-9007199254740993)).spell(count), "-9007199254740993");  // not via double
  EXPECT_EQ(CsvCell(true).spell(count), "1");
  EXPECT_EQ(CsvCell(7).spell(mean), "7.0");  // an integer value in a float column is a float
  EXPECT_EQ(CsvCell(2.0).spell(mean), "2.0");
  EXPECT_EQ(CsvCell("a,b").spell(name), "\"a,b\"");
  EXPECT_EQ(CsvCell(csv_empty).spell(count), "");  // no value: an empty cell in any column
  EXPECT_EQ(CsvCell(csv_empty).spell(mean), "");
  // An unreachable distance in an integer column is "inf"; a finite double there is a writer's error.
  EXPECT_EQ(CsvCell(std::numeric_limits<double>::infinity()).spell(count), "inf");
  EXPECT_THROW(CsvCell(2.0).spell(count), std::logic_error);
  EXPECT_THROW(CsvCell("x").spell(mean), std::logic_error);
  EXPECT_THROW(CsvCell(1).spell(name), std::logic_error);
}

TEST(CsvTable, NothingUnderTheNameBeforeCommitThenTheTypesInTheManifest) {
  ScratchDir dir;
  ResultsDir out(dir.path());
  {
    CsvWriter csv(out, "by_distance.csv",
                  {{"distance", CsvType::int64}, {"mean", CsvType::float64}, {"graph", CsvType::text}});
    csv.row({0, 1.0, "ring:n=5"});
    csv.row({std::numeric_limits<double>::infinity(), -0.0, "a,b"});
    EXPECT_THROW(csv.row({1, 2.0}), std::logic_error);  // one cell short
    EXPECT_FALSE(fs::exists(dir / "by_distance.csv"));
    csv.commit();
  }
  EXPECT_EQ(read_text((dir / "by_distance.csv").string()),
            "distance,mean,graph\n0,1.0,ring:n=5\ninf,-0.0,\"a,b\"\n");
  {  // abandoned before commit: no file, no temporary, no entry in the manifest
    CsvWriter csv(out, "lost.csv", {{"x", CsvType::float64}});
    csv.row({1.5});
  }
  EXPECT_FALSE(fs::exists(dir / "lost.csv"));
  for (const auto& entry : fs::directory_iterator(dir.path()))
    EXPECT_EQ(entry.path().filename().string().find(".tmp-"), std::string::npos) << entry.path();
  out.commit_manifest({{"tool", "test"}});
  const auto manifest = read_json(dir / "manifest.json");
  EXPECT_EQ(
      manifest["tables"],
      nlohmann::json({{"by_distance.csv", {{"distance", "int64"}, {"mean", "float64"}, {"graph", "text"}}}}));
}
