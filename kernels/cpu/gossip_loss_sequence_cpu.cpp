// CPU backend of the time-varying gossip accountant (docs/math.md §6.1, 6.3, 6.5; cost table of docs/math.md
// §13): a dense product P = W_{0:t} multiplied by the sparse W_t each round, row norms by a reduction along
// rows.
#include <algorithm>
#include <cstddef>

#include "common/csr_host.hpp"
#include "common/gossip_loss_math.hpp"
#include "gossip_loss_sequence_kernels.hpp"
#include "netdp/ground/views.hpp"

namespace netdp::kernels {
namespace {

std::size_t at(node_t row, node_t n) {
  return static_cast<std::size_t>(row) * static_cast<std::size_t>(n);
}

/// ||row||^2, summed in increasing column order.
double row_norm_sq(const double* row, node_t n) {
  double acc = 0;
  for (node_t k = 0; k < n; ++k) acc += row[k] * row[k];
  return acc;
}

/// The messages of round `g` from P: every w with a neighbour sends row w of P; F[v] += its shares for each
/// w in N(v). The shares of w go to scratch first so that each is computed once.
void add_round_shares(GraphView g, SequenceState& st) {
  const node_t n = st.n, count = st.count;
  const double* p = st.product.data();
  double* share = st.scratch.data();
#pragma omp parallel for schedule(static)
  for (node_t w = 0; w < n; ++w) {
    if (g.degree(w) == 0) continue;
    const double* row = p + at(w, n);
    const double r = row_norm_sq(row, n);  // >= 1/n: rows of a row-stochastic product sum to 1
    double* out = share + at(w, count);
    for (node_t j = 0; j < count; ++j) out[j] = message_share(row[st.first + j], r);
  }
  double* f = st.shares.data();
#pragma omp parallel for schedule(static)
  for (node_t v = 0; v < n; ++v) {
    double* fv = f + at(v, count);
    for (node_t w : g.neighbors(v)) {
      const double* sw = share + at(w, count);
      for (node_t j = 0; j < count; ++j) fv[j] += sw[j];
    }
  }
}

}  // namespace

void left_multiply(CsrView w, SequenceState& st) {
  csr_multiply(w, st.product.data(), st.scratch.data(), st.n, true);
  st.product.swap(st.scratch);
}

void average_rows(SequenceState& st, node_t v, node_t w) {
  const node_t n = st.n;
  double* pv = st.product.data() + at(v, n);
  double* pw = st.product.data() + at(w, n);
  for (node_t k = 0; k < n; ++k) pv[k] = pw[k] = 0.5 * (pv[k] + pw[k]);
  st.norms[v] = st.norms[w] = row_norm_sq(pv, n);
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
  std::fill(product.begin(), product.end(), 0.0);
  for (node_t i = 0; i < n; ++i) product[at(i, n) + static_cast<std::size_t>(i)] = 1.0;
  std::fill(norms.begin(), norms.end(), 1.0);
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
  const node_t n = st.n, count = st.count;
  double* f = st.shares.data();
  for (int t = 0; t < s.steps; ++t) {
    const auto [v, w] = s.activations[static_cast<std::size_t>(t)];
    if (v == w) continue;  // an idle tick: W_t = I, nobody talks
    double* pv = st.product.data() + at(v, n);
    double* pw = st.product.data() + at(w, n);
    if (t >= t_start) {
      // Messages carry the values before the averaging (docs/math.md §6.3, corrected line 7; 12 item 14).
      double* fv = f + at(v, count);
      double* fw = f + at(w, count);
      for (node_t j = 0; j < count; ++j) {
        fv[j] += message_share(pw[st.first + j], st.norms[w]);
        fw[j] += message_share(pv[st.first + j], st.norms[v]);
      }
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
