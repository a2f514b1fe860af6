// Algorithm 6.3 (Muffliato-GD / SGD, docs/math.md §6.5): every run is simulated on its own (n x p state, its
// own noise and graphs), the runs spread over the threads, or, with fewer runs than threads, each run's nodes
// and rows. Every node and row goes through the same arithmetic either way, sums over nodes run in node order
// and the per-run metrics are merged in run order, so the results do not depend on the thread count.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <exception>
#include <functional>
#include <limits>
#include <string>

#include "core/progress.hpp"
#include "netdp/core/error.hpp"
#include "netdp/core/format.hpp"
#include "netdp/core/philox.hpp"
#include "netdp/core/weighting.hpp"
#include "netdp/simulation/gossip_sim.hpp"
#include "netdp/simulation/muffliato_gd.hpp"

namespace netdp {

namespace {

constexpr std::int64_t kRunChunk = 64;  // runs simulated between two merges (fixed: merge order is run order)
constexpr node_t kInnerMinNodes = 512;  // below, splitting one run over threads costs more than it gains
enum Metric { kObjective, kGap, kNodeObjective, kConsensus, kAccuracy, kMetrics };

/// Every row of x (n x dim, row-major) replaced by the rows' mean, summed in node order (deterministic).
void average_rows(std::vector<double>& x, node_t n, int dim) {
  std::vector<double> mean(static_cast<std::size_t>(dim), 0.0);
  for (node_t v = 0; v < n; ++v)
    for (int k = 0; k < dim; ++k) mean[k] += x[static_cast<std::size_t>(v) * dim + k];
  for (double& m : mean) m /= double(n);
  for (node_t v = 0; v < n; ++v) std::copy(mean.begin(), mean.end(), x.begin() + std::ptrdiff_t(v) * dim);
}

/// K accelerated gossip steps in place (docs/math.md §2.4): x^1 = W x^0, x^{k+1} = gamma W x^k + (1 - gamma)
/// x^{k-1}, so that x^K = P_K(W) x^0.
void accelerated_gossip(const CsrMatrix& w, double gamma, int steps, int p, bool parallel,
                        std::vector<double>& x, std::vector<double>& s1, std::vector<double>& s2) {
  std::vector<double>* prev = &x;  // x^{k-1}
  std::vector<double>* cur = &s1;  // x^k
  std::vector<double>* next = &s2;
  csr_multiply(w, x.data(), cur->data(), p, parallel);
  for (int k = 1; k < steps; ++k) {
    csr_multiply(w, cur->data(), next->data(), p, parallel);
    for (std::size_t i = 0; i < next->size(); ++i)
      (*next)[i] = gamma * (*next)[i] + (1.0 - gamma) * (*prev)[i];
    std::swap(prev, cur);  // prev <- x^k
    std::swap(cur, next);  // cur <- x^{k+1}; next holds x^{k-1}, overwritten next step
  }
  if (cur != &x) x.swap(*cur);
}

/// The b examples of node v's mini-batch (Floyd's sampling without replacement, next_below draws from stream
/// kind 18 at offset v 2^32), sorted.
void sample_batch(const LocalData& d, const MuffliatoGdParams& p, std::int64_t run, int t, node_t v,
                  std::vector<std::int64_t>& out) {
  PhiloxStream s(p.seed, muffliato_gd_subsequence(MgdStream::batch, static_cast<std::uint64_t>(run), t),
                 static_cast<std::uint64_t>(v) << 32);
  const std::int64_t m = d.size(v);
  out.clear();
  for (std::int64_t j = m - p.batch; j < m; ++j) {
    std::int64_t pick = s.next_below(static_cast<std::uint32_t>(j + 1));
    auto at = std::lower_bound(out.begin(), out.end(), pick);
    if (at != out.end() && *at == pick) {
      pick = j;  // j is larger than everything chosen so far
      at = out.end();
    }
    out.insert(at, pick);
  }
  for (auto& i : out) i += d.offsets[v];
}

/// What a run shares (named apart from walk_sim.cpp's walk_detail::Context: the unity build may put both
/// files in one translation unit).
struct GdContext {
  const Graph& g;
  const CsrMatrix& w;
  const LocalData& d;
  const MuffliatoGdParams& p;
  const Optimum* opt = nullptr;  // for the metrics
  double gamma = 0;              // fixed W
  bool inner_parallel = false;   // one run at a time, its nodes and rows split over the threads
};

/// theta_hat_v of Alg 6.3 with its noise (docs/math.md §6.5, 12 item 24) into hat (p values).
void local_step(const GdContext& c, std::int64_t run, int t, node_t v, std::span<const double> theta,
                std::span<const double> z, std::span<double> hat, std::vector<std::int64_t>& batch,
                std::vector<double>& g, std::vector<double>& sum) {
  const auto& p = c.p;
  const int dim = c.d.dim;
  const bool reference = p.noise_order == NoiseOrder::reference_code;
  std::fill(sum.begin(), sum.end(), 0.0);
  auto add = [&](std::int64_t i) {
    example_gradient(p.objective, c.d, i, theta, g);
    double scale = 1.0;
    if (p.clip > 0 && !reference) {  // per-example clipping to L
      double norm2 = 0;
      for (double x : g) norm2 += x * x;
      if (norm2 > p.clip * p.clip) scale = p.clip / std::sqrt(norm2);
    }
    for (int k = 0; k < dim; ++k) sum[k] += scale * g[k];
  };
  std::int64_t count = 0;
  if (p.batch > 0) {
    sample_batch(c.d, p, run, t, v, batch);
    for (std::int64_t i : batch) add(i);
    count = p.batch;
  } else {
    for (std::int64_t i = c.d.offsets[v]; i < c.d.offsets[v + 1]; ++i) add(i);
    count = c.d.size(v);
  }
  for (int k = 0; k < dim; ++k) sum[k] = sum[k] / double(count) + p.l2 * theta[k];
  if (reference) {  // theta - nu clip(grad + N(0, (sigma/2)^2), L)
    const double s = gradient_noise_std(p.sigma, p.noise_order);
    double norm2 = 0;
    for (int k = 0; k < dim; ++k) {
      sum[k] += s * z[k];
      norm2 += sum[k] * sum[k];
    }
    const double scale = p.clip > 0 && norm2 > p.clip * p.clip ? p.clip / std::sqrt(norm2) : 1.0;
    for (int k = 0; k < dim; ++k) hat[k] = theta[k] - p.step_size * scale * sum[k];
  } else {  // theta - nu grad, then + N(0, nu^2 sigma^2)
    for (int k = 0; k < dim; ++k) hat[k] = theta[k] - p.step_size * sum[k] + p.step_size * p.sigma * z[k];
  }
}

/// The metrics of one state (n x p) into out[kMetrics].
void measure(const GdContext& c, const std::vector<double>& theta, std::span<double> out,
             std::vector<double>& average, std::vector<double>& per_node) {
  const auto& d = c.d;
  const auto& p = c.p;
  const int dim = d.dim;
  std::fill(average.begin(), average.end(), 0.0);
  for (node_t v = 0; v < d.n; ++v)
    for (int k = 0; k < dim; ++k) average[k] += theta[static_cast<std::size_t>(v) * dim + k];
  for (auto& x : average) x /= d.n;
  const bool quadratic = !c.opt->hessian.empty();
  if (quadratic) {
    out[kGap] = optimality_gap(p.objective, d, p.l2, *c.opt, average);
    out[kObjective] = c.opt->value + out[kGap];
  } else {  // optimality_gap is global_objective - phi*: one pass over the data gives both, same bits
    out[kObjective] = global_objective(p.objective, d, p.l2, average);
    out[kGap] = out[kObjective] - c.opt->value;
  }
  // phi(theta_v) - phi* (quadratic) or phi(theta_v): each costs a pass over all the data, n passes per state
  // (O(n^2) with n-proportional data). A row equal to the one before it (bit for bit) reuses its value: the
  // same arithmetic would give the same bits. After exact averaging and at t = 0 all rows are equal, so those
  // states cost one pass (the federated baseline's dominant cost, docs/muffliato_gd.md "Cost").
  per_node.resize(static_cast<std::size_t>(d.n));
  std::vector<char> repeat(static_cast<std::size_t>(d.n), 0);
  for (node_t v = 1; v < d.n; ++v) {
    const double* row = theta.data() + static_cast<std::size_t>(v) * dim;
    repeat[v] = std::equal(row, row + dim, row - dim,
                           [](double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; });
  }
#pragma omp parallel for schedule(dynamic, 16) if (c.inner_parallel)
  for (node_t v = 0; v < d.n; ++v) {
    if (repeat[v]) continue;
    std::span<const double> tv(theta.data() + static_cast<std::size_t>(v) * dim, dim);
    per_node[v] = quadratic ? optimality_gap(p.objective, d, p.l2, *c.opt, tv)
                            : global_objective(p.objective, d, p.l2, tv);
  }
  for (node_t v = 1; v < d.n; ++v)
    if (repeat[v]) per_node[v] = per_node[v - 1];  // in node order: a run of repeats copies its first row
  double nodes = 0, consensus = 0;
  for (node_t v = 0; v < d.n; ++v) {
    nodes += per_node[v];
    for (int k = 0; k < dim; ++k) {
      const double e = theta[static_cast<std::size_t>(v) * dim + k] - average[k];
      consensus += e * e;
    }
  }
  out[kNodeObjective] = (quadratic ? c.opt->value : 0.0) + nodes / d.n;
  out[kConsensus] = consensus / d.n;
  out[kAccuracy] = p.objective == Objective::logistic ? accuracy(d, average) : 0.0;
}

/// One run of Alg 6.3; visit(t, theta) after t = 0 and after every outer iteration.
void simulate_run(const GdContext& c, std::int64_t run,
                  const std::function<void(int, const std::vector<double>&)>& visit) {
  const auto& p = c.p;
  const node_t n = c.d.n;
  const int dim = c.d.dim;
  const std::size_t size = static_cast<std::size_t>(n) * dim;
  GossipSchedule schedule;
  std::vector<double> gammas(p.steps, c.gamma);
  if (p.er_per_round) {
    schedule = muffliato_gd_schedule(c.g, c.w, p, run);
    if (p.gossip_steps > 1) {
#pragma omp critical(netdp_muffliato_gd_spectrum)  // LAPACK / Lanczos called by one thread at a time
      for (int t = 0; t < p.steps; ++t)
        gammas[t] = chebyshev_gamma(spectral_summary(schedule.round(t).w).gap(p.gap_definition));
    }
  }
  std::vector<double> theta(size, 0.0), hat(size), s1(size), s2(size), z(size, 0.0);
  visit(0, theta);
  for (int t = 0; t < p.steps; ++t) {
    if (p.sigma > 0) {  // kind 17: normal i = v p + k, pairs from offset 0
      PhiloxStream s(p.seed, muffliato_gd_subsequence(MgdStream::noise, static_cast<std::uint64_t>(run), t));
      for (std::size_t i = 0; i < size; i += 2) {
        const auto [a, b] = s.next_normal_pair();
        z[i] = a;
        if (i + 1 < size) z[i + 1] = b;
      }
    }
#pragma omp parallel if (c.inner_parallel)
    {
      std::vector<double> g(dim), sum(dim);
      std::vector<std::int64_t> batch;
#pragma omp for schedule(dynamic, 64)
      for (node_t v = 0; v < n; ++v) {
        const std::size_t at = static_cast<std::size_t>(v) * dim;
        local_step(c, run, t, v, std::span<const double>(theta.data() + at, dim),
                   std::span<const double>(z.data() + at, dim), std::span<double>(hat.data() + at, dim),
                   batch, g, sum);
      }
    }
    if (p.exact_averaging) {
      average_rows(hat, n, dim);
    } else {
      const CsrMatrix& w = p.er_per_round ? schedule.round(t).w : c.w;
      accelerated_gossip(w, gammas[t], p.gossip_steps, dim, c.inner_parallel, hat, s1, s2);
    }
    theta.swap(hat);
    visit(t + 1, theta);
  }
}

void check_graph(const Graph& g, const CsrMatrix& w, const LocalData& d, const MuffliatoGdParams& p) {
  validate(p, d);
  if (g.n != d.n)
    throw InvalidInput("muffliato-gd: the data are split over " + std::to_string(d.n) +
                       " nodes, the graph has " + std::to_string(g.n));
  if (!p.er_per_round) validate_gossip_matrix(w, g);
}

double fixed_gamma(const CsrMatrix& w, const MuffliatoGdParams& p, double* gap) {
  if (p.er_per_round) {
    *gap = std::numeric_limits<double>::quiet_NaN();
    return *gap;
  }
  *gap = p.spectral_gap ? *p.spectral_gap : spectral_summary(w).gap(p.gap_definition);
  return chebyshev_gamma(*gap);
}

}  // namespace

double gradient_noise_std(double sigma, NoiseOrder order) {
  return order == NoiseOrder::reference_code ? 0.5 * sigma : sigma;  // [R-MUF]: "max sensitivity .5"
}

void validate(const MuffliatoGdParams& p, const LocalData& d) {
  validate(d, p.objective);
  auto bad = [](const char* parameter, const std::string& what) { throw InvalidParameter(parameter, what); };
  if (p.steps < 1 || p.steps >= (1 << 24))
    bad("steps", "steps must be in [1, 2^24), got " + std::to_string(p.steps));
  if (p.gossip_steps < 1)
    bad("gossip-rounds", "gossip-rounds must be >= 1, got " + std::to_string(p.gossip_steps));
  if (!(p.step_size > 0) || !std::isfinite(p.step_size))
    bad("step-size", "step-size must be a finite number > 0, got " + format_double(p.step_size));
  if (!(p.sigma >= 0) || !std::isfinite(p.sigma))
    bad("sigma", "sigma must be a finite number >= 0, got " + format_double(p.sigma));
  if (p.runs < 1 || p.runs >= (std::int64_t{1} << 32))
    bad("runs", "runs must be in [1, 2^32), got " + std::to_string(p.runs));
  if (!(p.clip >= 0) || !std::isfinite(p.clip))
    bad("clip", "clip must be a finite number >= 0, got " + format_double(p.clip));
  if (!(p.l2 >= 0) || !std::isfinite(p.l2))
    bad("l2", "l2 must be a finite number >= 0, got " + format_double(p.l2));
  if (p.batch < 0) bad("batch", "batch must be >= 0, got " + std::to_string(p.batch));
  if (p.batch > 0) {
    std::int64_t smallest = d.size(0);
    for (node_t v = 1; v < d.n; ++v) smallest = std::min(smallest, d.size(v));
    if (p.batch > smallest)
      bad("batch", "batch " + std::to_string(p.batch) + " exceeds the smallest local dataset (" +
                       std::to_string(smallest) + " examples)");
    for (node_t v = 0; v < d.n; ++v)
      if (d.size(v) >= (std::int64_t{1} << 32)) bad("batch", "batch: a node holds 2^32 examples or more");
  }
  if (p.er_per_round && !(p.edge_probability > 0 && p.edge_probability <= 1))
    bad("er-c", "er-c: the Erdos-Renyi edge probability q = c ln(n)/n must be in (0, 1], got " +
                    format_double(p.edge_probability));
  if (p.er_per_round && d.n < 2) bad("er-c", "er-c needs n >= 2");
  if (p.spectral_gap && !(*p.spectral_gap >= 0 && *p.spectral_gap <= 1))
    throw InvalidInput("the spectral gap must be in [0, 1], got " + format_double(*p.spectral_gap));
}

MuffliatoGdResult muffliato_gd(const Graph& g, const CsrMatrix& w, const LocalData& d,
                               const MuffliatoGdParams& p, const std::function<void(double)>& progress) {
  const auto started = std::chrono::steady_clock::now();
  check_graph(g, w, d, p);
  MuffliatoGdResult r;
  r.optimum = objective_optimum(p.objective, d, p.l2);
  r.gamma = fixed_gamma(w, p, &r.spectral_gap);
  // Fewer runs than threads: one run at a time, split over nodes and rows (same arithmetic either way).
  const GdContext c{g, w, d, p, &r.optimum, r.gamma, p.runs < omp_get_max_threads() && d.n >= kInnerMinNodes};

  const std::size_t points = static_cast<std::size_t>(p.steps) + 1;
  // Welford accumulators per (t, metric), fed in run order.
  std::vector<double> mean(points * kMetrics, 0.0), m2(points * kMetrics, 0.0);
  std::int64_t merged = 0;
  for (std::int64_t first = 0; first < p.runs; first += kRunChunk) {
    const std::int64_t count = std::min(kRunChunk, p.runs - first);
    std::vector<double> values(static_cast<std::size_t>(count) * points * kMetrics);
    std::exception_ptr failure;  // of the smallest failing run: exceptions cannot leave the parallel region
    std::int64_t failed_run = count;
    auto one_run = [&](std::int64_t b, std::vector<double>& average, std::vector<double>& per_node) {
      simulate_run(c, first + b, [&](int t, const std::vector<double>& theta) {
        throw_if_stopped();  // between steps, outside the inner parallel region (core/progress.hpp)
        measure(c, theta, std::span<double>(values.data() + (b * points + t) * kMetrics, kMetrics), average,
                per_node);
      });
    };
    if (c.inner_parallel) {
      std::vector<double> average(d.dim), per_node;
      for (std::int64_t b = 0; b < count; ++b) one_run(b, average, per_node);
    } else {
#pragma omp parallel
      {
        std::vector<double> average(d.dim), per_node;
#pragma omp for schedule(dynamic, 1)
        for (std::int64_t b = 0; b < count; ++b) {
          try {
            one_run(b, average, per_node);
          } catch (...) {
#pragma omp critical(netdp_muffliato_gd_failure)
            if (b < failed_run) {
              failed_run = b;
              failure = std::current_exception();
            }
          }
        }
      }
    }
    if (failure) std::rethrow_exception(failure);
    for (std::int64_t b = 0; b < count; ++b) {
      ++merged;
      for (std::size_t i = 0; i < points * kMetrics; ++i) {
        const double x = values[b * points * kMetrics + i], delta = x - mean[i];
        mean[i] += delta / double(merged);
        m2[i] += delta * (x - mean[i]);
      }
    }
    if (progress) progress(double(merged) / double(p.runs));
  }

  const double nan = std::numeric_limits<double>::quiet_NaN();
  MeanCurve* curves[kMetrics] = {&r.objective, &r.gap, &r.node_objective, &r.consensus, &r.accuracy};
  for (int m = 0; m < kMetrics; ++m) {
    if (m == kAccuracy && p.objective != Objective::logistic) continue;
    for (std::size_t t = 0; t < points; ++t) {
      const std::size_t i = t * kMetrics + m;
      curves[m]->mean.push_back(mean[i]);
      curves[m]->std_error.push_back(p.runs > 1 ? std::sqrt(m2[i] / double(p.runs - 1) / double(p.runs))
                                                : nan);
    }
  }
  for (int t = 0; t <= p.steps; ++t) r.t.push_back(t);
  r.device = "cpu (" + std::to_string(omp_get_max_threads()) + " threads)";
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return r;
}

std::vector<std::vector<double>> muffliato_gd_trajectory(const Graph& g, const CsrMatrix& w,
                                                         const LocalData& d, const MuffliatoGdParams& p,
                                                         std::int64_t run) {
  check_graph(g, w, d, p);
  if (run < 0 || run >= p.runs)
    throw InvalidInput("muffliato-gd: run " + std::to_string(run) + " outside [0, " + std::to_string(p.runs) +
                       ")");
  double gap = 0;
  const GdContext c{g, w, d, p, nullptr, fixed_gamma(w, p, &gap), d.n >= kInnerMinNodes};
  std::vector<std::vector<double>> states;
  simulate_run(c, run, [&](int, const std::vector<double>& theta) {
    throw_if_stopped();  // between steps, outside the inner parallel region (core/progress.hpp)
    states.push_back(theta);
  });
  return states;
}

GossipSchedule muffliato_gd_schedule(const Graph& g, const CsrMatrix& w, const MuffliatoGdParams& p,
                                     std::int64_t run) {
  GossipSimParams sp;  // the er-per-round rounds of the gossip simulator, one per outer iteration
  sp.protocol = p.er_per_round ? GossipProtocol::er_per_round : GossipProtocol::sync;
  sp.steps = p.steps;
  sp.runs = p.runs;
  sp.seed = p.seed;
  sp.edge_probability = p.er_per_round ? p.edge_probability : 0.0;
  return sample_gossip_schedule(g, w, sp, run);
}

}  // namespace netdp
