#include "netdp/core/weighting.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <string>

#include "netdp/core/error.hpp"
#include "netdp/core/format.hpp"
#include "netdp/core/graph_io.hpp"
#include "netdp/core/memory_graphs.hpp"

namespace netdp {
namespace {

constexpr std::string_view kValidSchemes =
    "metropolis, hamilton-literal, max-degree, lazy-uniform, file:PATH";

std::string entry(node_t i, node_t j) {
  return "(" + std::to_string(i) + ", " + std::to_string(j) + ")";
}

// Off-diagonal W_uv for {u, v} in E (docs/math.md §2.2).
double edge_weight(Weighting scheme, node_t du, node_t dv, node_t dmax) {
  switch (scheme) {
    case Weighting::metropolis:
      return 1.0 / (1.0 + std::max(du, dv));  // W-MH
    case Weighting::hamilton_literal:
      return 1.0 / std::max(du, dv);  // W-HAM-lit
    case Weighting::max_degree:
      return 1.0 / dmax;  // W-LAP: I - L/d_max
    default:
      return 0.5 / du;  // lazy-uniform
  }
}

// The diagonal is W_uu = base + sum_{v in N(u)} (cap - W_uv), with cap the weight u gives a neighbour no more
// connected than itself and base = 1 - d_u cap. This equals 1 - sum_v W_uv but adds only non-negative terms,
// so exact cases stay exact: the complete graph gives J/n bit for bit, and a zero diagonal is 0, not +-1e-17.
struct RowRule {
  double cap = 0, base = 1;
};

RowRule row_rule(Weighting scheme, node_t du, node_t dmax) {
  if (du == 0) return {};  // isolated node: W_uu = 1
  switch (scheme) {
    case Weighting::metropolis:
      return {1.0 / (1.0 + du), 1.0 / (1.0 + du)};
    case Weighting::hamilton_literal:
      return {1.0 / du, 0.0};
    case Weighting::max_degree:
      return {1.0 / dmax, double(dmax - du) / dmax};
    default:
      return {0.5 / du, 0.5};
  }
}

// Size and CSR structure of w, so that the entry checks below can index safely.
void check_shape(const CsrMatrix& w, const Graph& g, const std::string& what) {
  if (w.n != g.n)
    throw InvalidInput(what + " is " + std::to_string(w.n) + " x " + std::to_string(w.n) +
                       " but the graph has " + std::to_string(g.n) + " nodes");
  if (w.offsets.size() != static_cast<std::size_t>(w.n) + 1 || w.offsets.front() != 0 ||
      w.offsets.back() != static_cast<offset_t>(w.columns.size()) || w.columns.size() != w.values.size())
    throw InvalidInput(what + " has inconsistent CSR arrays");
  for (node_t i = 0; i < w.n; ++i) {
    if (w.offsets[i + 1] < w.offsets[i])
      throw InvalidInput(what + ": CSR offsets decrease at row " + std::to_string(i));
    for (offset_t k = w.offsets[i]; k < w.offsets[i + 1]; ++k) {
      node_t j = w.columns[k];
      if (j < 0 || j >= w.n)
        throw InvalidInput(what + ": row " + std::to_string(i) + " has column " + std::to_string(j) +
                           " outside [0, " + std::to_string(w.n) + ")");
      if (k > w.offsets[i] && w.columns[k - 1] >= j)
        throw InvalidInput(what + ": row " + std::to_string(i) + " is not sorted or repeats column " +
                           std::to_string(j));
    }
  }
}

// W_ij != 0 with i != j requires {i, j} in E (docs/math.md §2.1).
void check_support_entry(const Graph& g, node_t i, node_t j, double value, const std::string& what) {
  if (i == j || value == 0.0) return;
  auto row = g.neighbors(i);
  if (!std::binary_search(row.begin(), row.end(), j))
    throw InvalidInput(what + " entry " + entry(i, j) + " = " + format_double(value) +
                       " is off the graph: {" + std::to_string(i) + ", " + std::to_string(j) +
                       "} is not an edge");
}

}  // namespace

WeightsSpec parse_weights_spec(std::string_view text) {
  if (text == "metropolis") return {Weighting::metropolis, {}};
  if (text == "hamilton-literal") return {Weighting::hamilton_literal, {}};
  if (text == "max-degree") return {Weighting::max_degree, {}};
  if (text == "lazy-uniform") return {Weighting::lazy_uniform, {}};
  if (text.starts_with("file:")) {
    if (text.size() == 5) throw InvalidInput("weights 'file:' needs a path, e.g. file:weights.mtx");
    return {Weighting::file, std::string(text.substr(5))};
  }
  if (text.starts_with("memory:")) {  // docs/graphs.md "Graphs in memory"
    constexpr std::string_view prefix = "memory:id=";
    const std::string_view digits = text.starts_with(prefix) ? text.substr(prefix.size()) : "";
    std::int64_t id = -1;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), id);
    if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size() || id < 0)
      throw InvalidInput("weights '" + excerpt(text) + "': expected memory:id=K (K >= 0)");
    return {Weighting::file, {}, id};
  }
  throw InvalidInput("unknown weighting '" + std::string(text) + "' (valid: " + std::string(kValidSchemes) +
                     ")");
}

