// The study runner against a toy model catalog: grid expansion, ranges, derived seeds, validation with file
// lines, aggregation over replicates (hand-computed), checkpoints (skip, torn units), shards + merge.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <fstream>
#include <limits>

#include "netdp/core/error.hpp"
#include "netdp/io/results_dir.hpp"
#include "netdp/study/study_results.hpp"
#include "netdp/study/study_runner.hpp"
#include "netdp/study/unit_store.hpp"
#include "support/test_support.hpp"

namespace netdp::study {
namespace {

using json = nlohmann::json;
using testing::read_text;
using testing::ScratchDir;
namespace fs = std::filesystem;

/// "toy": value = x * y + replicate-independent offset; x >= 0 integer, y number, mode a|b, flag z, seed.
class ToyCatalog : public ModelCatalog {
 public:
  mutable std::atomic<int> runs{0};
  bool fail_13 = false;  // x = 13 fails at run time, like a model running out of memory
  std::vector<std::string> models() const override { return {"toy"}; }
  bool has_model(const std::string& m) const override { return m == "toy"; }
  std::vector<std::string> parameters(const std::string&) const override {
    return {"x", "y", "mode", "z", "seed", "list", "out", "quiet"};
  }
  void check_parameter(const std::string&, const std::string& key, const json& v) const override {
    if (key == "x" && !(v.is_number_integer() && v.get<long long>() >= 0))
      throw InvalidInput("'x' must be an integer >= 0");
    if (key == "y" && !v.is_number()) throw InvalidInput("'y' must be a number");
    if (key == "mode" && v != "a" && v != "b") throw InvalidInput("'mode' must be a or b");
    if (key == "z" && !v.is_boolean()) throw InvalidInput("'z' is a flag");
  }
  void check_unit(const std::string&, const Arguments& a) const override {
    for (const auto& [k, v] : a)
      if (k == "x") return;
    throw InvalidInput("--x is required");
  }
  UnitEstimate estimate(const std::string&, const Arguments& a) const override {
    for (const auto& [k, v] : a)
      if (k == "x") return {double(v.get<long long>()) * double(1 << 30), double(v.get<long long>()) * 3600};
    return {};
  }
  json run(const std::string&, const Arguments& a, const UnitContext& c) const override {
    ++runs;
    double x = 0, y = 1;
    std::uint64_t seed = 0;
    for (const auto& [k, v] : a) {
      if (k == "x") x = v.get<double>();
      if (k == "y") y = v.get<double>();
      if (k == "seed") seed = v.get<std::uint64_t>();
    }
    ResultsDir out(c.out_dir);
    out.write_text("partial.txt", "written before the failure\n");
    if (fail_13 && x == 13) throw std::runtime_error("unlucky");
    const json summary = {{"value", x * y},
                          {"noise", double(seed % 1000)},
                          {"seconds", 0.5},
                          {"by_distance", {{{"distance", 1}, {"mean", x}}, {{"distance", 2}, {"mean", y}}}}};
    out.write_json("summary.json", summary);
    out.write_text("data.txt", "x=" + std::to_string(x) + "\n");
    return summary;
  }
};

/// The first lines of an experiment "e" of the toy model, which the tests continue.
const std::string kHead = "[[experiment]]\nname = \"e\"\nmodel = \"toy\"\n";

StudySpec parse(const std::string& text, const ToyCatalog& catalog) {
  return parse_study(text, "s.toml", catalog);
}

std::string fail_message(const std::string& text) {
  ToyCatalog catalog;
  try {
    parse(text, catalog);
  } catch (const InvalidInput& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(StudyPlan, FirstAxisSlowestParamsFirstReplicatesConsecutive) {
  ToyCatalog catalog;
  const auto spec = parse(kHead + R"(replicates = 2
[experiment.params]
y = 0.5
[experiment.grid]
x = [1, 2, 3]
mode = ["a", "b"]
)",
                          catalog);
  const auto plan = expand_study(spec, catalog);
  ASSERT_EQ(plan.points.size(), 6u);
  ASSERT_EQ(plan.units.size(), 12u);
  const std::vector<std::pair<int, std::string>> expected{{1, "a"}, {1, "b"}, {2, "a"},
                                                          {2, "b"}, {3, "a"}, {3, "b"}};
  for (std::size_t p = 0; p < 6; ++p) {
    const auto& params = plan.points[p].parameters;
    ASSERT_EQ(params.size(), 3u);
    EXPECT_EQ(params[0], (std::pair<std::string, json>{"y", 0.5}));
    EXPECT_EQ(params[1].second, expected[p].first);
    EXPECT_EQ(params[2].second, expected[p].second);
    EXPECT_EQ(plan.points[p].name, "p000" + std::to_string(p));
  }
  for (std::size_t u = 0; u < 12; ++u) {
    EXPECT_EQ(plan.units[u].index, u);
    EXPECT_EQ(plan.units[u].point, u / 2);
    EXPECT_EQ(plan.units[u].replicate, int(u % 2));
    EXPECT_EQ(plan.units[u].dir, fs::path("e") / plan.points[u / 2].name / ("rep-" + std::to_string(u % 2)));
    EXPECT_EQ(plan.units[u].arguments.back().first, "seed");  // the toy model takes a seed
  }
}

TEST(StudyPlan, RangesStepNumLinearAndLogIntegers) {
  ToyCatalog catalog;
  const auto spec = parse(kHead + R"([experiment.grid]
x = { start = 2, stop = 10, step = 4 }
y = { start = 0.1, stop = 0.3, step = 0.1 }
[[experiment]]
name = "f"
model = "toy"
[experiment.grid]
x = { start = 1, stop = 10, num = 4, spacing = "log", integer = true }
y = { start = 0, stop = 1, num = 5 }
)",
                          catalog);
  const auto& e = spec.experiments[0].axes;
  EXPECT_EQ(e[0].values, (std::vector<json>{2, 6, 10}));
  ASSERT_EQ(e[1].values.size(), 3u);  // 0.1, 0.2, 0.30000000000000004: the stop is kept despite rounding
  EXPECT_DOUBLE_EQ(e[1].values[2].get<double>(), 0.3);
  const auto& f = spec.experiments[1].axes;
  // numpy.logspace(0, 1, 4) = 1, 2.154, 4.642, 10 -> rounded 1, 2, 5, 10
  EXPECT_EQ(f[0].values, (std::vector<json>{1, 2, 5, 10}));
  EXPECT_EQ(f[1].values, (std::vector<json>{0.0, 0.25, 0.5, 0.75, 1.0}));
}

TEST(StudyPlan, CasesBindParametersThatVaryTogether) {
  ToyCatalog catalog;
  const auto spec = parse(kHead + R"([experiment.grid]
mode = ["a", "b"]
cases = [ { y = 0.5, x = 10 }, { y = 2.0, x = 40 } ]
)",
                          catalog);
  const auto plan = expand_study(spec, catalog);
  ASSERT_EQ(plan.points.size(), 4u);
  // mode is first in the file: slowest; a case's keys keep their written order (y before x)
  const std::vector<std::tuple<std::string, double, int>> expected{
      {"a", 0.5, 10}, {"a", 2.0, 40}, {"b", 0.5, 10}, {"b", 2.0, 40}};
  for (std::size_t p = 0; p < 4; ++p) {
    const auto& params = plan.points[p].parameters;
    ASSERT_EQ(params.size(), 3u);
    EXPECT_EQ(params[0], (std::pair<std::string, json>{"mode", std::get<0>(expected[p])}));
    EXPECT_EQ(params[1], (std::pair<std::string, json>{"y", std::get<1>(expected[p])}));
    EXPECT_EQ(params[2], (std::pair<std::string, json>{"x", std::get<2>(expected[p])}));
  }
  EXPECT_NE(fail_message(kHead + "[experiment.params]\nx = 1\n[experiment.grid]\ncases = [{x = 2}]\n")
                .find("s.toml:7: experiment 'e': 'x' is given twice"),
            std::string::npos);
  EXPECT_NE(
      fail_message(kHead + "[experiment.grid]\ncases = [{x = 2}]\nx = [3]\n").find("'x' is given twice"),
      std::string::npos);
  EXPECT_NE(fail_message(kHead + "[experiment.grid]\ncases = [{x = 2}, {xx = 3}]\n")
                .find("s.toml:5: experiment 'e': unknown parameter 'xx'"),
            std::string::npos);
  EXPECT_NE(fail_message(kHead + "[experiment.grid]\ncases = [1, 2]\n").find("every case is a table"),
            std::string::npos);
  EXPECT_NE(fail_message(kHead + "[experiment.grid]\ncases = []\n").find("cases must be a non-empty list"),
            std::string::npos);
  EXPECT_NE(
      fail_message(kHead + "[experiment.grid]\ncases = [{x = -1}]\n").find("'x' must be an integer >= 0"),
      std::string::npos);
}

TEST(StudyPlan, SeedsAreDeterministicDistinctAndLocalToTheirUnit) {
  ToyCatalog catalog;
  const std::string one = R"([study]
seed = 7
[[experiment]]
name = "e"
model = "toy"
replicates = 3
[experiment.grid]
x = [1, 2]
)";
  const auto a = expand_study(parse(one, catalog), catalog);
  const auto b = expand_study(parse(one + R"([[experiment]]
name = "other"
model = "toy"
[experiment.params]
x = 5
)",
                                    catalog),
                              catalog);
  std::set<std::uint64_t> seen;
  for (std::size_t u = 0; u < a.units.size(); ++u) {
    EXPECT_EQ(a.units[u].seed, b.units[u].seed) << "another experiment must not move this unit's seed";
    EXPECT_LT(a.units[u].seed, std::uint64_t(1) << 53);
    seen.insert(a.units[u].seed);
  }
  EXPECT_EQ(seen.size(), a.units.size());
  const auto c =
      expand_study(parse(std::string(one).replace(one.find("seed = 7"), 8, "seed = 8"), catalog), catalog);
  EXPECT_NE(c.units[0].seed, a.units[0].seed);
  EXPECT_EQ(a.units[0].seed, derive_seed(7, "e", a.points[0].parameters, 0));
}

