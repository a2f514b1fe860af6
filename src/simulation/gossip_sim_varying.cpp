// Gossip with a matrix that changes with time (docs/math.md §6.1, 6.3, 6.4, 6.8): every run follows its own
// schedule, drawn round by round (never held whole), so the runs of a batch are spread over the threads, one
// run per task. The state of a run is n x D row-major.
#include <omp.h>

#include <algorithm>
#include <cstddef>
#include <exception>
#include <optional>
#include <vector>

#include "core/progress.hpp"
#include "simulation/gossip_sim_internal.hpp"

namespace netdp::gossip_sim_detail {

namespace {

/// y = W x for an n x D row-major state (sums in the order of W's row, as the fixed-W panels).
void multiply(const CsrMatrix& w, std::span<const double> x, std::span<double> y, int dim) {
  csr_multiply(w, x.data(), y.data(), dim, false);
}

/// sum_k (x_vk - ref_k)^2 for one node.
double node_error(const double* xv, std::span<const double> ref) {
  double sum = 0;
  for (std::size_t k = 0; k < ref.size(); ++k) {
    const double d = xv[k] - ref[k];
    sum += d * d;
  }
  return sum;
}

/// Er-per-round, dropout, dropout-er and sequence: x^{t+1} = W_t x^t with W_t drawn (or, for a sequence,
/// looked up) for round t.
template <typename Record>
void run_rounds(const SimContext& c, std::int64_t run, std::vector<double>& cur, WorkMeter& meter,
                Record&& record) {
  std::vector<double> next(cur.size());
  GossipRound drawn;
  for (int t = 1; t <= c.p.steps; ++t) {
    const GossipRound* round = &drawn;
    if (c.p.protocol == GossipProtocol::sequence)
      round = &sequence_round(c.p, t - 1);
    else if (c.p.protocol == GossipProtocol::er_per_round)
      drawn = sample_er_round(c.g.n, c.p.edge_probability, c.p.seed, run, t - 1);
    else if (c.p.protocol == GossipProtocol::dropout_er)
      drawn = sample_dropout_er_round(c.g.n, c.p.edge_probability, c.p.dropout, c.p.seed, run, t - 1);
    else
      drawn = sample_dropout_round(c.g, c.p.dropout, c.p.seed, run, t - 1);
    multiply(round->w, cur, next, c.p.dim);
    cur.swap(next);
    record(t);
    meter.add(1);
  }
}

/// Randomized gossip (Alg 6.2): at each tick the two endpoints of the drawn edge take their average. The
/// errors are kept per node and their totals updated with the two changed nodes, O(D) per tick; the totals
/// are summed afresh every n ticks so that rounding cannot build up.
template <typename Record>
void run_ticks(const SimContext& c, const ActivationSampler& sampler, std::int64_t run,
               std::vector<double>& cur, std::span<const double> ref_noisy, WorkMeter& meter,
               Record&& record) {
  const node_t n = c.g.n;
  const int dim = c.p.dim;
  std::vector<double> err_true(static_cast<std::size_t>(n)), err_noisy(err_true.size());
  double total_true = 0, total_noisy = 0;
  auto resum = [&] {
    total_true = total_noisy = 0;
    for (node_t v = 0; v < n; ++v) {
      total_true += err_true[v];
      total_noisy += err_noisy[v];
    }
  };
  for (node_t v = 0; v < n; ++v) {
    err_true[v] = node_error(cur.data() + static_cast<std::size_t>(v) * dim, c.xbar);
    err_noisy[v] = node_error(cur.data() + static_cast<std::size_t>(v) * dim, ref_noisy);
  }
  resum();
  constexpr int kMeterTicks = 1 << 16;
  for (int t = 1; t <= c.p.steps; ++t) {
    const auto [u, v] = sampler.draw(c.p.seed, run, t - 1);
    if (u != v) {
      double* xu = cur.data() + static_cast<std::size_t>(u) * dim;
      double* xv = cur.data() + static_cast<std::size_t>(v) * dim;
      for (int k = 0; k < dim; ++k) xu[k] = xv[k] = 0.5 * (xu[k] + xv[k]);
      for (node_t node : {u, v}) {
        const double* x = cur.data() + static_cast<std::size_t>(node) * dim;
        const double et = node_error(x, c.xbar), en = node_error(x, ref_noisy);
        total_true += et - err_true[node];
        total_noisy += en - err_noisy[node];
        err_true[node] = et;
        err_noisy[node] = en;
      }
    }
    if (t % n == 0) resum();
    record(t, total_true / n, total_noisy / n);
    if (t % kMeterTicks == 0) meter.add(kMeterTicks);
  }
  meter.add(c.p.steps % kMeterTicks);
}

}  // namespace

void simulate_varying(const SimContext& c, std::int64_t first, std::int64_t count, BatchErrors& out,
                      const StateVisitor* visit, WorkMeter& meter) {
  const node_t n = c.g.n;
  const int dim = c.p.dim;
  const std::size_t points = c.times.size();
  out.truth.assign(static_cast<std::size_t>(count) * points, 0.0);
  out.noisy.assign(out.truth.size(), 0.0);
  const bool randomized = c.p.protocol == GossipProtocol::randomized;
  std::optional<ActivationSampler> sampler;
  if (randomized) sampler.emplace(c.g, c.w);

  // An exception may not leave an OpenMP region (std::terminate): the first one is kept and rethrown after it
  // (er-per-round's "disconnected in every draw; raise er-c" is bad input, exit 2).
  std::exception_ptr error;
#pragma omp parallel for schedule(dynamic, 1)
  for (std::int64_t b = 0; b < count; ++b) {
    try {
      throw_if_stopped();  // a watched run was asked to stop (core/progress.hpp): rethrown after the loop
      const std::int64_t run = first + b;
      std::vector<double> cur(static_cast<std::size_t>(n) * dim), ref_noisy(dim);
      noisy_start(c, run, cur, ref_noisy);
      double* truth = out.truth.data() + static_cast<std::size_t>(b) * points;
      double* noisy = out.noisy.data() + static_cast<std::size_t>(b) * points;
      std::size_t point = 0;
      auto visit_state = [&] {
        if (visit) (*visit)(run, point, cur);
      };
      // t = 0 and the synchronous rounds: the error of the whole state, as the fixed-W path computes it.
      auto record_exact = [&](int t) {
        if (point >= points || c.times[point] != t) return;
        truth[point] = squared_error(cur, n, dim, c.xbar);
        noisy[point] = squared_error(cur, n, dim, ref_noisy);
        visit_state();
        ++point;
      };
      record_exact(0);
      if (randomized) {
        run_ticks(c, *sampler, run, cur, ref_noisy, meter, [&](int t, double e_true, double e_noisy) {
          if (point >= points || c.times[point] != t) return;
          truth[point] = e_true;
          noisy[point] = e_noisy;
          visit_state();
          ++point;
        });
      } else {
        run_rounds(c, run, cur, meter, record_exact);
      }
    } catch (...) {
#pragma omp critical(gossip_sim_varying_error)
      if (!error) error = std::current_exception();
    }
  }
  if (error) std::rethrow_exception(error);
}

}  // namespace netdp::gossip_sim_detail
