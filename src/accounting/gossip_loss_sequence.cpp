// Driver of the time-varying gossip accountant (docs/math.md §6.1, 6.3-6.5): schedule validation, memory
// plan, the CPU kernels of kernels/gossip_loss_sequence_kernels.hpp, then the rows into the sink.
#include "netdp/accounting/gossip_loss_sequence.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>

#include "accounting/gossip_view_sequence.hpp"
#include "common/gossip_loss_math.hpp"
#include "core/memory_info.hpp"
#include "gossip_loss_sequence_kernels.hpp"
#include "netdp/core/device.hpp"
#include "netdp/core/error.hpp"
#include "netdp/core/format.hpp"
#include "netdp/core/weighting.hpp"

namespace netdp {
namespace {

[[noreturn]] void bad(const std::string& what) {
  throw InvalidInput(what);
}

void validate_round(const GossipRound& r, node_t n, std::size_t t) {
  const std::string where = "gossip schedule round " + std::to_string(t) + ": ";
  if (r.graph.n != n)
    bad(where + "the graph has " + std::to_string(r.graph.n) + " nodes, the schedule " + std::to_string(n));
  if (r.w.n != n)
    bad(where + "W is " + std::to_string(r.w.n) + " x " + std::to_string(r.w.n) + ", the schedule has " +
        std::to_string(n) + " nodes");
  try {
    validate(r.graph);
    validate_row_stochastic(r.w, r.graph);  // rows of W_{0:t} then sum to 1: their norms are >= 1/n
  } catch (const InvalidInput& e) {
    bad(where + e.what());
  }
}

/// p validated against the schedule: T comes from the schedule, not from p.steps.
void validate_params(const GossipLossParams& p, const GossipSchedule& s) {
  GossipLossParams q = p;
  q.steps = s.steps;
  validate(q, s.n);
}

double gib(double bytes) {
  return bytes / double(1 << 30);
}

struct Plan {
  node_t first = 0, count = 0;
  std::int64_t tile = 0;
  double bytes = 0;
};

/// docs/design.md principle 5: the n x n products cannot be tiled, so check that they fit before allocating.
Plan plan_memory(const char* what, node_t n, const GossipLossParams& p, bool with_scratch) {
  Plan plan;
  plan.first = p.source.value_or(0);
  plan.count = p.source ? 1 : n;
  plan.tile =
      std::min<std::int64_t>(plan.count, std::max<std::int64_t>(1, (64 << 20) / (8 * std::int64_t(n))));
  const double state = kernels::sequence_state_bytes(n, plan.count, with_scratch);
  plan.bytes = state + 8.0 * double(plan.tile) * double(n);
  const double budget =
      p.memory_limit > 0 ? double(p.memory_limit) : double(available_memory_bytes()) * 4.0 / 5.0;
  if (plan.bytes > budget)
    throw InsufficientMemory(std::string(what) + ": n = " + std::to_string(n) + " needs " +
                             format_double(gib(plan.bytes)) + " GiB (" + (with_scratch ? "2" : "1") +
                             " dense n x n product" + (with_scratch ? "s" : "") + " of " +
                             format_double(gib(8.0 * double(n) * double(n))) + " GiB each, shares of " +
                             std::to_string(plan.count) + " sources), but only " +
                             format_double(gib(budget)) + " GiB is available");
  return plan;
}

/// The shares F (n x count, observer-major) of the plan's sources, on the device `p.device` asks for: the
/// CPU twin, or the CUDA twin (kernels/gossip_loss_sequence_kernels.hpp), which gives the same bits. Fills
/// the run's device, note and memory estimate.
std::vector<double> shares_on_device(const GossipSchedule& s, kernels::SequenceKind kind, int t_start,
                                     int gossip_steps, const Plan& plan, const GossipLossParams& p,
                                     GossipLossRun& run) {
  const bool randomized = kind == kernels::SequenceKind::randomized;
  const ResolvedDevice device = sequence_device(s, p.device);
  run.device = device.name;
  run.device_note = device.note;
  if (device.kind == DeviceKind::cuda) {
    std::vector<RoundView> rounds;
    kernels::SequenceProblem problem = sequence_problem(s, kind, rounds);
    problem.t_start = t_start;
    problem.gossip_steps = gossip_steps;
    problem.first = plan.first;
    problem.count = plan.count;
    std::vector<double> shares(static_cast<std::size_t>(s.n) * static_cast<std::size_t>(plan.count));
    run.memory_estimate =
        kernels::gossip_loss_sequence_cuda(problem, device.index, p.memory_limit, shares.data()).device_bytes;
    return shares;
  }
  run.memory_estimate = static_cast<std::int64_t>(plan.bytes);
  kernels::SequenceState st(s.n, plan.first, plan.count, !randomized);
  switch (kind) {
    case kernels::SequenceKind::synchronous:
      kernels::sequence_shares_synchronous_cpu(s, t_start, st);
      break;
    case kernels::SequenceKind::randomized:
      kernels::sequence_shares_randomized_cpu(s, t_start, st);
      break;
    case kernels::SequenceKind::muffliato_c9:
      kernels::muffliato_c9_shares_cpu(s, gossip_steps, st);
      break;
  }
  return std::move(st.shares);
}

/// Rows u = first .. first + count - 1 of value(F(u, v), u == v).
template <class Value>
void emit(const std::vector<double>& shares, node_t n, const Plan& plan, Value value, LossRowSink& sink) {
  std::vector<double> rows(static_cast<std::size_t>(plan.tile) * static_cast<std::size_t>(n));
  for (std::int64_t start = plan.first; start < plan.first + plan.count; start += plan.tile) {
    const node_t here =
        static_cast<node_t>(std::min<std::int64_t>(plan.tile, plan.first + plan.count - start));
    for (node_t v = 0; v < n; ++v) {
      const double* fv = shares.data() + static_cast<std::size_t>(v) * static_cast<std::size_t>(plan.count);
      for (node_t j = 0; j < here; ++j) {
        const node_t u = static_cast<node_t>(start + j);
        rows[static_cast<std::size_t>(j) * n + v] = value(fv[u - plan.first], u == v);
      }
    }
    sink.consume(static_cast<node_t>(start), here,
                 std::span<const double>(rows.data(), static_cast<std::size_t>(here) * n));
  }
}

void describe(GossipLossRun& run, const Plan& plan, const char* algorithm,
              std::chrono::steady_clock::time_point started) {
  run.propagation = algorithm;
  run.tile_sources = plan.tile;
  run.tiles = (plan.count + plan.tile - 1) / plan.tile;
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
}

/// Multiplies every value by `factor` and caps it, then forwards (Theorem 6.9 from the fixed accountant).
class ScaledSink : public LossRowSink {
 public:
  ScaledSink(LossRowSink& inner, double factor, bool cap, double cap_level)
      : inner_(inner), factor_(factor), cap_(cap), cap_level_(cap_level) {}
  void consume(node_t first_source, node_t count, std::span<const double> rows) override {
    buffer_.assign(rows.begin(), rows.end());
    for (double& x : buffer_) {
      x *= factor_;
      if (cap_ && x > cap_level_) x = cap_level_;
    }
    inner_.consume(first_source, count, buffer_);
  }

