// Durability and interruption of single commands (docs/reliability.md §3): a writer killed with SIGKILL at
// any moment leaves each output file either as the previous run wrote it or as the new run writes it,
// complete; SIGINT/SIGTERM remove the temporaries being written before the command dies of the signal. A
// command writes into a staging directory `.OUT.tmp-PID` beside --out that replaces --out only on success,
// under the lock `.OUT.lock` (docs/outputs.md §1.1).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "support/test_support.hpp"

namespace netdp {
namespace {

using namespace testing;  // tests/support/test_support.hpp
namespace fs = std::filesystem;

/// Starts `netdp ARGS...` with stdout and stderr discarded; returns its process id.
pid_t spawn_cli(const std::vector<std::string>& args) {
  const std::string cli = netdp_cli_path();
  std::vector<char*> argv{const_cast<char*>(cli.c_str())};
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    if (std::freopen("/dev/null", "w", stdout) == nullptr ||
        std::freopen("/dev/null", "w", stderr) == nullptr)
      ::_exit(127);
    ::execv(cli.c_str(), argv.data());
    ::_exit(127);
  }
  return pid;
}

int wait_status(pid_t pid) {
  int status = 0;
  ::waitpid(pid, &status, 0);
  return status;
}

/// The files of a directory by name, with their bytes.
std::map<std::string, std::string> files_of(const fs::path& dir) {
  std::map<std::string, std::string> files;
  for (const auto& entry : fs::directory_iterator(dir))
    files[entry.path().filename().string()] = read_text(entry.path().string());
  return files;
}

bool close(double a, double b) {
  return a == b || std::abs(a - b) <= 1e-9 * std::max(std::abs(a), std::abs(b));
}

/// `bytes` is `reference` complete: equal bytes, or (the accountant's sums may round differently from run to
/// run with the thread count and tile sizes) the same .npy shape and size with values within 1e-9, or the
/// same CSV lines and cells with numbers within 1e-9.
bool same_complete_file(const std::string& name, const std::string& bytes, const std::string& reference) {
  if (bytes == reference) return true;
  if (bytes.size() != reference.size() && name.ends_with(".npy")) return false;
  if (name.ends_with(".npy")) {
    const std::size_t data = reference.find('\n') + 1;  // the header ends the line holding the shape
    if (bytes.compare(0, data, reference, 0, data) != 0) return false;
    for (std::size_t i = data; i + 8 <= bytes.size(); i += 8) {
      double a = 0, b = 0;
      std::memcpy(&a, bytes.data() + i, 8);
      std::memcpy(&b, reference.data() + i, 8);
      if (!close(a, b)) return false;
    }
    return true;
  }
  if (bytes.empty() || bytes.back() != '\n') return false;  // cut short
  std::istringstream got(bytes), want(reference);
  std::string line_got, line_want;
  while (std::getline(want, line_want)) {
    if (!std::getline(got, line_got)) return false;
    std::istringstream cells_got(line_got), cells_want(line_want);
    std::string a, b;
    while (std::getline(cells_want, b, ',')) {
      if (!std::getline(cells_got, a, ',')) return false;
      char* end_a = nullptr;
      char* end_b = nullptr;
      const double x = std::strtod(a.c_str(), &end_a), y = std::strtod(b.c_str(), &end_b);
      const bool numbers = !a.empty() && !b.empty() && *end_a == '\0' && *end_b == '\0';
      if (numbers ? !close(x, y) : a != b) return false;
    }
    if (std::getline(cells_got, a, ',')) return false;
  }
  return !std::getline(got, line_got);
}

std::vector<std::string> gossip_args(int steps, const fs::path& out) {
  return {"gossip-loss",         "--graph", "ring:n=96", "--steps",
          std::to_string(steps), "--quiet", "--out",     out.string()};
}

// The previous run (T = 40) and the new one (T = 41) write different bytes into every data file; the JSON
// files hold timings, so they are checked for being complete JSON rather than for their bytes.
TEST(Durability, SigkillAtRandomMomentsLeavesTheOldOrTheNewCompleteFile) {
  ScratchDir dir;
  const fs::path old_run = dir / "old", new_run = dir / "new", target = dir / "target";
  ASSERT_EQ(wait_status(spawn_cli(gossip_args(40, old_run))), 0);
  const auto started = std::chrono::steady_clock::now();
  ASSERT_EQ(wait_status(spawn_cli(gossip_args(41, new_run))), 0);
  const double run_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  const auto old_files = files_of(old_run), new_files = files_of(new_run);
  ASSERT_TRUE(old_files.count("loss.npy") && old_files.count("manifest.json"));

  std::mt19937 random(19);  // fixed: the same kill moments on every run of the test
  std::uniform_real_distribution<double> moment(0.0, 1.2 * run_seconds);
  int killed_mid_run = 0;
  for (int attempt = 0; attempt < 30; ++attempt) {
    fs::remove_all(target);
    fs::copy(old_run, target);
    const pid_t pid = spawn_cli(gossip_args(41, target));
    std::this_thread::sleep_for(std::chrono::duration<double>(moment(random)));
    ::kill(pid, SIGKILL);
    const int status = wait_status(pid);
    killed_mid_run += WIFSIGNALED(status) ? 1 : 0;
    for (const auto& [name, bytes] : files_of(target)) {
      if (name.find(".tmp-") != std::string::npos) continue;  // a temporary: never a final name
      if (name.ends_with(".json")) {
        EXPECT_FALSE(nlohmann::json::parse(bytes, nullptr, false).is_discarded())
            << "attempt " << attempt << ": " << name << " is not complete JSON";
        continue;
      }
      const bool is_old = old_files.count(name) && old_files.at(name) == bytes;  // untouched copy
      const bool is_new = new_files.count(name) && same_complete_file(name, bytes, new_files.at(name));
      EXPECT_TRUE(is_old || is_new) << "attempt " << attempt << ": " << name << " is neither run's file";
    }
    // A manifest present means a complete directory: the untouched previous run (killed before it started
    // writing) or the new run, every file of it.
    if (fs::exists(target / "manifest.json")) {
      const bool untouched = read_text((target / "manifest.json").string()) == old_files.at("manifest.json");
      for (const auto& [name, bytes] : untouched ? old_files : new_files) {
        if (name.ends_with(".json")) continue;
        const std::string now = read_text((target / name).string());
        EXPECT_TRUE(untouched ? now == bytes : same_complete_file(name, now, bytes))
            << "attempt " << attempt << ": " << name << " does not belong to the run its manifest describes";
      }
    }
  }
  RecordProperty("killed_mid_run", killed_mid_run);
}

/// The staging directories (`.NAME.tmp-PID`) beside `out`.
std::vector<fs::path> staging_dirs(const fs::path& out) {
  std::vector<fs::path> found;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(out.parent_path(), ec))
    if (entry.path().filename().string().starts_with("." + out.filename().string() + ".tmp-"))
      found.push_back(entry.path());
  return found;
}

