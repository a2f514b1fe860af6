// The D-GD attack (docs/math.md §7.3): the target-only knowledge matrix (Algorithm 4.2) with K gossip rounds
// per gradient step (Remark 4.11), its exact identifiability, the noise covariance (Algorithm A.1), a
// simulated run and the removal of the attackers' and the initialisation's contributions (Algorithm 4.3).
#include "netdp/attack/attack_dgd.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "attack/knowledge_rows.hpp"
#include "core/progress.hpp"
#include "netdp/attack/echelon.hpp"
#include "netdp/core/error.hpp"
#include "netdp/core/philox.hpp"

namespace netdp::attack {
namespace {

constexpr std::uint64_t kNoiseStream = 21;

std::size_t idx(auto i) {
  return static_cast<std::size_t>(i);
}

// Rows of P_s = sum_{r K <= s} W_TT^{s - r K} for the observed nodes, in full coordinates (attacker entries
// zero): p_s = (p_{s-1} W)|_T + [K divides s] e_v, since P_s is a polynomial in W_TT (so W_TT P = P W_TT).
// `emit(s, i, row)` receives them in row order.
template <class Ops, class Matrix, class T, class Emit>
void knowledge_matrix_rows(const Ops& ops, const Matrix& w, const DgdKnowledge& k, node_t n, Emit&& emit) {
  const std::size_t count = k.observed.size(), nn = idx(n);
  std::vector<T> block(count * nn, T{}), next(block.size());
  const int messages = k.steps * k.gossip_rounds;
  for (int s = 0; s < messages; ++s) {
    for (std::size_t i = 0; i < count; ++i) {
      std::span<T> row(block.data() + i * nn, nn);
      if (s > 0) {
        row_times<Ops, Matrix, T>(ops, w, std::span<const T>(row), std::span<T>(next.data(), nn));
        std::copy(next.begin(), next.begin() + static_cast<std::ptrdiff_t>(nn), row.begin());
        for (node_t a : k.attackers) row[idx(a)] = T{};
      }
      if (s % k.gossip_rounds == 0) row[idx(k.observed[i])] = ops.add(row[idx(k.observed[i])], ops.one());
      emit(s, i, row);
    }
  }
}

// Identifiability over one prime: per target, the first t after which e_j is in the row space (0: never).
std::vector<int> identifiable_mod_p(const ModularField& f, const FieldCsr& w, const DgdKnowledge& k, node_t n,
                                    int* rank) {
  ModularEchelon echelon(f, n);
  std::vector<int> after(k.targets.size(), 0);
  std::vector<std::uint64_t> unit(idx(n));
  const int per_step = k.gossip_rounds * static_cast<int>(k.observed.size());
  int emitted = 0;
  knowledge_matrix_rows<ModularField, FieldCsr, std::uint64_t>(
      f, w, k, n, [&](int, std::size_t, std::span<std::uint64_t> row) {
        std::vector<std::uint64_t> copy(row.begin(), row.end());
        echelon.insert(copy);
        if (++emitted % per_step != 0) return;
        const int t = emitted / per_step;
        for (std::size_t j = 0; j < k.targets.size(); ++j) {
          if (after[j] != 0) continue;
          std::fill(unit.begin(), unit.end(), 0);
          unit[idx(k.targets[j])] = f.one();
          if (echelon.in_span(unit)) after[j] = t;
        }
      });
  *rank = echelon.rank();
  return after;
}

void add_noise(std::span<double> values, double sigma, std::uint64_t seed, int run, int step) {
  if (sigma == 0) return;
  PhiloxStream stream(seed, kNoiseStream << 56 | static_cast<std::uint64_t>(run) << 24 | idx(step), 0);
  for (std::size_t i = 0; i < values.size(); i += 2) {
    const auto [a, b] = stream.next_normal_pair();
    values[i] += sigma * a;
    if (i + 1 < values.size()) values[i + 1] += sigma * b;
  }
}

}  // namespace

DgdKnowledge dgd_knowledge(const Graph& g, const WeightsSpec& weights, const std::vector<node_t>& attackers,
                           int steps, int gossip_rounds) {
  if (steps < 1) throw InvalidParameter("steps", "steps must be >= 1, got " + std::to_string(steps));
  if (gossip_rounds < 1)
    throw InvalidParameter("gossip-rounds",
                           "gossip-rounds must be >= 1, got " + std::to_string(gossip_rounds));
  if (attackers.empty() || static_cast<node_t>(attackers.size()) >= g.n)
    throw InvalidParameter("attackers", "attack dgd needs at least one attacker and at least one target");
  if (weights.scheme == Weighting::file)
    throw InvalidParameter(
        "weights", "attack dgd decides identifiability exactly: it needs a named weighting, not a file");
  DgdKnowledge k;
  k.attackers = attackers;
  k.steps = steps;
  k.gossip_rounds = gossip_rounds;
  k.observed = observed_nodes(g, attackers, false);
  if (k.observed.empty())
    throw InvalidParameter("attackers", "attackers: no neighbour outside the attackers, nothing is observed");
  std::vector<int> column(idx(g.n), -1);
  for (node_t v = 0; v < g.n; ++v)
    if (!std::binary_search(attackers.begin(), attackers.end(), v)) {
      column[idx(v)] = static_cast<int>(k.targets.size());
      k.targets.push_back(v);
    }
  const GossipRounds rounds(g, weights, GossipAttackParams{});
  k.w = rounds.impl().real[0];

  const std::size_t c = k.targets.size(), count = k.observed.size();
  const int messages = steps * gossip_rounds;
  const double dense = double(messages) * double(count);
  if (dense * dense * 8 > 8e9)
    throw InvalidParameter("steps", "steps: the knowledge matrix would have " +
                                        std::to_string(std::llround(dense)) +
                                        " rows and its dense covariance more than 8 GB; use fewer steps or "
                                        "gossip-rounds");
  k.rows = messages * static_cast<int>(count);
  k.matrix.assign(idx(k.rows) * c, 0.0);
  knowledge_matrix_rows<RealOps, CsrMatrix, double>(
      RealOps{}, k.w, k, g.n, [&](int s, std::size_t i, std::span<double> row) {
        double* out = k.matrix.data() + (idx(s) * count + i) * c;
        for (std::size_t j = 0; j < c; ++j) out[j] = row[idx(k.targets[j])];
      });

  // Algorithm A.1: the noise of message (s, v) is sum_{r K <= s} (W_TT^{s - r K} N^r)_v, so for sigma = 1
  // Sigma[(s,i),(s',i')] = sum_{r K <= min(s, s')} <R_{s-rK}[i], R_{s'-rK}[i']> with R_q the observed rows
  // of W_TT^q. gram[q][q'] holds the inner products of R_q and R_q'.
  std::vector<double> powers(idx(messages) * count * c);
  {
    std::vector<double> row(idx(g.n)), next(idx(g.n));
    for (std::size_t i = 0; i < count; ++i) {
      std::fill(row.begin(), row.end(), 0.0);
      row[idx(k.observed[i])] = 1;
      for (int q = 0; q < messages; ++q) {
        if (q > 0) {
          row_times<RealOps, CsrMatrix, double>(RealOps{}, k.w, row, next);
          row.swap(next);
          for (node_t a : attackers) row[idx(a)] = 0;
        }
        for (std::size_t j = 0; j < c; ++j) powers[(idx(q) * count + i) * c + j] = row[idx(k.targets[j])];
      }
    }
  }
  auto dot = [&](int q, std::size_t i, int q2, std::size_t i2) {
    const double* a = powers.data() + (idx(q) * count + i) * c;
    const double* b = powers.data() + (idx(q2) * count + i2) * c;
    double sum = 0;
    for (std::size_t j = 0; j < c; ++j) sum += a[j] * b[j];
    return sum;
  };
  const std::size_t m = idx(k.rows);
  k.covariance.assign(m * m, 0.0);
  for (int s = 0; s < messages; ++s) {
    throw_if_stopped();  // a watched run was asked to stop (core/progress.hpp)
    for (int s2 = s; s2 < messages; ++s2)
      for (std::size_t i = 0; i < count; ++i)
        for (std::size_t i2 = 0; i2 < count; ++i2) {
          double sum = 0;
          for (int r = 0; r * gossip_rounds <= s; ++r)
            sum += dot(s - r * gossip_rounds, i, s2 - r * gossip_rounds, i2);
          const std::size_t a = idx(s) * count + i, b = idx(s2) * count + i2;
          k.covariance[a * m + b] = k.covariance[b * m + a] = sum;
        }
  }

  k.exact = true;
  const auto& impl = rounds.impl();
  std::vector<std::vector<int>> per_prime;
  for (std::size_t p = 0; p < impl.fields.size(); ++p) {
    throw_if_stopped();
    int rank = 0;
    per_prime.push_back(identifiable_mod_p(impl.fields[p], impl.modular[p][0], k, g.n, &rank));
    const auto& after = per_prime.back();
    k.primes.push_back({kPrimes[p], rank, static_cast<int>(c - std::count(after.begin(), after.end(), 0))});
    k.primes_agree = k.primes_agree && after == per_prime.front() && rank == k.primes.front().rank;
    k.rank = std::max(k.rank, rank);
  }
  k.identifiable_after = per_prime.front();
  return k;
}

DgdRun simulate_dgd(const DgdKnowledge& k, std::span<const double> theta0, int dim,
                    const UpdateFunction& update, const DgdAttackParams& params) {
  const node_t n = k.w.n;
  const std::size_t nd = idx(n) * idx(dim), count = k.observed.size(), d = idx(dim);
  if (theta0.size() != nd) throw InvalidInput("attack dgd: theta0 must hold n x dim values");
  DgdRun run;
  run.dim = dim;
  run.observations.assign(idx(k.rows) * d, 0.0);
  const int messages = k.steps * k.gossip_rounds;
  run.own.assign(idx(messages) * k.attackers.size() * d, 0.0);
  run.mean_updates.assign(idx(k.steps) * nd, 0.0);
  std::vector<double> z(theta0.begin(), theta0.end()), next(nd), noiseless(nd), sum(nd, 0.0);
  auto gradient_step = [&](int t) {  // z <- z + g^t(z) + noise
    for (node_t v = 0; v < n; ++v)
      update(v, std::span<const double>(z.data() + idx(v) * d, d),
             std::span<double>(noiseless.data() + idx(v) * d, d));
    for (std::size_t i = 0; i < nd; ++i) sum[i] += noiseless[i];
    for (std::size_t i = 0; i < nd; ++i) run.mean_updates[idx(t) * nd + i] = sum[i] / (t + 1);
    add_noise(noiseless, params.sigma, params.seed, params.run, t);
    for (std::size_t i = 0; i < nd; ++i) z[i] += noiseless[i];
  };
  gradient_step(0);
  for (int s = 0; s < messages; ++s) {
    for (std::size_t i = 0; i < count; ++i)
      std::copy_n(z.data() + idx(k.observed[i]) * d, d, run.observations.data() + (idx(s) * count + i) * d);
    for (std::size_t a = 0; a < k.attackers.size(); ++a)
      std::copy_n(z.data() + idx(k.attackers[a]) * d, d,
                  run.own.data() + (idx(s) * k.attackers.size() + a) * d);
    if (s + 1 == messages) break;
    csr_multiply(k.w, z.data(), next.data(), dim, false);
    z.swap(next);
    if ((s + 1) % k.gossip_rounds == 0) gradient_step((s + 1) / k.gossip_rounds);
  }
  return run;
}

std::vector<double> remove_contributions(const DgdKnowledge& k, std::span<const double> theta0,
                                         const DgdRun& run) {
  const node_t n = k.w.n;
  const std::size_t d = idx(run.dim), nd = idx(n) * d, count = k.observed.size();
  std::vector<double> y(run.observations), gossip0(theta0.begin(), theta0.end()), b(nd, 0.0), next(nd);
  const int messages = k.steps * k.gossip_rounds;
  for (int s = 0; s < messages; ++s) {
    // y_hat = z_v^s - (W^s theta^0)_v - (B_s)_v
    for (std::size_t i = 0; i < count; ++i)
      for (std::size_t c = 0; c < d; ++c) {
        const std::size_t v = idx(k.observed[i]) * d + c;
        y[(idx(s) * count + i) * d + c] -= gossip0[v] + b[v];
      }
    // B_{s+1} = W_TT B_s + W_TA Delta_A^s, Delta_A^s = z_A^s - (W^s theta^0)_A: one product of W with B
    // (zero on A) plus Delta (on A only), kept on the targets.
    for (std::size_t a = 0; a < k.attackers.size(); ++a)
      for (std::size_t c = 0; c < d; ++c) {
        const std::size_t v = idx(k.attackers[a]) * d + c;
        b[v] = run.own[(idx(s) * k.attackers.size() + a) * d + c] - gossip0[v];
      }
    csr_multiply(k.w, b.data(), next.data(), run.dim, false);
    b.swap(next);
    for (node_t a : k.attackers) std::fill_n(b.data() + idx(a) * d, d, 0.0);
    csr_multiply(k.w, gossip0.data(), next.data(), run.dim, false);
    gossip0.swap(next);
  }
  return y;
}

}  // namespace netdp::attack