TEST(StudyPlan, ASeedWrittenInTheStudyIsReplacedByTheUnitSeed) {
  // docs/study.md "The runner sets ...": `seed` is always the unit's derived seed, once, in the written
  // parameter's place, even when the study gives one (two experiments cannot share draws through it).
  ToyCatalog catalog;
  const auto plan = expand_study(parse(R"([study]
seed = 3
[[experiment]]
name = "e"
model = "toy"
[experiment.params]
seed = 42
x = 1
)",
                                       catalog),
                                 catalog);
  ASSERT_EQ(plan.units.size(), 1u);
  const auto& args = plan.units[0].arguments;
  ASSERT_EQ(args.size(), 2u);
  EXPECT_EQ(args[0].first, "seed");
  EXPECT_EQ(args[0].second, json(plan.units[0].seed));
  EXPECT_NE(plan.units[0].seed, 42u);
  EXPECT_EQ(plan.units[0].seed, derive_seed(3, "e", plan.points[0].parameters, 0));
}

TEST(StudyPlan, SeedPlaceholdersAreReplacedInStringsAndLists) {
  EXPECT_EQ(substitute("er:n=10,seed={seed}", 42, 3), "er:n=10,seed=42");
  EXPECT_EQ(substitute(json::array({"r{replicate}", 1}), 42, 3), json::array({"r3", 1}));
  EXPECT_EQ(substitute(2.5, 42, 3), 2.5);
}

