// The CPU twin of the time-varying gossip simulator (sequence, dropout, er-per-round, dropout-er, randomized:
// docs/math.md §6.1, 6.8, 6.4, 6.3; interface: gossip_sim_kernels.hpp). Every run follows its own schedule,
// drawn round by round from (seed, run, round) alone (never held whole), so the runs of a batch are spread
// over the threads, one run per task. A run's state is column-major n x D: exactly one run of the CUDA
// twin's block (kernels/cuda/gossip_sim_varying_cuda.cu), and every step is the CUDA twin's body
// (kernels/common/gossip_sim_bodies.hpp) run over its index range with count = 1, so the bytes are the
// emulated CUDA twin's (tests/backend/test_gossip_sim_twins.cpp).
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <vector>

#include "common/gossip_sim_bodies.hpp"
#include "common/gossip_sim_layout.hpp"
#include "common/gossip_spmm_bodies.hpp"
#include "gossip_sim_kernels.hpp"
#include "netdp/ground/work_counter.hpp"

namespace netdp::kernels {

namespace {

constexpr std::int64_t kTickChunk = std::int64_t{1} << 16;  // ticks between two looks at the stop request

/// Edges one run may hold in a round at first: the mean q n (n - 1) / 2 plus 6 standard deviations and 16,
/// as the CUDA twin; the CPU grows it when a round draws more (the draw is redone from the same words).
std::int64_t er_capacity(const GossipSimVaryingProblem& p) {
  const double pairs = double(p.n) * double(p.n - 1) / 2, mean = p.edge_probability * pairs;
  return static_cast<std::int64_t>(std::min(pairs, std::ceil(mean + 6 * std::sqrt(mean) + 16)));
}

/// A W-MH step body (DropoutStepBody, ErStepBody) over one run: element by element for D = 1, else node by
/// node with the row's weights computed once for the D columns (node(), the same elements' arithmetic).
template <class Step>
void apply_wmh(const Step& step, std::int64_t n, std::int64_t dim) {
  if (dim == 1)
    for (std::int64_t v = 0; v < n; ++v) step(v);
  else
    for (std::int64_t v = 0; v < n; ++v) step.node(0, v);
}

/// One thread's buffers: the state pair, a round's mask and degrees, the G(n, q) scratch of ErSampleBody.
struct RunScratch {
  std::vector<double> cur, next, average, col_true, col_noisy, err_true, err_noisy, totals;
  std::vector<unsigned char> active;
  std::vector<std::int32_t> degree, pairs, adjacency, er_degree, parent, status;
  std::vector<offset_t> offsets;
  std::int64_t cap = 0;

