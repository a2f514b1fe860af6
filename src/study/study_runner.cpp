// `netdp run` (docs/study.md): one process, several local workers, MPI ranks or a shard of a job array all
// follow the same path: validate, plan, skip finished units, run the rest, and let the last one gather.
#include "netdp/study/study_runner.hpp"

#include <fcntl.h>
#include <omp.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <mutex>
#include <optional>
#include <thread>

#include "core/progress.hpp"
#include "netdp/core/device.hpp"
#include "netdp/core/error.hpp"
#include "netdp/study/study_plan.hpp"
#include "netdp/study/unit_store.hpp"
#include "study/mpi_world.hpp"
#include "study/study_checks.hpp"
#include "study/study_output.hpp"
#include "study/unit_progress.hpp"

namespace netdp::study {

using json = nlohmann::json;
namespace fs = std::filesystem;

namespace {

// Interruption (docs/reliability.md §4): the first SIGINT/SIGTERM lets the running units finish and starts no
// new one; a second one exits at once (units are committed atomically, so either way a rerun resumes). The
// request is core's process-wide one (core/progress.hpp), which the Python module sets too; no sink is
// installed here, so it never interrupts a running unit.
extern "C" void on_stop_signal(int signal) {
  if (request_stop(signal) != 0) _exit(128 + signal);
  static const char message[] =
      "\nnetdp run: stopping after the running unit(s); press Ctrl-C again to stop at once\n";
  [[maybe_unused]] auto written = ::write(2, message, sizeof message - 1);
}

// Installs the handler for the life of the run and restores the previous one after.
class StopSignals {
 public:
  StopSignals() {
    clear_stop();
    Action action{};
    action.sa_handler = on_stop_signal;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, &old_int_);
    sigaction(SIGTERM, &action, &old_term_);
  }
  ~StopSignals() {
    sigaction(SIGINT, &old_int_, nullptr);
    sigaction(SIGTERM, &old_term_, nullptr);
  }
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

 private:
  using Action = struct sigaction;
  Action old_int_{}, old_term_{};
};

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// The workers of this process: a device string each ("auto:K" for GPU K, "cpu") and CPU threads each.
struct WorkerPlan {
  std::vector<std::string> devices;
  int threads = 0;
  std::string description;
};

WorkerPlan plan_workers(const RunOptions& o, const MpiWorld& world) {
  if (o.workers < 0) throw InvalidParameter("workers", "workers must be >= 0");
  WorkerPlan w;
  const int gpus = o.devices == "cpu" ? 0 : cuda_device_count();
  if (o.devices != "auto" && o.devices != "cpu") {
    // an explicit list of GPU ordinals, one worker each
    std::size_t at = 0;
    while (at <= o.devices.size()) {
      const std::size_t comma = std::min(o.devices.find(',', at), o.devices.size());
      const std::string item = o.devices.substr(at, comma - at);
      if (item.empty() || item.find_first_not_of("0123456789") != std::string::npos)
        throw InvalidParameter(
            "devices", "devices: expected auto, cpu or GPU ordinals like 0,1, got '" + o.devices + "'");
      if (std::stoi(item) >= gpus)
        throw InvalidParameter(
            "devices", "devices: GPU " + item + " does not answer (" + std::to_string(gpus) + " found)");
      w.devices.push_back("cuda:" + item);
      at = comma + 1;
    }
  } else if (gpus > 0 && world.size() > 1) {
    w.devices.push_back("auto:" + std::to_string(world.local_rank() % gpus));  // rank -> local GPU
  } else if (gpus > 0) {
    for (int g = 0; g < gpus; ++g) w.devices.push_back("auto:" + std::to_string(g));
  }
  if (w.devices.empty()) {
    const int workers = std::max(1, o.workers);
    w.devices.assign(static_cast<std::size_t>(workers), o.devices == "cpu" ? "cpu" : "auto");
    const int cores = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
    w.threads = std::max(1, cores / (workers * world.local_size()));
    w.description = std::to_string(workers) + " CPU worker(s) x " + std::to_string(w.threads) + " thread(s)";
  } else {
    w.description = std::to_string(w.devices.size()) + " GPU worker(s):";
    for (const auto& d : w.devices) w.description += " " + d;
  }
  if (world.size() > 1) w.description += " per rank, " + std::to_string(world.size()) + " MPI ranks";
  return w;
}

/// An exclusive lock on this process's share of the results directory, so that two runs of the same share
/// cannot race on its units; the kernel releases it when the process ends, however it ends.
class ShareLock {
 public:
  ShareLock(const fs::path& dir, int slot, int slots) {
    const fs::path path = dir / (".lock-" + std::to_string(slot) + "-of-" + std::to_string(slots));
    fd_ = ::open(path.c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0644);
    if (fd_ < 0) throw InvalidInput("cannot create " + path.string());
    if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      ::close(fd_);
      throw InvalidInput("another netdp run is working on this share of " + dir.string() + " (lock " +
                         path.filename().string() + "); wait for it or stop it");
    }
  }
  ~ShareLock() { ::close(fd_); }
  ShareLock(const ShareLock&) = delete;
  ShareLock& operator=(const ShareLock&) = delete;

