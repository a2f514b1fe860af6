// Rough resources of one model invocation, for `netdp run --dry-run` and the study budgets. The rates are the
// 2-core CPU medians of benchmarks/RESULTS.md (e.g. the dense eigendecomposition: 1.1 s at n = 2048); they
// order units and catch absurd grids, nothing more.
#include <cmath>
#include <map>
#include <mutex>

#include "cli/study_catalog.hpp"
#include "netdp/core/graph_spec.hpp"

namespace netdp::cli {

using json = nlohmann::json;

namespace {

struct GraphSize {
  double n = 0, m = 0;
};

/// n and m of a graph spec; generated once per spec (the implicit complete graph is never built).
GraphSize graph_size(const std::string& text) {
  static std::mutex mutex;
  static std::map<std::string, GraphSize> cache;
  std::lock_guard lock(mutex);
  if (auto it = cache.find(text); it != cache.end()) return it->second;
  GraphSize size;
  const GraphSpec spec = parse_graph_spec(text);
  if (spec.family == "complete" && spec.params.count("n")) {
    size.n = std::stod(spec.params.at("n"));
    size.m = size.n * (size.n - 1) / 2;
  } else {
    const Graph g = make_graph(spec);
    size.n = g.n;
    size.m = double(g.num_edges());
  }
  return cache[text] = size;
}

double number(const study::Arguments& a, const std::string& key, double fallback) {
  for (const auto& [k, v] : a)
    if (k == key && v.is_number()) return v.get<double>();
  return fallback;
}

bool flag(const study::Arguments& a, const std::string& key) {
  for (const auto& [k, v] : a)
    if (k == key && v.is_boolean()) return v.get<bool>();
  return false;
}

std::string text(const study::Arguments& a, const std::string& key) {
  for (const auto& [k, v] : a)
    if (k == key && v.is_string()) return v.get<std::string>();
  return "";
}

}  // namespace

study::UnitEstimate estimate_model(const std::string& model, const study::Arguments& a) {
  if (model.starts_with("bound ")) return {1 << 20, 0.01};
  const std::string graph = text(a, "graph");
  if (graph.empty()) return {};
  const GraphSize g = graph_size(graph);
  const double n = g.n, m = g.m, entries = 2 * m + n;  // nonzeros of W
  const double steps_or = number(a, "steps", 0);
  const double T =
      steps_or > 0 ? steps_or : 4 * std::log2(std::max(2.0, n)) + 8;  // "auto": a few mixing times
  if (model == "gossip-loss") {
    // the least it needs: W, the row norms (T x n) and a tile of 64 sources (it tiles to the memory at hand)
    return {16 * entries + 8 * n * (T + 1) + 24 * n * 64, T * entries * n / 1e10 + 8 * n * n / 1e9};
  }
  if (model == "walk-loss") {
    const bool dense_spectrum = text(a, "method") != "series";
    return {16 * entries + 32 * n * n,
            (dense_spectrum ? n * n * n / 7e9 : T * entries * n / 1e10) + 8 * n * n / 1e9};
  }
  if (model == "walk-sim") {
    const double runs = number(a, "runs", 1), walk_steps = number(a, "steps", 1);
    const bool accounted = !flag(a, "no-accounting");
    const double rate = accounted ? 3e6 : (graph.starts_with("complete") ? 4e8 : 1e7);
    return {16 * entries * (graph.starts_with("complete") ? 0 : 1) + 64 * n * (accounted ? 4 : 1),
            runs * walk_steps / rate};
  }
  if (model == "gossip-sim") {
    const double runs = number(a, "runs", 1), dim = number(a, "dim", 1);
    double seconds = runs * dim * T * entries / 6e8,
           bytes = 16 * entries + 24 * n * dim * std::min(runs, 256.0);
    if (flag(a, "privacy")) {
      seconds += T * entries * n / 1e10 + 8 * n * n / 1e9;
      bytes += 24 * n * n;
    }
    return {bytes, seconds};
  }
  if (model == "muffliato-gd") {
    const double runs = number(a, "runs", 1), dim = number(a, "dim", 10),
                 rounds = number(a, "gossip-rounds", 10);
    return {16 * entries + 32 * n * dim * runs, runs * T * rounds * entries * dim / 3e8};
  }
  return {};
}

}  // namespace netdp::cli