 private:
  LossRowSink& inner_;
  double factor_;
  bool cap_;
  double cap_level_;
  std::vector<double> buffer_;
};

}  // namespace

void validate(const GossipSchedule& s) {
  if (s.n < 1) bad("gossip schedule: n must be >= 1, got " + std::to_string(s.n));
  if (s.steps < 1) bad("gossip schedule: steps must be >= 1, got " + std::to_string(s.steps));
  if (s.randomized()) {
    if (!s.rounds.empty() || s.constant) bad("gossip schedule: activations and rounds are exclusive");
    if (s.activations.size() != static_cast<std::size_t>(s.steps))
      bad("gossip schedule: " + std::to_string(s.activations.size()) + " activations for " +
          std::to_string(s.steps) + " steps");
    for (std::size_t t = 0; t < s.activations.size(); ++t) {
      const auto [v, w] = s.activations[t];
      if (v < 0 || v >= s.n || w < 0 || w >= s.n)
        bad("gossip schedule tick " + std::to_string(t) + ": edge {" + std::to_string(v) + ", " +
            std::to_string(w) + "} is not in [0, " + std::to_string(s.n) + ")");
    }
    return;
  }
  const std::size_t expected = s.constant ? 1 : static_cast<std::size_t>(s.steps);
  if (s.rounds.size() != expected)
    bad("gossip schedule: " + std::to_string(s.rounds.size()) + " rounds for " + std::to_string(s.steps) +
        " steps" + (s.constant ? " (a constant schedule stores exactly one)" : ""));
  for (std::size_t t = 0; t < s.rounds.size(); ++t) validate_round(s.rounds[t], s.n, t);
}

GossipLossRun gossip_loss_sequence(const GossipSchedule& s, const GossipLossParams& p, LossRowSink& sink) {
  const auto started = std::chrono::steady_clock::now();
  validate(s);
  validate_params(p, s);
  if (p.accounting == GossipAccounting::exact) return gossip_loss_sequence_exact(s, p, sink);  // §6.9
  const bool randomized = s.randomized();
  const Plan plan = plan_memory("gossip-loss-sequence", s.n, p, !randomized);
  GossipLossRun run;
  const std::vector<double> shares =
      shares_on_device(s, randomized ? kernels::SequenceKind::randomized : kernels::SequenceKind::synchronous,
                       p.t_start, 1, plan, p, run);
  const double scale = gossip_ldp_loss(p);
  emit(
      shares, s.n, plan,
      [&](double sum, bool same) { return kernels::pair_loss(sum, scale, p.cap_ldp, same); }, sink);
  describe(run, plan, randomized ? "randomized-rows" : "dense-product", started);
  return run;
}

std::string gossip_theorem_warning() {
  return "accounting theorem: Theorem 6.1's sum of per-message losses is not an upper bound for private "
         "gossip "
         "(the messages share one noise draw; docs/math.md §6.9); use --accounting exact for a guarantee";
}

std::string built_on_theorem_warning(const std::string& what) {
  return what +
         " is built on Theorem 6.1's sum of per-message losses, which is not an upper bound for "
         "private gossip (the messages share noise draws; docs/math.md §6.9): read it as the papers' "
         "figure, not as a guarantee";
}

std::vector<double> gossip_loss_sequence_matrix(const GossipSchedule& s, const GossipLossParams& p,
                                                GossipLossRun* run) {
  LossMatrixCollector collector(s.n);
  auto info = gossip_loss_sequence(s, p, collector);
  if (run) *run = info;
  return collector.take();
}

std::vector<std::int64_t> gossip_communications(const GossipSchedule& s, int t_start) {
  validate(s);
  return kernels::sequence_messages(s, t_start);
}

double gossip_mean_loss_bound(std::int64_t communications, node_t n, const GossipLossParams& p) {
  return gossip_ldp_loss(p) * double(communications) / double(n);
}

ErGossipBound er_gossip_loss_bound(node_t n, double q, std::int64_t steps, node_t degree, double alpha,
                                   double sigma, double sensitivity, bool neighbour, ErBoundVariant variant) {
  if (n < 2) bad("Erdos-Renyi bound: n must be >= 2, got " + std::to_string(n));
  if (!(q >= 0.0 && q <= 1.0)) bad("Erdos-Renyi bound: q must be in [0, 1], got " + format_double(q));
  if (steps < 1) bad("Erdos-Renyi bound: T must be >= 1, got " + std::to_string(steps));
  if (degree < 0 || degree >= n)
    bad("Erdos-Renyi bound: d_v must be in [0, n - 1], got " + std::to_string(degree));
  GossipLossParams p;
  p.alpha = alpha;
  p.sigma = sigma;
  p.sensitivity = sensitivity;
  validate(p, n);

  ErGossipBound b;
  const double ldp = gossip_ldp_loss(p);
  b.probability = neighbour ? q : 1.0 - q;
  b.valid = sigma * sigma >= sensitivity * sensitivity * alpha * (alpha - 1.0) / 2.0;
  if (neighbour) {
    b.value = ldp;
  } else if (variant == ErBoundVariant::theorem) {
    b.value = 2.0 * ldp * double(steps) * double(degree) / double(n - degree);
  } else {
    const double d = double(degree) + 2.0;  // networkx counts the self-loop of W's diagonal twice
    b.value = d < double(n) ? std::min(2.0 * ldp * double(steps) * d / (double(n) - d), ldp) : ldp;
  }
  return b;
}

GossipLossRun muffliato_sgd_loss(const Graph& g, const CsrMatrix& w, const GossipLossParams& p,
                                 int gradient_steps, LossRowSink& sink) {
  if (gradient_steps < 1) bad("Muffliato-SGD: T must be >= 1, got " + std::to_string(gradient_steps));
  GossipLossParams k_rounds = p;                    // steps = K
  k_rounds.accounting = GossipAccounting::theorem;  // Theorem C.9 sums messages (docs/math.md §6.9)
  k_rounds.t_start = 0;
  k_rounds.cap_ldp = false;
  const double T = double(gradient_steps);
  ScaledSink scaled(sink, T * T, p.cap_ldp, T * gossip_ldp_loss(p));
  return gossip_loss(g, w, k_rounds, scaled);
}

std::vector<double> muffliato_sgd_loss_matrix(const Graph& g, const CsrMatrix& w, const GossipLossParams& p,
                                              int gradient_steps) {
  LossMatrixCollector collector(g.n);
  muffliato_sgd_loss(g, w, p, gradient_steps, collector);
  return collector.take();
}

GossipLossRun muffliato_sgd_loss_sequence(const GossipSchedule& s, int gossip_steps,
                                          const GossipLossParams& p, LossRowSink& sink) {
  const auto started = std::chrono::steady_clock::now();
  validate(s);
  if (s.randomized()) bad("Muffliato-SGD (Theorem C.9) needs a synchronous schedule, got a randomized one");
  if (gossip_steps < 1) bad("Muffliato-SGD: K must be >= 1, got " + std::to_string(gossip_steps));
  GossipLossParams q = p;
  q.t_start = 0;
  validate_params(q, s);
  const Plan plan = plan_memory("muffliato-sgd-sequence", s.n, p, true);
  GossipLossRun run;
  const std::vector<double> shares =
      shares_on_device(s, kernels::SequenceKind::muffliato_c9, 0, gossip_steps, plan, p, run);
  // Capped at T times the LDP level: the T noisy releases composed (docs/math.md §6.1's post-processing
  // argument).
  const double scale = gossip_ldp_loss(p), cap_level = double(s.steps) * scale;
  emit(
      shares, s.n, plan,
      [&](double sum, bool same) {
        const double f = same ? 0.0 : scale * sum;
        return p.cap_ldp && f > cap_level ? cap_level : f;
      },
      sink);
  describe(run, plan, "dense-product", started);
  return run;
}

std::vector<double> muffliato_sgd_loss_sequence_matrix(const GossipSchedule& s, int gossip_steps,
                                                       const GossipLossParams& p) {
  LossMatrixCollector collector(s.n);
  muffliato_sgd_loss_sequence(s, gossip_steps, p, collector);
  return collector.take();
}

}  // namespace netdp
