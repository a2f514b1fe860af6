// The gossip reconstruction attack (docs/math.md §7.2): exact over two primes, the floating-point reduction
// of the reference code, and the reconstruction of simulated private values.
#include "netdp/attack/attack_gossip.hpp"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <map>

#include "attack/knowledge_rows.hpp"
#include "core/progress.hpp"
#include "netdp/attack/echelon.hpp"
#include "netdp/core/error.hpp"
#include "netdp/core/philox.hpp"

namespace netdp::attack {
namespace {

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// One prime's decision: rank, the one-hot pivot columns (reconstructible), the supports of the other RREF
// rows (relations), and, when asked, K_T's rows for the column comparison.
struct PrimeDecision {
  int rank = 0, rows = 0;
  std::vector<std::uint8_t> reconstructible;
  std::vector<std::vector<node_t>> relations;
  std::vector<std::uint64_t> matrix;  // rows x n when keep_rows
};

PrimeDecision decide_mod_p(const GossipRounds& rounds, std::size_t prime,
                           const std::vector<node_t>& attackers, bool secagg, bool keep_rows) {
  const auto& impl = rounds.impl();
  const ModularField& f = impl.fields[prime];
  const int n = rounds.n();
  ModularEchelon echelon(f, n);
  PrimeDecision d;
  d.rows = knowledge_rows<ModularField, FieldCsr, std::uint64_t>(
      f, impl.modular[prime], rounds, attackers, secagg,
      [&](std::span<std::uint64_t> row) {
        if (keep_rows) d.matrix.insert(d.matrix.end(), row.begin(), row.end());
        if (!echelon.insert(row)) return Next::dependent;
        return echelon.full() ? Next::stop : Next::more;  // rank n: every node is determined
      },
      !keep_rows);
  echelon.reduce();
  d.rank = echelon.rank();
  d.reconstructible.assign(static_cast<std::size_t>(n), 0);
  for (int i = 0; i < d.rank; ++i) {
    if (echelon.support_size(i) == 1) {
      d.reconstructible[static_cast<std::size_t>(echelon.pivot(i))] = 1;
      continue;
    }
    std::vector<node_t> support{echelon.pivot(i)};
    const auto r = echelon.row(i);
    for (int k = 0; k < n; ++k)
      if (r[static_cast<std::size_t>(k)] != 0 && k != echelon.pivot(i)) support.push_back(k);
    d.relations.push_back(std::move(support));
  }
  std::sort(d.relations.begin(), d.relations.end());
  return d;
}

// K_T as doubles (row-major), in the order of docs/math.md §7.1.
std::vector<double> real_matrix(const GossipRounds& rounds, const std::vector<node_t>& attackers, bool secagg,
                                int* rows) {
  std::vector<double> k;
  *rows = knowledge_rows<RealOps, CsrMatrix, double>(RealOps{}, rounds.impl().real, rounds, attackers, secagg,
                                                     [&](std::span<double> row) {
                                                       k.insert(k.end(), row.begin(), row.end());
                                                       return Next::more;
                                                     });
  return k;
}

// What the attackers observe in a simulated run from x: their own values, then theta_v^t in K_T's order.
std::vector<double> observations(const GossipRounds& rounds, const std::vector<node_t>& attackers,
                                 bool secagg, const std::vector<double>& x) {
  std::vector<double> y, theta = x, next(x.size());
  for (node_t a : attackers) y.push_back(x[static_cast<std::size_t>(a)]);
  auto step = [&](int t) {
    const CsrMatrix& w = rounds.impl().real[rounds.dynamic() ? static_cast<std::size_t>(t) : 0];
    csr_multiply(w, theta.data(), next.data(), 1, false);
    theta.swap(next);
  };
  for (int t = 0; t < rounds.steps(); ++t) {
    if (secagg) step(t);
    for (node_t v : observed_nodes(rounds.graph(t), attackers, secagg))
      y.push_back(theta[static_cast<std::size_t>(v)]);
    if (!secagg) step(t);
  }
  return y;
}

std::vector<node_t> indices(const std::vector<std::uint8_t>& mask) {
  std::vector<node_t> out;
  for (std::size_t j = 0; j < mask.size(); ++j)
    if (mask[j]) out.push_back(static_cast<node_t>(j));
  return out;
}

// Groups of non-reconstructible nodes whose columns of K_T coincide modulo every prime.
std::vector<std::vector<node_t>> identical_columns(const std::vector<PrimeDecision>& decisions, int n,
                                                   const std::vector<std::uint8_t>& reconstructible) {
  std::map<std::vector<std::uint64_t>, std::vector<node_t>> groups;
  for (int j = 0; j < n; ++j) {
    if (reconstructible[static_cast<std::size_t>(j)]) continue;
    std::vector<std::uint64_t> column;
    for (const PrimeDecision& d : decisions)
      for (int i = 0; i < d.rows; ++i) column.push_back(d.matrix[static_cast<std::size_t>(i) * n + j]);
    groups[column].push_back(j);
  }
  std::vector<std::vector<node_t>> out;
  for (auto& [column, nodes] : groups)
    if (nodes.size() > 1) out.push_back(nodes);
  std::sort(out.begin(), out.end());
  return out;
}

void require_method(const GossipRounds& rounds, const GossipAttackParams& params) {
  if (params.method == Method::exact && !rounds.exact_available())
    throw InvalidParameter(
        "method",
        "method exact needs the rational entries of a named weighting; weights from a file are "
        "doubles: use method float");
}

}  // namespace

GossipAttackResult attack_gossip(const GossipRounds& rounds, const std::vector<node_t>& attackers,
                                 const GossipAttackParams& params, bool values, bool float_check) {
  require_method(rounds, params);
  const double start = now();
  const int n = rounds.n();
  GossipAttackResult r;
  r.attackers = attackers;
  r.observed = observed_nodes(rounds.graph(0), attackers, params.secagg);
  const bool exact = params.method == Method::exact;
  const bool need_real = values || float_check || !exact;
  int real_rows = 0;
  std::vector<double> k;
  if (need_real) k = real_matrix(rounds, attackers, params.secagg, &real_rows);
  r.rows_total = real_rows;
  if (exact) {
    std::vector<PrimeDecision> decisions;
    for (std::size_t p = 0; p < std::size(kPrimes); ++p)
      decisions.push_back(decide_mod_p(rounds, p, attackers, params.secagg, true));
    const PrimeDecision& first = decisions.front();
    for (std::size_t p = 0; p < decisions.size(); ++p) {
      const PrimeDecision& d = decisions[p];
      r.primes.push_back(
          {kPrimes[p], d.rank,
           static_cast<int>(std::count(d.reconstructible.begin(), d.reconstructible.end(), 1))});
      r.primes_agree = r.primes_agree && d.rank == first.rank && d.reconstructible == first.reconstructible &&
                       d.relations == first.relations && d.rows == first.rows;
    }
    r.rows = first.rows;
    r.rank = std::max_element(r.primes.begin(), r.primes.end(), [](auto& a, auto& b) {
               return a.rank < b.rank;
             })->rank;
    r.reconstructible = indices(first.reconstructible);
    r.relations = first.relations;
    if (r.rank < n) r.indistinguishable = identical_columns(decisions, n, first.reconstructible);
    if (!need_real)
      r.rows_total = knowledge_rows<RealOps, CsrMatrix, double>(RealOps{}, rounds.impl().real, rounds,
                                                                attackers, params.secagg,
                                                                [](std::span<double>) { return Next::more; });
  }
  if (float_check || !exact) {
    const FloatRref f = float_rref(k, real_rows, n);
    r.float_rank = f.rank;
    r.float_reconstructible = indices(f.one_hot);
    r.svd_rank = svd_rank(k, real_rows, n);
    r.float_checked = true;
    if (!exact) {
      r.rows = real_rows;
      r.rank = f.rank;
      r.reconstructible = r.float_reconstructible;
    }
  }
  if (values) {
    PhiloxStream stream(params.seed, 0, 0);
    r.private_values.resize(static_cast<std::size_t>(n));
    for (std::size_t i = 0; i < r.private_values.size(); i += 2) {
      const auto [a, b] = stream.next_normal_pair();
      r.private_values[i] = a;
      if (i + 1 < r.private_values.size()) r.private_values[i + 1] = b;
    }
    const std::vector<double> y = observations(rounds, attackers, params.secagg, r.private_values);
    r.reconstructed_values = least_squares(k, real_rows, n, y);
    for (node_t j : r.reconstructible)
      r.max_error = std::max(r.max_error, std::abs(r.reconstructed_values[static_cast<std::size_t>(j)] -
                                                   r.private_values[static_cast<std::size_t>(j)]));
  }
  r.seconds = now() - start;
  return r;
}

AllAttackersResult attack_gossip_all(const GossipRounds& rounds, const GossipAttackParams& params,
                                     bool float_check) {
  require_method(rounds, params);
  const double start = now();
  const int n = rounds.n();
  const bool exact = params.method == Method::exact;
  AllAttackersResult out;
  out.rank.assign(static_cast<std::size_t>(n), 0);
  out.reconstructed.assign(static_cast<std::size_t>(n), 0);
  out.float_reconstructed.assign(static_cast<std::size_t>(n), -1);
  out.reconstructible.assign(static_cast<std::size_t>(n) * static_cast<std::size_t>(n), 0);
  const std::size_t primes = exact ? std::size(kPrimes) : 0;
  std::vector<int> disagree(static_cast<std::size_t>(n), 0),
      prime_ranks(static_cast<std::size_t>(n) * primes, 0), prime_counts(prime_ranks.size(), 0);
  std::vector<std::uint8_t> agree(static_cast<std::size_t>(n), 1);
  ProgressLine progress("attack gossip", "of the attackers", false);  // to a watching sink only
  std::atomic<int> attacked{0};
#pragma omp parallel for schedule(dynamic, 1)
  for (node_t a = 0; a < n; ++a) {
    if (stop_requested()) continue;  // a watched run was asked to stop (core/progress.hpp)
    const std::vector<node_t> attackers{a};
    const auto ai = static_cast<std::size_t>(a);
    std::vector<std::uint8_t> mask;
    if (exact) {
      for (std::size_t p = 0; p < primes; ++p) {
        PrimeDecision d = decide_mod_p(rounds, p, attackers, params.secagg, false);
        prime_ranks[ai * primes + p] = d.rank;
        prime_counts[ai * primes + p] =
            static_cast<int>(std::count(d.reconstructible.begin(), d.reconstructible.end(), 1));
        if (p == 0) {
          out.rank[ai] = d.rank;
          mask = std::move(d.reconstructible);
        } else if (d.rank != out.rank[ai] || d.reconstructible != mask) {
          agree[ai] = 0;
          out.rank[ai] = std::max(out.rank[ai], d.rank);
        }
      }
    }
    if (float_check || !exact) {
      int rows = 0;
      const std::vector<double> k = real_matrix(rounds, attackers, params.secagg, &rows);
      const FloatRref f = float_rref(k, rows, n);
      out.float_reconstructed[ai] = static_cast<int>(std::count(f.one_hot.begin(), f.one_hot.end(), 1));
      if (!exact) {
        out.rank[ai] = f.rank;
        mask = f.one_hot;
      } else {
        disagree[ai] = f.one_hot != mask;
      }
    }
    out.reconstructed[ai] = static_cast<int>(std::count(mask.begin(), mask.end(), 1));
    std::copy(mask.begin(), mask.end(), out.reconstructible.begin() + static_cast<std::ptrdiff_t>(ai * n));
    progress.update(double(++attacked) / double(n));  // sink only: safe from any thread
  }
  throw_if_stopped();  // skipped attackers hold no result
  for (node_t a = 0; a < n; ++a) {
    out.disagreements += disagree[static_cast<std::size_t>(a)];
    out.primes_agree = out.primes_agree && agree[static_cast<std::size_t>(a)];
  }
  for (std::size_t p = 0; p < primes; ++p) {
    PrimeCertificate c{kPrimes[p], 0, 0};
    for (std::size_t a = 0; a < static_cast<std::size_t>(n); ++a) {
      c.rank += prime_ranks[a * primes + p];
      c.reconstructed += prime_counts[a * primes + p];
    }
    out.primes_total.push_back(c);
  }
  out.seconds = now() - start;
  return out;
}

}  // namespace netdp::attack
