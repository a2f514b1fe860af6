// CPU twin of the time-varying gossip accountant (docs/math.md §6.1, 6.3, 6.5; cost table of docs/math.md
// §13): the bodies of common/gossip_loss_sequence_bodies.hpp, whole rows per index (the CUDA twin,
// kernels/cuda/gossip_loss_sequence_cuda.cu, runs them one entry per thread: the same bits). A dense product
// P = W_{0:t} multiplied by the sparse W_t each round, row norms along rows.
#include <cstddef>

#include "common/for_each.hpp"
#include "common/gossip_loss_sequence_bodies.hpp"
#include "gossip_loss_sequence_kernels.hpp"
#include "netdp/ground/views.hpp"

namespace netdp::kernels {
namespace {

std::size_t at(node_t row, node_t n) {
  return static_cast<std::size_t>(row) * static_cast<std::size_t>(n);
}

sequence::CsrArrays arrays(CsrView w) {
  return {w.offsets.data(), w.columns.data(), w.values.data()};
}
sequence::CsrArrays arrays(GraphView g) {
  return {g.offsets.data(), g.adjacency.data(), nullptr};
}

/// The messages of round `g` from P: every w with a neighbour sends row w of P; F[v] += its shares for each
/// w in N(v). The shares of w go to scratch first so that each is computed once.
void add_round_shares(GraphView g, SequenceState& st) {
  const std::int64_t n = st.n, count = st.count;
  const sequence::RowNormsBody norms{arrays(g), st.product.data(), st.norms.data(), n};
  const sequence::MessageSharesBody shares{arrays(g), st.product.data(), st.norms.data(), st.scratch.data(),
                                           n,         st.first,          count,           1};
  host_for_each(n, [&](std::int64_t w) {
    norms(w);
    shares(w);
  });
  host_for_each(n, sequence::AddSharesBody{arrays(g), st.scratch.data(), st.shares.data(), count, 1});
}

}  // namespace

void left_multiply(CsrView w, SequenceState& st) {
  host_for_each(st.n, sequence::ProductBody{arrays(w), st.product.data(), st.scratch.data(), st.n, 1});
  st.product.swap(st.scratch);
}

void average_rows(SequenceState& st, node_t v, node_t w) {
  const sequence::AverageRowsBody average{st.product.data(), st.n, v, w};
  for (node_t k = 0; k < st.n; ++k) average(k);
  sequence::PairNormBody{st.product.data(), st.norms.data(), st.n, v, w}(0);
}

SequenceState::SequenceState(node_t n_, node_t first_, node_t count_, bool with_scratch)
    : n(n_), first(first_), count(count_) {
  product.assign(at(n, n), 0.0);
  if (with_scratch) scratch.assign(at(n, n), 0.0);
  norms.assign(static_cast<std::size_t>(n), 1.0);
  shares.assign(at(n, count), 0.0);
  reset_identity();
}

void SequenceState::reset_identity() {
  host_for_each(std::int64_t{n} * n, sequence::IdentityBody{product.data(), norms.data(), n});
}

double sequence_state_bytes(node_t n, node_t count, bool with_scratch) {
  const double nn = double(n) * double(n);
  return 8.0 * ((with_scratch ? 2.0 : 1.0) * nn + double(n) * double(count) + double(n));
}

void sequence_shares_synchronous_cpu(const ScheduleView& s, int t_start, SequenceState& st) {
  for (int t = 0; t < s.steps; ++t) {
    const RoundView& round = s.round(t);
    if (t >= t_start && round.graph.num_edges() > 0) add_round_shares(round.graph, st);
    if (t + 1 < s.steps) left_multiply(round.w, st);  // W_{0:T} itself is never sent
  }
}

void sequence_shares_randomized_cpu(const ScheduleView& s, int t_start, SequenceState& st) {
  for (int t = 0; t < s.steps; ++t) {
    const auto [v, w] = s.activations[static_cast<std::size_t>(t)];
    if (v == w) continue;  // an idle tick: W_t = I, nobody talks
    if (t >= t_start) {
      // Messages carry the values before the averaging (docs/math.md §6.3, corrected line 7; 12 item 14).
      const sequence::TickSharesBody tick{
          st.product.data(), st.norms.data(), st.shares.data(), st.n, st.first, st.count, v, w};
      for (node_t j = 0; j < st.count; ++j) tick(j);
    }
    average_rows(st, v, w);  // W_{0:t+1} = W_t W_{0:t}
  }
}

void muffliato_c9_shares_cpu(const ScheduleView& s, int gossip_steps, SequenceState& st) {
  const int T = s.steps, K = gossip_steps;
  for (int t = 0; t < T; ++t) {
    st.reset_identity();  // the gradient injected at round t starts from its own noise
    for (int j = t; j < T; ++j) {
      const RoundView& round = s.round(j);
      for (int k = 0; k < K; ++k) {
        if (round.graph.num_edges() > 0) add_round_shares(round.graph, st);
        if (j + 1 < T || k + 1 < K) left_multiply(round.w, st);
      }
    }
  }
}

}  // namespace netdp::kernels
