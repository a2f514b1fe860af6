#include "netdp/mf/mf_baseline.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "netdp/core/error.hpp"
#include "netdp/core/format.hpp"

namespace netdp::mf {

namespace {

/// The row of attacker v: S(u -> v) for every u (docs/math.md §6.5, "muffliato_mfdl").
std::vector<double> baseline_row(const CsrMatrix& w, int steps, node_t attacker) {
  const std::int64_t n = w.n;
  std::vector<double> row(static_cast<std::size_t>(n), 0.0);
  // The nodes v observes: {w : W_vw > 0} and v itself (as the PNDP view of docs/math.md §9.4).
  std::vector<node_t> seen{attacker};
  for (offset_t k = w.offsets[attacker]; k < w.offsets[attacker + 1]; ++k)
    if (w.values[static_cast<std::size_t>(k)] > 0) seen.push_back(w.columns[static_cast<std::size_t>(k)]);
  std::sort(seen.begin(), seen.end());
  seen.erase(std::unique(seen.begin(), seen.end()), seen.end());
  const auto m = static_cast<std::int64_t>(seen.size());
  // x = the columns W^s e_w of the observed w, n x m row-major; x <- W x gives the next power.
  std::vector<double> x(static_cast<std::size_t>(n * m), 0.0), next(x.size());
  for (std::int64_t i = 0; i < m; ++i)
    x[static_cast<std::size_t>(seen[static_cast<std::size_t>(i)] * m + i)] = 1;
  std::vector<double> norm2(static_cast<std::size_t>(m));
  for (int s = 0; s < steps; ++s) {
    if (s > 0) {
      csr_multiply(w, x.data(), next.data(), m, false);
      x.swap(next);
    }
    std::fill(norm2.begin(), norm2.end(), 0.0);
    for (std::int64_t u = 0; u < n; ++u)
      for (std::int64_t i = 0; i < m; ++i) {
        const double e = x[static_cast<std::size_t>(u * m + i)];
        norm2[static_cast<std::size_t>(i)] += e * e;
      }
    // Each (u, s) term weighs T - s: the gradient of round t is seen at rounds t..T-1 (§6.5).
    const double weight = steps - s;
    for (std::int64_t u = 0; u < n; ++u) {
      double sum = 0;
      for (std::int64_t i = 0; i < m; ++i)
        if (norm2[static_cast<std::size_t>(i)] > 0)
          sum += x[static_cast<std::size_t>(u * m + i)] / norm2[static_cast<std::size_t>(i)];
      row[static_cast<std::size_t>(u)] += weight * sum;
    }
  }
  row[static_cast<std::size_t>(attacker)] = std::numeric_limits<double>::infinity();
  return row;
}

}  // namespace

Matrix muffliato_baseline_sum(const CsrMatrix& w, int steps, const std::vector<node_t>& attackers,
                              bool parallel) {
  if (steps < 1) throw InvalidParameter("steps", "steps must be >= 1, got " + std::to_string(steps));
  const std::int64_t n = w.n, na = static_cast<std::int64_t>(attackers.size());
  Matrix out(na, n);
#pragma omp parallel for schedule(dynamic, 1) if (parallel)
  for (std::int64_t a = 0; a < na; ++a) {
    const std::vector<double> row = baseline_row(w, steps, attackers[static_cast<std::size_t>(a)]);
    std::copy(row.begin(), row.end(), out.a.begin() + a * n);
  }
  return out;
}

Matrix muffliato_baseline_loss(const CsrMatrix& w, const MuffliatoBaselineParams& p,
                               const std::vector<node_t>& attackers, bool parallel) {
  if (!(p.alpha > 1)) throw InvalidParameter("alpha", "alpha must be > 1, got " + format_double(p.alpha));
  if (!(p.sigma > 0)) throw InvalidParameter("sigma", "sigma must be > 0, got " + format_double(p.sigma));
  if (!(p.sensitivity > 0))
    throw InvalidParameter("sensitivity", "sensitivity must be > 0, got " + format_double(p.sensitivity));
  Matrix loss = muffliato_baseline_sum(w, p.steps, attackers, parallel);
  const double factor = p.sensitivity * p.sensitivity * p.alpha / (2 * p.sigma * p.sigma);
  for (double& x : loss.a)
    if (!std::isinf(x)) x = factor * std::min(static_cast<double>(p.steps), x);
  return loss;
}

}  // namespace netdp::mf