  gossip::ErScratch er() {
    return {pairs.data(), adjacency.data(), er_degree.data(), parent.data(), status.data(), offsets.data(),
            cap};
  }
  void grow_er(std::int64_t edges) {
    cap = edges;
    pairs.assign(static_cast<std::size_t>(2 * cap), 0);
    adjacency.assign(pairs.size(), 0);
  }
};

/// Run `run` (slot b of the batch) from its noisy start to T.
void simulate_run(const GossipSimVaryingProblem& p, bool clip_start, std::int64_t run, std::int64_t b,
                  const GossipSimCpuOutput& out, const ground::WorkCounter& runs_done, RunScratch& s) {
  const std::int64_t n = p.n, dim = p.dim, elements = n * dim;
  const std::size_t points = p.times.size();
  s.cur.resize(static_cast<std::size_t>(elements));
  s.next.resize(s.cur.size());
  s.average.resize(static_cast<std::size_t>(dim));
  s.col_true.resize(s.average.size());
  s.col_noisy.resize(s.average.size());
  double* truth = out.truth.data() + static_cast<std::size_t>(b) * points;
  double* noisy = out.noisy.data() + static_cast<std::size_t>(b) * points;

  const gossip::NoisyStartBody noise{p.x.data(), n,           static_cast<int>(dim),
                                     p.sigma,    p.seed,      gossip_subsequence(GossipStream::noise, 0, 0),
                                     run,        s.cur.data()};
  noise.run(0);
  if (clip_start)
    for (std::int64_t i = 0; i < elements; ++i) gossip::ClipStartBody{s.cur.data()}(i);
  const gossip::ColumnMajorAveragesBody averages{{s.cur.data(), n, dim, s.average.data()}};
  for (std::int64_t c = 0; c < dim; ++c) averages(c);
  std::copy(s.average.begin(), s.average.end(), out.noisy_average.begin() + b * dim);

  std::size_t point = 0;
  // The errors of the whole state at times[point] (ColumnMajorErrorsBody, RunErrorsBody) and the state.
  auto record = [&](const double* state) {
    const gossip::ColumnMajorErrorsBody errors{{state, n, dim, static_cast<int>(dim), p.xbar.data(),
                                                s.average.data(), s.col_true.data(), s.col_noisy.data()}};
    for (std::int64_t c = 0; c < dim; ++c) errors(c);
    gossip::RunErrorsBody{s.col_true.data(),
                          s.col_noisy.data(),
                          static_cast<int>(dim),
                          n,
                          static_cast<std::int64_t>(point),
                          0,
                          truth,
                          noisy}(0);
  };
  // The state at times[point] into out.states, row-major n x D.
  auto keep_state = [&](const double* state) {
    if (out.states.empty()) return;
    double* to = out.states.data() + (static_cast<std::size_t>(b) * points + point) * elements;
    for (std::int64_t v = 0; v < n; ++v)
      for (std::int64_t k = 0; k < dim; ++k) to[v * dim + k] = state[v + k * n];
  };
  record(s.cur.data());
  keep_state(s.cur.data());
  ++point;

  if (p.protocol == VaryingProtocol::randomized) {
    s.err_true.resize(static_cast<std::size_t>(n));
    s.err_noisy.resize(s.err_true.size());
    s.totals.resize(2);
    gossip::TicksStartBody{s.cur.data(),          n,
                           static_cast<int>(dim), p.xbar.data(),
                           s.average.data(),      s.err_true.data(),
                           s.err_noisy.data(),    s.totals.data()}(0);
    const gossip::TickArgs args{n,
                                run,
                                1,
                                static_cast<std::int64_t>(p.cumulative.size()),
                                static_cast<std::int64_t>(points),
                                static_cast<int>(dim),
                                p.seed,
                                gossip_subsequence(GossipStream::activation, 0, 0),
                                p.cumulative.data(),
                                p.edge_nodes.data(),
                                p.times.data(),
                                p.xbar.data(),
                                s.average.data()};
    // Chunks of ticks end at the recorded times when the states are wanted, so each can be kept.
    for (std::int64_t t0 = 0; t0 < p.steps;) {
      if (runs_done.stopped()) return;
      std::int64_t t1 = std::min<std::int64_t>(t0 + kTickChunk, p.steps);
      if (!out.states.empty()) t1 = std::min<std::int64_t>(t1, p.times[point]);
      gossip::TicksRunBody{args,
                           t0,
                           t1,
                           static_cast<std::int64_t>(point),
                           s.cur.data(),
                           s.err_true.data(),
                           s.err_noisy.data(),
                           s.totals.data(),
                           truth,
                           noisy}(0);
      while (point < points && p.times[point] <= t1) {
        if (p.times[point] == t1) keep_state(s.cur.data());
        ++point;
      }
      t0 = t1;
    }
    return;
  }

  const bool dropout = p.protocol == VaryingProtocol::dropout;
  const bool er = p.protocol == VaryingProtocol::er_per_round || p.protocol == VaryingProtocol::dropout_er;
  const bool masked = dropout || p.protocol == VaryingProtocol::dropout_er;
  if (masked) {
    s.active.resize(static_cast<std::size_t>(n));
    s.degree.resize(static_cast<std::size_t>(n));
  }
  if (er) {
    if (s.cap == 0) s.grow_er(er_capacity(p));
    s.er_degree.resize(static_cast<std::size_t>(n));
    s.parent.resize(static_cast<std::size_t>(n));
    s.offsets.resize(static_cast<std::size_t>(n) + 1);
    s.status.assign(1, 0);
  }
  const double log_absent = std::log1p(-p.edge_probability);  // the CUDA twin's host-side ln(1 - q)
  double* from = s.cur.data();
  double* to = s.next.data();
  for (int t = 1; t <= p.steps; ++t) {
    if (runs_done.stopped()) return;
    const auto round = static_cast<std::uint64_t>(t - 1);
    if (masked) {
      const gossip::DropoutMaskBody mask{
          p.seed, gossip_subsequence(GossipStream::dropout, 0, round), run, n, p.dropout, s.active.data()};
      for (std::int64_t v = 0; v < n; ++v) mask(v);
    }
    if (er) {
      for (;;) {  // a round above the capacity is drawn again, from the same words, with room for it
        gossip::ErSampleBody{p.seed,
                             gossip_subsequence(GossipStream::er_graph, 0, round),
                             t - 1,
                             run,
                             n,
                             p.edge_probability,
                             log_absent,
                             s.er(),
                             p.protocol == VaryingProtocol::dropout_er ? s.active.data() : nullptr}(0);
        if (s.status[0] % 4 != 1) break;
        s.status[0] = 0;
        s.grow_er(2 * s.cap);
      }
      if (s.status[0] != 0) {  // disconnected in every draw: the driver names the run and the round
        out.status[static_cast<std::size_t>(b)] = s.status[0];
        return;
      }
      const gossip::ErStepBody step{s.er(), n, static_cast<int>(dim), from, to};
      apply_wmh(step, n, dim);
    } else if (dropout) {
      const gossip::ActiveDegreesBody degrees{p.graph.offsets.data(), p.graph.adjacency.data(), n,
                                              s.active.data(), s.degree.data()};
      for (std::int64_t v = 0; v < n; ++v) degrees(v);
      const gossip::DropoutStepBody step{
          p.graph.offsets.data(), p.graph.adjacency.data(), n,    static_cast<int>(dim),
          s.active.data(),        s.degree.data(),          from, to};
      apply_wmh(step, n, dim);
    } else {  // sequence: W_{(t - 1) mod L}
      const CsrView& w = p.rounds[static_cast<std::size_t>(t - 1) % p.rounds.size()].w;
      const gossip::CsrMultiplyBody step{w.offsets.data(), w.columns.data(), w.values.data(), n, from, to};
      for (std::int64_t i = 0; i < elements; ++i) step(i);
    }
    std::swap(from, to);
    if (point < points && p.times[point] == t) {
      record(from);
      keep_state(from);
      ++point;
    }
  }
}

}  // namespace

void gossip_sim_varying_cpu(const GossipSimVaryingProblem& p, bool clip_start, std::int64_t first,
                            std::int64_t count, const GossipSimCpuOutput& out,
                            const std::function<bool(double)>& progress) {
  if (!out.status.empty()) std::fill(out.status.begin(), out.status.end(), 0);
  ground::WorkCounter runs_done(count, progress);
  // An exception (std::bad_alloc) may not leave an OpenMP region: the first one is kept and rethrown after
  // it.
  std::exception_ptr error;
#pragma omp parallel
  {
    RunScratch scratch;
#pragma omp for schedule(dynamic, 1)
    for (std::int64_t b = 0; b < count; ++b) {
      if (runs_done.stopped()) continue;
      try {
        simulate_run(p, clip_start, first + b, b, out, runs_done, scratch);
      } catch (...) {
#pragma omp critical(gossip_sim_varying_cpu_error)
        if (!error) error = std::current_exception();
      }
      runs_done.finished_one();
    }
  }
  if (error) std::rethrow_exception(error);
}

}  // namespace netdp::kernels
