#pragma once
// The rows of the knowledge matrix K_T (docs/math.md §7.1), generated in its order for any scalar type: the
// attackers' own rows e_a, then for t = 0..T-1 and each observed v in ascending order the row (W_{0:t})_{v,:}
// (W^t for a static graph). Shared by the exact (Z/pZ) and floating-point modes.
#include <algorithm>
#include <cstdint>
#include <span>
#include <type_traits>
#include <vector>

#include "netdp/attack/attack_gossip.hpp"
#include "netdp/attack/modular_field.hpp"
#include "netdp/core/sparse_matrix.hpp"

namespace netdp::attack {

/// W_t over Z/pZ, entries in Montgomery form (the diagonal included).
struct FieldCsr {
  std::vector<offset_t> offsets{0};
  std::vector<node_t> columns;
  std::vector<std::uint64_t> values;
};

struct GossipRounds::Impl {
  std::vector<CsrMatrix> real;                 // W_t as doubles, one per round (one for a static graph)
  std::vector<ModularField> fields;            // one per prime of kPrimes
  std::vector<std::vector<FieldCsr>> modular;  // [prime][round]
};

/// Arithmetic on doubles with ModularField's interface.
struct RealOps {
  double mul(double a, double b) const { return a * b; }
  double add(double a, double b) const { return a + b; }
  double one() const { return 1.0; }
};

/// The nodes whose round-t messages the attackers see: N_t(A) \ A ascending (secagg: A itself).
std::vector<node_t> observed_nodes(const Graph& g, const std::vector<node_t>& attackers, bool secagg);

/// out = r W (row vector times matrix).
template <class Ops, class Matrix, class T>
void row_times(const Ops& ops, const Matrix& w, std::span<const T> r, std::span<T> out) {
  std::fill(out.begin(), out.end(), T{});
  const std::size_t n = r.size();
  for (std::size_t u = 0; u < n; ++u) {
    if (r[u] == T{}) continue;
    for (offset_t k = w.offsets[u]; k < w.offsets[u + 1]; ++k) {
      const auto c = static_cast<std::size_t>(w.columns[static_cast<std::size_t>(k)]);
      out[c] = ops.add(out[c], ops.mul(r[u], w.values[static_cast<std::size_t>(k)]));
    }
  }
}

/// What the consumer of a row says: stop (rank n reached), more, or that the row was dependent.
enum class Next { stop, more, dependent };

/// Calls emit(row) for each row of K_T in order until it returns Next::stop; `mats` holds W_t per round (one
/// matrix: static). Returns the number of rows emitted. The row passed may be modified by emit. An emit that
/// also takes an int receives the row's round t (-1 for the attackers' own rows e_a).
///
/// With `deflate` (a static graph only) the rows come in another order with the same span: the observed
/// rows first, the attackers' e_a last, and a node v whose row (t, v) was dependent on the rows before it is
/// dropped for every later t: (W^{t+1})_{v,:} = (W^t)_{v,:} W then lies in the span of the earlier rows
/// times W, which are earlier rows too (block Krylov deflation). The emitted rows' span is the row space of
/// K_T (docs/math.md §7.2 depends only on that span).
template <class Ops, class Matrix, class T, class Emit>
int knowledge_rows(const Ops& ops, const std::vector<Matrix>& mats, const GossipRounds& rounds,
                   const std::vector<node_t>& attackers, bool secagg, Emit&& emit, bool deflate = false) {
  const auto n = static_cast<std::size_t>(rounds.n());
  const int steps = rounds.steps();
  deflate = deflate && mats.size() == 1;
  std::vector<T> row(n), scratch(n);
  int emitted = 0;
  bool stopped = false;
  int round = -1;
  auto unit = [&](node_t v) {
    std::fill(row.begin(), row.end(), T{});
    row[static_cast<std::size_t>(v)] = ops.one();
  };
  auto send = [&] {
    ++emitted;
    Next next;
    if constexpr (std::is_invocable_v<Emit, std::span<T>, int>)
      next = emit(std::span<T>(row), round);
    else
      next = emit(std::span<T>(row));
    stopped = next == Next::stop;
    return next;
  };
  auto own_rows = [&] {
    round = -1;
    for (node_t a : attackers) {
      unit(a);
      if (send() == Next::stop) return;
    }
  };
  if (!deflate) {
    own_rows();
    if (stopped) return emitted;
  }
  if (mats.size() == 1) {
    std::vector<node_t> observed = observed_nodes(rounds.graph(0), attackers, secagg);
    std::vector<T> block(observed.size() * n, T{}), next(block.size());
    for (std::size_t i = 0; i < observed.size(); ++i)
      block[i * n + static_cast<std::size_t>(observed[i])] = ops.one();
    std::vector<std::uint8_t> alive(observed.size(), 1);
    auto advance = [&] {
      for (std::size_t i = 0; i < observed.size(); ++i)
        if (alive[i])
          row_times<Ops, Matrix, T>(ops, mats[0], std::span<const T>(block.data() + i * n, n),
                                    std::span<T>(next.data() + i * n, n));
      block.swap(next);
    };
    if (secagg) advance();  // the attacker's own state after round t: (W^{t+1})_{a,:}
    for (int t = 0; t < steps && !stopped; ++t) {
      round = t;
      if (t > 0) advance();
      for (std::size_t i = 0; i < observed.size() && !stopped; ++i) {
        if (!alive[i]) continue;
        std::copy(block.begin() + static_cast<std::ptrdiff_t>(i * n),
                  block.begin() + static_cast<std::ptrdiff_t>((i + 1) * n), row.begin());
        if (send() == Next::dependent && deflate) alive[i] = 0;
      }
    }
  } else {
    // Time-varying graph (Remark 4.6): e_v^T W_{t-1} ... W_0 (secagg: from W_t), one product per row.
    for (int t = 0; t < steps && !stopped; ++t) {
      round = t;
      for (node_t v : observed_nodes(rounds.graph(t), attackers, secagg)) {
        unit(v);
        for (int s = secagg ? t : t - 1; s >= 0; --s) {
          row_times<Ops, Matrix, T>(ops, mats[static_cast<std::size_t>(s)], std::span<const T>(row),
                                    std::span<T>(scratch));
          row.swap(scratch);
        }
        if (send() == Next::stop) break;
      }
    }
  }
  if (deflate && !stopped) own_rows();
  return emitted;
}

}  // namespace netdp::attack
