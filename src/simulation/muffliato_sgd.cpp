// Muffliato-SGD scored as a learning run (docs/muffliato_sgd.md): muffliato-gd's engine makes every run's
// states, this file measures them. One run per thread; every run's values are stored and reduced in run
// order, so the thread count changes nothing.
#include "netdp/simulation/muffliato_sgd.hpp"

#include <omp.h>

#include <cmath>
#include <exception>
#include <limits>

#include "core/progress.hpp"
#include "netdp/accounting/gossip_loss_sequence.hpp"
#include "netdp/core/error.hpp"
#include "netdp/core/format.hpp"
#include "netdp/core/spectral.hpp"

namespace netdp {

int muffliato_sgd_gossip_steps(node_t n, double gap) {
  if (!(gap > 0) || gap > 1)
    throw InvalidInput("gossip steps: the spectral gap must be in (0, 1], got " + format_double(gap));
  if (gap >= 1) return 1;
  const double root = std::sqrt(gap), rate = std::log((1 + root) / (1 - root));
  return std::max(1, static_cast<int>(std::ceil(std::log(2.0 * double(n)) / rate)));
}

double muffliato_sgd_mean_loss(const Graph& g, int gossip_steps, int participations, double alpha,
                               MuffliatoSgdComposition composition, bool all_pairs) {
  GossipLossParams unit;                        // multiplier 1: noise std = sensitivity = 1
  unit.accounting = GossipAccounting::theorem;  // Theorem C.9's per-message sum (docs/math.md §6.9)
  unit.alpha = alpha;
  unit.sigma = 1;
  unit.sensitivity = 1;
  const double rounds = composition == MuffliatoSgdComposition::squared
                            ? double(participations) * double(participations)
                            : double(participations);
  double worst = 0, sum = 0;
  for (node_t v = 0; v < g.n; ++v) {
    const double loss =
        rounds * gossip_mean_loss_bound(std::int64_t{gossip_steps} * g.degree(v), g.n, unit);  // eq. 6.4
    worst = std::max(worst, loss);
    sum += loss;
  }
  return all_pairs ? (g.n > 1 ? sum / double(g.n - 1) : 0.0) : worst;
}

double muffliato_sgd_ldp_mean_loss(node_t n, int participations, double alpha, bool all_pairs) {
  if (n < 2) return 0.0;  // no pair
  const double pair = double(participations) * alpha / 2;
  return all_pairs ? pair : pair * double(n - 1) / double(n);
}

MuffliatoSgdResult muffliato_sgd(const Graph& g, const CsrMatrix& w, const LocalData& train,
                                 const LocalData& test, MuffliatoGdParams p,
                                 const std::function<void(double)>& progress) {
  const Stopwatch clock;
  validate(p, train);
  if (p.er_per_round) throw InvalidParameter("er-c", "muffliato-sgd runs on a fixed W");
  if (g.n != train.n)
    throw InvalidParameter("graph", "graph: the data have " + std::to_string(train.n) +
                                        " users but the graph has " + std::to_string(g.n) + " nodes");
  MuffliatoSgdResult out;
  out.spectral_gap = p.spectral_gap ? *p.spectral_gap : spectral_summary(w).gap(p.gap_definition);
  p.spectral_gap = out.spectral_gap;  // once, not per run
  out.gamma = chebyshev_gamma(out.spectral_gap);
  const LocalData& scored = test.n > 0 ? test : train;
  const bool logistic = p.objective == Objective::logistic;
  if (logistic && test.n > 0) validate(test, p.objective);
  const std::int64_t points = p.steps + 1, runs = p.runs;
  const int dim = train.dim;
  std::vector<double> objective(static_cast<std::size_t>(runs * points)), accuracy_values(objective.size()),
      consensus(objective.size());
  std::exception_ptr failure;
  std::int64_t failed_run = runs;
  RunCounter finished(runs, progress);
#pragma omp parallel for schedule(dynamic, 1)
  for (std::int64_t r = 0; r < runs; ++r) {
    if (stop_requested()) continue;  // a watched run was asked to stop (core/progress.hpp): thrown below
    try {
      const auto states = muffliato_gd_trajectory(g, w, train, p, r);
      std::vector<double> mean(static_cast<std::size_t>(dim));
      for (std::int64_t t = 0; t < points; ++t) {
        const auto& theta = states[static_cast<std::size_t>(t)];
        std::fill(mean.begin(), mean.end(), 0.0);
        for (node_t v = 0; v < g.n; ++v)
          for (int k = 0; k < dim; ++k) mean[k] += theta[static_cast<std::size_t>(v) * dim + k] / double(g.n);
        double spread = 0;
        for (node_t v = 0; v < g.n; ++v)
          for (int k = 0; k < dim; ++k) {
            const double e = theta[static_cast<std::size_t>(v) * dim + k] - mean[k];
            spread += e * e;
          }
        const auto i = static_cast<std::size_t>(r * points + t);
        objective[i] = global_objective(p.objective, train, p.l2, mean);
        accuracy_values[i] = logistic ? accuracy(scored, mean) : std::numeric_limits<double>::quiet_NaN();
        consensus[i] = spread / double(g.n);
      }
      finished.finished_one();
    } catch (...) {
#pragma omp critical(netdp_muffliato_sgd_failure)
      if (r < failed_run) {
        failed_run = r;
        failure = std::current_exception();
      }
    }
  }
  throw_if_stopped();  // skipped runs hold no values
  if (failure) std::rethrow_exception(failure);
  for (int t = 0; t <= p.steps; ++t) out.step.push_back(t);
  out.objective = run_statistics(objective, runs, points);
  out.accuracy = run_statistics(accuracy_values, runs, points);
  out.consensus = run_statistics(consensus, runs, points);
  out.threads = omp_get_max_threads();
  out.seconds = clock.seconds();
  return out;
}

}  // namespace netdp