 private:
  int fd_ = -1;
};

std::string megabytes(double bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f MiB", bytes / (1 << 20));
  return text;
}

void print_dry_run(const StudySpec& spec, const StudyPlan& plan, const std::vector<UnitEstimate>& estimates,
                   const WorkerPlan& workers, const RunOptions& o, int ranks) {
  std::printf("study %s (%s): %zu experiment(s), %zu grid point(s), %zu unit(s)\n", spec.name.c_str(),
              spec.source.c_str(), spec.experiments.size(), plan.points.size(), plan.units.size());
  std::printf(
      "devices: %s%s\n", workers.description.c_str(),
      o.shards > 1 ? (", shard " + std::to_string(o.shard) + "/" + std::to_string(o.shards)).c_str() : "");
  std::printf("%-6s %-40s %-7s %12s %10s  %s\n", "unit", "directory", "worker", "memory", "time",
              "arguments");
  double seconds = 0, peak = 0;
  std::size_t mine = 0;
  std::vector<std::size_t> queued(static_cast<std::size_t>(ranks));  // units per rank so far: the worker
  const auto slots = static_cast<std::size_t>(o.shards * ranks);
  for (const auto& u : plan.units) {
    const std::size_t slot = u.index % slots;
    if (static_cast<int>(slot) / ranks != o.shard) continue;  // another shard's unit
    const std::size_t rank = slot % static_cast<std::size_t>(ranks);
    const auto& est = estimates[u.index];
    seconds += est.seconds;
    peak = std::max(peak, est.bytes);
    std::string args;
    for (const auto& [key, value] : u.arguments) {
      if (value.is_boolean()) {  // flags: given or not
        if (value.get<bool>()) args += " --" + key;
        continue;
      }
      args += " --" + key + " " + argument_text(value);
    }
    std::string worker;
    if (ranks > 1) worker.append("r").append(std::to_string(rank)).append(":");
    worker.append(workers.devices[queued[rank]++ % workers.devices.size()]);
    std::printf("%-6zu %-40s %-7s %12s %9.3gs %s %s\n", u.index, u.dir.generic_string().c_str(),
                worker.c_str(), megabytes(est.bytes).c_str(), est.seconds,
                spec.experiments[u.experiment].model.c_str(), args.c_str());
    ++mine;
  }
  const std::size_t parallel = workers.devices.size() * static_cast<std::size_t>(ranks);
  std::printf("total: %zu unit(s) here, about %.3g s of work, %.3g s on %zu worker(s), peak %s per worker\n",
              mine, seconds, seconds / double(parallel), parallel, megabytes(peak).c_str());
}

}  // namespace