TEST(StudyFile, EveryMalformedStudyNamesItsLineAndKey) {
  const std::vector<std::tuple<std::string, std::string, std::string>> table{
      {"[study]\nseeed = 1\n" + kHead + "[experiment.params]\nx = 1\n", "s.toml:2:", "unknown key 'seeed'"},
      {"[study]\nseed = -1\n" + kHead, "s.toml:2:", "seed must be an integer >= 0"},
      {"[study]\nquantiles = [0.5, 1.5]\n" + kHead, "s.toml:2:", "quantiles must be numbers in [0, 1]"},
      {kHead + "[experiment.params]\nx = 1\nxx = 2\n", "s.toml:6:", "unknown parameter 'xx'"},
      {kHead + "[experiment.params]\nx = \"three\"\n", "s.toml:5:", "'x' must be an integer >= 0"},
      {kHead + "[experiment.params]\nx = -3\n", "s.toml:5:", "'x' must be an integer >= 0"},
      {kHead + "[experiment.params]\nz = 1\n", "s.toml:5:", "'z' is a flag"},
      {kHead + "[experiment.params]\nout = \"d\"\n", "s.toml:5:", "'out' is set by the runner"},
      {kHead + "[experiment.params]\nx = 1\n[experiment.grid]\nx = [1, 2]\n",
       "s.toml:7:", "'x' is given twice"},
      {kHead + "[experiment.grid]\nx = []\n", "s.toml:5:", "grid axis 'x' is empty"},
      {kHead + "[experiment.grid]\nx = 3\n", "s.toml:5:", "must be a list of values or a range table"},
      {kHead + "[experiment.grid]\nx = { start = 5, stop = 1, step = 1 }\n", "s.toml:5:", "start <= stop"},
      {kHead + "[experiment.grid]\nx = { start = 1, stop = 5 }\n",
       "s.toml:5:", "exactly one of step and num"},
      {kHead + "[experiment.grid]\nx = { start = 1, stop = 5, step = 0 }\n",
       "s.toml:5:", "step of 'x' must be > 0"},
      {kHead + "[experiment.grid]\ny = { start = 0, stop = 5, num = 3, spacing = \"log\" }\n",
       "s.toml:5:", "needs start > 0"},
      {kHead + "replicates = 0\n", "s.toml:4:", "replicates must be an integer"},
      {kHead + "colour = 1\n", "s.toml:4:", "unknown key 'colour' in [[experiment]]"},
      {"[[experiment]]\nname = \"e\"\nmodel = \"nope\"\n", "s.toml:3:", "unknown model 'nope'"},
      {"[[experiment]]\nname = \"a b\"\nmodel = \"toy\"\n", "s.toml:2:", "must be 1-64 letters"},
      {kHead + kHead, "s.toml:5:", "'e' is used twice"},
      {"[[experiment]]\nmodel = \"toy\"\n", "s.toml:", "needs name"},
      {"title = 1\n" + kHead, "s.toml:1:", "unknown top-level key 'title'"},
      {"[study]\nname = \"x\"\n", "s.toml:1:", "no [[experiment]]"},
      {kHead + "[experiment.params]\nx = [1, \n", "s.toml:", "TOML syntax"},
      {kHead + "[experiment.params]\nx = { a = 1 }\n", "s.toml:5:", "must be a string, number or boolean"},
  };
  for (const auto& [text, where, what] : table) {
    const std::string message = fail_message(text);
    EXPECT_EQ(message.rfind(where, 0), 0u) << text << "\n-> " << message;
    EXPECT_NE(message.find(what), std::string::npos) << text << "\n-> " << message;
  }
}

