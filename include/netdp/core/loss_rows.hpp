#pragma once
// Streaming consumers of pairwise loss matrices (row = source/victim u, column = observer v).
#include <span>
#include <vector>

#include "netdp/core/graph.hpp"
#include "netdp/ground/row_sink.hpp"  // LossRowSink, which the backends fill

namespace netdp {

/// Keeps every row (for tests, small problems and the library's convenience calls).
class LossMatrixCollector : public LossRowSink {
 public:
  explicit LossMatrixCollector(node_t n) : n_(n) {}
  void consume(node_t first_source, node_t count, std::span<const double> rows) override;
  const std::vector<double>& values() const { return values_; }
  std::vector<double> take() { return std::move(values_); }

 private:
  node_t n_;
  std::vector<double> values_;
};

/// The rows a streaming accountant `compute(sink)` emits, as one row-major matrix; `*run` (when not null)
/// receives what `compute` returns (the run's report).
template <class Run, class Compute>
std::vector<double> collect_loss_matrix(node_t n, Run* run, Compute&& compute) {
  LossMatrixCollector collector(n);
  Run info = compute(collector);
  if (run) *run = info;
  return collector.take();
}

/// Forwards every tile to several sinks.
class LossRowTee : public LossRowSink {
 public:
  explicit LossRowTee(std::vector<LossRowSink*> sinks) : sinks_(std::move(sinks)) {}
  void consume(node_t first_source, node_t count, std::span<const double> rows) override {
    for (auto* sink : sinks_) sink->consume(first_source, count, rows);
  }

 private:
  std::vector<LossRowSink*> sinks_;
};

}  // namespace netdp
