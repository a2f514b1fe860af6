// The bad-input catalogue (docs/reliability.md): every input a user or a hostile tester can give that netdp
// must refuse before any work starts. Each case: exit code 2, exactly one line on stderr naming the fault,
// and no output directory left behind.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "netdp/jobs/model.hpp"
#include "support/bad_inputs.hpp"
#include "support/test_support.hpp"

namespace netdp {
namespace {

using namespace testing;  // tests/support/test_support.hpp
namespace fs = std::filesystem;

// Defect 1: a file never makes netdp allocate from a declared size or an id larger than the memory at hand.
TEST(BadInputs, GraphFilesNeverAllocateBeyondTheMemory) {
  ScratchDir dir;
  auto huge_mtx = dir.write("huge.mtx",
                            "%%MatrixMarket matrix coordinate pattern symmetric\n"
                            "2000000000 2000000000 1\n1 2\n");
  auto many_entries = dir.write("entries.mtx",
                                "%%MatrixMarket matrix coordinate pattern symmetric\n"
                                "3 3 2000000000\n1 2\n");
  auto huge_id = dir.write("huge_id.txt", "0 1\n1 2000000000\n");
  auto huge_w = dir.write("huge_w.txt", "0 0 1\n2000000000 2000000000 1\n");
  auto ring = dir.write("ring.txt", "0 1\n1 2\n2 0\n");
  // Found by the npy fuzz target: a .npy header announcing 2e9 x 2e9 float64 entries, and no data.
  auto huge_npy = source_path("tests/fuzz/corpus/npy/huge_shape.npy");
  expect_refused(dir, {
                          {"MatrixMarket declaring 2e9 rows", "graph --graph file:" + huge_mtx, "GiB"},
                          {"MatrixMarket declaring 2e9 entries in 3 lines",
                           "graph --graph file:" + many_entries, "entries announced"},
                          {"edge list with id 2e9", "graph --graph file:" + huge_id, "GiB"},
                          {"weight file with id 2e9",
                           "gossip-loss --steps 2 --graph file:" + ring + " --weights file:" + huge_w, "GiB"},
                          {".npy declaring 2e9 x 2e9 entries",
                           "mf-factorize --graph ring:n=4 --steps 4 --correlation file:" + huge_npy,
                           "the shape announces more data than the file's 0 bytes"},
                          // Found by the npy fuzz target: a version 2 header announcing 4 GB of header text.
                          {".npy header announcing 4 GB",
                           "mf-factorize --graph ring:n=4 --steps 4 --correlation file:" +
                               source_path("tests/fuzz/corpus/npy/huge_header.npy"),
                           "truncated header (4294967295 bytes announced, 16 in the file)"},
                      });
}

// Found by the study_toml fuzz target: a table header that opens with '{' ("[{experiment[study]"). toml++
// 3.3 asserts a key there (an assert in a header-only build, an assumption under NDEBUG with clang); netdp
// uses Debian's compiled toml++, which reports it as a syntax error, one line, exit 2.
TEST(BadInputs, StudyTableHeaderWithABraceIsASyntaxError) {
  const auto r =
      run_cli("run " + source_path("tests/fuzz/corpus/study_toml/table_header_brace.toml") + " --dry-run");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find("table_header_brace.toml:1: TOML syntax"), std::string::npos) << r.err;
}

// Defect 7: what a message quotes from the input is cut to ~80 printable characters.
TEST(BadInputs, MessagesQuoteAtMostAShortPrintableExcerpt) {
  ScratchDir dir;
  auto long_line = dir.write("long.txt", "0 1\n" + std::string(100000, '7') + "x 2\n");
  auto binary = dir.write("binary.txt", std::string("0 1\n\x01\xff garbage\n"));
  auto long_token = std::string(5000, 'z');
  expect_refused(
      dir, {
               {"a 100 kB line", "graph --graph file:" + long_line, "..."},
               {"binary garbage", "graph --graph file:" + binary, "\\x01\\xff garbage"},
               {"a directory as a graph file", "graph --graph file:" + dir.path().string(), "is a directory"},
               {"a 5000-character option value", "gossip-loss --graph ring:n=5 --steps " + long_token, "..."},
           });
}

// Defect 4 / 7: the command line names what is wrong and where to read more.
TEST(BadInputs, CommandLineErrorsNameTheCommandAndItsHelp) {
  ScratchDir dir;
  expect_refused(dir, {
                          {"unknown command", "foo", "unknown command 'foo'"},
                          {"unknown option of a command", "gossip-loss --graph ring:n=5 --colour blue",
                           "netdp gossip-loss --help"},
                          {"unknown option of a nested command", "bound sgd-sigma --colour blue",
                           "netdp bound sgd-sigma --help"},
                          {"negative seed", "gossip-sim --graph ring:n=5 --steps 2 --seed -1", "seed"},
                          {"a directory as the study file", "run " + dir.path().string(),
                           "is a directory; give the study file (TOML)"},
                      });
}

// Defect 1: a graph generator is sized from its keys and refused before it builds anything.
TEST(BadInputs, GeneratorsNeverBuildBeyondTheMemory) {
  ScratchDir dir;
  expect_refused(dir,
                 {
                     {"complete graph of 1e5 nodes (5e9 edges)", "graph --graph complete:n=100000", "GiB"},
                     {"2-D grid of 1e10 nodes", "gossip-loss --steps 2 --graph grid:n=100000", "GiB"},
                     {"hypercube of 2^40 nodes", "walk-loss --steps 2 --graph hypercube:dim=40", "GiB"},
                 });
}

// Defect 4 and 7: values that depend on the graph are checked against it before anything is written.
TEST(BadInputs, ValuesThatDependOnTheGraphAreCheckedFirst) {
  ScratchDir dir;
  expect_refused(
      dir,
      {
          {"source beyond n", "gossip-loss --graph ring:n=5 --steps 2 --source 9", "source"},
          {"more colluders than nodes", "walk-loss --graph ring:n=5 --steps 2 --colluders 100",
           "colluders must be between 0 and n - 1 = 4"},
          {"walk start beyond n", "walk-sim --graph ring:n=5 --steps 2 --runs 4 --start node:7", "node:7"},
          {"attacker beyond n", "attack gossip --graph ring:n=5 --steps 3 --attackers 7",
           "node 7 is out of range"},
          {"noise that overflows the objective",
           "muffliato-gd --graph ring:n=5 --steps 2 --gossip-rounds 2 --dim 2 --gradient-noise 1e308",
           "gradient-noise"},
      });
}

// Defect 2: a study's validation runs each model's own checks at every grid point, so that --dry-run is a
// guarantee; a refused study leaves nothing (no .lock, no study.toml).
TEST(BadInputs, StudyValidationRunsEachModelsChecksAtEveryPoint) {
  ScratchDir dir;
  const auto study = [&](const std::string& name, const std::string& model, const std::string& params,
                         const std::string& grid) {
    return dir.write(name, "[[experiment]]\nname = \"e\"\nmodel = \"" + model + "\"\n[experiment.params]\n" +
                               params + (grid.empty() ? "" : "[experiment.grid]\n" + grid));
  };
  const auto graph_number = study("graph_number.toml", "gossip-loss", "steps = 2\ngraph = 5\n", "");
  const auto graph_list =
      study("graph_list.toml", "gossip-loss", "steps = 2\n", "graph = [\"ring:n=5\", 1]\n");
  const auto source =
      study("source.toml", "gossip-loss", "steps = 2\ngraph = \"ring:n=5\"\nsource = 9\n", "");
  const auto start =
      study("start.toml", "walk-sim", "steps = 2\nruns = 4\ngraph = \"ring:n=5\"\nstart = \"node:7\"\n", "");
  const auto generator =
      study("generator.toml", "walk-loss", "steps = 2\n", "graph = [\"ring:n=5\", \"complete:n=100000\"]\n");
  std::vector<BadInput> cases;
  for (const char* flags : {" --dry-run", ""}) {
    cases.push_back({"graph = 5", "run " + graph_number + flags, "unknown graph family '5'"});
    cases.push_back({"graph = [\"ring:n=5\", 1]", "run " + graph_list + flags, "graph=1): graph spec '1'"});
    cases.push_back({"source = 9 on n = 5", "run " + source + flags, "source"});
    cases.push_back({"start = node:7 on n = 5", "run " + start + flags, "node:7"});
    cases.push_back({"complete:n=100000 at a grid point", "run " + generator + flags, "GiB"});
  }
  // device = "cuda" is refused where no CUDA device answers (skipped on a machine with one).
  ScratchDir probe;
  if (run_cli("gossip-loss --graph ring:n=5 --steps 1 --device cuda --out " + (probe / "o").string())
          .exit_code != 0) {
    const auto cuda =
        study("cuda.toml", "gossip-loss", "steps = 2\ngraph = \"ring:n=5\"\ndevice = \"cuda\"\n", "");
    cases.push_back({"device = cuda without a GPU", "run " + cuda + " --dry-run", "cuda"});
    cases.push_back({"device = cuda without a GPU", "run " + cuda, "cuda"});
  }
  expect_refused(dir, cases);
}

// Defect 8: `netdp --help` lists the exit codes; options with a fixed set of values show them as {a|b}.
TEST(BadInputs, HelpShowsExitCodesAndChoices) {
  const auto top = run_cli("--help");
  EXPECT_EQ(top.exit_code, 0);
  EXPECT_NE(top.out.find("Exit codes: 0 success; 2 bad input"), std::string::npos) << top.out;
  EXPECT_NE(top.out.find("130 / 143"), std::string::npos) << top.out;
  for (const char* command : {"gossip-loss", "walk-sim", "bound sgd-sigma"}) {
    const auto help = run_cli(std::string(command) + " --help");
    EXPECT_EQ(help.exit_code, 0) << command;
    EXPECT_EQ(help.out.find(":{"), std::string::npos) << command << ": choices as TEXT:{a,b}\n" << help.out;
  }
  EXPECT_NE(run_cli("gossip-loss --help").out.find("{second|abs}"), std::string::npos);
  // Words and patterns of a text option show alike, and a count or auto as {INT|auto}.
  const auto gossip = run_cli("gossip-loss --help").out;
  EXPECT_NE(gossip.find("--device {auto|cpu|cuda|cuda:N}"), std::string::npos) << gossip;
  EXPECT_NE(gossip.find("--steps {INT|auto}"), std::string::npos) << gossip;
  EXPECT_NE(gossip.find("{metropolis|hamilton-literal|max-degree|lazy-uniform|file:PATH}"),
            std::string::npos);
  EXPECT_NE(run_cli("run --help").out.find("--device {auto|cpu|cuda:LIST}"), std::string::npos);
}

// Defect 8: every command's --help ends with an example that names the command, and the example runs.
TEST(BadInputs, EveryHelpEndsWithAnExampleThatRuns) {
  ScratchDir dir;
  std::vector<std::string> commands;  // every model of the registry is a command
  for (const jobs::Model& m : jobs::models()) commands.push_back(m.name);
  ASSERT_GE(commands.size(), 20u);
  for (const auto& command : commands) {
    auto help = run_cli(command + " --help").out;
    while (!help.empty() && help.back() == '\n') help.pop_back();
    const auto last = help.substr(help.rfind('\n') + 1);
    ASSERT_EQ(last.rfind("Example: netdp " + command + " --", 0), 0u) << command << ": " << last;
    auto example = last.substr(std::string("Example: netdp ").size());
    const auto out = example.find("--out out/");
    ASSERT_NE(out, std::string::npos) << example;
    example.replace(out, 10, "--out " + dir.path().string() + "/");
    const auto r = run_cli(example);
    EXPECT_EQ(r.exit_code, 0) << example << "\n" << r.err;
  }
}

// Defect 1 (n^2 outputs) and 5: what a model must hold at once (no tiling: attack gossip's n x n mask,
// gossip-loss's T x n row norms or its one pass's n x n panels, whichever is smaller) is estimated from the
// values and refused before the graph's work starts and before the directory exists, against the memory or
// memory-limit.
TEST(BadInputs, OutputsHeldWholeAreRefusedBeforeAnythingIsWritten) {
  ScratchDir dir;
  expect_refused(
      dir,
      {
          {"every attacker of a 70,000-node ring (a 4.6 GiB n x n mask)",
           "attack gossip --graph ring:n=70000 --steps 2 --attackers all", "attack gossip needs about"},
          {"T = 1e6 rounds on a 100,000-node ring (223.5 GiB in one pass, 745 GiB of norms in two)",
           "gossip-loss --graph ring:n=100000 --steps 1000000", "gossip-loss needs about 223.5 GiB"},
          {"a memory limit of 10 kB", "gossip-loss --graph ring:n=50 --steps 1000 --memory-limit 0.00001",
           "of memory-limit"},
          {"a memory limit of 10 kB, refused inside the library after the directory was made",
           "walk-loss --graph ring:n=500 --steps 5 --memory-limit 0.00001", "the eigendecomposition"},
          {"Theorem C.9's shares on a 20,000-node graph (6 GiB)",
           "muffliato-gd --graph ring:n=20000 --er-c 2 --steps 1 --gossip-rounds 1 --dim 1 "
           "--gradient-noise 1 --accounting theorem",
           "muffliato-gd needs about"},
          {"the exact accountant's coefficients on a 20,000-node graph, T = 100 (1 TB)",
           "muffliato-gd --graph ring:n=20000 --steps 100 --gossip-rounds 1 --dim 1 --gradient-noise 1",
           "muffliato-gd needs about"},
          {"muffliato-gd's ldp accounting on an explicit GPU (only its exact accountant has a CUDA twin)",
           "muffliato-gd --graph ring:n=5 --steps 1 --gossip-rounds 1 --dim 1 --gradient-noise 1 "
           "--accounting ldp --device cuda",
           "only the exact accountant of muffliato-gd runs on CUDA"},
      });
}

// Issue 29: the memory a model must hold at once is part of the check phase, so a study's dry run refuses
// what its run would, naming the experiment and point. gossip-loss on ring:n=8 from one source holds W and
// the row norms, 576 bytes (tests/cli/test_cli.cpp), above memory-limit 1e-7 GiB = 107.4 bytes.
TEST(BadInputs, DryRunsRefuseWhatTheRunWouldForItsMemory) {
  ScratchDir dir;
  const auto study = dir.write("tiny.toml",
                               "[[experiment]]\nname = \"e\"\nmodel = \"gossip-loss\"\n[experiment.params]\n"
                               "graph = \"ring:n=8\"\nsteps = 2\nsource = 0\nmemory-limit = 0.0000001\n");
  for (const char* flags : {" --dry-run", ""}) {
    const auto r = run_cli("run " + study + flags + " --out " + (dir / "out").string());
    EXPECT_EQ(r.exit_code, 2) << flags << ": " << r.err;
    EXPECT_NE(r.err.find("experiment 'e' point p0000"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("gossip-loss needs about 576 bytes held at once, more than the 107 bytes of "
                         "memory-limit"),
              std::string::npos)
        << r.err;
    EXPECT_FALSE(fs::exists(dir / "out"));
  }
  // The same study with room for its 576 bytes passes the dry run.
  const auto roomy = dir.write("roomy.toml",
                               "[[experiment]]\nname = \"e\"\nmodel = \"gossip-loss\"\n[experiment.params]\n"
                               "graph = \"ring:n=8\"\nsteps = 2\nsource = 0\nmemory-limit = 0.01\n");
  const auto ok = run_cli("run " + roomy + " --dry-run");
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
}

// Defect 8: options that were renamed for consistency keep their old spelling, which gives the same results
// and says the new name in one line (after the run, so a refused run still prints only its error).
TEST(Options, OldSpellingsStillWorkAndNameTheNewOne) {
  ScratchDir dir;
  const struct {
    std::string command, new_spelling, old_spelling, note;
  } renamed[] = {
      {"bound complete-sum --n 100,1000", "--eps0 0.2", "--eps 0.2", "--eps is the old name of --eps0"},
      {"bound sgd-sigma --n 2000 --steps 20000", "--epsilon 2", "--eps 2",
       "--eps is the old name of --epsilon"},
      {"bound ring-sum --n 10,100", "--eps0 0.5", "--eps 0.5", "--eps is the old name of --eps0"},
  };
  int i = 0;
  for (const auto& r : renamed) {
    const auto now = dir / ("new" + std::to_string(i)), before = dir / ("old" + std::to_string(i++));
    const auto fresh = run_cli(r.command + " " + r.new_spelling + " --out " + now.string());
    ASSERT_EQ(fresh.exit_code, 0) << r.command << fresh.err;
    EXPECT_EQ(fresh.err, "") << r.command;
    const auto old = run_cli(r.command + " " + r.old_spelling + " --out " + before.string());
    ASSERT_EQ(old.exit_code, 0) << r.command << old.err;
    EXPECT_EQ(std::count(old.err.begin(), old.err.end(), '\n'), 1) << old.err;
    EXPECT_NE(old.err.find(r.note), std::string::npos) << old.err;
    EXPECT_EQ(read_text((now / "bound.csv").string()), read_text((before / "bound.csv").string()))
        << r.command;
  }
  // muffliato-gd's flag --no-cap is now --cap none.
  const std::string muffliato =
      "muffliato-gd --graph ring:n=6 --steps 3 --gossip-rounds 2 --dim 2 --gradient-noise 0.5 --accounting "
      "theorem --out ";  // the cap acts on the theorem's sums only
  const auto capped = run_cli(muffliato + (dir / "cap").string() + " --cap none");
  ASSERT_EQ(capped.exit_code, 0) << capped.err;
  const auto flagged = run_cli(muffliato + (dir / "no-cap").string() + " --no-cap --quiet");
  ASSERT_EQ(flagged.exit_code, 0) << flagged.err;
  EXPECT_NE(flagged.err.find("--no-cap is deprecated: give --cap none"), std::string::npos) << flagged.err;
  EXPECT_EQ(read_text((dir / "cap/privacy.csv").string()), read_text((dir / "no-cap/privacy.csv").string()));
  const auto default_cap = run_cli(muffliato + (dir / "ldp").string() + " --quiet");
  EXPECT_NE(read_text((dir / "ldp/privacy.csv").string()), read_text((dir / "cap/privacy.csv").string()))
      << "cap ldp (the default) and none must differ on this case";
  // A study file may use the old key too: the value lands on the new parameter.
  const auto study = dir.write("old_key.toml",
                               "[[experiment]]\nname = \"e\"\nmodel = \"bound complete-sum\"\n"
                               "[experiment.params]\nn = 100\neps = 0.2\n");
  const auto run = run_cli("run " + study + " --quiet --out " + (dir / "study").string());
  ASSERT_EQ(run.exit_code, 0) << run.err;
  // Both spellings at once are one value given twice.
  expect_refused(dir, {{"--eps and --eps0 together", "bound complete-sum --n 100 --eps 0.1 --eps0 0.2",
                        "eps0 is given twice (eps is its older spelling)"},
                       {"run --devices and --device together", "run " + study + " --device cpu --devices cpu",
                        "--devices excludes --device"},
                       {"run --device in an unknown form", "run " + study + " --device gpu",
                        "--device: expected auto, cpu or cuda:0,1"},
                       {"run --workers 0", "run " + study + " --workers 0", "--workers"}});
  // run --devices (now --device) still selects the CPU workers.
  const auto devices = run_cli("run " + study + " --quiet --devices cpu --out " + (dir / "study2").string());
  EXPECT_EQ(devices.exit_code, 0) << devices.err;
  EXPECT_NE(devices.err.find("--devices is the old name of --device"), std::string::npos) << devices.err;
  EXPECT_EQ(read_text((dir / "study/results.csv").string()),
            read_text((dir / "study2/results.csv").string()));
}

// Issue 29 (docs/design_models.md "One name, one unit"): --sigma is an absolute noise std wherever it is a
// name; the noise multiplier of walk-loss, mf-loss and mf-sgd and muffliato-gd's gradient noise took names of
// their own, and --sigma stays one release as their old spelling: the same results and one line naming the
// new name, so no script changes meaning silently.
TEST(Options, SigmaIsTheOldSpellingOfTheNoiseMultiplierAndTheGradientNoise) {
  ScratchDir dir;
  const struct {
    std::string command, name, key, file;
    bool in_manifest;  // mf-sgd's manifest holds the factorization and the data only
  } renamed[] = {
      {"walk-loss --graph ring:n=8 --steps 10", "noise-multiplier", "noise_multiplier", "loss.npy", true},
      {"mf-loss --graph path:n=4 --steps 4 --trust ldp", "noise-multiplier", "noise_multiplier", "loss.npy",
       true},
      {"mf-sgd --graph er:n=10,p=0.4,seed=1 --steps 8 --participation cyclic:b=2,k=4 --correlation antipgd "
       "--runs 2 --synthetic-rows 400 --eval-every 4 --threads 1",
       "noise-multiplier", "noise_multiplier", "curves.csv", false},
      {"muffliato-gd --graph ring:n=6 --steps 3 --gossip-rounds 2 --dim 2", "gradient-noise",
       "gradient_noise", "privacy.csv", true},
  };
  int i = 0;
  for (const auto& r : renamed) {
    SCOPED_TRACE(r.command);
    const auto now = dir / ("new" + std::to_string(i)), before = dir / ("old" + std::to_string(i++));
    const auto fresh = run_cli(r.command + " --" + r.name + " 2.5 --quiet --out " + now.string());
    ASSERT_EQ(fresh.exit_code, 0) << fresh.err;
    EXPECT_EQ(fresh.err, "");
    const auto old = run_cli(r.command + " --sigma 2.5 --quiet --out " + before.string());
    ASSERT_EQ(old.exit_code, 0) << old.err;
    EXPECT_EQ(std::count(old.err.begin(), old.err.end(), '\n'), 1) << old.err;
    EXPECT_NE(old.err.find("--sigma is the old name of --" + r.name + ": give --" + r.name),
              std::string::npos)
        << old.err;
    EXPECT_EQ(read_text((now / r.file).string()), read_text((before / r.file).string()));
    // The summary writes the new key and, for this release, the old one (docs/outputs.md).
    const auto summary = read_json(now / "summary.json");
    EXPECT_EQ(summary[r.key], 2.5);
    EXPECT_EQ(summary["sigma"], 2.5);
    if (r.in_manifest) {
      EXPECT_NE(read_text((now / "manifest.json").string()).find("\"" + r.key + "\""), std::string::npos);
    }
    // Both spellings at once are one value given twice.
    const std::string twice = r.name + " is given twice (sigma is its older spelling)";
    expect_refused(dir, {{"both spellings", r.command + " --sigma 1 --" + r.name + " 2", twice.c_str()}});
  }
  // Where --sigma is the absolute std it is the name, with no note.
  const auto gossip =
      run_cli("gossip-loss --graph ring:n=8 --steps 3 --sigma 2 --quiet --out " + (dir / "gossip").string());
  ASSERT_EQ(gossip.exit_code, 0) << gossip.err;
  EXPECT_EQ(gossip.err, "");
}

// Defect 8: walk-loss's defaults (alpha = 2, sigma = 1: the reference figures) print no warning; the summary
// still records that the stated weak-convexity condition does not hold.
// Issue 30: a validity warning reaches the person every time, for the defaults too (not only in
// summary.json).
TEST(Options, WalkLossDefaultsWarnOnStderr) {
  ScratchDir dir;
  const auto r = run_cli("walk-loss --graph ring:n=8 --steps 10 --out " + (dir / "w").string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("netdp: warning: sigma^2 = 1 is below the weak-convexity condition"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(read_json(dir / "w/summary.json")["warnings"].size(), 1u);
}

// Defect 3: a rerun into the same directory leaves nothing of the earlier run that could look like its own.
TEST(Outputs, RerunRemovesTheEarlierRunsFilesAndTemporaries) {
  ScratchDir dir;
  auto out = dir / "run";
  ASSERT_TRUE(run_cli_into("gossip-loss --graph ring:n=10 --steps 2", out, {"loss.npy", "manifest.json"}));
  dir.write("run/loss.npy.tmp-999999", "a killed run's temporary");
  dir.write("run/edges.txt.tmp", "a killed graph run's temporary");
  dir.write("run/notes.txt", "the user's own file");
  ASSERT_TRUE(run_cli_into("gossip-loss --graph ring:n=10 --steps 2 --no-matrix", out, {"manifest.json"}));
  EXPECT_FALSE(fs::exists(out / "loss.npy")) << "a stale matrix beside the manifest of a --no-matrix run";
  EXPECT_FALSE(fs::exists(out / "loss.npy.tmp-999999"));
  EXPECT_FALSE(fs::exists(out / "edges.txt.tmp"));
  EXPECT_TRUE(fs::exists(out / "notes.txt")) << "files the manifest did not list are not netdp's to remove";
  const auto manifest = read_json(out / "manifest.json");  // named: a range-for over a temporary's member
  for (const auto& name : manifest["files"])               // would read freed memory (found by ASan)
    EXPECT_TRUE(fs::exists(out / name.get<std::string>())) << name;
}

// Issue 29, defect 1: a flag takes true/false/1/0 on the command line as in a study file ("--no-matrix=false"
// is off, "--no-matrix" alone is on); any other value is refused naming the option.
TEST(BadInputs, FlagsReadTheirValueLikeAStudyFile) {
  ScratchDir dir;
  const std::string gossip = "gossip-loss --graph ring:n=6 --steps 2 --quiet";
  const struct {
    std::string flag;
    bool matrix;
  } cases[] = {{"", true},
               {" --no-matrix", false},
               {" --no-matrix=true", false},
               {" --no-matrix=1", false},
               {" --no-matrix=false", true},
               {" --no-matrix=0", true},
               {" --no-matrix --no-matrix=false", true}};
  int i = 0;
  for (const auto& c : cases) {
    const auto out = dir / (std::string("m") + std::to_string(i++));
    const auto r = run_cli(gossip + c.flag + " --out " + out.string());
    ASSERT_EQ(r.exit_code, 0) << c.flag << ": " << r.err;
    EXPECT_EQ(fs::exists(out / "loss.npy"), c.matrix) << c.flag;
  }
  for (const char* clip : {"--clip=false", "--clip=0"}) {
    const auto out = dir / clip;
    ASSERT_EQ(run_cli("walk-loss --graph ring:n=8 --steps 10 " + std::string(clip) + " --out " + out.string())
                  .exit_code,
              0);
    EXPECT_FALSE(read_json(out / "manifest.json")["parameters"]["clip"].get<bool>()) << clip;
  }
  const auto on = dir / "clip";
  ASSERT_EQ(run_cli("walk-loss --graph ring:n=8 --steps 10 --clip --out " + on.string()).exit_code, 0);
  EXPECT_TRUE(read_json(on / "manifest.json")["parameters"]["clip"].get<bool>());
  expect_refused(
      dir, {{"--quiet=maybe", "gossip-loss --graph ring:n=6 --steps 2 --quiet=maybe",
             "--quiet is a flag: expected true, false, 1 or 0, got 'maybe'"},
            {"--eigenvalues=yes", "graph --graph ring:n=6 --eigenvalues=yes", "--eigenvalues"},
            {"run --dry-run=maybe", "run " + dir.write("s.toml", "") + " --dry-run=maybe", "--dry-run"}});
}

// Issue 29, defect 2: --threads beyond what OpenMP allows died of SIGSEGV and left loss.npy.tmp-*; it is
// refused with the allowed maximum (OMP_THREAD_LIMIT lowers it), before anything is written.
TEST(BadInputs, ThreadsBeyondWhatOpenMPAllowsAreRefused) {
  ScratchDir dir;
  expect_refused(
      dir, {{"--threads 100000", "gossip-loss --graph ring:n=6 --steps 2 --threads 100000",
             "--threads must be at most"},
            {"--threads 100000 (walk-sim)", "walk-sim --graph ring:n=6 --steps 2 --runs 4 --threads 100000",
             "--threads must be at most"}});
  const auto out = dir / "limited";
  const auto r = run_cli("gossip-loss --graph ring:n=6 --steps 2 --threads 5 --out " + out.string(),
                         "OMP_THREAD_LIMIT=4 ");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--threads must be at most 4 "), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out));
  EXPECT_EQ(run_cli("gossip-loss --graph ring:n=6 --steps 2 --threads 4 --out " + out.string(),
                    "OMP_THREAD_LIMIT=4 ")
                .exit_code,
            0);
}

// Issue 29, defect 3: a walk of 0 steps has no bound; --steps 0 read as "not given" and exited 0.
TEST(BadInputs, BoundsRefuseAWalkOfZeroSteps) {
  ScratchDir dir;
  expect_refused(
      dir, {{"complete-sum --steps 0", "bound complete-sum --n 100 --steps 0", "--steps must be > 0"},
            {"sgd-sigma --steps 0", "bound sgd-sigma --n 2000 --steps 0", "--steps must be > 0"},
            {"complete-histogram --steps-per-node 0", "bound complete-histogram --n 100 --steps-per-node 0",
             "--steps-per-node must be > 0"}});
}

// Issue 29, defect 4: W = I on a connected ring (a weight file of diagonal entries) ran a walk that never
// moves and exited 0.
TEST(BadInputs, WalkSimRefusesAWThatNeverMovesTheWalk) {
  ScratchDir dir;
  const auto identity = dir.write("identity.txt", "0 0 1\n1 1 1\n2 2 1\n3 3 1\n");
  expect_refused(
      dir, {{"W = I on ring:n=4", "walk-sim --graph ring:n=4 --steps 5 --runs 2 --weights file:" + identity,
             "--weights: W = I (no entry off the diagonal): the walk never moves"}});
}

// Issue 29, weights_file fuzz target: the MF commands took a W file without the gossip commands' check, and a
// W whose rows do not sum to 1 made mf-loss abort (uncaught std::runtime_error from the SVD, exit 134).
TEST(BadInputs, MfCommandsRefuseAWFileThatIsNotRowStochastic) {
  ScratchDir dir;
  const auto w =
      dir.write("w.txt",
                "0 0 1e200\n0 1 -5\n1 0 3\n1 1 7\n1 2 1\n2 1 1\n2 2 1\n2 3 1\n3 2 1\n3 3 1\n3 0 2\n"
                "0 3 2\n");
  for (const char* command : {"mf-loss --steps 4", "mf-factorize --steps 4 --correlation optimal"})
    expect_refused(dir, {{command, std::string(command) + " --graph ring:n=4 --weights file:" + w,
                          "W entry (0, 1) = -5 is negative"}});
}

// Issue 29, defect 5: walk-loss's manifest listed no files, so a rerun without --colluders kept the earlier
// run's collusion.csv; every file a run writes is now in its manifest, and a rerun removes it.
TEST(Outputs, RerunRemovesFilesTheJobDidNotListItself) {
  ScratchDir dir;
  const auto out = dir / "walk";
  ASSERT_TRUE(run_cli_into("walk-loss --graph ring:n=8 --steps 10 --colluders 2", out,
                           {"collusion.csv", "loss.npy", "manifest.json"}));
  const auto first = read_json(out / "manifest.json");
  EXPECT_NE(std::find(first["files"].begin(), first["files"].end(), "collusion.csv"), first["files"].end());
  ASSERT_TRUE(run_cli_into("walk-loss --graph ring:n=8 --steps 10 --no-matrix", out, {"manifest.json"}));
  EXPECT_FALSE(fs::exists(out / "collusion.csv"))
      << "the earlier run's collusion.csv beside this run's manifest";
  EXPECT_FALSE(fs::exists(out / "loss.npy"));
  const auto manifest = read_json(out / "manifest.json");
  for (const auto& name : manifest["files"]) EXPECT_TRUE(fs::exists(out / name.get<std::string>())) << name;
}

// Issue 29, defect 6: --memory-limit 1e30 overflowed the conversion to 64-bit bytes and was called negative;
// values from 2^33 GiB (2^63 bytes) on are refused with the allowed range.
TEST(BadInputs, MemoryLimitsBeyond64BitBytesAreRefused) {
  ScratchDir dir;
  expect_refused(
      dir,
      {{"gossip-sim --memory-limit 1e30", "gossip-sim --graph ring:n=5 --steps 2 --memory-limit 1e30",
        "--memory-limit must be in [0, 8589934592) GiB, got 1e+30"},
       {"gossip-loss --memory-limit 2^33", "gossip-loss --graph ring:n=5 --steps 2 --memory-limit 8589934592",
        "--memory-limit must be in [0, 8589934592) GiB"}});
}

// Issue 29, defect 7: a refusal (exit 2) leaves no new directory (parents included) and does not touch an
// existing --out: graph --eigenvalues is sized before the directory exists, and a simulation that runs out of
// memory finds the earlier run's files where they were (ResultsDir removes them at this run's first file).
TEST(Outputs, RefusalsLeaveNoNewDirectoryAndDoNotTouchAnExistingOne) {
  ScratchDir dir;
  std::vector<BadInput> cases = {{"graph --eigenvalues of a 100,000-node ring (74.5 GiB dense)",
                                  "graph --graph ring:n=100000 --eigenvalues", "graph needs about 74.5 GiB"}};
  if (!under_address_sanitizer())  // the allocation that fails is refused by the process limit only
    cases.push_back({"walk-sim on complete:n=1e9 (out of memory once started)",
                     "walk-sim --graph complete:n=1000000000 --steps 2 --runs 2", "out of memory"});
  expect_refused(dir, cases);
  for (const auto& c : cases) {
    const auto nested = dir / "new" / "a" / "b";
    const auto r = run_limited(c.args + " --out " + nested.string());
    EXPECT_EQ(r.exit_code, 2) << c.name << ": " << r.err;
    EXPECT_FALSE(fs::exists(dir / "new")) << c.name << ": the parents it created were left behind";
    const auto existing = dir / "existing";
    ASSERT_TRUE(run_cli_into("graph --graph ring:n=10", existing, {"edges.txt", "manifest.json"}));
    const auto manifest = read_text((existing / "manifest.json").string());
    const auto edges = read_text((existing / "edges.txt").string());
    const auto again = run_limited(c.args + " --out " + existing.string());
    EXPECT_EQ(again.exit_code, 2) << c.name << ": " << again.err;
    EXPECT_EQ(read_text((existing / "manifest.json").string()), manifest) << c.name;
    EXPECT_EQ(read_text((existing / "edges.txt").string()), edges) << c.name;
  }
}

// Issue 29, defect 8: integers wrapped to 32 bits (mf-factorize --steps 4294967297 ran with 1 step, admm
// --synthetic-rows 4294967896 on 600 rows). Every integer parses as 64-bit (overflow and trailing characters
// refused) and is checked against its field: an int unless the parameter is declared wide.
TEST(BadInputs, IntegersNeverWrapToTheirField) {
  ScratchDir dir;
  expect_refused(
      dir,
      {{"mf-factorize --steps 2^32 + 1", "mf-factorize --graph ring:n=4 --steps 4294967297",
        "--steps: expected an integer in [-2147483648, 2147483647], got '4294967297'"},
       {"mf-loss --steps 2^31", "mf-loss --graph ring:n=4 --steps 2147483648",
        "--steps: expected an integer in [-2147483648, 2147483647], got '2147483648'"},
       {"admm --synthetic-rows 2^32 + 600", "admm --synthetic-rows 4294967896",
        "--synthetic-rows: expected an integer in [-2147483648, 2147483647], got '4294967896'"},
       {"gossip-loss --steps beyond 64 bits", "gossip-loss --graph ring:n=5 --steps 99999999999999999999",
        "--steps: expected a positive integer or auto, got '99999999999999999999'"},
       {"walk-sim --runs beyond 64 bits", "walk-sim --graph ring:n=5 --steps 2 --runs 9223372036854775808",
        "--runs: expected an integer, got '9223372036854775808'"},
       {"trailing characters", "walk-sim --graph ring:n=5 --steps 2 --runs 4x",
        "--runs: expected an integer"},
       {"a negative int below 32 bits", "gossip-loss --graph ring:n=5 --steps 2 --t-start -2147483649",
        "--t-start: expected an integer in [-2147483648, 2147483647]"}});
  // A wide parameter (a std::int64_t field) keeps its 64 bits.
  const jobs::Model& walk = *jobs::find_model("walk-sim");
  const auto values =
      jobs::Values::from_text(walk, {{"graph", {"ring:n=5"}}, {"steps", {"3000000000"}}, {"runs", {"1"}}});
  EXPECT_EQ(values.integer("steps"), 3000000000LL);
}

// Issue 29, defect 9: a typo gave CLI11's raw "The following arguments were not expected" (or, for "--grpah
// x",
// "--graph is required"); an unknown option or command names the nearest valid ones.
TEST(BadInputs, TyposNameTheNearestOptionOrCommand) {
  ScratchDir dir;
  expect_refused(dir, {{"--grpah", "gossip-loss --grpah ring:n=5 --steps 2",
                        "unknown option --grpah (did you mean --graph?) (see netdp gossip-loss --help)"},
                       {"--stpes=3", "gossip-loss --graph ring:n=5 --stpes=3",
                        "unknown option --stpes (did you mean --steps?)"},
                       {"--colour (nothing near)", "gossip-loss --graph ring:n=5 --colour blue",
                        "unknown option --colour (see netdp gossip-loss --help)"},
                       {"walk-los", "walk-los --graph ring:n=5 --steps 2",
                        "unknown command 'walk-los' (did you mean walk-loss?) (see netdp --help)"},
                       {"bound sgd-sigm", "bound sgd-sigm --n 2000",
                        "unknown command 'sgd-sigm' (did you mean sgd-sigma?) (see netdp bound --help)"},
                       {"run --dry-rnu", "run " + dir.write("s.toml", "") + " --dry-rnu",
                        "unknown option --dry-rnu (did you mean --dry-run?)"}});
}

}  // namespace
}  // namespace netdp
