// The model registry (netdp/jobs/model.hpp, docs/design_models.md): every model is described completely,
// values convert with errors that name the parameter, a model run in-process writes what the command line
// writes, and the study runner runs models without any CLI code (this test links netdp::netdp only; it starts
// the netdp program only to compare files with it).
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <map>
#include <set>

#include "netdp/accounting/gossip_loss.hpp"
#include "netdp/core/error.hpp"
#include "netdp/core/graph_generators.hpp"
#include "netdp/core/weighting.hpp"
#include "netdp/jobs/model.hpp"
#include "netdp/jobs/walk_sim_job.hpp"
#include "netdp/study/study_runner.hpp"
#include "support/test_support.hpp"

namespace netdp::jobs {
namespace {

using json = nlohmann::json;
using testing::read_json;
using testing::read_npy;
using testing::read_text;
using testing::ScratchDir;
namespace fs = std::filesystem;

const Model& model(const std::string& name) {
  const Model* m = find_model(name);
  if (!m) throw std::logic_error("no model " + name);
  return *m;
}

/// The InvalidParameter that `f` throws: "parameter|message", or "(no error)".
template <typename F>
std::string parameter_error(F&& f) {
  try {
    f();
  } catch (const InvalidParameter& e) {
    return e.parameter() + "|" + e.what();
  }
  return "(no error)";
}

TEST(ModelRegistry, EveryModelIsDescribedCompletely) {
  std::set<std::string> names;
  const std::set<std::string> expected{"graph",
                                       "gossip-loss",
                                       "gossip-er-bound",
                                       "walk-loss",
                                       "walk-sim",
                                       "gossip-sim",
                                       "muffliato-gd",
                                       "bound complete-sum",
                                       "bound complete-histogram",
                                       "bound ring-sum",
                                       "bound ring-histogram",
                                       "bound sgd-rdp",
                                       "bound sgd-closed-form",
                                       "bound sgd-sigma",
                                       "mf-loss",
                                       "mf-factorize",
                                       "mf-sgd",
                                       "walk-sgd",
                                       "muffliato-sgd",
                                       "admm",
                                       "attack gossip",
                                       "attack dgd"};
  for (const Model& m : models()) {
    SCOPED_TRACE(m.name);
    EXPECT_TRUE(names.insert(m.name).second) << "model names are unique";
    EXPECT_EQ(find_model(m.name), &m);
    EXPECT_FALSE(m.help.empty());
    EXPECT_TRUE(m.execute);
    EXPECT_TRUE(m.describe);
    ASSERT_NE(m.with_role(ParameterRole::out_dir), nullptr) << "every model writes a results directory";
    std::set<std::string> parameters;
    for (const Parameter& p : m.parameters) {
      SCOPED_TRACE(p.name);
      EXPECT_TRUE(parameters.insert(p.name).second) << "parameter names are unique";
      EXPECT_FALSE(p.help.empty());
      EXPECT_FALSE(p.name.starts_with("-"));
      EXPECT_FALSE(p.required && p.default_value) << "a required parameter has no default";
      if (p.default_value) {
        json value;
        EXPECT_NO_THROW(value = Values::convert(p, *p.default_value)) << *p.default_value;
        if (p.type == ParameterType::choice) {
          EXPECT_NE(std::find(p.choices.begin(), p.choices.end(), *p.default_value), p.choices.end());
        }
      }
      if (p.type == ParameterType::choice) {
        EXPECT_FALSE(p.choices.empty());
      }
      for (const auto& other : p.excludes) EXPECT_NE(m.find(other), nullptr) << other;
    }
    // The required parameters filled in, the defaults give a complete set of values.
    Values::JsonItems required;
    for (const Parameter& p : m.parameters)
      if (p.required && p.role != ParameterRole::out_dir) required.emplace_back(p.name, "1");
    const Values values = Values::from_json(m, required);
    for (const Parameter& p : m.parameters) {
      if (p.default_value || p.type == ParameterType::flag) {
        EXPECT_TRUE(values.has(p.name)) << p.name;
      }
    }
  }
  EXPECT_EQ(names, expected);
  EXPECT_EQ(find_model("gossip-losses"), nullptr);
  EXPECT_FALSE(model("graph").study_model) << "graph writes stats.json, not summary.json";
  ASSERT_EQ(model_groups().size(), 2u);
  EXPECT_EQ(model_groups()[0].name, "bound");
  EXPECT_EQ(model_groups()[1].name, "attack");
}

/// "--name is 'unit' in A but 'other' in B" for every parameter name declared with two units, and for every
/// deprecated spelling that is also a live name of its own model (Model::find would never reach it).
std::vector<std::string> unit_conflicts(const std::vector<Model>& list) {
  std::vector<std::string> conflicts;
  std::map<std::string, std::pair<std::string, std::string>> first;  // name -> (unit, model)
  for (const Model& m : list)
    for (const Parameter& p : m.parameters) {
      const auto& [unit, where] = first.try_emplace(p.name, p.unit, m.name).first->second;
      if (p.unit != unit)
        conflicts.push_back("--" + p.name + " is '" + p.unit + "' in " + m.name + " but '" + unit + "' in " +
                            where);
      for (const auto& old : p.aliases)
        if (m.find(old) != &p) conflicts.push_back("--" + old + " of " + m.name + " is also a live name");
    }
  return conflicts;
}

// Issue 29 (docs/design_models.md "One name, one unit"): a parameter name means one thing in every command.
// Every declaration of a name carries the same unit (Parameter::unit), and the noise names carry theirs:
// sigma is an absolute std everywhere, a noise multiplier is noise-multiplier. Deprecated spellings
// (Parameter::aliases, e.g. walk-loss's --sigma for one release) are not names and are not compared.
TEST(ModelRegistry, OneNameHasOneUnit) {
  EXPECT_EQ(unit_conflicts(models()), std::vector<std::string>{});
  std::map<std::string, std::set<std::string>> units;
  for (const Model& m : models())
    for (const Parameter& p : m.parameters) units[p.name].insert(p.unit);
  const std::map<std::string, std::string> noise{{"sigma", "absolute std"},
                                                 {"noise-multiplier", "std / sensitivity"},
                                                 {"gradient-noise", "gradient std"}};
  for (const auto& [name, unit] : noise) {
    SCOPED_TRACE(name);
    EXPECT_EQ(units[name], std::set<std::string>{unit}) << "the noise names declare their unit";
  }
  EXPECT_EQ(model("walk-loss").find("sigma"), model("walk-loss").find("noise-multiplier"));
  EXPECT_EQ(model("muffliato-gd").find("sigma"), model("muffliato-gd").find("gradient-noise"));
  // The check fails on a violation: walk-loss's multiplier named sigma next to gossip-loss's absolute sigma,
  // and an old spelling of mf-loss that is one of its live names.
  Model walk = model("walk-loss"), mf = model("mf-loss");
  for (Parameter& p : walk.parameters)
    if (p.name == "noise-multiplier") {
      p.name = "sigma";
      p.aliases.clear();
    }
  for (Parameter& p : mf.parameters)
    if (p.name == "noise-multiplier") p.aliases = {"alpha"};
  const auto conflicts = unit_conflicts({model("gossip-loss"), walk, mf});
  ASSERT_EQ(conflicts.size(), 2u) << ::testing::PrintToString(conflicts);
  EXPECT_EQ(conflicts[0], "--sigma is 'std / sensitivity' in walk-loss but 'absolute std' in gossip-loss");
  EXPECT_NE(conflicts[1].find("--alpha of"), std::string::npos) << conflicts[1];
}

TEST(ModelRegistry, ValuesApplyDefaultsAndConvertTypes) {
  const Model& m = model("gossip-loss");
  const Values v = Values::from_json(m, {{"graph", "ring:n=8"}, {"sigma", 2}, {"steps", 7}, {"cap", "none"}});
  EXPECT_EQ(v.text("graph"), "ring:n=8");
  EXPECT_EQ(v.real("sigma"), 2.0);
  EXPECT_TRUE(v.given("sigma"));
  EXPECT_EQ(v.real("alpha"), 2.0);
  EXPECT_FALSE(v.given("alpha"));
  EXPECT_FALSE(v.is_auto("steps"));
  EXPECT_EQ(v.integer("steps"), 7);
  EXPECT_EQ(v.text("cap"), "none");
  EXPECT_FALSE(v.flag("no-matrix"));
  EXPECT_FALSE(v.has("source")) << "an optional parameter without a default has no value";
  EXPECT_TRUE(Values::from_text(m, {{"graph", {"ring:n=8"}}}).is_auto("steps"));
  const Values o =
      Values::from_json_object(m, json{{"graph", "ring:n=8"}, {"t-start", 1}, {"no-matrix", true}});
  EXPECT_EQ(o.integer("t-start"), 1);
  EXPECT_TRUE(o.flag("no-matrix"));
  EXPECT_EQ(o.as_json()["propagation"], "auto");
  EXPECT_THROW(Values::from_json_object(m, json::array()), InvalidInput);
  // text as a command line gives it: a flag without items, a list as one comma-separated item or several
  const Values w = Values::from_text(model("walk-sim"), {{"graph", {"complete:n=10"}},
                                                         {"steps", {"10"}},
                                                         {"runs", {"2"}},
                                                         {"quantiles", {"0.1,0.5", "0.9"}},
                                                         {"no-accounting", {}}});
  EXPECT_EQ(w.reals("quantiles"), (std::vector<double>{0.1, 0.5, 0.9}));
  EXPECT_TRUE(w.flag("no-accounting"));
  EXPECT_EQ(w.natural("seed"), 0u);
  // JSON converts as its text: a float with an integral value is an integer, a list of one is a list
  const Values b = Values::from_json(model("bound complete-sum"), {{"n", 100}, {"steps", 1e4}});
  EXPECT_EQ(b.reals("n"), (std::vector<double>{100}));
  EXPECT_EQ(b.real("steps"), 1e4);
}

TEST(ModelRegistry, ErrorsNameTheParameterWithoutFlags) {
  const Model& gossip = model("gossip-loss");
  const std::vector<std::pair<std::function<void()>, std::string>> cases{
      {[&] {
         Values::from_text(gossip, {{"graph", {"ring:n=8"}}, {"steps", {"x"}}});
       },
       "steps|steps: expected a positive integer or auto, got 'x'"},
      {[&] {
         Values::from_json(gossip, {{"graph", "ring:n=8"}, {"alpha", "two"}});
       },
       "alpha|alpha: expected a number, got 'two'"},
      {[&] {
         Values::from_json(gossip, {{"graph", "ring:n=8"}, {"gap", "third"}});
       },
       "gap|gap: expected second or abs, got 'third'"},
      {[&] {
         Values::from_json(gossip, {{"sigma", 2}});
       },
       "graph|graph is required"},
      {[&] {
         Values::from_json(gossip, {{"graph", "ring:n=8"}, {"colour", "blue"}});
       },
       "colour|colour: gossip-loss has no such parameter"},
      {[&] {
         Values::from_json(model("walk-loss"), {{"graph", "ring:n=8"}, {"clip", 5}});
       },
       "clip|clip is a flag: write true or false"},
      {[&] {
         Values::from_json(gossip, {{"graph", "ring:n=8"}, {"sigma", true}});
       },
       "sigma|sigma takes a value, not true/false"},
      {[&] {
         gossip.check(Values::from_json(gossip, {{"graph", "ring:n=8"}, {"threads", -1}}));
       },
       "threads|threads must be >= 0, got -1"},
      {[&] {
         gossip.check(Values::from_json(gossip, {{"graph", "ring:n=8"}, {"steps", 0}}));
       },
       "steps|steps must be >= 1, got 0"},
      {[&] {
         gossip.check(Values::from_json(gossip, {{"graph", "ring:n=8"}, {"alpha", 0.5}}));
       },
       "alpha|alpha must be > 1, got 0.5"},
      {[&] {
         const Model& sum = model("bound complete-sum");
         sum.check(Values::from_json(sum, {{"n", 10}, {"steps", 100}, {"steps-per-node", 10}}));
       },
       "steps|steps and steps-per-node exclude each other: give one of them"},
      {[&] {
         const Model& sim = model("gossip-sim");
         sim.check(Values::from_json(sim, {{"graph", "ring:n=8"}, {"steps", 3}, {"protocol", "sequence"}}));
       },
       "sequence|sequence PATH is required by protocol sequence (a list of weight-matrix files)"},
      {[&] {
         const Model& walk = model("walk-loss");
         walk.check(Values::from_json(walk, {{"graph", "ring:n=8"}, {"target-mean-loss", 0.5}}));
       },
       "target-mean-loss|target-mean-loss needs steps T, not auto: the horizon T_RW itself depends on sigma"},
  };
  for (const auto& [f, expected] : cases) {
    const std::string error = parameter_error(f);
    EXPECT_EQ(error, expected);
    EXPECT_EQ(error.find("--"), std::string::npos) << error;
  }
  // detail(): the message without the name, for callers that name the parameter themselves
  try {
    Values::from_json(gossip, {{"graph", "ring:n=8"}, {"alpha", "two"}});
  } catch (const InvalidParameter& e) {
    EXPECT_EQ(e.detail(), "expected a number, got 'two'");
  }
  EXPECT_TRUE((std::is_base_of_v<InvalidInput, InvalidParameter>));
}

/// A run context writing into `out` without progress lines.
RunContext quiet_context(const std::filesystem::path& out) {
  RunContext context;
  context.out_dir = out;
  context.quiet = true;
  return context;
}

TEST(ModelRegistry, GossipLossInProcessEqualsTheLibraryAndTheCommandLine) {
  ScratchDir dir;
  const Model& m = model("gossip-loss");
  RunContext context = quiet_context(dir / "registry");
  context.invocation = json::array({"test"});
  const json summary =
      m.run(Values::from_json(m, {{"graph", "hypercube:dim=3"}, {"steps", 4}, {"sigma", 2}, {"alpha", 3}}),
            context);

  // the library called directly
  const Graph g = hypercube_graph(3);
  GossipLossParams p;
  p.steps = 4;
  p.sigma = 2;
  p.alpha = 3;
  const auto expected = gossip_loss_matrix(g, gossip_matrix(g, Weighting::metropolis), p);
  const auto loss = read_npy((context.out_dir / "loss.npy").string());
  EXPECT_EQ(loss.shape, (std::vector<std::int64_t>{8, 8}));
  EXPECT_EQ(loss.values, expected);
  double sum = 0;
  for (int u = 0; u < 8; ++u)
    for (int v = 0; v < 8; ++v)
      if (u != v) sum += expected[std::size_t(u * 8 + v)];
  EXPECT_NEAR(summary["mean_loss"].get<double>(), sum / 56, 1e-15);
  EXPECT_EQ(summary["n"], 8);
  EXPECT_EQ(summary["steps"], 4);
  EXPECT_DOUBLE_EQ(summary["ldp_loss"].get<double>(), 3.0 / 8.0);
  EXPECT_EQ(read_json(context.out_dir / "summary.json"), summary) << "the summary returned is the file's";
  EXPECT_EQ(read_json(context.out_dir / "manifest.json")["invocation"], context.invocation);
  EXPECT_NE(m.report(summary, context).find("gossip-loss: n = 8, T = 4"), std::string::npos);

  // the same model through the netdp program
  auto r =
      testing::run_cli("gossip-loss --graph hypercube:dim=3 --steps 4 --sigma 2 --alpha 3 --quiet --out " +
                       (dir / "cli").string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* file : {"loss.npy", "by_distance.csv", "per_observer.csv"})
    EXPECT_EQ(read_text((dir / "cli" / file).string()), read_text((context.out_dir / file).string())) << file;
  std::set<std::string> cli_files, registry_files;
  for (const auto& e : fs::directory_iterator(dir / "cli")) cli_files.insert(e.path().filename().string());
  for (const auto& e : fs::directory_iterator(context.out_dir))
    registry_files.insert(e.path().filename().string());
  EXPECT_EQ(cli_files, registry_files);
  EXPECT_EQ(read_json(dir / "cli/summary.json")["mean_loss"], summary["mean_loss"]);
}

TEST(ModelRegistry, ContextDefaultsDeviceAndThreadsUnlessGiven) {
  ScratchDir dir;
  const Model& m = model("gossip-loss");
  RunContext context = quiet_context(dir / "a");
  context.device = "cpu";
  context.threads = 1;
  const json summary = m.run(Values::from_json(m, {{"graph", "ring:n=6"}, {"steps", 2}}), context);
  EXPECT_EQ(summary["device"], "cpu (1 threads)") << "the context's device and threads";
  context.out_dir = dir / "b";
  context.device = "cuda:7";  // not used: the values name a device
  const json given =
      m.run(Values::from_json(m, {{"graph", "ring:n=6"}, {"steps", 2}, {"device", "cpu"}}), context);
  EXPECT_EQ(given["device"], "cpu (1 threads)");
  RunContext unnamed;
  unnamed.quiet = true;
  EXPECT_EQ(parameter_error([&] {
              m.run(Values::from_json(m, {{"graph", "ring:n=6"}}), unnamed);
            }),
            "out|out: an output directory is required");
}

TEST(ModelRegistry, EstimatesFollowTheGraphAndTheParameters) {
  const Model& m = model("gossip-loss");
  const Estimate e = m.estimate(Values::from_json(m, {{"graph", "hypercube:dim=4"}, {"steps", 5}}));
  const double n = 16, entries = 2 * 32 + n;  // 32 edges
  EXPECT_DOUBLE_EQ(e.bytes, 16 * entries + 8 * n * 6 + 24 * n * 64);
  EXPECT_DOUBLE_EQ(e.seconds, 5 * entries * n / 1e10 + 8 * n * n / 1e9);
  // A horizon far beyond n: the one pass's panels (2 n^2 + n^2 doubles), not the T x n norms, are held
  // (docs/gossip_loss.md "One pass for long horizons"): 16 (2 m + n) + 8 n (2 n + n) = 240 + 600 on a 5-ring.
  const Estimate long_horizon =
      m.estimate(Values::from_json(m, {{"graph", "ring:n=5"}, {"steps", 1000000000}}));
  EXPECT_DOUBLE_EQ(long_horizon.required_bytes, 840);
  const Model& bound = model("bound ring-sum");
  EXPECT_EQ(bound.estimate(Values::from_json(bound, {{"n", 10}})).bytes, double(1 << 20));
  EXPECT_EQ(model("graph").estimate(Values::from_json(model("graph"), {{"graph", "ring:n=5"}})).bytes, 0);
}

TEST(ModelRegistry, TheStudyRunnerRunsTheRegistryInProcess) {
  ScratchDir dir;
  const study::ModelCatalog& catalog = study::registry_catalog();
  EXPECT_FALSE(catalog.has_model("graph"));
  EXPECT_TRUE(catalog.has_model("bound sgd-sigma"));
  const std::string text = read_text(testing::source_path("tests/data/studies/registry_three_models.toml"));
  const auto spec = study::parse_study(text, "s.toml", catalog);
  study::RunOptions o;
  o.out = dir / "out";
  o.quiet = true;
  o.devices = "cpu";
  ASSERT_EQ(study::run_study(spec, catalog, o), 0);
  // unit gossip/p0000 = alpha 3: the model run by hand
  RunContext context = quiet_context(dir / "hand");
  const Model& m = model("gossip-loss");
  const json by_hand =
      m.run(Values::from_json(m, {{"graph", "hypercube:dim=3"}, {"steps", 4}, {"sigma", 2}, {"alpha", 3}}),
            context);
  EXPECT_EQ(read_text((dir / "out/gossip/p0000/rep-0/loss.npy").string()),
            read_text((dir / "hand/loss.npy").string()));
  const json unit = read_json(dir / "out/gossip/p0000/rep-0/unit.json");
  EXPECT_EQ(unit["summary"]["mean_loss"], by_hand["mean_loss"]);
  const auto manifest = read_json(dir / "out/gossip/p0000/rep-0/manifest.json");
  EXPECT_EQ(manifest["invocation"]["model"], "gossip-loss");
  EXPECT_EQ(manifest["invocation"]["device"], "cpu");
  const std::string results = read_text((dir / "out/results.csv").string());
  EXPECT_NE(results.find("gossip,p0001,gossip-loss"), std::string::npos);
  EXPECT_NE(results.find("theory,p0000,bound complete-sum"), std::string::npos);
  EXPECT_NE(results.find("network_loss.mean"), std::string::npos);
  // a grid point's errors name the parameter in the models' spelling
  try {
    study::parse_study(
        "[[experiment]]\nname = \"e\"\nmodel = \"gossip-loss\"\n[experiment.params]\nalpha = \"two\"\n",
        "bad.toml", catalog);
    ADD_FAILURE() << "a bad value must be refused";
  } catch (const InvalidInput& e) {
    EXPECT_EQ(std::string(e.what()),
              "bad.toml:5: experiment 'e': 'alpha' = \"two\": expected a number, got 'two'");
  }
  EXPECT_THROW(catalog.check_unit("gossip-loss", {{"sigma", 2}}), InvalidInput);
  try {
    catalog.check_unit("gossip-loss", {{"sigma", 2}});
  } catch (const InvalidInput& e) {
    EXPECT_EQ(std::string(e.what()), "graph is required");
  }
}

}  // namespace
}  // namespace netdp::jobs