TEST(StudyResults, FlattenLabelsRecordsAndDropsExecutionFacts) {
  const json summary = {
      {"a", {{"b", 1.5}, {"seconds", 3.0}}},
      {"steps_per_second", 9.0},
      {"threads", 2},
      {"name", "text"},
      {"ok", true},
      {"by_distance", {{{"distance", 1}, {"mean", 0.25}}, {{"distance", 3}, {"mean", 0.5}}}},
      {"q", {4.0, 5.0}}};
  const auto flat = flatten_summary(summary);
  const std::vector<std::pair<std::string, double>> expected{{"a.b", 1.5},
                                                             {"by_distance[distance=1].mean", 0.25},
                                                             {"by_distance[distance=3].mean", 0.5},
                                                             {"q[0]", 4.0},
                                                             {"q[1]", 5.0}};
  EXPECT_EQ(flat, expected);
}

TEST(StudyResults, LeavesMoveRecordLabelsOutOfTheStatisticName) {
  const json summary = {{"by_distance", {{{"distance", 2}, {"mean", 0.25}}}},
                        {"curve", {{{"t", 5}, {"by_distance", {{{"distance", 1}, {"max", 3.0}}}}}}},
                        {"nested", {{{"distance", 1}, {"inner", {{{"distance", 4}, {"x", 7.0}}}}}}},
                        {"q", {4.0}}};
  const auto leaves = summary_leaves(summary);
  ASSERT_EQ(leaves.size(), 4u);
  using Labels = std::vector<std::pair<std::string, double>>;
  EXPECT_EQ(leaves[0].path, "by_distance[distance=2].mean");
  EXPECT_EQ(leaves[0].statistic, "by_distance.mean");
  EXPECT_EQ(leaves[0].labels, (Labels{{"distance", 2}}));
  // Two different fields on one path: both become labels.
  EXPECT_EQ(leaves[1].path, "curve[t=5].by_distance[distance=1].max");
  EXPECT_EQ(leaves[1].statistic, "curve.by_distance.max");
  EXPECT_EQ(leaves[1].labels, (Labels{{"t", 5}, {"distance", 1}}));
  EXPECT_EQ(leaves[1].value, 3.0);
  // The same field twice: the inner one stays in the name, so that no two leaves share a name and labels.
  EXPECT_EQ(leaves[2].statistic, "nested.inner[distance=4].x");
  EXPECT_EQ(leaves[2].labels, (Labels{{"distance", 1}}));
  // Positions stay in both names.
  EXPECT_EQ(leaves[3].path, "q[0]");
  EXPECT_EQ(leaves[3].statistic, "q[0]");
  EXPECT_TRUE(leaves[3].labels.empty());
}

