// Private consensus ADMM on the CPU (docs/admm.md): every run keeps its own blocks and Philox stream, the
// runs spread over the threads; the prox and the block update are the single-source bodies of
// kernels/common/admm_bodies.hpp.
#include "netdp/simulation/admm.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "common/admm_bodies.hpp"
#include "core/progress.hpp"
#include "netdp/core/error.hpp"
#include "netdp/core/format.hpp"
#include "netdp/core/philox.hpp"
#include "netdp/simulation/admm_prox.hpp"

namespace netdp {

void validate(const AdmmParams& p, const LocalData& train) {
  validate(train, p.objective);
  if (train.n < 2) throw InvalidParameter("users", "users must be >= 2, got " + std::to_string(train.n));
  if (p.steps < 1) throw InvalidParameter("steps", "steps must be >= 1, got " + std::to_string(p.steps));
  if (p.steps >= (std::int64_t{1} << 31))
    throw InvalidParameter("steps",
                           "steps must be below 2^31 (the stream layout), got " + std::to_string(p.steps));
  if (p.setting == AdmmSetting::federated && (p.sampled < 1 || p.sampled > train.n))
    throw InvalidParameter("sampled", "sampled must be in [1, users = " + std::to_string(train.n) +
                                          "], got " + std::to_string(p.sampled));
  if (!(p.step_size > 0) || !std::isfinite(p.step_size))
    throw InvalidParameter("step-size",
                           "step-size must be a finite number > 0, got " + format_double(p.step_size));
  if (!(p.relaxation > 0 && p.relaxation <= 1))
    throw InvalidParameter("relaxation", "relaxation must be in (0, 1], got " + format_double(p.relaxation));
  if (!(p.sigma >= 0) || !std::isfinite(p.sigma))
    throw InvalidParameter("sigma", "sigma must be a finite number >= 0, got " + format_double(p.sigma));
  if (!(p.l2 >= 0) || !std::isfinite(p.l2))
    throw InvalidParameter("l2", "l2 must be a finite number >= 0, got " + format_double(p.l2));
  if (p.newton_steps < 1)
    throw InvalidParameter("newton-steps",
                           "newton-steps must be >= 1, got " + std::to_string(p.newton_steps));
  if (p.runs < 1) throw InvalidParameter("runs", "runs must be >= 1, got " + std::to_string(p.runs));
  if (p.eval_every < 1)
    throw InvalidParameter("eval-every", "eval-every must be >= 1, got " + std::to_string(p.eval_every));
}

double admm_prox_step(const AdmmParams& p, node_t users) {
  return p.prox_scale == AdmmProxScale::weighted ? p.step_size / double(users) : p.step_size;
}

std::vector<double> admm_fixed_point(const AdmmParams& p, const LocalData& d, std::span<const double> theta) {
  const int dim = d.dim;
  const double c = admm_prox_step(p, d.n);
  std::vector<double> u(static_cast<std::size_t>(d.n) * dim), g(dim);
  for (node_t i = 0; i < d.n; ++i) {
    double* ui = u.data() + static_cast<std::size_t>(i) * dim;
    for (int k = 0; k < dim; ++k) ui[k] = 0;
    for (std::int64_t j = d.offsets[i]; j < d.offsets[i + 1]; ++j) {
      example_gradient(p.objective, d, j, theta, g);
      for (int k = 0; k < dim; ++k) ui[k] += g[k];
    }
    for (int k = 0; k < dim; ++k) ui[k] = theta[k] - c * (ui[k] / double(d.size(i)) + p.l2 * theta[k]);
  }
  return u;
}

namespace {

/// One run: observe(step, z, u, most) at step 0, every eval_every steps and at K.
template <class Observe>
void simulate(const LocalData& d, const AdmmParams& p, const AdmmProx& prox, std::int64_t run,
              Observe&& observe) {
  const int dim = d.dim;
  const node_t n = d.n;
  const auto sub = run_subsequence(kAdmmStream, static_cast<std::uint64_t>(run));
  std::vector<double> u(static_cast<std::size_t>(n) * dim, 0.0), x(u.size(), 0.0), z(dim, 0.0), sum(dim, 0.0);
  std::vector<double> v(dim), noise(dim + 1), scratch(prox.scratch_size());
  std::vector<std::int64_t> updates(static_cast<std::size_t>(n), 0);
  std::vector<node_t> order(static_cast<std::size_t>(n));
  std::iota(order.begin(), order.end(), node_t{0});
  std::int64_t most = 0, active = p.setting == AdmmSetting::centralized ? n : 1;
  if (p.setting == AdmmSetting::federated) active = p.sampled;
  PhiloxStream first(p.seed, sub, 0);
  node_t holder = p.setting == AdmmSetting::walk
                      ? static_cast<node_t>(first.next_below(static_cast<std::uint32_t>(n)))
                      : 0;
  // z_k is fixed during a step: every active block sees the same z (Algorithm 8.1 applies R to u_k).
  auto update_block = [&](node_t i, PhiloxStream& words) {
    double* ui = u.data() + static_cast<std::size_t>(i) * dim;
    double* xi = x.data() + static_cast<std::size_t>(i) * dim;
    for (int k = 0; k < dim; ++k) v[k] = 2 * z[k] - ui[k];
    prox.apply(i, v.data(), xi, scratch.data());
    for (int k = 0; k < dim; k += 2) {
      const auto [a, b] = words.next_normal_pair();
      noise[k] = a;
      noise[k + 1] = b;
    }
    for (int k = 0; k < dim; ++k) sum[k] -= ui[k];
    kernels::admm::block_update(ui, xi, z.data(), noise.data(), p.sigma, p.relaxation, dim);
    for (int k = 0; k < dim; ++k) sum[k] += ui[k];
    most = std::max(most, ++updates[i]);
  };
  observe(std::int64_t{0}, z, u, most);
  for (std::int64_t k = 0; k < p.steps; ++k) {
    PhiloxStream words(p.seed, sub, static_cast<std::uint64_t>(k + 1) << 32);
    if (p.setting == AdmmSetting::walk) {
      update_block(holder, words);
      holder = static_cast<node_t>(words.next_below(static_cast<std::uint32_t>(n)));
    } else {
      for (std::int64_t j = 0; j < active && p.setting == AdmmSetting::federated; ++j) {
        const auto r = j + static_cast<std::int64_t>(words.next_below(static_cast<std::uint32_t>(n - j)));
        std::swap(order[j], order[r]);
      }
      for (std::int64_t j = 0; j < active; ++j) update_block(order[j], words);
    }
    if (p.setting == AdmmSetting::centralized) {  // recomputed: no drift of the running sum over many rounds
      std::fill(sum.begin(), sum.end(), 0.0);
      for (node_t i = 0; i < n; ++i)
        for (int c = 0; c < dim; ++c) sum[c] += u[static_cast<std::size_t>(i) * dim + c];
    }
    for (int c = 0; c < dim; ++c) z[c] = sum[c] / double(n);  // z = prox_{gamma r}(mean u), r = 0
    if ((k + 1) % p.eval_every == 0 || k + 1 == p.steps) observe(k + 1, z, u, most);
  }
}

std::int64_t evaluations(const AdmmParams& p) {
  return p.steps / p.eval_every + 1 + (p.steps % p.eval_every != 0 ? 1 : 0);
}

/// Mean, population std, min and max over the runs of values[r * points + e].
RunStatistics over_runs(const std::vector<double>& values, std::int64_t runs, std::int64_t points) {
  RunStatistics s;
  for (std::int64_t e = 0; e < points; ++e) {
    double mean = 0, lo = values[e], hi = values[e];
    for (std::int64_t r = 0; r < runs; ++r) {
      mean += values[r * points + e] / double(runs);
      lo = std::min(lo, values[r * points + e]);
      hi = std::max(hi, values[r * points + e]);
    }
    double var = 0;
    for (std::int64_t r = 0; r < runs; ++r) var += std::pow(values[r * points + e] - mean, 2) / double(runs);
    s.mean.push_back(mean);
    s.std.push_back(lo == hi ? 0.0 : std::sqrt(var));
    s.min.push_back(lo);
    s.max.push_back(hi);
  }
  return s;
}

}  // namespace

AdmmResult admm(const LocalData& train, const LocalData& test, const AdmmParams& p,
                std::span<const double> u_star, const std::function<void(double)>& progress) {
  validate(p, train);
  const Stopwatch clock;
  const LocalData& scored = test.n > 0 ? test : train;
  const bool logistic = p.objective == Objective::logistic;
  if (logistic && test.n > 0) validate(test, p.objective);
  const AdmmProx prox(p.objective, train, p.l2, admm_prox_step(p, train.n), p.newton_steps);
  const std::int64_t points = evaluations(p), runs = p.runs;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> objective(static_cast<std::size_t>(runs * points)), accuracy_values(objective.size()),
      distance(objective.size()), participations(objective.size());
  std::vector<std::int64_t> steps(static_cast<std::size_t>(points));
  for_each_run(runs, progress, [&](std::int64_t r) {
    std::int64_t e = 0;
    simulate(
        train, p, prox, r,
        [&](std::int64_t k, const std::vector<double>& z, const std::vector<double>& u, std::int64_t most) {
          const auto i = static_cast<std::size_t>(r * points + e);
          if (r == 0) steps[e] = k;
          ++e;
          objective[i] = global_objective(p.objective, train, p.l2, z);
          accuracy_values[i] = logistic ? accuracy(scored, z) : nan;
          double s = u_star.empty() ? nan : 0.0;
          for (std::size_t j = 0; j < u_star.size(); ++j) s += (u[j] - u_star[j]) * (u[j] - u_star[j]);
          distance[i] = s;
          participations[i] = double(most);
        });
  });
  AdmmResult out;
  out.step = steps;
  out.objective = over_runs(objective, runs, points);
  out.accuracy = over_runs(accuracy_values, runs, points);
  out.distance = over_runs(distance, runs, points);
  out.max_participations_mean = over_runs(participations, runs, points).mean;
  out.seconds = clock.seconds();
  out.threads = std::min<int>(omp_get_max_threads(), static_cast<int>(runs));
  return out;
}

AdmmTrajectory admm_trajectory(const LocalData& train, const AdmmParams& p, std::int64_t run) {
  validate(p, train);
  AdmmParams one = p;
  one.eval_every = 1;
  const AdmmProx prox(p.objective, train, p.l2, admm_prox_step(p, train.n), p.newton_steps);
  AdmmTrajectory t;
  simulate(train, one, prox, run,
           [&](std::int64_t, const std::vector<double>& z, const std::vector<double>& u, std::int64_t) {
             t.z.push_back(z);
             t.u = u;
           });
  return t;
}

double admm_utility_bound(std::int64_t k, double q, double tau, double distance0, double dim, double sigma,
                          double zeta) {
  if (!(tau < 1)) return std::numeric_limits<double>::infinity();
  const double gap = 1 - tau;
  return std::pow(1 - q * q * gap / 8, double(k)) * distance0 +
         8 * ((std::sqrt(dim) * sigma + zeta) / (std::sqrt(q) * gap) +
              (dim * sigma * sigma + zeta * zeta) / (q * q * q * gap * gap * gap));
}

}  // namespace netdp
