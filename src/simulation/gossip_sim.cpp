// Driver of the gossip simulator: checks, the memory plan, batches of runs in run order, and the statistics
// over runs (Welford, in run order, so that batch size and threads cannot change a bit).
#include "netdp/simulation/gossip_sim.hpp"

#include "netdp/simulation/gossip_sim_stop.hpp"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <optional>
#include <string>

#include "common/memory_plan.hpp"
#include "common/panel_lanes.hpp"
#include "core/memory_info.hpp"
#include "core/progress.hpp"
#include "gossip_sim_kernels.hpp"
#include "netdp/core/error.hpp"
#include "netdp/core/format.hpp"
#include "netdp/core/spectral.hpp"
#include "simulation/gossip_sim_internal.hpp"

namespace netdp {

namespace {

using namespace gossip_sim_detail;
namespace memory_plan = kernels::memory_plan;

/// What a simulation shares between the library calls: checked inputs, times, averages, gamma.
struct Prepared {
  std::vector<int> times;
  std::vector<double> xbar;
  double spread = 0, gamma = 0;
};

Prepared prepare(const Graph& g, const CsrMatrix& w, std::span<const double> x, const GossipSimParams& p) {
  validate(p, g.n);
  const std::size_t n = static_cast<std::size_t>(g.n), dim = static_cast<std::size_t>(p.dim);
  if (x.size() != n * dim)
    throw InvalidInput("gossip-sim: " + std::to_string(x.size()) + " initial values for n = " +
                       std::to_string(n) + " nodes of dimension " + std::to_string(dim));
  if (uses_graph_weights(p.protocol)) {
    if (w.n != g.n)
      throw InvalidInput("gossip-sim: W is " + std::to_string(w.n) + " x " + std::to_string(w.n) +
                         " but the graph has " + std::to_string(g.n) + " nodes");
    validate_gossip_matrix(w, g);  // doubly stochastic: the average is preserved (docs/math.md §2.1)
  }
  Prepared s;
  s.times = recorded_times(p.steps, p.record_every);
  s.xbar.assign(dim, 0.0);
  node_average(x, g.n, p.dim, s.xbar);
  s.spread = squared_error(x, g.n, p.dim, s.xbar);
  if (p.protocol == GossipProtocol::accelerated) {
    const double gap = p.spectral_gap > 0 ? p.spectral_gap : spectral_summary(w).gap(GapDefinition::second);
    s.gamma = chebyshev_gamma(gap);  // docs/math.md §2.4
  }
  return s;
}

std::string mib(std::int64_t bytes) {
  return format_double(std::round(double(bytes) / (1 << 20) * 10) / 10) + " MiB";
}

struct BatchPlan {
  std::int64_t batch = 1, batches = 1, memory_estimate = 0;
};

/// Bytes: `fixed` once, `per_run` for each run of a batch. Fixed W: the state buffers are per run;
/// time-varying protocols hold one run's state (and round) per thread and only the errors per run.
BatchPlan plan_batches(const Graph& g, const CsrMatrix& w, const GossipSimParams& p, std::size_t points) {
  const std::int64_t n = g.n, dim = p.dim, threads = omp_get_max_threads(), pts = std::int64_t(points);
  const std::int64_t state = n * dim * 8, errors = 2 * pts * 8;
  std::int64_t fixed = state + 6 * pts * 8, per_run = errors + 2 * dim * 8;
  switch (p.protocol) {
    case GossipProtocol::sync:
    case GossipProtocol::accelerated: {
      const std::int64_t buffers = p.protocol == GossipProtocol::accelerated ? 3 : 2;
      per_run += buffers * state + 2 * pts * dim * 8;
      fixed += buffers * n * kernels::kSparseLanes * 8 + threads * (state + dim * 8);
      break;
    }
    case GossipProtocol::randomized:
      fixed += w.nnz() * 16 + threads * (state + 2 * n * 8);
      break;
    case GossipProtocol::er_per_round:
    case GossipProtocol::dropout_er: {
      const double edges = p.edge_probability * double(n) * double(n - 1) / 2;
      const double high = edges + 6 * std::sqrt(edges) + 16;  // W, graph, pairs and BFS of one round
      fixed += threads * (2 * state + std::int64_t(64 * high) + 64 * n);
      break;
    }
    case GossipProtocol::dropout:
      fixed += threads * (2 * state + 64 * g.num_edges() + 64 * n);
      break;
    case GossipProtocol::sequence:  // the rounds are shared (already loaded): one state pair per thread
      fixed += threads * 2 * state;
      break;
  }
  const std::int64_t budget = memory_plan::host_budget(available_memory_bytes(), p.memory_limit);
  const std::string sizes = "n = " + std::to_string(n) + ", D = " + std::to_string(dim) + ", " +
                            std::to_string(points) + " recorded times";
  // Automatic batches: enough columns for every thread to hold a few panels, else about 256 MiB per batch
  // (progress), in whole panels where possible.
  const std::int64_t busy = (4 * threads * kernels::kSparseLanes + dim - 1) / dim;
  const memory_plan::RunBatchPlan plan =
      memory_plan::plan_run_batch({.items = p.runs,
                                   .fixed = fixed,
                                   .per_item = per_run,
                                   .budget = budget,
                                   .forced = p.batch_runs,
                                   .preferred = std::max(busy, (std::int64_t{256} << 20) / per_run),
                                   .columns_per_item = dim,
                                   .panel_lanes = kernels::kSparseLanes});
  if (plan.fits < 1)
    throw InsufficientMemory("gossip-sim: one run needs " + mib(fixed + per_run) + " (" + sizes +
                             ") but only " + mib(budget) + " is available");
  if (!plan.forced_fits)
    throw InsufficientMemory("gossip-sim: batch-runs " + std::to_string(plan.batch) + " needs " +
                             mib(plan.bytes) + " (" + sizes + ") but only " + mib(budget) +
                             " is available; at most " + std::to_string(plan.fits) + " runs fit");
  return {plan.batch, plan.batches, plan.bytes};
}

/// Running mean and sum of squared deviations (Welford), fed in run order.
struct Welford {
  std::vector<double> mean, m2;
  std::int64_t count = 0;
  explicit Welford(std::size_t points) : mean(points, 0.0), m2(points, 0.0) {}
  void add(const double* values) {
    ++count;
    for (std::size_t i = 0; i < mean.size(); ++i) {
      const double delta = values[i] - mean[i];
      mean[i] += delta / double(count);
      m2[i] += delta * (values[i] - mean[i]);
    }
  }
  std::vector<double> std_error() const {
    std::vector<double> se(mean.size(), std::numeric_limits<double>::quiet_NaN());
    if (count > 1)
      for (std::size_t i = 0; i < se.size(); ++i)
        se[i] = std::sqrt(m2[i] / double(count - 1) / double(count));
    return se;
  }
};

/// The device of the runs: CUDA when asked or under auto when a device answers (every protocol has a CUDA
/// path; the privacy pass, gossip_sim_privacy.cpp, always runs on the CPU), else the CPU.
ResolvedDevice choose_device(const GossipSimParams& p) {
  if (p.clip_start) {  // the clipped start exists on the CPU only (validate refuses device cuda)
    ResolvedDevice cpu = resolve_device(DeviceSpec{DeviceKind::cpu, 0});
    cpu.note = "clip-start runs on the CPU";
    return cpu;
  }
  return resolve_device(p.device);
}

/// The backends' view of a simulation (kernels/gossip_sim_kernels.hpp): the fixed-W problem, or the
/// time-varying one with the storage its spans point into.
struct Problems {
  kernels::GossipSimProblem fixed{};
  kernels::GossipSimVaryingProblem varying{};
  std::vector<node_t> edge_nodes;
  std::vector<RoundView> rounds;  // the backend's views of the sequence's rounds
  std::optional<ActivationSampler> sampler;
};

/// Fills `out` (not movable once built: the varying problem points into it).
void make_problems(const Graph& g, const CsrMatrix& w, std::span<const double> x, const GossipSimParams& p,
                   const Prepared& s, Problems& out) {
  if (fixed_matrix(p.protocol)) {
    out.fixed = kernels::GossipSimProblem{w,
                                          p.protocol == GossipProtocol::accelerated,
                                          w.density() > 0.25,  // docs/design.md principle 4, as gossip-loss
                                          p.steps,
                                          p.dim,
                                          p.sigma,
                                          s.gamma,
                                          p.seed,
                                          x,
                                          s.xbar,
                                          s.times};
    return;
  }
  kernels::GossipSimVaryingProblem& problem = out.varying;
  problem = kernels::GossipSimVaryingProblem{.protocol = kernels::VaryingProtocol::sequence,
                                             .n = g.n,
                                             .steps = p.steps,
                                             .dim = p.dim,
                                             .sigma = p.sigma,
                                             .seed = p.seed,
                                             .x = x,
                                             .xbar = s.xbar,
                                             .times = s.times};
  switch (p.protocol) {
    case GossipProtocol::sequence:
      for (const GossipRound& r : *p.sequence) out.rounds.push_back({r.w, r.graph});
      problem.rounds = out.rounds;
      break;
    case GossipProtocol::dropout:
      problem.protocol = kernels::VaryingProtocol::dropout;
      problem.graph = g;
      problem.dropout = p.dropout;
      break;
    case GossipProtocol::er_per_round:
      problem.protocol = kernels::VaryingProtocol::er_per_round;
      problem.edge_probability = p.edge_probability;
      break;
    case GossipProtocol::dropout_er:
      problem.protocol = kernels::VaryingProtocol::dropout_er;
      problem.edge_probability = p.edge_probability;
      problem.dropout = p.dropout;
      break;
    default:  // randomized: the activation table of ActivationSampler, looked up by activated_edge
      problem.protocol = kernels::VaryingProtocol::randomized;
      out.sampler.emplace(g, w);
      out.edge_nodes = out.sampler->edge_nodes();
      problem.cumulative = out.sampler->cumulative();
      problem.edge_nodes = out.edge_nodes;
      break;
  }
}

/// All runs on CUDA device `device` (kernels/cuda/gossip_sim*.cu), batch after batch in run order; `fold`
/// gets each batch's errors.
template <class Fold>
kernels::CudaGossipSimRun simulate_cuda(const GossipSimParams& p, const Problems& problems, int device,
                                        const Fold& fold) {
  const auto run_batches = [&](kernels::GossipSimCudaEngine& engine) {
    const kernels::CudaGossipSimRun plan = engine.plan();
    for (std::int64_t first = 0; first < p.runs; first += plan.batch_runs) {
      const std::int64_t count = std::min(plan.batch_runs, p.runs - first);
      const kernels::GossipSimBatchErrors errors = engine.run_batch(first, count);
      fold(first, count, errors.truth.data(), errors.noisy.data());
    }
    return plan;
  };
  if (fixed_matrix(p.protocol))
    return run_batches(
        *kernels::gossip_sim_cuda(problems.fixed, device, p.runs, p.batch_runs, p.memory_limit));
  return run_batches(
      *kernels::gossip_sim_varying_cuda(problems.varying, device, p.runs, p.batch_runs, p.memory_limit));
}

constexpr int kErMaxAttempts = 1000;  // sample_er_round's and the twins' draws of a disconnected G(n, q)

/// Driver-owned outputs of one CPU batch (kernels::GossipSimCpuOutput).
struct CpuBatch {
  std::vector<double> truth, noisy, noisy_average, states;
  std::vector<std::int32_t> status;
};

/// Runs first .. first + count - 1 on the CPU twin (kernels/cpu/gossip_sim*_cpu.cpp); with `states` the
/// state of every run at every recorded time too. `progress` gets the share of all runs done. A stop request
/// ends the run with RunStopped; an er-per-round G(n, q) disconnected in every draw with the CPU's message.
void simulate_cpu(const Graph& g, const GossipSimParams& p, const Problems& problems, std::size_t points,
                  std::int64_t first, std::int64_t count, bool states, CpuBatch& b,
                  const GossipSimProgress& progress) {
  const std::size_t runs = static_cast<std::size_t>(count);
  b.truth.assign(runs * points, 0.0);
  b.noisy.assign(b.truth.size(), 0.0);
  b.noisy_average.assign(runs * static_cast<std::size_t>(p.dim), 0.0);
  b.states.assign(states ? b.truth.size() * static_cast<std::size_t>(g.n) * p.dim : 0, 0.0);
  b.status.assign(fixed_matrix(p.protocol) ? 0 : runs, 0);
  const kernels::GossipSimCpuOutput out{b.truth, b.noisy, b.noisy_average, b.states, b.status};
  const auto share = keep_going([&](double done) {
    if (progress) progress((double(first) + done * double(count)) / double(p.runs));
  });
  if (fixed_matrix(p.protocol))
    kernels::gossip_sim_cpu(problems.fixed, p.clip_start, first, count, out, share);
  else
    kernels::gossip_sim_varying_cpu(problems.varying, p.clip_start, first, count, out, share);
  throw_if_stopped();  // skipped work holds no result
  for (std::size_t r = 0; r < b.status.size(); ++r)
    if (b.status[r] != 0)
      throw InvalidParameter("er-c", "er-c: er-per-round: G(n = " + std::to_string(g.n) +
                                         ", q = " + format_double(p.edge_probability) +
                                         ") was disconnected in " + std::to_string(kErMaxAttempts) +
                                         " draws (run " + std::to_string(first + std::int64_t(r)) +
                                         ", round " + std::to_string(b.status[r] / 4 - 1) + "); raise er-c");
}

}  // namespace

GossipSimResult gossip_sim(const Graph& g, const CsrMatrix& w, std::span<const double> x,
                           const GossipSimParams& p, const GossipSimProgress& progress) {
  const auto started = std::chrono::steady_clock::now();
  const Prepared s = prepare(g, w, x, p);
  const ResolvedDevice device = choose_device(p);
  const std::size_t points = s.times.size();

  // Per-run errors are folded in run order on the host whatever the device (principle 1: same statistics).
  Welford truth(points), noisy(points);
  auto fold = [&](std::int64_t count, const double* truth_errors, const double* noisy_errors) {
    for (std::int64_t b = 0; b < count; ++b) {
      truth.add(truth_errors + b * points);
      noisy.add(noisy_errors + b * points);
    }
  };

  GossipSimResult r;
  r.device = device.name;
  r.device_note = device.note;
  Problems problems;
  make_problems(g, w, x, p, s, problems);
  if (device.kind == DeviceKind::cuda) {
    const auto cuda =
        simulate_cuda(p, problems, device.index,
                      [&](std::int64_t first, std::int64_t count, const double* t, const double* e) {
                        fold(count, t, e);
                        if (progress) progress(double(first + count) / double(p.runs));
                      });
    r.batch_runs = cuda.batch_runs;
    r.batches = cuda.batches;
    r.memory_estimate = cuda.device_bytes;
  } else {
    const BatchPlan plan = plan_batches(g, w, p, points);
    CpuBatch batch;
    for (std::int64_t first = 0; first < p.runs; first += plan.batch) {
      const std::int64_t count = std::min(plan.batch, p.runs - first);
      simulate_cpu(g, p, problems, points, first, count, false, batch, progress);
      fold(count, batch.truth.data(), batch.noisy.data());
    }
    r.batch_runs = plan.batch;
    r.batches = plan.batches;
    r.memory_estimate = plan.memory_estimate;
  }

  r.t = s.times;
  r.mean = truth.mean;
  r.std_error = truth.std_error();
  r.noisy_mean = noisy.mean;
  r.noisy_std_error = noisy.std_error();
  r.true_average = s.xbar;
  r.initial_spread = s.spread;
  r.gamma = s.gamma;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return r;
}

std::vector<std::vector<double>> gossip_sim_trajectory(const Graph& g, const CsrMatrix& w,
                                                       std::span<const double> x, const GossipSimParams& p,
                                                       std::int64_t run) {
  const Prepared s = prepare(g, w, x, p);
  if (run < 0 || run >= p.runs)
    throw InvalidInput("gossip-sim: run " + std::to_string(run) + " outside [0, " + std::to_string(p.runs) +
                       ")");
  Problems problems;
  make_problems(g, w, x, p, s, problems);
  CpuBatch batch;
  simulate_cpu(g, p, problems, s.times.size(), run, 1, true, batch, {});
  const std::size_t size = static_cast<std::size_t>(g.n) * static_cast<std::size_t>(p.dim);
  std::vector<std::vector<double>> states(s.times.size());
  for (std::size_t i = 0; i < states.size(); ++i)
    states[i].assign(batch.states.begin() + i * size, batch.states.begin() + (i + 1) * size);
  return states;
}

std::vector<GossipStopPoint> gossip_sim_stop_points(const Graph& g, const CsrMatrix& w,
                                                    std::span<const double> x, const GossipSimParams& p,
                                                    const StopRule& rule) {
  GossipSimParams every = p;
  every.record_every = 1;  // the rule looks at every round
  const Prepared s = prepare(g, w, x, every);
  Problems problems;
  make_problems(g, w, x, every, s, problems);
  const std::size_t points = s.times.size(), dim = static_cast<std::size_t>(p.dim);
  const std::int64_t batch = plan_batches(g, w, every, points).batch;
  std::vector<GossipStopPoint> out(static_cast<std::size_t>(p.runs));
  CpuBatch errors;
  for (std::int64_t first = 0; first < p.runs; first += batch) {
    const std::int64_t count = std::min(batch, p.runs - first);
    simulate_cpu(g, every, problems, points, first, count, false, errors, {});
    for (std::int64_t b = 0; b < count; ++b) {
      GossipStopPoint& o = out[static_cast<std::size_t>(first + b)];
      // xbar_noisy is the node average of x^0 after the noise (and the clip), summed in node order: the
      // simulator's own reference, so the rule's sides use the same numbers.
      const double* average = errors.noisy_average.data() + static_cast<std::size_t>(b) * dim;
      o.bias = 0;
      for (std::size_t k = 0; k < dim; ++k) o.bias += (average[k] - s.xbar[k]) * (average[k] - s.xbar[k]);
      o.threshold = rule.kind == StopRuleKind::thesis ? rule.value * o.bias : rule.value;
      const double* e = errors.noisy.data() + static_cast<std::size_t>(b) * points;
      for (std::size_t i = 0; i < points && !o.stop; ++i)
        if (e[i] < o.threshold) o.stop = s.times[i];
      o.error = o.stop ? e[static_cast<std::size_t>(*o.stop)] : e[points - 1];
    }
  }
  return out;
}

}  // namespace netdp