TEST(StudyResults, FloatCellsAlwaysReadAsFloats) {
  EXPECT_EQ(float_cell(1.0), "1.0");
  EXPECT_EQ(float_cell(-3.0), "-3.0");
  EXPECT_EQ(float_cell(0.5), "0.5");
  EXPECT_EQ(float_cell(1e300), "1e+300");
  EXPECT_EQ(float_cell(std::numeric_limits<double>::infinity()), "inf");
  EXPECT_EQ(float_cell(std::nan("")), "nan");
  EXPECT_EQ(parameter_cell(json(2.0)), "2.0");  // a TOML float
  EXPECT_EQ(parameter_cell(json(2)), "2");      // a TOML integer
  EXPECT_EQ(parameter_cell(json("er:n=5,c=1")), "\"er:n=5,c=1\"");
}

TEST(StudyResults, QuantileInterpolatesLikeNumpy) {
  const std::vector<double> v{1, 2, 4, 8};
  EXPECT_DOUBLE_EQ(quantile(v, 0.0), 1);
  EXPECT_DOUBLE_EQ(quantile(v, 1.0), 8);
  EXPECT_DOUBLE_EQ(quantile(v, 0.5), 3);      // h = 1.5: 2 + 0.5 (4 - 2)
  EXPECT_DOUBLE_EQ(quantile(v, 0.25), 1.75);  // h = 0.75
}

/// Options of a run into `out` without progress lines.
RunOptions quiet_run(const fs::path& out) {
  RunOptions o;
  o.out = out;
  o.quiet = true;
  return o;
}

const char* kToyStudy = R"([study]
seed = 11
quantiles = [0.5]
[[experiment]]
name = "e"
model = "toy"
replicates = 3
[experiment.params]
y = 2.0
[experiment.grid]
x = [1, 4]
)";

/// A toy catalog and a scratch directory, the runs going quietly into its "out".
class StudyRunner : public ::testing::Test {
 protected:
  ToyCatalog catalog;  // estimate: x GiB and x hours
  ScratchDir dir;
  RunOptions o = quiet_run(dir / "out");
};

