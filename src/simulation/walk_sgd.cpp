// Random-walk DP-SGD on the CPU: every run follows its own token with its own Philox stream, the runs spread
// over the threads (docs/walk_sgd.md "Runs and threads"); the step itself is the single-source body of
// kernels/common/walk_sgd_bodies.hpp.
#include "netdp/simulation/walk_sgd.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "common/walk_sgd_bodies.hpp"
#include "core/progress.hpp"
#include "netdp/core/error.hpp"
#include "netdp/core/format.hpp"
#include "netdp/core/philox.hpp"

namespace netdp {

namespace ws = kernels::walk_sgd;

WalkSgdVariant parse_walk_sgd_variant(std::string_view text) {
  if (text == "centralized") return WalkSgdVariant::centralized;
  if (text == "local") return WalkSgdVariant::local;
  if (text == "network") return WalkSgdVariant::network;
  throw InvalidParameter("variant",
                         "variant: expected centralized, local or network, got '" + std::string(text) + "'");
}

std::string to_string(WalkSgdVariant v) {
  switch (v) {
    case WalkSgdVariant::centralized:
      return "centralized";
    case WalkSgdVariant::local:
      return "local";
    case WalkSgdVariant::network:
      return "network";
  }
  return "?";
}

WalkSgdCapped parse_walk_sgd_capped(std::string_view text) {
  if (text == "variant") return WalkSgdCapped::variant;
  if (text == "noise") return WalkSgdCapped::noise;
  if (text == "forward") return WalkSgdCapped::forward;
  throw InvalidParameter("after-cap",
                         "after-cap: expected variant, noise or forward, got '" + std::string(text) + "'");
}

std::string to_string(WalkSgdCapped c) {
  switch (c) {
    case WalkSgdCapped::variant:
      return "variant";
    case WalkSgdCapped::noise:
      return "noise";
    case WalkSgdCapped::forward:
      return "forward";
  }
  return "?";
}

WalkSgdClipOrder parse_walk_sgd_clip_order(std::string_view text) {
  if (text == "per-example") return WalkSgdClipOrder::per_example;
  if (text == "after-noise") return WalkSgdClipOrder::after_noise;
  throw InvalidParameter("clip-order",
                         "clip-order: expected per-example or after-noise, got '" + std::string(text) + "'");
}

std::string to_string(WalkSgdClipOrder o) {
  return o == WalkSgdClipOrder::per_example ? "per-example" : "after-noise";
}

void validate(const WalkSgdParams& p, const WalkModel& walk, const LocalData& train) {
  validate(train, p.objective);
  if (p.steps < 1) throw InvalidParameter("steps", "steps must be >= 1, got " + std::to_string(p.steps));
  if (p.steps >= (std::int64_t{1} << 43))
    throw InvalidParameter("steps",
                           "steps must be below 2^43 (the stream layout), got " + std::to_string(p.steps));
  if (!(p.step_size > 0) || !std::isfinite(p.step_size))
    throw InvalidParameter("step-size", "step-size must be > 0, got " + format_double(p.step_size));
  if (!(p.sigma >= 0) || !std::isfinite(p.sigma))
    throw InvalidParameter("sigma", "sigma must be a finite number >= 0, got " + format_double(p.sigma));
  if (!(p.clip >= 0) || !std::isfinite(p.clip))
    throw InvalidParameter("clip", "clip must be a finite number >= 0, got " + format_double(p.clip));
  if (!(p.l2 >= 0) || !std::isfinite(p.l2))
    throw InvalidParameter("l2", "l2 must be a finite number >= 0, got " + format_double(p.l2));
  if (p.cap < 0) throw InvalidParameter("cap", "cap must be >= 0, got " + std::to_string(p.cap));
  if (p.runs < 1) throw InvalidParameter("runs", "runs must be >= 1, got " + std::to_string(p.runs));
  if (p.eval_every < 1)
    throw InvalidParameter("eval-every", "eval-every must be >= 1, got " + std::to_string(p.eval_every));
  if (walk.n != train.n)
    throw InvalidParameter("graph", "graph: the data have " + std::to_string(train.n) +
                                        " users but the graph has " + std::to_string(walk.n) + " nodes");
  std::int64_t smallest = train.size(0);
  for (node_t v = 1; v < train.n; ++v) smallest = std::min(smallest, train.size(v));
  if (p.batch < 0 || p.batch > smallest)
    throw InvalidParameter("batch", "batch must be in [0, " + std::to_string(smallest) +
                                        "] (the smallest local dataset), got " + std::to_string(p.batch));
}

namespace {

/// The visit of a holder over the cap (docs/walk_sgd.md "Variants and the contribution cap").
ws::Visit capped_visit(const WalkSgdParams& p) {
  if (p.capped == WalkSgdCapped::noise) return ws::Visit::noise_only;
  if (p.capped == WalkSgdCapped::forward) return ws::Visit::skip;
  return p.variant == WalkSgdVariant::network ? ws::Visit::noise_only : ws::Visit::skip;
}

/// One run: calls observe(step, x, max_contributions) at step 0, every eval_every steps and at T, and
/// holder(t, v, x) at every step after v's visit.
template <WalkKind kKind, class Observe, class Holder>
void simulate(const WalkModel& walk, const LocalData& d, const WalkSgdParams& p, std::int64_t run,
              Observe&& observe, Holder&& holder) {
  const int dim = d.dim;
  const auto sub = run_subsequence(kWalkSgdStream, static_cast<std::uint64_t>(run));
  const kernels::walk::ModelView view{walk.n, walk.offsets.data(), walk.targets.data(),
                                      walk.thresholds.data()};
  const kernels::walk::Retry retry{p.seed, static_cast<std::uint64_t>(run)};
  ws::StepView s;
  s.loss = static_cast<kernels::convex::Loss>(p.objective);
  s.dim = dim;
  s.features = d.features.data();
  s.labels = d.labels.empty() ? nullptr : d.labels.data();
  s.step_size = p.step_size;
  s.sigma = p.sigma;
  s.clip = p.clip;
  s.l2 = p.l2;
  s.order =
      p.clip_order == WalkSgdClipOrder::per_example ? ws::ClipOrder::per_example : ws::ClipOrder::after_noise;
  std::vector<double> x(dim, 0.0), g(dim), scratch(dim), noise(dim + 1);
  std::vector<std::int64_t> counts(static_cast<std::size_t>(d.n), 0), pool, batch(std::max(p.batch, 0));
  std::int64_t most = 0;
  PhiloxStream first(p.seed, sub, 0);
  auto v = static_cast<node_t>(first.next_below(static_cast<std::uint32_t>(d.n)));
  observe(std::int64_t{0}, x, most);
  for (std::int64_t t = 0; t < p.steps; ++t) {
    PhiloxStream words(p.seed, sub, static_cast<std::uint64_t>(t + 1) << 20);
    for (int k = 0; k < dim; k += 2) {
      const auto [a, b] = words.next_normal_pair();
      noise[k] = a;
      noise[k + 1] = b;
    }
    ws::Visit visit = ws::Visit::contribute;
    if (p.variant != WalkSgdVariant::centralized && p.cap > 0 && counts[v] >= p.cap) visit = capped_visit(p);
    if (visit == ws::Visit::contribute) most = std::max(most, ++counts[v]);
    const std::int64_t begin = d.offsets[v], size = d.size(v);
    const std::int64_t* chosen = nullptr;
    std::int64_t count = size;
    if (p.batch > 0 && visit == ws::Visit::contribute) {  // partial Fisher-Yates over the local examples
      pool.resize(static_cast<std::size_t>(size));
      for (std::int64_t i = 0; i < size; ++i) pool[i] = begin + i;
      for (int j = 0; j < p.batch; ++j) {
        const auto r = j + static_cast<std::int64_t>(words.next_below(static_cast<std::uint32_t>(size - j)));
        std::swap(pool[j], pool[r]);
        batch[j] = pool[j];
      }
      chosen = batch.data();
      count = p.batch;
    }
    ws::visit_step(s, visit, begin, chosen, count, noise.data(), x.data(), g.data(), scratch.data());
    holder(t, v, x);
    v = ws::next_holder<kKind>(view, v, words, retry, t);
    if ((t + 1) % p.eval_every == 0 || t + 1 == p.steps) observe(t + 1, x, most);
  }
}

template <class Observe, class Holder>
void simulate_any(const WalkModel& walk, const LocalData& d, const WalkSgdParams& p, std::int64_t run,
                  Observe&& observe, Holder&& holder) {
  kernels::walk::for_kind(
      walk.kind, [&](auto kind) { simulate<decltype(kind)::value>(walk, d, p, run, observe, holder); });
}

std::int64_t evaluations(const WalkSgdParams& p) {
  return p.steps / p.eval_every + 1 + (p.steps % p.eval_every != 0 ? 1 : 0);
}

}  // namespace

RunStatistics run_statistics(const std::vector<double>& values, std::int64_t runs, std::int64_t points) {
  RunStatistics s;
  for (std::int64_t e = 0; e < points; ++e) {
    double sum = 0, lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (std::int64_t r = 0; r < runs; ++r) {
      const double x = values[r * points + e];
      sum += x;
      lo = std::min(lo, x);
      hi = std::max(hi, x);
    }
    const double mean = sum / double(runs);
    double squares = 0;
    for (std::int64_t r = 0; r < runs; ++r)
      squares += (values[r * points + e] - mean) * (values[r * points + e] - mean);
    s.mean.push_back(mean);
    s.std.push_back(lo == hi ? 0.0 : std::sqrt(squares / double(runs)));  // no rounding residue
    s.min.push_back(lo);
    s.max.push_back(hi);
  }
  return s;
}

WalkSgdResult walk_sgd(const WalkModel& walk, const LocalData& train, const LocalData& test,
                       const WalkSgdParams& p, const std::function<void(double)>& progress) {
  validate(p, walk, train);
  const Stopwatch clock;
  const LocalData& scored = test.n > 0 ? test : train;
  const bool logistic = p.objective == Objective::logistic;
  if (logistic && !test.labels.empty()) validate(test, p.objective);
  const std::int64_t points = evaluations(p), runs = p.runs;
  std::vector<double> objective(static_cast<std::size_t>(runs * points)), accuracy_values(objective.size()),
      contributions(objective.size());
  for_each_run(runs, progress, [&](std::int64_t r) {
    std::int64_t e = 0;
    simulate_any(
        walk, train, p, r,
        [&](std::int64_t, const std::vector<double>& x, std::int64_t most) {
          const auto i = static_cast<std::size_t>(r * points + e++);
          objective[i] = global_objective(p.objective, train, p.l2, x);
          accuracy_values[i] = logistic ? accuracy(scored, x) : std::numeric_limits<double>::quiet_NaN();
          contributions[i] = double(most);
        },
        [](std::int64_t, node_t, const std::vector<double>&) {});
  });
  WalkSgdResult out;
  for (std::int64_t e = 0; e < points; ++e) out.step.push_back(std::min(e * p.eval_every, p.steps));
  out.objective = run_statistics(objective, runs, points);
  out.accuracy = run_statistics(accuracy_values, runs, points);
  out.max_contributions_mean = run_statistics(contributions, runs, points).mean;
  out.threads = omp_get_max_threads();
  out.seconds = clock.seconds();
  return out;
}

WalkSgdTrajectory walk_sgd_trajectory(const WalkModel& walk, const LocalData& train, const WalkSgdParams& p,
                                      std::int64_t run) {
  WalkSgdParams q = p;
  q.eval_every = 1;
  validate(q, walk, train);
  WalkSgdTrajectory out;
  simulate_any(
      walk, train, q, run,
      [&](std::int64_t, const std::vector<double>& x, std::int64_t) { out.models.push_back(x); },
      [&](std::int64_t, node_t v, const std::vector<double>&) { out.holders.push_back(v); });
  return out;
}

std::vector<double> walk_sgd_discrepancy(const WalkModel& walk, const LocalData& train,
                                         const WalkSgdParams& p, const std::vector<int>& pair_class,
                                         int classes, const std::function<void(double)>& progress) {
  validate(p, walk, train);
  const auto n = static_cast<std::size_t>(train.n);
  if (pair_class.size() != n * n || classes < 1)
    throw InvalidInput("walk_sgd_discrepancy: pair_class needs n * n entries and classes >= 1");
  std::vector<std::int64_t> pairs(static_cast<std::size_t>(classes), 0);
  for (std::size_t u = 0; u < n; ++u)
    for (std::size_t v = u + 1; v < n; ++v)
      if (const int c = pair_class[u * n + v]; c >= 0) {
        if (c >= classes) throw InvalidInput("walk_sgd_discrepancy: a pair class is >= classes");
        ++pairs[c];
      }
  const std::int64_t points = evaluations(p), runs = p.runs, dim = train.dim;
  std::vector<double> per_run(static_cast<std::size_t>(runs * points * classes), 0.0);
  for_each_run(runs, progress, [&](std::int64_t r) {
    std::vector<double> estimate(n * dim, 0.0), sums(static_cast<std::size_t>(classes));
    if (p.local_initial_estimate)  // docs/walk_sgd.md "Heterogeneous data": the node's own mean
      for (std::size_t v = 0; v < n; ++v) {
        const auto first = train.offsets[v], count = train.offsets[v + 1] - first;
        for (std::int64_t i = first; i < first + count; ++i)
          for (std::int64_t k = 0; k < dim; ++k) estimate[v * dim + k] += train.x(i)[k] / double(count);
      }
    std::int64_t e = 0;
    simulate_any(
        walk, train, p, r,
        [&](std::int64_t, const std::vector<double>&, std::int64_t) {
          std::fill(sums.begin(), sums.end(), 0.0);
          for (std::size_t u = 0; u < n; ++u)
            for (std::size_t v = u + 1; v < n; ++v)
              if (const int c = pair_class[u * n + v]; c >= 0) {
                double d2 = 0;
                for (std::int64_t k = 0; k < dim; ++k) {
                  const double d = estimate[u * dim + k] - estimate[v * dim + k];
                  d2 += d * d;
                }
                sums[c] += std::sqrt(d2);
              }
          for (int c = 0; c < classes; ++c)
            per_run[static_cast<std::size_t>((r * points + e) * classes + c)] =
                pairs[c] ? sums[c] / double(pairs[c]) : 0.0;
          ++e;
        },
        [&](std::int64_t, node_t v, const std::vector<double>& x) {
          std::copy(x.begin(), x.end(), estimate.begin() + static_cast<std::ptrdiff_t>(v * dim));
        });
  });
  std::vector<double> out(static_cast<std::size_t>(points * classes), 0.0);
  for (std::int64_t r = 0; r < runs; ++r)  // run order: no dependence on the threads
    for (std::size_t i = 0; i < out.size(); ++i) out[i] += per_run[r * points * classes + i] / double(runs);
  return out;
}

}  // namespace netdp
