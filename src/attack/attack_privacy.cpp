// Privacy beside reconstruction (docs/math.md §7.2): mu of every victim from an orthonormal basis of the
// attackers' knowledge, built by the exact gossip accountant's engine (kernels/gossip_view_kernels.hpp), with
// the exact reconstruction deciding who reaches the LDP level.
#include "netdp/attack/attack_privacy.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "accounting/gossip_view.hpp"
#include "attack/knowledge_rows.hpp"
#include "gossip_view_kernels.hpp"
#include "netdp/attack/echelon.hpp"
#include "netdp/core/error.hpp"
#include "netdp/dp/gaussian.hpp"

namespace netdp::attack {

namespace {

// The start nodes and known unit vectors of each set's view: K_T's rows (W^t)_{v,:} = (W^t e_v)^T for v in
// N(A), t < T, and e_a for a in A; with secure aggregation (W^{t+1})_{a,:}: start A moved one step.
struct Spans {
  std::vector<std::int64_t> start_offsets{0}, known_offsets{0};
  std::vector<std::int32_t> start, known;
  std::int64_t max_rank = 1;
};

Spans spans(const GossipRounds& rounds, const std::vector<std::vector<node_t>>& sets, bool secagg) {
  Spans s;
  for (const auto& attackers : sets) {
    const std::vector<node_t> observed = observed_nodes(rounds.graph(0), attackers, secagg);
    s.start.insert(s.start.end(), observed.begin(), observed.end());
    s.known.insert(s.known.end(), attackers.begin(), attackers.end());
    s.start_offsets.push_back(static_cast<std::int64_t>(s.start.size()));
    s.known_offsets.push_back(static_cast<std::int64_t>(s.known.size()));
    const auto rank = static_cast<std::int64_t>(observed.size()) * rounds.steps() +
                      static_cast<std::int64_t>(attackers.size());
    s.max_rank = std::max(s.max_rank, std::min<std::int64_t>(rounds.n(), rank));
  }
  return s;
}

}  // namespace

// The exact dimension each Krylov block of set A's view adds, then the unit vectors e_a: K_T's rows over the
// first prime in the deflated order (observed rows round by round, own rows last), whose prefixes up to round
// t span the Krylov space of the first t + 1 blocks (the same rows as the exact attack's, so the same rank).
std::vector<std::int32_t> exact_dims(const GossipRounds& rounds, const std::vector<node_t>& attackers,
                                     bool secagg) {
  const auto& impl = rounds.impl();
  ModularEchelon echelon(impl.fields[0], rounds.n());
  const int steps = rounds.steps();
  std::vector<std::int32_t> dims(static_cast<std::size_t>(steps + 1), 0);
  knowledge_rows<ModularField, FieldCsr, std::uint64_t>(
      impl.fields[0], impl.modular[0], rounds, attackers, secagg,
      [&](std::span<std::uint64_t> row, int t) {
        if (!echelon.insert(row)) return Next::dependent;
        ++dims[static_cast<std::size_t>(t < 0 ? steps : t)];
        return echelon.full() ? Next::stop : Next::more;
      },
      true);
  return dims;
}

void check_attack_privacy(const GossipRounds& rounds, const AttackPrivacyParams& params) {
  if (!(params.sigma > 0) || !std::isfinite(params.sigma))
    throw InvalidParameter("sigma", "sigma must be positive and finite");
  if (!(params.sensitivity > 0) || !std::isfinite(params.sensitivity))
    throw InvalidParameter("sensitivity", "sensitivity must be positive and finite");
  if (params.delta != 0 && !(params.delta > 0 && params.delta < 1))
    throw InvalidParameter("delta", "delta must lie in (0, 1)");
  if (rounds.dynamic())
    throw InvalidParameter("sigma",
                           "sigma needs a static graph (dynamic 0): the view is then a Krylov space");
  try {
    validate_gossip_matrix(rounds.impl().real[0], rounds.graph(0));
  } catch (const InvalidInput& e) {
    throw InvalidParameter("sigma", std::string("sigma needs a symmetric doubly stochastic W: ") + e.what());
  }
}

AttackPrivacy attack_privacy(const GossipRounds& rounds, const std::vector<std::vector<node_t>>& sets,
                             const std::vector<std::int8_t>& reconstructible, bool secagg,
                             const AttackPrivacyParams& params) {
  check_attack_privacy(rounds, params);
  const std::int64_t n = rounds.n(), count = static_cast<std::int64_t>(sets.size());
  if (reconstructible.size() != static_cast<std::size_t>(n * count))
    throw InvalidParameter("reconstructible", "one row of n flags per attacker set");
  const CsrMatrix& w = rounds.impl().real[0];
  const Graph& g = rounds.graph(0);
  // The attacker's spans are given explicitly (gossip_view_spans_cpu): the observer's noise is not used.
  const kernels::GossipViewProblem problem = gossip_view_problem(g, w, secagg ? 1 : 0, rounds.steps(), false);
  const Spans s = spans(rounds, sets, secagg);

  AttackPrivacy out;
  out.n = n;
  out.floor = kernels::gossip_view_floor_of(n, s.max_rank);
  out.projection.assign(static_cast<std::size_t>(n * count), 0.0);
  // The basis keeps exactly the exact method's dimensions (extra rounding directions would raise mu).
  const auto width = static_cast<std::size_t>(rounds.steps() + 1);
  std::vector<std::int32_t> dims(static_cast<std::size_t>(count) * width);
#pragma omp parallel for schedule(dynamic, 1)
  for (std::int64_t i = 0; i < count; ++i) {
    const std::vector<std::int32_t> d = exact_dims(rounds, sets[static_cast<std::size_t>(i)], secagg);
    std::copy(d.begin(), d.end(),
              dims.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(i) * width));
  }
  std::vector<kernels::GossipViewObserver> bases(static_cast<std::size_t>(count));
  kernels::gossip_view_spans_cpu(problem, out.floor, count, s.start_offsets.data(), s.start.data(),
                                 s.known_offsets.data(), s.known.data(), dims.data(), out.projection, bases);
  for (std::size_t i = 0; i < bases.size(); ++i) {
    out.rank_min = i == 0 ? bases[i].rank : std::min<std::int64_t>(out.rank_min, bases[i].rank);
    out.rank_max = std::max<std::int64_t>(out.rank_max, bases[i].rank);
    out.dropped += bases[i].dropped;
    out.below_floor += bases[i].below_floor;
    out.rank.push_back(bases[i].rank);
  }

