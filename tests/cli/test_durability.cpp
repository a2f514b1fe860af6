// Durability and interruption of single commands (docs/reliability.md §3): a writer killed with SIGKILL at
// any moment leaves each output file either as the previous run wrote it or as the new run writes it,
// complete; SIGINT/SIGTERM remove the temporaries being written before the command dies of the signal.
#include <gtest/gtest.h>
#include <signal.h>
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
  std::vector<char*> argv{const_cast<char*>(NETDP_CLI)};
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    if (std::freopen("/dev/null", "w", stdout) == nullptr ||
        std::freopen("/dev/null", "w", stderr) == nullptr)
      ::_exit(127);
    ::execv(NETDP_CLI, argv.data());
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

// SIGINT and SIGTERM: the command removes the temporaries it is writing and dies of the signal, so nothing it
// leaves can look complete. The run is far too long to finish; the signal comes once its loss.npy is open.
TEST(Durability, SigtermRemovesTheTemporariesOfASingleCommand) {
  for (int signal : {SIGTERM, SIGINT}) {
    ScratchDir dir;
    const fs::path out = dir / "out";
    const pid_t pid = spawn_cli(
        {"gossip-loss", "--graph", "ring:n=3000", "--steps", "3000", "--quiet", "--out", out.string()});
    bool seen = false;
    for (int poll = 0; poll < 60000 && !seen; ++poll) {  // up to 10 min on a loaded machine; usually < 1 s
      std::error_code ec;
      for (const auto& entry : fs::directory_iterator(out, ec))
        seen = seen || entry.path().filename().string().find(".tmp-") != std::string::npos;
      if (!seen) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ASSERT_TRUE(seen) << "loss.npy's temporary never appeared";
    ::kill(pid, signal);
    const int status = wait_status(pid);
    ASSERT_TRUE(WIFSIGNALED(status)) << "the command must die of the signal (exit status 128 + signal)";
    EXPECT_EQ(WTERMSIG(status), signal);
    for (const auto& entry : fs::directory_iterator(out))
      EXPECT_EQ(entry.path().filename().string().find(".tmp-"), std::string::npos)
          << entry.path() << " was left behind";
    EXPECT_FALSE(fs::exists(out / "manifest.json"));
  }
}

}  // namespace
}  // namespace netdp