std::string to_string(const WeightsSpec& spec) {
  switch (spec.scheme) {
    case Weighting::metropolis:
      return "metropolis";
    case Weighting::hamilton_literal:
      return "hamilton-literal";
    case Weighting::max_degree:
      return "max-degree";
    case Weighting::lazy_uniform:
      return "lazy-uniform";
    case Weighting::file:
      return spec.memory_id >= 0 ? memory_spec(spec.memory_id) : "file:" + spec.path;
  }
  return "?";
}

CsrMatrix gossip_matrix(const Graph& g, Weighting scheme) {
  if (scheme == Weighting::file)
    throw InvalidInput("gossip_matrix: a file weighting has no formula; use make_weights");
  node_t dmax = 0;
  for (node_t u = 0; u < g.n; ++u) dmax = std::max(dmax, g.degree(u));
  CsrMatrix w;
  w.n = g.n;
  w.offsets.assign(static_cast<std::size_t>(g.n) + 1, 0);
  w.columns.reserve(g.adjacency.size() + g.n);
  w.values.reserve(g.adjacency.size() + g.n);
  for (node_t u = 0; u < g.n; ++u) {
    const node_t du = g.degree(u);
    const RowRule rule = row_rule(scheme, du, dmax);
    double diagonal = rule.base;
    for (node_t v : g.neighbors(u)) diagonal += rule.cap - edge_weight(scheme, du, g.degree(v), dmax);
    bool diagonal_done = diagonal == 0.0;  // store the diagonal only when it is non-zero
    for (node_t v : g.neighbors(u)) {
      if (!diagonal_done && v > u) {
        w.columns.push_back(u);
        w.values.push_back(diagonal);
        diagonal_done = true;
      }
      w.columns.push_back(v);
      w.values.push_back(edge_weight(scheme, du, g.degree(v), dmax));
    }
    if (!diagonal_done) {
      w.columns.push_back(u);
      w.values.push_back(diagonal);
    }
    w.offsets[u + 1] = static_cast<offset_t>(w.columns.size());
  }
  return w;
}

CsrMatrix make_weights(const Graph& g, const WeightsSpec& spec) {
  if (spec.scheme != Weighting::file) return gossip_matrix(g, spec.scheme);
  // A matrix from memory is checked as one from a file: used as given once it fits g.
  const bool memory = spec.memory_id >= 0;
  const std::string what = memory ? "weights '" + to_string(spec) + "'" : "weights file '" + spec.path + "'";
  CsrMatrix w = memory ? *memory_weights(spec.memory_id, what) : load_weight_matrix(spec.path);
  check_shape(w, g, what);
  for (node_t i = 0; i < w.n; ++i)
    for (offset_t k = w.offsets[i]; k < w.offsets[i + 1]; ++k)
      check_support_entry(g, i, w.columns[k], w.values[k], what);
  return w;
}

void validate_row_stochastic(const CsrMatrix& w, const Graph& g, double tolerance) {
  check_shape(w, g, "W");
  for (node_t i = 0; i < w.n; ++i) {
    double sum = 0;
    for (offset_t k = w.offsets[i]; k < w.offsets[i + 1]; ++k) {
      const node_t j = w.columns[k];
      const double x = w.values[k];
      if (!std::isfinite(x))
        throw InvalidInput("W entry " + entry(i, j) + " = " + format_double(x) + " is not finite");
      if (x < -tolerance)
        throw InvalidInput("W entry " + entry(i, j) + " = " + format_double(x) + " is negative");
      check_support_entry(g, i, j, x, "W");
      sum += x;
    }
    if (!(std::abs(sum - 1.0) <= tolerance))
      throw InvalidInput("W row " + std::to_string(i) + " sums to " + format_double(sum) +
                         ", not 1 (tolerance " + format_double(tolerance) + ")");
  }
}

void validate_gossip_matrix(const CsrMatrix& w, const Graph& g, double tolerance) {
  validate_row_stochastic(w, g, tolerance);
  // Every stored entry is compared with its transpose, so an entry stored on one side only is caught too.
  for (node_t i = 0; i < w.n; ++i)
    for (offset_t k = w.offsets[i]; k < w.offsets[i + 1]; ++k) {
      const node_t j = w.columns[k];
      const double mirror = w.at(j, i);
      if (!(std::abs(w.values[k] - mirror) <= tolerance))
        throw InvalidInput("W is not symmetric: entry " + entry(i, j) + " = " + format_double(w.values[k]) +
                           " but " + entry(j, i) + " = " + format_double(mirror) + " (tolerance " +
                           format_double(tolerance) + ")");
    }
}

}  // namespace netdp