  // The exact test decides membership; a victim outside the row space has ||P e_u|| < 1, so it is reported
  // strictly below the LDP level even where the rounding of its projection reaches it (docs/math.md §7.2).
  out.ldp_mu = params.sensitivity / params.sigma;
  const double below = std::nextafter(out.ldp_mu, 0.0);
  out.mu.resize(out.projection.size());
  for (std::int64_t i = 0; i < count; ++i) {
    const auto& attackers = sets[static_cast<std::size_t>(i)];
    for (std::int64_t u = 0; u < n; ++u) {
      const auto k = static_cast<std::size_t>(i * n + u);
      const double gap = 1.0 - out.projection[k];
      if (reconstructible[k]) {
        out.mu[k] = out.ldp_mu;
        if (std::find(attackers.begin(), attackers.end(), node_t(u)) == attackers.end())
          out.gap_reconstructible = std::max(out.gap_reconstructible, gap);
        continue;
      }
      out.gap_hidden = std::min(out.gap_hidden, gap);
      out.mu[k] = out.ldp_mu * std::sqrt(out.projection[k]);
      if (out.mu[k] >= out.ldp_mu) {
        out.mu[k] = below;
        ++out.clamped;
      }
    }
  }
  if (params.delta > 0) {
    out.ldp_epsilon = dp::gdp_epsilon(out.ldp_mu, params.delta);
    out.epsilon.resize(out.mu.size());
    for (std::size_t k = 0; k < out.mu.size(); ++k)
      out.epsilon[k] = out.mu[k] == out.ldp_mu ? out.ldp_epsilon
                       : out.mu[k] > 0         ? dp::gdp_epsilon(out.mu[k], params.delta)
                                               : 0.0;  // a view independent of x_u
  }
  return out;
}

std::vector<node_t> attacker_distances(const Graph& g, const std::vector<node_t>& attackers) {
  std::vector<node_t> distance(static_cast<std::size_t>(g.n), -1);
  for (node_t a : attackers) {
    const std::vector<node_t> d = bfs_distances(g, a);
    for (std::size_t u = 0; u < distance.size(); ++u)
      if (d[u] >= 0 && (distance[u] < 0 || d[u] < distance[u])) distance[u] = d[u];
  }
  return distance;
}

std::vector<PrivacyByDistance> privacy_by_distance(const Graph& g,
                                                   const std::vector<std::vector<node_t>>& sets,
                                                   const std::vector<std::int8_t>& reconstructible,
                                                   const AttackPrivacy& privacy) {
  const auto n = static_cast<std::size_t>(g.n);
  std::map<int, PrivacyByDistance> rows;
  for (std::size_t i = 0; i < sets.size(); ++i) {
    const std::vector<node_t> distance = attacker_distances(g, sets[i]);
    for (std::size_t u = 0; u < n; ++u) {
      const std::size_t k = i * n + u;
      PrivacyByDistance& r = rows[distance[u]];
      const double mu = privacy.mu[k], eps = privacy.epsilon.empty() ? 0.0 : privacy.epsilon[k];
      r.distance = distance[u];
      r.mu_min = r.pairs == 0 ? mu : std::min(r.mu_min, mu);
      r.mu_max = std::max(r.mu_max, mu);
      r.epsilon_max = std::max(r.epsilon_max, eps);
      r.mu_mean += mu;
      r.epsilon_mean += eps;
      r.reconstructible += reconstructible[k] != 0;
      ++r.pairs;
    }
  }
  std::vector<PrivacyByDistance> out;
  for (auto& [d, r] : rows) {
    r.mu_mean /= double(r.pairs);
    r.epsilon_mean /= double(r.pairs);
    out.push_back(r);
  }
  if (!out.empty() && out.front().distance < 0) std::rotate(out.begin(), out.begin() + 1, out.end());  // last
  return out;
}

}  // namespace netdp::attack
