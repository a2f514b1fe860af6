// The engine's progress sink and stop request (src/core/progress.hpp; docs/python.md "Threads, progress and
// Ctrl-C"): a sink installed on a thread receives the updates of the lines built there, from any thread; a
// stop request ends a run only while a sink is installed (the Python module's runs), never the CLI's or a
// study's.
#include <gtest/gtest.h>

#include <csignal>
#include <filesystem>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "core/progress.hpp"
#include "netdp/jobs/model.hpp"
#include "support/test_support.hpp"

namespace netdp {
namespace {

using json = nlohmann::json;

/// Records every report, in order.
class RecordingSink : public ProgressSink {
 public:
  void report(const std::string& stage, double fraction) override {
    std::lock_guard lock(mutex_);
    reports.emplace_back(stage, fraction);
  }
  std::vector<std::pair<std::string, double>> reports;

 private:
  std::mutex mutex_;
};

/// Clears the process's stop request when a test ends, whatever it did.
struct ClearStop {
  ~ClearStop() { clear_stop(); }
};

TEST(Progress, LinesReportToTheSinkOfTheThreadThatBuiltThem) {
  RecordingSink sink;
  {
    const ProgressSinkScope scope(sink);
    EXPECT_EQ(current_progress_sink(), &sink);
    ProgressLine line("stage", "of the things", false);
    line.update(0.25);
    std::thread([&] { line.update(0.5); }).join();  // a worker thread of the run: still this run's sink
    line.update(2.0);                               // clamped
    line.finish();
  }
  EXPECT_EQ(current_progress_sink(), nullptr);
  ProgressLine unwatched("other", "of the things", false);
  unwatched.update(0.5);  // built without a sink: reports nowhere
  const std::vector<std::pair<std::string, double>> expected{
      {"stage", 0.25}, {"stage", 0.5}, {"stage", 1.0}, {"stage", 1.0}};
  EXPECT_EQ(sink.reports, expected);
}

TEST(Progress, ScopesNestAndRestore) {
  RecordingSink outer, inner;
  const ProgressSinkScope a(outer);
  {
    const ProgressSinkScope b(inner);
    EXPECT_EQ(current_progress_sink(), &inner);
  }
  EXPECT_EQ(current_progress_sink(), &outer);
  std::thread([] { EXPECT_EQ(current_progress_sink(), nullptr); }).join();  // per thread
}

TEST(Progress, AStopRequestStopsOnlyWhileASinkIsInstalled) {
  const ClearStop clear;
  EXPECT_EQ(request_stop(SIGINT), 0);
  EXPECT_EQ(request_stop(SIGTERM), SIGINT);  // returns the previous request (a second signal)
  EXPECT_EQ(stop_signal(), SIGTERM);
  EXPECT_FALSE(stop_requested());  // the CLI and studies: runs are not stoppable
  EXPECT_NO_THROW(throw_if_stopped());
  RecordingSink sink;
  {
    const ProgressSinkScope scope(sink);
    EXPECT_TRUE(stop_requested());
    std::thread([] { EXPECT_TRUE(stop_requested()); }).join();  // loops on worker threads see it too
    try {
      throw_if_stopped();
      ADD_FAILURE() << "no RunStopped";
    } catch (const RunStopped& e) {
      EXPECT_EQ(e.signal(), SIGTERM);
    }
    clear_stop();
    EXPECT_FALSE(stop_requested());
  }
}

TEST(Progress, RunCounterPassesEveryFinishedRunInIncreasingShares) {
  std::vector<double> shares;
  const std::function<void(double)> record = [&](double f) { shares.push_back(f); };  // unlocked: serialised
  RunCounter counter(1000, record);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 250; ++i) counter.finished_one();
    });
  for (auto& t : threads) t.join();
  ASSERT_EQ(shares.size(), 1000u);
  for (std::size_t i = 0; i < shares.size(); ++i) EXPECT_EQ(shares[i], double(i + 1) / 1000) << i;
  RunCounter unwatched(10, {});  // no callable: nothing to call
  unwatched.finished_one();
}

json walk_sim_values() {
  return {{"graph", "hypercube:dim=4"}, {"steps", 200}, {"runs", 50}, {"seed", 3}, {"device", "cpu"}};
}

TEST(Progress, AStoppedRunWritesNoSummaryAndAnUnwatchedRunIgnoresTheRequest) {
  const ClearStop clear;
  const jobs::Model& model = *jobs::find_model("walk-sim");
  testing::ScratchDir dir;
  jobs::RunContext context;
  context.quiet = true;
  request_stop(SIGINT);
  RecordingSink sink;
  {
    const ProgressSinkScope scope(sink);
    context.out_dir = dir / "stopped";
    EXPECT_THROW(model.run(jobs::Values::from_json_object(model, walk_sim_values()), context), RunStopped);
    EXPECT_FALSE(std::filesystem::exists(context.out_dir / "summary.json"));
  }
  // No sink (the CLI, `netdp run`): the run finishes whatever the request says, and equals a run without one.
  context.out_dir = dir / "unwatched";
  const json stopped_anyway = model.run(jobs::Values::from_json_object(model, walk_sim_values()), context);
  clear_stop();
  context.out_dir = dir / "plain";
  const json plain = model.run(jobs::Values::from_json_object(model, walk_sim_values()), context);
  EXPECT_EQ(stopped_anyway["network_loss"], plain["network_loss"]);
  EXPECT_TRUE(std::filesystem::exists(dir / "unwatched" / "summary.json"));
}

}  // namespace
}  // namespace netdp