TEST_F(StudyRunner, AggregatesReplicatesIntoTidyRows) {
  const auto spec = parse(kToyStudy, catalog);
  ASSERT_EQ(run_study(spec, catalog, o), 0);
  EXPECT_EQ(catalog.runs, 6);
  const auto rows = testing::read_csv_cells(o.out / "results.csv");
  ASSERT_EQ(rows[0], (std::vector<std::string>{"experiment", "point", "model", "y", "x", "statistic",
                                               "replicates", "mean", "stderr", "min", "max", "q0.5"}));
  // point p0001: x = 4, y = 2: value = 8 in every replicate -> stderr 0
  const auto plan = expand_study(spec, catalog);
  bool value_row = false, noise_row = false;
  for (const auto& r : rows) {
    if (r[1] == "p0001" && r[5] == "value") {
      // y = 2.0 is a TOML float and x = 4 an integer; the aggregates are floats ("8.0", not "8").
      EXPECT_EQ(r, (std::vector<std::string>{"e", "p0001", "toy", "2.0", "4", "value", "3", "8.0", "0.0",
                                             "8.0", "8.0", "8.0"}));
      value_row = true;
    }
    if (r[1] == "p0000" && r[5] == "noise") {  // seed % 1000 of the three replicates, aggregated by hand
      std::vector<double> x;
      for (int k = 0; k < 3; ++k) x.push_back(double(plan.units[std::size_t(k)].seed % 1000));
      const double mean = (x[0] + x[1] + x[2]) / 3;
      double ss = 0;
      for (double v : x) ss += (v - mean) * (v - mean);
      std::sort(x.begin(), x.end());
      EXPECT_DOUBLE_EQ(std::stod(r[7]), mean);
      EXPECT_DOUBLE_EQ(std::stod(r[8]), std::sqrt(ss / 2) / std::sqrt(3.0));
      EXPECT_EQ(std::stod(r[9]), x[0]);
      EXPECT_EQ(std::stod(r[10]), x[2]);
      EXPECT_EQ(std::stod(r[11]), x[1]);
      noise_row = true;
    }
    EXPECT_NE(r[5], "seconds");
  }
  EXPECT_TRUE(value_row && noise_row);
  const json manifest = testing::read_json(o.out / "manifest.json");
  EXPECT_EQ(manifest["units"], 6);
  EXPECT_EQ(manifest["study"]["seed"], 11);
}

TEST_F(StudyRunner, RerunSkipsFinishedUnitsAndRedoesTornOnes) {
  const auto spec = parse(kToyStudy, catalog);
  ASSERT_EQ(run_study(spec, catalog, o), 0);
  const std::string first = read_text((o.out / "results.csv").string());
  ASSERT_EQ(run_study(spec, catalog, o), 0);
  EXPECT_EQ(catalog.runs, 6) << "finished units must not run again";
  // a torn unit: a file changed after its commit; an interrupted one: no unit.json
  std::ofstream(o.out / "e/p0000/rep-1/data.txt") << "garbage";
  fs::remove(o.out / "e/p0001/rep-2/unit.json");
  EXPECT_EQ(inspect_unit(o.out, expand_study(spec, catalog).units[1]).state, UnitState::torn);
  ASSERT_EQ(run_study(spec, catalog, o), 0);
  EXPECT_EQ(catalog.runs, 8);
  EXPECT_EQ(read_text((o.out / "results.csv").string()), first);
}

TEST_F(StudyRunner, RefusesADirectoryOfAnotherStudy) {
  ASSERT_EQ(run_study(parse(kToyStudy, catalog), catalog, o), 0);
  std::string other = kToyStudy;
  other.replace(other.find("x = [1, 4]"), 10, "x = [1, 5]");
  EXPECT_THROW(run_study(parse(other, catalog), catalog, o), InvalidInput);
}

TEST_F(StudyRunner, UpdateKeepsUnchangedUnitsAndRunsOnlyTheNewOnes) {
  ASSERT_EQ(run_study(parse(kToyStudy, catalog), catalog, o), 0);
  ASSERT_EQ(catalog.runs, 6);
  std::string grown = kToyStudy;  // one more replicate, one more x at the end of the axis
  grown.replace(grown.find("replicates = 3"), 14, "replicates = 4");
  grown.replace(grown.find("x = [1, 4]"), 10, "x = [1, 4, 9]");
  const auto spec = parse(grown, catalog);
  EXPECT_THROW(run_study(spec, catalog, o), InvalidInput) << "a changed study needs --update";
  o.update = true;
  ASSERT_EQ(run_study(spec, catalog, o), 0);
  EXPECT_EQ(catalog.runs, 6 + 2 + 4);  // rep-3 of the two old points, four replicates of x = 9
  ToyCatalog fresh;
  RunOptions f = quiet_run(dir / "fresh");
  ASSERT_EQ(run_study(spec, fresh, f), 0);
  EXPECT_EQ(read_text((o.out / "results.csv").string()), read_text((f.out / "results.csv").string()));
  EXPECT_EQ(read_text((o.out / "study.toml").string()), grown);
}

