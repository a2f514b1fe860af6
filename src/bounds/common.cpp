#include "netdp/bounds/common.hpp"

#include <algorithm>
#include <cmath>
#include <queue>

#include "checks.hpp"
#include "netdp/core/error.hpp"

namespace netdp::bounds {
using namespace detail;

Composition parse_composition(std::string_view text) {
  if (text == "optimal_min" || text == "optimal-min") return Composition::optimal_min;
  if (text == "advanced") return Composition::advanced;
  if (text == "simple") return Composition::simple;
  throw InvalidInput("unknown composition '" + std::string(text) +
                     "' (expected optimal_min, advanced or simple)");
}

std::string to_string(Composition c) {
  switch (c) {
    case Composition::optimal_min:
      return "optimal_min";
    case Composition::advanced:
      return "advanced";
    case Composition::simple:
      return "simple";
  }
  return "?";
}

dp::EpsDelta compose(Composition c, double epsilon, double delta, double k, double delta_prime) {
  switch (c) {
    case Composition::optimal_min:
      return dp::optimal_composition(epsilon, delta, k, delta_prime);
    case Composition::advanced:
      return dp::advanced_composition(epsilon, delta, k, delta_prime);
    case Composition::simple:
      return dp::simple_composition(epsilon, delta, k);
  }
  return {};
}

Contributions parse_contributions(std::string_view text) {
  if (text == "chernoff" || text == "random") return Contributions::chernoff;
  if (text == "fixed") return Contributions::fixed;
  throw InvalidInput("unknown contributions '" + std::string(text) + "' (expected chernoff or fixed)");
}

std::string to_string(Contributions c) {
  return c == Contributions::chernoff ? "chernoff" : "fixed";
}

double contribution_count(double steps, double n, const ContributionOptions& o) {
  require(steps >= 1 && std::isfinite(steps), "contribution_count", "T", steps, "finite and >= 1");
  require_n("contribution_count", n);
  if (o.kind == Contributions::fixed) return steps / n;
  return dp::chernoff_visit_bound(steps, n, o.delta_hat, o.formula);
}

double contribution_delta(const ContributionOptions& o) {
  return o.kind == Contributions::fixed ? 0.0 : o.delta_hat;
}

bool contribution_count_proven(double steps, double n, const ContributionOptions& o) {
  if (o.kind == Contributions::fixed) return true;
  return o.formula == dp::NvFormula::proof && dp::chernoff_visit_bound_valid(steps, n, o.delta_hat);
}

double effective_n(double n, double colluders) {
  require_n("collusion", n);
  require(colluders == 1 || (colluders > 1 && colluders < n), "collusion", "colluders", colluders,
          "1, or > 1 and < n");
  return n / colluders;
}

SpottedLoss spotted_loss(double contributions, double n, double epsilon_local, double delta_local,
                         double delta_tilde, double delta_prime, Composition composition) {
  SpottedLoss s;
  s.count = dp::spotted_contributions(contributions, n, delta_tilde);
  const dp::EpsDelta c = compose(composition, epsilon_local, delta_local, s.count, delta_prime);
  s.epsilon = c.epsilon;
  s.delta = c.delta + delta_tilde;
  return s;
}

CycleMaximum maximize_over_cycle_lengths(std::int64_t m_max, const std::function<double(std::int64_t)>& f,
                                         const std::function<double(std::int64_t, std::int64_t)>& upper,
                                         std::int64_t exhaustive_limit) {
  require(m_max >= 1, "maximize_over_cycle_lengths", "m_max", double(m_max), ">= 1");
  CycleMaximum best{f(1), 1};
  auto consider = [&](std::int64_t m) {
    const double v = f(m);
    if (v > best.value) best = {v, m};
  };
  if (m_max <= exhaustive_limit) {
    for (std::int64_t m = 2; m <= m_max; ++m) consider(m);
    return best;
  }
  consider(m_max);
  // Best-first: an interval whose upper bound cannot beat the best value found is dropped; the endpoints
  // of every queued interval have been evaluated.
  struct Interval {
    double bound;
    std::int64_t lo, hi;
    bool operator<(const Interval& o) const { return bound < o.bound; }
  };
  std::priority_queue<Interval> queue;
  queue.push({upper(1, m_max), 1, m_max});
  while (!queue.empty()) {
    const Interval top = queue.top();
    queue.pop();
    if (top.bound <= best.value * (1 + 1e-13)) break;
    if (top.hi - top.lo <= 1) continue;
    const std::int64_t mid = top.lo + (top.hi - top.lo) / 2;
    consider(mid);
    queue.push({upper(top.lo, mid), top.lo, mid});
    queue.push({upper(mid, top.hi), mid, top.hi});
  }
  return best;
}

std::vector<double> logspace(double start, double stop, int num) {
  require(num >= 1, "logspace", "num", num, ">= 1");
  require(std::isfinite(start) && std::isfinite(stop), "logspace", "start and stop", start, "finite");
  std::vector<double> v(num);
  const double step = num > 1 ? (stop - start) / (num - 1) : 0.0;
  for (int i = 0; i < num; ++i) v[i] = std::pow(10.0, i + 1 == num && num > 1 ? stop : start + i * step);
  return v;
}

NRounding parse_n_rounding(std::string_view text) {
  if (text == "none") return NRounding::none;
  if (text == "nearest") return NRounding::nearest;
  if (text == "floor") return NRounding::floor;
  if (text == "ceil") return NRounding::ceil;
  throw InvalidInput("unknown n rounding '" + std::string(text) +
                     "' (expected none, nearest, floor or ceil)");
}

std::string to_string(NRounding r) {
  switch (r) {
    case NRounding::none:
      return "none";
    case NRounding::nearest:
      return "nearest";
    case NRounding::floor:
      return "floor";
    case NRounding::ceil:
      return "ceil";
  }
  return "?";
}

std::vector<double> round_n_grid(const std::vector<double>& n, NRounding rounding) {
  std::vector<double> out;
  for (double x : n) {
    require_n("n grid", x);
    double r = x;
    if (rounding == NRounding::nearest) r = std::round(x);
    if (rounding == NRounding::floor) r = std::floor(x);
    if (rounding == NRounding::ceil) r = std::ceil(x);
    if (out.empty() || out.back() != r) out.push_back(r);
  }
  return out;
}

std::int64_t require_integer_n(double n, const char* what) {
  if (!(n >= 1 && n <= 9e15 && std::floor(n) == n))
    throw InvalidInput(std::string(what) + " needs an integer n (got " + format_double(n) +
                       "); use n-round nearest");
  return static_cast<std::int64_t>(n);
}

}  // namespace netdp::bounds