int run_study(const StudySpec& spec, const ModelCatalog& catalog, const RunOptions& o) {
  const auto started = std::chrono::steady_clock::now();
  if (o.shards < 1 || o.shard < 0 || o.shard >= o.shards)
    throw InvalidParameter("shard", "shard: expected i/N with 0 <= i < N");
  MpiWorld world;
  const bool show = !o.quiet && world.rank() == 0;  // under MPI, rank 0 speaks for every rank
  ProgressLine expanding("netdp run: expanding the study", "of the units", show);
  const StudyPlan plan = expand_study(spec, catalog, [&](double done) { expanding.update(done); });
  expanding.finish();
  const WorkerPlan workers = plan_workers(o, world);
  const int parallel = static_cast<int>(workers.devices.size()) * world.size() * o.shards;
  const auto estimates = check_plan(spec, plan, catalog, parallel, show);
  // Unit i belongs to slot i mod (shards x ranks): shard-major, so a shard's ranks share its units.
  const int slots = o.shards * world.size();
  const int slot = o.shard * world.size() + world.rank();
  if (o.dry_run) {
    if (world.rank() == 0) {
      print_dry_run(spec, plan, estimates, workers, o, world.size());
    }
    return 0;
  }
  // Rank 0 claims the directory; every rank learns the outcome, so that none waits for a rank that gave up.
  std::string refused;
  if (world.rank() == 0) try {
      claim_study_dir(o.out, spec, o.update);
    } catch (const InvalidInput& e) {
      refused = e.what();
    }
  if (world.max(refused.empty() ? 0 : 1) != 0)
    throw InvalidInput(world.rank() == 0 ? refused
                                         : "rank 0 refused the results directory " + o.out.string());
  if (world.rank() != 0) claim_study_dir(o.out, spec);  // checks only: rank 0 wrote it
  std::optional<ShareLock> lock;
  std::string busy;
  try {
    lock.emplace(o.out, slot, slots);
  } catch (const InvalidInput& e) {
    busy = e.what();
  }
  if (world.max(busy.empty() ? 0 : 1) != 0)
    throw InvalidInput(busy.empty() ? "another rank's share of " + o.out.string() + " is busy" : busy);

  std::vector<const WorkUnit*> pending;
  std::vector<json> known(plan.units.size());  // records verified or committed here: not hashed again
  std::size_t mine = 0;
  for (const auto& u : plan.units) {
    if (static_cast<int>(u.index % static_cast<std::size_t>(slots)) != slot) continue;
    ++mine;
    auto seen = inspect_unit(o.out, u);
    if (seen.state == UnitState::finished) {
      known[u.index] = std::move(seen.record);
      continue;
    }
    if (seen.state == UnitState::torn) {
      if (!o.quiet)
        std::fprintf(stderr, "netdp run: redoing %s: %s\n", u.dir.generic_string().c_str(),
                     seen.reason.c_str());
      clear_unit(o.out, u);
    }
    pending.push_back(&u);
  }

  // Under MPI rank 0 reports the whole share: the other ranks' units are counted by their unit.json in the
  // shared directory (docs/cluster.md "Progress under MPI"), so no collective is needed while units run.
  std::vector<fs::path> elsewhere;
  if (world.size() > 1 && world.rank() == 0)
    for (const auto& u : plan.units) {
      const auto unit_slot = static_cast<int>(u.index % static_cast<std::size_t>(slots));
      if (unit_slot / world.size() == o.shard && unit_slot != slot)
        elsewhere.push_back(o.out / u.dir / "unit.json");
    }
  UnitProgress::Elsewhere count_elsewhere;
  if (!elsewhere.empty())
    count_elsewhere = [&elsewhere] {
      std::error_code error;
      return static_cast<std::size_t>(std::count_if(elsewhere.begin(), elsewhere.end(),
                                                    [&](const fs::path& p) { return fs::exists(p, error); }));
    };
  const StopSignals stop_signals;  // from here on, SIGINT/SIGTERM stop the study between units
  UnitProgress progress(mine + elsewhere.size(), mine - pending.size(), show, count_elsewhere);
  std::mutex failures_mutex;
  std::vector<std::string> failures;
  auto work = [&](std::size_t w) {
    for (std::size_t i = w; i < pending.size(); i += workers.devices.size()) {  // deterministic assignment
      const WorkUnit& u = *pending[i];
      const auto& model = spec.experiments[u.experiment].model;
      const auto unit_start = std::chrono::steady_clock::now();
      if (stop_signal() != 0) break;  // interrupted: start no new unit
      bool failed = false;
      try {
        const UnitContext context{o.out / u.dir, workers.devices[w], workers.threads};
        const json summary = catalog.run(model, u.arguments, context);
        known[u.index] = commit_unit(o.out, u, summary, seconds_since(unit_start));  // one slot per unit
      } catch (const std::exception& error) {
        clear_unit(o.out, u);
        failed = true;
        std::lock_guard lock(failures_mutex);
        failures.push_back(u.dir.generic_string() + ": " + error.what());
      }
      progress.unit_done(failed);
    }
  };
  if (workers.devices.size() == 1) {
    work(0);
  } else {
    std::vector<std::thread> threads;
    for (std::size_t w = 0; w < workers.devices.size(); ++w) threads.emplace_back(work, w);
    for (auto& t : threads) t.join();
  }
  world.wait_all([&progress] { progress.tick(); });
  const long long failed_everywhere = world.sum(static_cast<long long>(failures.size()));
  progress.finish(static_cast<std::size_t>(failed_everywhere) - failures.size());
  for (const auto& f : failures) std::fprintf(stderr, "netdp run: unit failed: %s\n", f.c_str());
  if (const int stopped = world.max(stop_signal()); stopped != 0) {
    if (world.rank() == 0)
      std::fprintf(stderr,
                   "netdp run: interrupted (%s): finished units are kept; run the same command again to "
                   "resume\n",
                   stopped == SIGINT ? "SIGINT" : "SIGTERM");
    return 128 + stopped;  // 130 for SIGINT, 143 for SIGTERM
  }

  const long long ran = world.sum(static_cast<long long>(pending.size() - failures.size()));
  const int exit_code = world.max(failures.empty() ? 0 : 1);
  if (world.rank() == 0) {
    const GatheredUnits gathered = gather_units(o.out, plan, std::move(known));
    if (gathered.missing.empty()) {
      const json facts = {{"ranks", world.size()},
                          {"shards", o.shards},
                          {"workers", workers.description},
                          {"units_run_by_this_invocation", ran},
                          {"seconds", seconds_since(started)},
                          {"invocation", o.invocation}};
      write_study_outputs(o.out, spec, plan, gathered.records, facts);
      if (const std::string w = warnings_line(plan, gathered.records); !w.empty())
        std::fprintf(stderr, "netdp run: %s\n", w.c_str());
      std::printf("netdp run: %s: %zu unit(s) finished (%lld run now) -> %s/results.csv\n", spec.name.c_str(),
                  plan.units.size(), ran, o.out.string().c_str());
    } else if (exit_code == 0) {
      std::printf(
          "netdp run: %s: this share is finished; %zu unit(s) of other shards are not: run them, then "
          "`netdp merge` or this command again\n",
          spec.name.c_str(), gathered.missing.size());
    } else {
      std::fprintf(stderr, "netdp run: %zu unit(s) failed; run the same command again to retry them\n",
                   failures.size());
    }
  }
  world.barrier();
  return exit_code;
}

}  // namespace netdp::study