TEST_F(StudyRunner, ShardsThenMergeEqualOneRun) {
  const auto spec = parse(kToyStudy, catalog);
  o.out = dir / "single";
  ASSERT_EQ(run_study(spec, catalog, o), 0);
  o.shards = 4;
  for (int s = 0; s < 4; ++s) {
    o.shard = s;
    o.out = dir / ("shard" + std::to_string(s));
    ASSERT_EQ(run_study(spec, catalog, o), 0);
    EXPECT_FALSE(fs::exists(o.out / "results.csv")) << "a shard alone is not the study";
  }
  std::vector<fs::path> inputs;
  for (int s = 0; s < 4; ++s) inputs.push_back(dir / ("shard" + std::to_string(s)));
  EXPECT_EQ(merge_studies({inputs[0], inputs[1]}, dir / "partial", catalog, json()), 1);
  ASSERT_EQ(merge_studies(inputs, dir / "merged", catalog, json()), 0);
  EXPECT_EQ(read_text((dir / "merged/results.csv").string()),
            read_text((dir / "single/results.csv").string()));
}

/// The message of the InvalidInput that running `text` throws, or "(no error)".
std::string run_error(const std::string& text, const ToyCatalog& catalog, const RunOptions& o) {
  try {
    run_study(parse(text, catalog), catalog, o);
  } catch (const InvalidInput& e) {
    return e.what();
  }
  return "(no error)";
}

TEST_F(StudyRunner, MemoryLimitAndTimeBudgetAreCheckedBeforeAnythingRuns) {
  const std::string body = kHead + "[experiment.grid]\nx = [1, 3]\n";
  const std::vector<std::pair<std::string, std::string>> table{
      {"[study]\nmemory_limit_gib = 2\n", "s.toml:2: memory_limit_gib = 2: unit e/p0001/rep-0"},
      {"[study]\ntime_budget_hours = 3.5\n", "s.toml:2: time_budget_hours = 3.5: the study needs about 4 h"},
      {"[study]\nmax_units = 1\n", "s.toml:2: the study expands to 2 units"}};
  for (const auto& [head, message] : table) {
    const std::string error = run_error(head + body, catalog, o);
    EXPECT_NE(error.find(message), std::string::npos) << error;
  }
  EXPECT_EQ(catalog.runs, 0);
  EXPECT_FALSE(fs::exists(o.out));
}

TEST_F(StudyRunner, MissingRequiredParameterNamesTheExperimentAndPoint) {
  EXPECT_EQ(run_error(kHead + "[experiment.grid]\ny = [1.5]\n", catalog, o),
            "s.toml:2: experiment 'e' point p0000 (y=1.5): --x is required");
}

TEST_F(StudyRunner, FailedUnitsAreReportedLeftOutAndRetried) {
  catalog.fail_13 = true;
  const auto spec = parse(kHead + "[experiment.grid]\nx = [1, 13, 2]\n", catalog);
  EXPECT_EQ(run_study(spec, catalog, o), 1);
  EXPECT_FALSE(fs::exists(o.out / "results.csv"));
  EXPECT_FALSE(fs::exists(o.out / "e/p0001/rep-0"))
      << "a failed unit leaves nothing that could pass for a result";
  EXPECT_TRUE(fs::exists(o.out / "e/p0002/rep-0/unit.json")) << "the other units still run";
  catalog.fail_13 = false;
  EXPECT_EQ(run_study(spec, catalog, o), 0);
  EXPECT_EQ(catalog.runs, 4);  // three, then the failed one again
  EXPECT_TRUE(fs::exists(o.out / "results.csv"));
}

}  // namespace
}  // namespace netdp::study
