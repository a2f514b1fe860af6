#include "netdp/accounting/loss_report.hpp"

#include <optional>
#include <vector>

#include <algorithm>
#include <ctime>
#include <limits>

#include "core/progress.hpp"
#include "netdp/accounting/loss_statistics.hpp"
#include "netdp/core/version.hpp"
#include "netdp/io/csv_table.hpp"

namespace netdp {

using json = nlohmann::json;

// A named namespace, not an anonymous one: LossReport::State holds a DiagonalFill, and the unity build
// (CMakeLists.txt) would otherwise warn that a member's type has internal linkage.
namespace loss_report_detail {

// Forwards tiles to `target` with `value` at (u, u): the reference code's self-pair (docs/math.md §12
// item 60). Only loss.npy sees it; the statistics get the rows as computed.
class DiagonalFill : public LossRowSink {
 public:
  DiagonalFill(LossRowSink& target, node_t n, double value) : target_(target), n_(n), value_(value) {}
  void consume(node_t first_source, node_t count, std::span<const double> rows) override {
    if (value_ == 0.0) return target_.consume(first_source, count, rows);
    tile_.assign(rows.begin(), rows.end());
    for (node_t i = 0; i < count; ++i)
      tile_[static_cast<std::size_t>(i) * n_ + static_cast<std::size_t>(first_source + i)] = value_;
    target_.consume(first_source, count, tile_);
  }

 private:
  LossRowSink& target_;
  node_t n_;
  double value_;
  std::vector<double> tile_;
};

}  // namespace loss_report_detail

struct LossReport::State {
  State(const Graph& g, const ResultsDir& out, std::int64_t rows, const std::string& label, bool progress,
        bool write_matrix, double diagonal)
      : all_pairs(rows == g.n), stats(g), reporter(label, rows, progress) {
    if (write_matrix) {
      loss_file.emplace(out.file("loss.npy"), rows, g.n);
      loss_matrix.emplace(*loss_file, g.n, diagonal);
    }
    std::vector<LossRowSink*> sinks{&stats, &reporter};
    if (loss_matrix) sinks.insert(sinks.begin(), &*loss_matrix);
    tee.emplace(sinks);
  }
  bool all_pairs;
  std::optional<NpyWriter> loss_file;
  std::optional<loss_report_detail::DiagonalFill> loss_matrix;
  LossStatistics stats;
  ProgressReporter reporter;
  std::optional<LossRowTee> tee;
};

LossReport::LossReport(const Graph& g, const ResultsDir& out, std::int64_t rows, const std::string& label,
                       bool progress, bool write_matrix, double diagonal)
    : state_(std::make_unique<State>(g, out, rows, label, progress, write_matrix, diagonal)) {}

LossReport::~LossReport() = default;

LossRowSink& LossReport::sink() {
  return *state_->tee;
}

json distance_rows(const std::vector<LossAggregate>& buckets) {
  json rows = json::array();
  for (std::size_t b = 1; b <= buckets.size(); ++b) {
    const auto& a = buckets[b % buckets.size()];
    if (a.count == 0) continue;
    rows.push_back({{"distance", b == buckets.size() ? json("inf") : json(b - 1)},
                    {"pairs", a.count},
                    {"mean", a.mean()},
                    {"min", a.min},
                    {"max", a.max}});
  }
  return rows;
}

namespace {

CsvTable per_observer_table(const LossStatistics& stats) {
  CsvTable csv("per_observer.csv",
               {{"v", CsvType::int64}, {"mean", CsvType::float64}, {"max", CsvType::float64}});
  auto mean = stats.observer_mean(), max = stats.observer_max();
  for (std::size_t v = 0; v < mean.size(); ++v) csv.row({v, mean[v], max[v]});
  return csv;
}

}  // namespace

json LossReport::finish(RunResult& run) {
  auto& s = *state_;
  s.reporter.finish();
  if (s.loss_file) {
    s.loss_file->commit();
    run.streamed("loss.npy");
  }
  const json distance_rows = netdp::distance_rows(s.stats.by_distance());
  run.add(by_distance_table("by_distance.csv", distance_rows));
  const LossAggregate all = s.stats.overall();
  json result = {{"pairs", all.count},
                 {"mean_loss", all.mean()},
                 {"min_loss", all.count ? all.min : 0.0},
                 {"max_loss", all.count ? all.max : 0.0},
                 {"by_distance", distance_rows}};
  if (s.all_pairs) {
    run.add(per_observer_table(s.stats));
    auto mean = s.stats.observer_mean();
    result["max_mean_observer_loss"] = mean.empty() ? 0.0 : *std::max_element(mean.begin(), mean.end());
  }
  return result;
}

CsvTable by_distance_table(const std::string& name, const json& rows) {
  CsvTable csv(name, {{"distance", CsvType::int64},
                      {"pairs", CsvType::int64},
                      {"mean", CsvType::float64},
                      {"min", CsvType::float64},
                      {"max", CsvType::float64}});
  for (const auto& r : rows)
    csv.row({r["distance"].is_string() ? CsvCell(std::numeric_limits<double>::infinity())  // unreachable
                                       : CsvCell(r["distance"].get<std::int64_t>()),
             r["pairs"].get<std::int64_t>(), r["mean"].get<double>(), r["min"].get<double>(),
             r["max"].get<double>()});
  return csv;
}

json manifest_header(const std::string& command, const json& invocation) {
  std::time_t now = std::time(nullptr);
  char created[32];
  std::strftime(created, sizeof created, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return {{"netdp_version", version()},
          {"git_commit", git_commit()},
          {"command", command},
          {"created_utc", created},
          {"invocation", invocation}};
}

}  // namespace netdp
