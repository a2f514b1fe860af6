// MF-D-SGD on the CPU (docs/math.md §9.2, docs/mf.md "netdp mf-sgd"): runs spread over the OpenMP threads,
// each run with its own noise streams and the same serial code, so results do not depend on the thread count.
#include "netdp/mf/mf_sgd.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <span>
#include <string>

#include "common/convex_model_math.hpp"
#include "core/progress.hpp"
#include "netdp/core/error.hpp"
#include "netdp/core/philox.hpp"
#include "netdp/mf/mf_trust.hpp"

namespace netdp::mf {

namespace {

bool is_zero(const Matrix& m) {
  return std::all_of(m.a.begin(), m.a.end(), [](double v) { return v == 0.0; });
}

/// C_u^-1 and the noise scale s_u of every entry of c (empty inverse: no noise).
struct NoisePlan {
  std::vector<Matrix> inverse;
  std::vector<double> scale;
};

NoisePlan noise_plan(const std::vector<Matrix>& c, const MfSgdParams& p) {
  NoisePlan plan;
  for (const Matrix& m : c) {
    if (p.sigma == 0 || is_zero(m)) {
      plan.inverse.emplace_back();
      plan.scale.push_back(0.0);
      continue;
    }
    Matrix inv = m;
    if (!invert(inv))
      throw InvalidParameter("correlation", "correlation: C must be invertible (or 0 for no noise)");
    plan.inverse.push_back(std::move(inv));
    plan.scale.push_back(p.clip * p.sigma * sensitivity(m, p.participation));
  }
  return plan;
}

/// One run; `visit(t, theta)` sees theta_t (n x d) for t = 0 .. T.
void run_once(const CsrMatrix& w, const NoisePlan& plan, const LocalData& train, const MfSgdParams& p,
              std::int64_t run, const std::function<void(std::int64_t, const Matrix&)>& visit) {
  const node_t n = w.n;
  const int d = train.dim, T = p.participation.steps(), b = p.participation.batches;
  const auto loss = static_cast<kernels::convex::Loss>(static_cast<int>(p.objective));
  std::vector<Matrix> noise(static_cast<std::size_t>(n));
  for (node_t u = 0; u < n; ++u) {
    const std::size_t k = plan.inverse.size() == 1 ? 0 : static_cast<std::size_t>(u);
    if (!plan.inverse[k].a.empty())
      noise[static_cast<std::size_t>(u)] = mf_sgd_noise(plan.inverse[k], plan.scale[k], p.seed, run, u, d);
  }
  Matrix theta(n, d), half(n, d);
  std::vector<double> g(static_cast<std::size_t>(d)), sum(static_cast<std::size_t>(d));
  visit(0, theta);
  for (int t = 0; t < T; ++t) {
    const int batch = t % b;
    for (node_t u = 0; u < n; ++u) {
      const double* th = theta.a.data() + static_cast<std::int64_t>(u) * d;
      std::fill(sum.begin(), sum.end(), 0.0);
      std::int64_t size = 0;
      for (std::int64_t i = train.offsets[u] + batch; i < train.offsets[u + 1]; i += b, ++size) {
        const double* x = train.features.data() + i * d;
        const double y = train.labels.empty() ? 0.0 : train.labels[static_cast<std::size_t>(i)];
        kernels::convex::example_gradient(loss, x, y, th, d, g.data());
        const double f = kernels::convex::clip_scale(g.data(), d, p.clip);
        for (int k = 0; k < d; ++k) sum[k] += f * g[k];
      }
      const Matrix& nu = noise[static_cast<std::size_t>(u)];
      double* out = half.a.data() + static_cast<std::int64_t>(u) * d;
      for (int k = 0; k < d; ++k) {
        const double z = nu.a.empty() ? 0.0 : nu(t, k);
        out[k] = th[k] - p.step_size * ((sum[k] + z) / static_cast<double>(size) + p.l2 * th[k]);
      }
    }
    csr_multiply(w, half.a.data(), theta.a.data(), d, false);
    visit(t + 1, theta);
  }
}

/// Mean, population std, min and max over the runs of every evaluated point (values[r * points + e]).
RunStatistics over_runs(const std::vector<double>& values, std::int64_t runs, std::int64_t points) {
  RunStatistics s;
  for (std::int64_t e = 0; e < points; ++e) {
    double sum = 0.0, lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (std::int64_t r = 0; r < runs; ++r) {
      const double x = values[static_cast<std::size_t>(r * points + e)];
      sum += x, lo = std::min(lo, x), hi = std::max(hi, x);
    }
    const double mean = sum / static_cast<double>(runs);
    double var = 0.0;
    for (std::int64_t r = 0; r < runs; ++r) {
      const double d = values[static_cast<std::size_t>(r * points + e)] - mean;
      var += d * d;
    }
    if (std::isnan(mean)) lo = hi = mean;  // accuracy of a regression: nan throughout
    s.mean.push_back(mean);
    s.std.push_back(std::sqrt(var / static_cast<double>(runs)));
    s.min.push_back(lo);
    s.max.push_back(hi);
  }
  return s;
}

std::vector<double> mean_model(const Matrix& theta) {
  std::vector<double> m(static_cast<std::size_t>(theta.cols), 0.0);
  for (std::int64_t u = 0; u < theta.rows; ++u)
    for (std::int64_t k = 0; k < theta.cols; ++k) m[static_cast<std::size_t>(k)] += theta(u, k) / theta.rows;
  return m;
}

}  // namespace

void validate(const MfSgdParams& p, const CsrMatrix& w, const std::vector<Matrix>& c,
              const LocalData& train) {
  const int T = p.participation.steps();
  if (!(p.step_size > 0)) throw InvalidParameter("step-size", "step-size must be > 0");
  if (!(p.clip > 0)) throw InvalidParameter("clip", "clip must be > 0");
  if (!(p.sigma >= 0)) throw InvalidParameter("sigma", "sigma must be >= 0");
  if (!(p.l2 >= 0)) throw InvalidParameter("l2", "l2 must be >= 0");
  if (p.runs < 1) throw InvalidParameter("runs", "runs must be >= 1");
  if (p.eval_every < 1) throw InvalidParameter("eval-every", "eval-every must be >= 1");
  if (train.n != w.n)
    throw InvalidParameter("data", "data: " + std::to_string(train.n) + " users but the graph has " +
                                       std::to_string(w.n) + " nodes");
  if (c.size() != 1 && static_cast<std::int64_t>(c.size()) != w.n)
    throw InvalidParameter("correlation", "correlation: expected one C or one per node");
  for (const Matrix& m : c)
    if (m.rows != T || m.cols != T)
      throw InvalidParameter("correlation",
                             "correlation: C must be " + std::to_string(T) + " x " + std::to_string(T));
  for (node_t u = 0; u < train.n; ++u)
    if (train.size(u) < p.participation.batches)
      throw InvalidParameter(
          "participation",
          "participation: node " + std::to_string(u) + " holds " + std::to_string(train.size(u)) +
              " examples, fewer than b = " + std::to_string(p.participation.batches) + " batches");
}

Matrix mf_sgd_noise(const Matrix& c_inverse, double scale, std::uint64_t seed, std::int64_t run, node_t u,
                    int dim) {
  const std::int64_t T = c_inverse.rows;
  Matrix z(T, dim);
  PhiloxStream s(seed, mf_sgd_subsequence(static_cast<std::uint64_t>(run), static_cast<std::uint64_t>(u)), 0);
  for (std::size_t i = 0; i < z.a.size(); i += 2) {
    const auto [first, second] = s.next_normal_pair();
    z.a[i] = first;
    if (i + 1 < z.a.size()) z.a[i + 1] = second;
  }
  Matrix out = multiply(c_inverse, z);
  for (double& v : out.a) v *= scale;
  return out;
}

std::vector<Matrix> mf_sgd_trajectory(const CsrMatrix& w, const std::vector<Matrix>& c,
                                      const LocalData& train, const MfSgdParams& p, std::int64_t run) {
  validate(p, w, c, train);
  std::vector<Matrix> out;
  run_once(w, noise_plan(c, p), train, p, run,
           [&](std::int64_t, const Matrix& theta) { out.push_back(theta); });
  return out;
}

MfSgdResult mf_sgd(const CsrMatrix& w, const std::vector<Matrix>& c, const LocalData& train,
                   const LocalData& test, const MfSgdParams& p, const std::function<void(double)>& progress) {
  validate(p, w, c, train);
  const Stopwatch clock;
  const NoisePlan plan = noise_plan(c, p);
  const std::int64_t T = p.participation.steps();
  MfSgdResult out;
  for (std::int64_t t = 0; t < T; t += p.eval_every) out.step.push_back(t);
  out.step.push_back(T);
  const auto points = static_cast<std::int64_t>(out.step.size());
  const std::size_t cells = static_cast<std::size_t>(p.runs * points);
  std::vector<double> objective(cells), test_loss(cells), accuracy_values(cells), consensus(cells);
  const LocalData& held = test.examples() > 0 ? test : train;
  const bool logistic = p.objective == Objective::logistic;
  for_each_run(p.runs, progress, [&](std::int64_t r) {
    std::int64_t e = 0;
    run_once(w, plan, train, p, r, [&](std::int64_t t, const Matrix& theta) {
      if (e >= points || out.step[static_cast<std::size_t>(e)] != t) return;
      const std::vector<double> bar = mean_model(theta);
      const std::size_t cell = static_cast<std::size_t>(r * points + e);
      objective[cell] = global_objective(p.objective, train, p.l2, bar);
      test_loss[cell] = global_objective(p.objective, held, 0.0, bar);
      accuracy_values[cell] = logistic ? accuracy(held, bar) : std::numeric_limits<double>::quiet_NaN();
      double spread = 0.0;
      for (std::int64_t u = 0; u < theta.rows; ++u)
        for (std::int64_t k = 0; k < theta.cols; ++k) {
          const double diff = theta(u, k) - bar[static_cast<std::size_t>(k)];
          spread += diff * diff;
        }
      consensus[cell] = spread / static_cast<double>(theta.rows);
      ++e;
    });
  });
  out.objective = over_runs(objective, p.runs, points);
  out.test_loss = over_runs(test_loss, p.runs, points);
  out.accuracy = over_runs(accuracy_values, p.runs, points);
  out.consensus = over_runs(consensus, p.runs, points);
  out.noise_std = plan.scale;
  out.threads = omp_get_max_threads();
  out.seconds = clock.seconds();
  return out;
}

}  // namespace netdp::mf
