// `netdp gossip-sim` end to end: files, mse.csv layout, agreement with the library, auto steps, target, and
// bad input (exit 2, no manifest).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "netdp/core/format.hpp"
#include "netdp/core/graph_spec.hpp"
#include "netdp/core/spectral.hpp"
#include "netdp/core/weighting.hpp"
#include "netdp/simulation/gossip_sim.hpp"
#include "netdp/simulation/gossip_sim_privacy.hpp"
#include "netdp/simulation/gossip_sim_stop.hpp"
#include "support/cli_runs.hpp"
#include "support/test_support.hpp"

namespace netdp {
namespace {

using namespace testing;  // tests/support/test_support.hpp
namespace fs = std::filesystem;

/// Rows of mse.csv after the header, as numbers.
std::vector<std::vector<double>> csv_rows(const fs::path& file, std::string* header) {
  auto cells = read_csv_cells(file);
  *header = "";
  for (std::size_t i = 0; i < cells.front().size(); ++i) *header += (i ? "," : "") + cells.front()[i];
  std::vector<std::vector<double>> rows;
  for (std::size_t r = 1; r < cells.size(); ++r) {
    rows.emplace_back();
    for (const auto& cell : cells[r]) rows.back().push_back(std::strtod(cell.c_str(), nullptr));
  }
  return rows;
}

TEST(CliGossipSim, WritesFilesThatMatchTheLibrary) {
  const CliRun run(
      "gossip-sim --graph ring:n=10 --protocol sync --steps 20 --runs 50 --dim 2 --sigma 0.5 --init "
      "normal --seed 3 --target 0.05 --threads 2");
  ASSERT_TRUE(run.ok);
  std::string header;
  auto rows = csv_rows(run.out / "mse.csv", &header);
  EXPECT_EQ(header, "t,mean,stderr,noisy_mean,noisy_stderr,bound");
  ASSERT_EQ(rows.size(), 21u);

  Graph g = make_graph("ring:n=10");
  CsrMatrix w = gossip_matrix(g, Weighting::metropolis);
  GossipSimParams p;
  p.steps = 20;
  p.runs = 50;
  p.dim = 2;
  p.sigma = 0.5;
  p.seed = 3;
  p.init.kind = InitKind::normal;
  auto x = initial_values(g.n, p);
  auto lib = gossip_sim(g, w, x, p);
  const double gap = spectral_summary(w).gap(GapDefinition::second);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    ASSERT_EQ(rows[i].size(), 6u);
    EXPECT_EQ(rows[i][0], double(i));
    EXPECT_EQ(rows[i][1], lib.mean[i]);  // shortest round-trip text
    EXPECT_EQ(rows[i][2], lib.std_error[i]);
    EXPECT_EQ(rows[i][3], lib.noisy_mean[i]);
    EXPECT_EQ(rows[i][4], lib.noisy_std_error[i]);
    EXPECT_EQ(rows[i][5],
              gossip_sim_bound({GossipProtocol::sync, 10, 2, 0.5, lib.initial_spread, gap}, double(i)));
  }
  auto s = run.summary();
  EXPECT_EQ(s["protocol"], "sync");
  EXPECT_EQ(s["runs"], 50);
  EXPECT_DOUBLE_EQ(s["noise_floor"].get<double>(), 2 * 0.25 / 10);
  auto reached = first_reaching(lib, 0.05);
  if (reached)
    EXPECT_EQ(s["target_reached_t"], *reached);
  else
    EXPECT_TRUE(s["target_reached_t"].is_null());
  auto m = read_json(run.out / "manifest.json");
  EXPECT_EQ(m["command"], "gossip-sim");
  EXPECT_EQ(m["parameters"]["protocol"], "sync");
}

TEST(CliGossipSim, EveryProtocolRuns) {
  ScratchDir dir;
  const std::pair<std::string, std::string> protocols[] = {{"accelerated", ""},
                                                           {"randomized", ""},
                                                           {"er-per-round", " --er-c 2"},
                                                           {"dropout", " --dropout 0.2"},
                                                           {"dropout-er", " --er-p 0.2 --dropout 0.3"}};
  for (const auto& [protocol, option] : protocols) {
    auto out = dir / protocol;
    auto r = run_cli("gossip-sim --graph hypercube:dim=4 --protocol " + protocol + option +
                     " --steps 30 --runs 20 --init uniform --quiet --out " + out.string());
    ASSERT_EQ(r.exit_code, 0) << protocol << ": " << r.err;
    EXPECT_TRUE(fs::exists(out / "manifest.json")) << protocol;
    auto s = read_json(out / "summary.json");
    EXPECT_EQ(s["protocol"], protocol);
    EXPECT_EQ(s["steps"], 30);
  }
}

TEST(CliGossipSim, AutoStepsIsTheStoppingTime) {
  const CliRun run(
      "gossip-sim --graph hypercube:dim=5 --protocol accelerated --steps auto --runs 10 --sigma 0.2 "
      "--init uniform");
  ASSERT_TRUE(run.ok);
  auto s = run.summary();
  GossipBoundInputs in{GossipProtocol::accelerated,    32, 1, 0.2, s["initial_spread"].get<double>(),
                       s["spectral_gap"].get<double>()};
  EXPECT_EQ(s["steps"], gossip_sim_stopping_time(in));
  EXPECT_EQ(read_json(run.out / "manifest.json")["parameters"]["steps"], "auto");
}

TEST(CliGossipSim, InitFromFile) {
  ScratchDir dir;
  auto file = dir.write("x.txt", "# values of 4 nodes, D = 2\n1 2\n3, 4\n\n5 6  # third\n7 8\n");
  auto out = dir / "file";
  auto r = run_cli("gossip-sim --graph ring:n=4 --steps 3 --dim 2 --sigma 0 --init file:" + file + " --out " +
                   out.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto s = read_json(out / "summary.json");
  EXPECT_EQ(s["true_average"], nlohmann::json({4.0, 5.0}));
  EXPECT_DOUBLE_EQ(s["initial_spread"].get<double>(), 10.0);  // (9 + 1 + 1 + 9) / 4 per coordinate, x 2
}

TEST(CliGossipSim, BadInputExitsWithTwoAndLeavesNoManifest) {
  ScratchDir dir;
  auto bad_file = dir.write("bad.txt", "1 2\n3 x\n");
  auto short_file = dir.write("short.txt", "1 2\n3 4\n");
  // A 4-node ring with metropolis weights 1/3, then a matrix that is not symmetric.
  dir.write("ring.txt",
            "0 0 0.3333333333333333\n0 1 0.3333333333333333\n0 3 0.3333333333333334\n"
            "1 0 0.3333333333333333\n1 1 0.3333333333333333\n1 2 0.3333333333333334\n"
            "2 1 0.3333333333333334\n2 2 0.3333333333333333\n2 3 0.3333333333333333\n"
            "3 0 0.3333333333333334\n3 2 0.3333333333333333\n3 3 0.3333333333333333\n");
  const std::string bad_matrix = (dir / "asym.txt").string();
  dir.write("asym.txt", "0 0 0.5\n0 1 0.5\n1 0 0.25\n1 1 0.75\n2 2 1\n3 3 1\n");
  auto bad_list = dir.write("bad_list.txt", "ring.txt\nasym.txt\n");
  const std::string base = "gossip-sim --graph ring:n=4 ";
  const std::pair<std::string, std::string> cases[] = {
      {"--runs 0", "--runs"},
      {"--dim 0", "--dim"},
      {"--sigma -1", "--sigma"},
      {"--steps 0", "--steps"},
      {"--dropout 1.5 --protocol dropout", "--dropout"},
      {"--protocol er-per-round --er-c 10", "q = c ln(n)/n"},
      // q = 0.0035 on 4 nodes: every draw is disconnected (the error leaves an OpenMP region as exit 2).
      {"--protocol er-per-round --er-c 0.01", "raise er-c"},
      {"--protocol push-sum", "--protocol"},
      {"--init file:" + (dir / "missing.txt").string(), "cannot open"},
      {"--dim 2 --init file:" + bad_file, "line 2"},
      {"--dim 2 --init file:" + short_file, "2 lines of values, but the graph has 4 nodes"},
      {"--privacy --device cuda", "--privacy runs on the CPU only"},
      {"--protocol dropout --steps auto", "--steps auto"},
      {"--memory-limit 0.000000001", "needs"},
      {"--protocol sequence", "--sequence PATH"},
      {"--sequence " + bad_file, "--sequence is only used by --protocol sequence"},
      {"--protocol sequence --sequence " + bad_list, "bad_list.txt line 2 (" + bad_matrix + ")"},
      {"--protocol sequence --sequence " + bad_list, "not symmetric"},
      {"--privacy --sigma 0", "--sigma > 0"},
      {"--privacy --alpha 1", "--alpha"},
      {"--privacy --t-start 2", "--t-start"},
      {"--privacy --source 4", "--source 4"},
      {"--quantiles 0.5", "--quantiles is only used by --privacy"},
      // Options the run would ignore (defect 4 of the reliability issue).
      {"--dropout 0.2",
       "--dropout is only used by --protocol dropout or dropout-er; this run would ignore it"},
      {"--er-p 0.1", "--er-p is only used by --protocol dropout-er"},
      {"--protocol dropout-er", "--er-p"},
      {"--protocol dropout-er --er-p 1.5", "--er-p"},
      {"--stop-at thesis:3", "--stop-at is only used by --privacy"},
      {"--privacy --stop-at thesis", "--stop-at"},
      {"--privacy --stop-at error:-1", "--stop-at"},
      {"--protocol randomized --er-c 2", "--er-c is only used by --protocol er-per-round"},
      {"--alpha 3", "--alpha is only used by --privacy"},
      {"--cap none", "--cap is only used by --privacy"},
      {"--privacy --cap none", "--cap is only used by --accounting theorem"},
      {"--privacy --accounting theorem --observer-knows input",
       "--observer-knows is only used by --accounting exact"},
      {"--accounting theorem", "--accounting is only used by --privacy"},
      {"--privacy --accounting bound", "--accounting"},
      {"--privacy --quantiles 0.5,x", "--quantiles"},
      {"--privacy --quantiles 0.5 --protocol dropout --runs 10000 --memory-limit 0.001",
       "quantiles keeps every run's losses"},
  };
  int i = 0;
  for (const auto& [args, message] : cases) {
    auto out = dir / ("bad" + std::to_string(i++));
    const std::string steps = args.find("--steps") == std::string::npos ? " --steps 5" : "";
    auto r = run_cli(base + args + steps + " --out " + out.string());
    EXPECT_EQ(r.exit_code, 2) << args << ": " << r.err;
    EXPECT_NE(r.err.find(message), std::string::npos) << args << ": " << r.err;
    EXPECT_FALSE(fs::exists(out / "manifest.json")) << args;
  }
}

/// The rows of a CSV file after the header, as strings.
std::vector<std::string> csv_lines(const fs::path& file) {
  std::istringstream in(read_text(file.string()));
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

TEST(CliGossipSim, PrivacyWritesTheFilesAndMatchesTheLibrary) {
  ScratchDir dir;
  auto out = dir / "privacy";
  ASSERT_TRUE(run_cli_into(
      "gossip-sim --graph hypercube:dim=4 --protocol er-per-round --er-c 2 --steps 5 --runs 6 --sigma 2 "
      "--seed 3 --privacy --accounting theorem --cap none --quantiles 0.5,0.9 --quiet",
      out,
      {"privacy_mean.npy", "privacy_min.npy", "privacy_max.npy", "privacy_quantile_0.5.npy",
       "privacy_quantile_0.9.npy", "privacy_er_bound_mean.npy", "privacy_runs.csv", "privacy_by_distance.csv",
       "privacy_by_union_distance.csv"}));

  Graph g = make_graph("hypercube:dim=4");
  GossipSimParams p;
  p.protocol = GossipProtocol::er_per_round;
  p.edge_probability = 2 * std::log(16.0) / 16;
  p.steps = 5;
  p.runs = 6;
  p.sigma = 2;
  p.seed = 3;
  GossipPrivacyParams q;
  q.accounting = GossipAccounting::theorem;
  q.cap_ldp = false;
  q.quantiles = {0.5, 0.9};
  const auto lib = gossip_sim_privacy(g, CsrMatrix{}, p, q);
  const std::pair<const char*, const std::vector<double>*> matrices[] = {
      {"privacy_mean.npy", &lib.mean},
      {"privacy_max.npy", &lib.max},
      {"privacy_quantile_0.9.npy", &lib.quantiles[1]},
      {"privacy_er_bound_mean.npy", &lib.er_bound_mean}};
  for (const auto& [file, values] : matrices) {
    auto npy = testing::read_npy((out / file).string());
    EXPECT_EQ(npy.shape, (std::vector<std::int64_t>{16, 16})) << file;
    EXPECT_EQ(npy.values, *values) << file;
  }
  EXPECT_EQ(csv_lines(out / "privacy_runs.csv").size(), 7u);  // header + 6 runs
  EXPECT_EQ(csv_lines(out / "privacy_by_distance.csv").front(), "distance,pairs_per_run,mean,min,max");
  auto s = read_json(out / "summary.json")["privacy"];
  EXPECT_EQ(s["runs"], 6);
  EXPECT_EQ(s["computed_runs"], 6);
  EXPECT_EQ(s["runs_identical"], false);
  EXPECT_EQ(s["mean"].get<double>(), lib.overall.mean());
  EXPECT_EQ(s["max"].get<double>(), lib.overall.max);
  EXPECT_EQ(s["er_bound"]["exceeded"], lib.er->exceeded);
  EXPECT_EQ(s["er_bound"]["non_neighbour"]["mean_loss"].get<double>(), lib.er->other_loss.mean());
  auto files = read_json(out / "manifest.json")["files"];
  EXPECT_NE(std::find(files.begin(), files.end(), "privacy_mean.npy"), files.end());
}

TEST(CliGossipSim, PrivacyOfSyncAndOfASequence) {
  ScratchDir dir;
  auto out = dir / "sync";
  auto r = run_cli("gossip-sim --graph ring:n=8 --steps 6 --runs 3 --privacy --source 2 --quiet --out " +
                   out.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto s = read_json(out / "summary.json")["privacy"];
  EXPECT_EQ(s["runs_identical"], true);
  EXPECT_EQ(s["rows"], 1);
  EXPECT_EQ(testing::read_npy((out / "privacy_mean.npy").string()).shape, (std::vector<std::int64_t>{1, 8}));
  EXPECT_TRUE(fs::exists(out / "privacy_by_distance.csv"));
  EXPECT_FALSE(fs::exists(out / "privacy_by_union_distance.csv"));  // one fixed graph

  // The ring's own W as a one-matrix sequence gives the same losses as sync.
  Graph g = make_graph("ring:n=8");
  CsrMatrix w = gossip_matrix(g, Weighting::metropolis);
  std::ostringstream text;
  for (node_t i = 0; i < 8; ++i)
    for (offset_t k = w.offsets[i]; k < w.offsets[i + 1]; ++k)
      text << i << ' ' << w.columns[k] << ' ' << format_double(w.values[k]) << '\n';
  dir.write("w.txt", text.str());
  auto list = dir.write("list.txt", "w.txt\n");
  auto seq = dir / "seq";
  r = run_cli("gossip-sim --graph ring:n=8 --protocol sequence --sequence " + list +
              " --steps 6 --runs 3 --privacy --source 2 --quiet --out " + seq.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(read_json(seq / "summary.json")["sequence"]["length"], 1);
  // Exact accounting: sync's constant W goes to the Krylov engine, the sequence's rounds to the explicit
  // rows.
  const auto from_sequence = testing::read_npy((seq / "privacy_mean.npy").string()).values;
  const auto from_sync = testing::read_npy((out / "privacy_mean.npy").string()).values;
  ASSERT_EQ(from_sequence.size(), from_sync.size());
  for (std::size_t i = 0; i < from_sync.size(); ++i) EXPECT_NEAR(from_sequence[i], from_sync[i], 1e-12) << i;
  EXPECT_TRUE(fs::exists(seq / "privacy_by_union_distance.csv"));
}

TEST(CliGossipSim, PrivacyAccountingExactOrTheorem) {
  // Exact by default (docs/math.md §6.9): the ring of §6.9 (n = 8, W = 1/3, two rounds from t = 0), v = 0 and
  // u = 2 give 2/3 with --observer-knows input and 1 (the LDP level) knowing its noise; Theorem 6.1 gives 1/3
  // and says in summary.json and on stderr that it is not an upper bound.
  ScratchDir dir;
  const std::string base = "gossip-sim --graph ring:n=8 --steps 2 --runs 2 --privacy --source 2";
  const auto row = [&](const std::string& name, const std::string& options) {
    const auto out = dir / name;
    const auto r = run_cli(base + options + " --out " + out.string());
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return std::pair{testing::read_npy((out / "privacy_mean.npy").string()).values.at(0), r.err};
  };
  EXPECT_NEAR(row("input", " --observer-knows input").first, 2.0 / 3.0, 1e-14);
  EXPECT_NEAR(row("noise", "").first, 1.0, 1e-14);
  EXPECT_EQ(row("quiet", " --quiet --accounting theorem").second, "");  // summary.json only
  const auto [theorem, err] = row("theorem", " --accounting theorem");
  EXPECT_NEAR(theorem, 1.0 / 3.0, 1e-14);
  EXPECT_NE(err.find("netdp: warning: accounting theorem"), std::string::npos) << err;
  const auto exact = read_json(dir / "noise" / "summary.json");
  EXPECT_EQ(exact["privacy"]["accounting"], "exact");
  EXPECT_EQ(exact["privacy"]["observer_knows"], "input-and-noise");
  EXPECT_EQ(exact["privacy"]["view"]["observers"], 4);  // with a source, only v within 2 hops of u = 2
  EXPECT_FALSE(exact.contains("warnings"));
  const auto pinned = read_json(dir / "theorem" / "summary.json");
  EXPECT_EQ(pinned["privacy"]["accounting"], "theorem");
  ASSERT_EQ(pinned["warnings"].size(), 1u);
  EXPECT_NE(pinned["warnings"][0].get<std::string>().find("docs/math.md §6.9"), std::string::npos);
  EXPECT_EQ(read_json(dir / "theorem" / "manifest.json")["parameters"]["privacy"]["accounting"], "theorem");
}

TEST(CliGossipSim, StopAtWritesEveryRunsStopAndMatchesTheLibrary) {
  // The thesis' dropout experiment in miniature (docs/gossip_sim.md "Stopping at an accuracy rule").
  ScratchDir dir;
  auto out = dir / "stop";
  const std::string common =
      "gossip-sim --graph ring:n=60 --protocol dropout-er --er-p 0.05 --dropout 0.5 "
      "--runs 4 --init uniform --clip-start --seed 5 --privacy --source 0 --accounting "
      "theorem --quiet";
  ASSERT_TRUE(run_cli_into(common + " --steps 200 --stop-at thesis:3", out,
                           {"mse.csv", "privacy_stop.csv", "summary.json"}));
  const auto s = read_json(out / "summary.json");
  EXPECT_EQ(s["protocol"], "dropout-er");
  EXPECT_EQ(s["er_p"], 0.05);
  EXPECT_EQ(s["dropout"], 0.5);
  const auto& stop = s["stop"];
  EXPECT_EQ(stop["rule"], "thesis:3");
  EXPECT_EQ(stop["runs_met"], 4);
  EXPECT_EQ(stop["all_met"], true);
  EXPECT_FALSE(stop.contains("warning"));
  EXPECT_EQ(read_json(out / "manifest.json")["parameters"]["stop_at"], "thesis:3");

  const Graph g = make_graph("ring:n=60");
  GossipSimParams p;
  p.protocol = GossipProtocol::dropout_er;
  p.edge_probability = 0.05;
  p.dropout = 0.5;
  p.steps = 200;
  p.runs = 4;
  p.init.kind = InitKind::uniform;
  p.clip_start = true;
  p.seed = 5;
  GossipPrivacyParams q;
  q.accounting = GossipAccounting::theorem;
  q.source = 0;
  const GossipStopResult lib =
      gossip_sim_stop(g, CsrMatrix{}, initial_values(g.n, p), p, q, parse_stop_rule("thesis:3"));
  const auto cells = read_csv_cells(out / "privacy_stop.csv");
  ASSERT_EQ(cells.size(), 5u);
  EXPECT_EQ(cells[0], (std::vector<std::string>{"run", "met", "stop_t", "rounds", "error", "threshold",
                                                "bias", "mean_loss", "max_loss"}));
  for (std::size_t run = 0; run < 4; ++run) {
    EXPECT_EQ(cells[run + 1][1], "1");
    EXPECT_EQ(std::stoi(cells[run + 1][2]), *lib.runs[run].point.stop);
    EXPECT_EQ(std::strtod(cells[run + 1][7].c_str(), nullptr), lib.runs[run].mean_loss);
  }
  EXPECT_DOUBLE_EQ(stop["mean_loss"]["mean"].get<double>(), lib.mean_loss.mean);
  EXPECT_DOUBLE_EQ(stop["stop_t"]["std"].get<double>(), lib.stop.std);

  // Three rounds are too few: every run is reported as not stopped, with a warning, and no statistics.
  auto short_out = dir / "short";
  auto r = run_cli(common + " --steps 3 --stop-at thesis:3 --out " + short_out.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto t = read_json(short_out / "summary.json");
  EXPECT_EQ(t["stop"]["all_met"], false);
  EXPECT_EQ(t["stop"]["not_met"], nlohmann::json::array({0, 1, 2, 3}));
  EXPECT_TRUE(t["stop"]["mean_loss"]["mean"].is_null());
  EXPECT_NE(t["stop"]["warning"].get<std::string>().find("never met the rule"), std::string::npos);
  EXPECT_NE(t["warnings"].dump().find("never met the rule"), std::string::npos);
  const auto short_cells = read_csv_cells(short_out / "privacy_stop.csv");
  EXPECT_EQ(short_cells[1][1], "0");
  EXPECT_EQ(short_cells[1][2], "");
  EXPECT_EQ(short_cells[1][3], "3");
}

}  // namespace
}  // namespace netdp