namespace netdp::jobs {
namespace {

// Issue contract: `netdp walk-sim --no-accounting --device cuda` runs on the stepping engine, which counts
// visits only (docs/walk_sim.md "Visits only"; that this mode runs walk_steps_cuda is
// WalkSimCuda.VisitsOnlyRunsTheSteppingEngine on the emulated device). Every other default stays full.
TEST(ModelRegistry, WalkSimStatisticsAutoPicksTheSteppingEngineForPlainCudaWalks) {
  const Model& model = *find_model("walk-sim");
  auto statistics = [&](Values::TextItems given) {
    given.push_back({"graph", {"complete:n=10"}});
    given.push_back({"steps", {"10"}});
    given.push_back({"runs", {"2"}});
    return walk_sim_job(Values::from_text(model, given), {}).params.statistics;
  };
  EXPECT_EQ(statistics({{"no-accounting", {"true"}}, {"device", {"cuda"}}}), WalkStatistics::visits);
  EXPECT_EQ(statistics({{"no-accounting", {"true"}}, {"device", {"cpu"}}}), WalkStatistics::full);
  EXPECT_EQ(statistics({{"no-accounting", {"true"}}}), WalkStatistics::full);  // auto device: full
  EXPECT_EQ(statistics({{"device", {"cuda"}}}), WalkStatistics::full);         // accounted walks
  EXPECT_EQ(statistics({{"no-accounting", {"true"}}, {"device", {"cuda"}}, {"save-paths", {"true"}}}),
            WalkStatistics::full);
  EXPECT_EQ(statistics({{"no-accounting", {"true"}}, {"statistics", {"full"}}, {"device", {"cuda"}}}),
            WalkStatistics::full);
}

}  // namespace
}  // namespace netdp::jobs