/// Nothing of a run that did not succeed beside `out`: no staging directory, no lock file.
void expect_nothing_beside(const fs::path& out, const std::string& what) {
  for (const auto& dir : staging_dirs(out)) ADD_FAILURE() << what << ": " << dir << " was left behind";
  EXPECT_FALSE(fs::exists(out.parent_path() / ("." + out.filename().string() + ".lock"))) << what;
}

/// Polls (up to 10 min on a loaded machine; usually < 1 s) until a staging directory of `out` holds a file
/// being written (loss.npy's temporary).
bool wait_for_staged_temporary(const fs::path& out) {
  for (int poll = 0; poll < 60000; ++poll) {
    for (const auto& dir : staging_dirs(out)) {
      std::error_code ec;
      for (const auto& entry : fs::directory_iterator(dir, ec))
        if (entry.path().filename().string().find(".tmp-") != std::string::npos) return true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

/// A scratch directory whose `out` holds an earlier result (a small gossip-loss run) that a case then tries
/// to spoil; `before` is its files. A case asserts `written` first.
struct EarlierResult {
  ScratchDir dir;
  fs::path out = dir / "out";
  bool written =
      run_cli("gossip-loss --graph ring:n=8 --steps 2 --quiet --out " + out.string()).exit_code == 0;
  std::map<std::string, std::string> before = written ? files_of(out) : std::map<std::string, std::string>();

  /// The earlier result is byte-identical and nothing of the spoiling run stands beside it.
  void expect_whole(const std::string& what) const {
    EXPECT_EQ(files_of(out), before) << what;
    expect_nothing_beside(out, what);
  }
};

// SIGINT and SIGTERM: the command removes the temporaries it is writing and its staging directory before it
// dies of the signal; the earlier result under --out stays whole (issue 29). The run is far too long to
// finish; the signal comes once its loss.npy is open.
TEST(Durability, SigtermRemovesTheTemporariesOfASingleCommand) {
  for (int signal : {SIGTERM, SIGINT}) {
    ScratchDir dir;
    const fs::path out = dir / "out";
    ASSERT_EQ(wait_status(spawn_cli(gossip_args(4, out))), 0);
    const auto before = files_of(out);
    const pid_t pid = spawn_cli(
        {"gossip-loss", "--graph", "ring:n=3000", "--steps", "3000", "--quiet", "--out", out.string()});
    ASSERT_TRUE(wait_for_staged_temporary(out)) << "loss.npy's temporary never appeared";
    ::kill(pid, signal);
    const int status = wait_status(pid);
    ASSERT_TRUE(WIFSIGNALED(status)) << "the command must die of the signal (exit status 128 + signal)";
    EXPECT_EQ(WTERMSIG(status), signal);
    EXPECT_EQ(files_of(out), before) << "the earlier result must stay whole";
    expect_nothing_beside(out, "signal " + std::to_string(signal));
  }
}

// Issue 29: a run that fails once started (exit 1: loss.npy cannot be written past the file size limit)
// leaves the earlier result byte-identical; it used to have removed it at its first file.
TEST(Durability, AFailedRunLeavesTheEarlierResultWhole) {
  const EarlierResult earlier;
  ASSERT_TRUE(earlier.written);
  // 8 blocks hold every small file but not loss.npy (96 x 200 doubles); XFSZ ignored: write(2) fails instead.
  const auto r = run_cli("gossip-loss --graph ring:n=96 --steps 200 --quiet --out " + earlier.out.string(),
                         "ulimit -f 8; trap '' XFSZ; ");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("write failed"), std::string::npos) << r.err;
  earlier.expect_whole("failed run");
}

// Issue 29: a run refused once started (exit 2: a memory limit that holds W but no tile) leaves the earlier
// result byte-identical, and a refusal into a new directory leaves no directory.
TEST(Durability, ARefusedRunLeavesTheEarlierResultWhole) {
  const EarlierResult earlier;
  ASSERT_TRUE(earlier.written);
  const std::string limited = "gossip-loss --graph ring:n=8 --steps 2 --source 0 --memory-limit 0.000001";
  const auto r = run_cli(limited + " --out " + earlier.out.string());
  EXPECT_EQ(r.exit_code, 2) << r.err;
  earlier.expect_whole("refused run");
  EXPECT_EQ(run_cli(limited + " --out " + (earlier.dir / "new/a").string()).exit_code, 2);
  EXPECT_FALSE(fs::exists(earlier.dir / "new")) << "the parents it created were left behind";
}

// Issue 29: a rerun replaces the directory: the files the earlier run wrote and this one does not are gone,
// the user's own files (not in the manifest) stay, and a killed run's staging directory is removed.
TEST(Durability, ARerunWithFewerOutputsLeavesOnlyItsOwnFiles) {
  const EarlierResult earlier;
  ASSERT_TRUE(earlier.written);
  const ScratchDir& dir = earlier.dir;
  const fs::path& out = earlier.out;
  const fs::path fresh = dir / "fresh";
  ASSERT_TRUE(fs::exists(out / "loss.npy"));
  dir.write("out/notes.txt", "the user's own file");
  fs::create_directory(dir / ".out.tmp-999999999");
  dir.write(".out.tmp-999999999/loss.npy", "a SIGKILLed run's staging directory (no such pid)");
  const std::string fewer = "gossip-loss --graph ring:n=8 --steps 2 --quiet --no-matrix --out ";
  ASSERT_EQ(run_cli(fewer + out.string()).exit_code, 0);
  ASSERT_EQ(run_cli(fewer + fresh.string()).exit_code, 0);
  auto names = [](const fs::path& d) {
    std::vector<std::string> list;
    for (const auto& entry : fs::directory_iterator(d)) list.push_back(entry.path().filename().string());
    std::sort(list.begin(), list.end());
    return list;
  };
  auto expected = names(fresh);
  expected.push_back("notes.txt");
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(names(out), expected);
  EXPECT_EQ(read_text((out / "notes.txt").string()), "the user's own file");
  expect_nothing_beside(out, "rerun");
}

// Issue 29: a second writer to the same --out is refused (exit 2) naming the pid that holds the lock, and
// the first run completes. The lock is an flock: held from here first, then by a real run.
TEST(Durability, ASecondWriterIsRefusedNamingTheFirst) {
  const EarlierResult earlier;
  ASSERT_TRUE(earlier.written);
  const ScratchDir& dir = earlier.dir;
  const fs::path& out = earlier.out;
  {
    const int fd = ::open((dir / ".out.lock").c_str(), O_RDWR | O_CREAT, 0644);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::flock(fd, LOCK_EX), 0);
    ASSERT_EQ(::write(fd, "4242\n", 5), 5);
    const auto r = run_cli("gossip-loss --graph ring:n=8 --steps 3 --quiet --out " + out.string());
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("is being written by another netdp process (pid 4242)"), std::string::npos) << r.err;
    EXPECT_EQ(files_of(out), earlier.before);
    ::close(fd);
    fs::remove(dir / ".out.lock");
  }
  // A real first writer, long enough to be met (seconds), then left to finish.
  const pid_t first =
      spawn_cli({"gossip-loss", "--graph", "ring:n=250", "--steps", "250", "--quiet", "--out", out.string()});
  ASSERT_TRUE(wait_for_staged_temporary(out));
  const auto second = run_cli("gossip-loss --graph ring:n=8 --steps 3 --quiet --out " + out.string());
  const int status = wait_status(first);
  EXPECT_EQ(second.exit_code, 2) << second.err;
  EXPECT_NE(second.err.find("(pid " + std::to_string(first) + ")"), std::string::npos) << second.err;
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "the first writer must succeed";
  EXPECT_EQ(read_json(out / "manifest.json")["parameters"]["steps"], 250);
  expect_nothing_beside(out, "after both writers");
}

// Issue 29: a single command does not write into a study's results directory (netdp run): refused naming
// the directory, the study's manifest untouched.
TEST(Durability, ASingleCommandRefusesAStudysDirectory) {
  ScratchDir dir;
  const auto study = dir.write("s.toml",
                               "[study]\nname = \"tiny\"\nseed = 1\n\n[[experiment]]\nname = \"g\"\nmodel = "
                               "\"gossip-loss\"\n[experiment.params]\ngraph = \"ring:n=8\"\nsteps = 2\n");
  const fs::path out = dir / "study";
  const auto made = run_cli("run " + study + " --quiet --out " + out.string());
  ASSERT_EQ(made.exit_code, 0) << made.err;
  const auto manifest = read_text((out / "manifest.json").string());
  ASSERT_EQ(read_json(out / "manifest.json")["tool"], "netdp run");
  const auto r = run_cli("gossip-loss --graph ring:n=8 --steps 2 --quiet --out " + out.string());
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find(out.string() + " holds a study's results"), std::string::npos) << r.err;
  EXPECT_EQ(read_text((out / "manifest.json").string()), manifest);
  expect_nothing_beside(out, "study directory");
}

}  // namespace
}  // namespace netdp
