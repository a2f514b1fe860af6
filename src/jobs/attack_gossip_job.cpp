// `attack gossip` (docs/attack.md): the reconstruction attack on gossip averaging of docs/math.md §7.1-7.2.
#include "netdp/jobs/attack_gossip_job.hpp"

#include <algorithm>
#include <cstring>
#include <sstream>

#include "core/progress.hpp"
#include "jobs/attack_writers.hpp"
#include "jobs/job_graph.hpp"
#include "jobs/model_list.hpp"
#include "jobs/model_parts.hpp"
#include "jobs/parameter_blocks.hpp"
#include "netdp/accounting/loss_report.hpp"
#include "netdp/core/error.hpp"
#include "netdp/core/graph_spec.hpp"
#include "netdp/io/run_result.hpp"

namespace netdp {

using json = nlohmann::json;

namespace {

const char* method_name(attack::Method m) {
  return m == attack::Method::exact ? "exact" : "float";
}

std::vector<node_t> difference(const std::vector<node_t>& a, const std::vector<node_t>& b) {
  std::vector<node_t> out;
  std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
  return out;
}

json certificate(const std::vector<attack::PrimeCertificate>& primes, bool agree) {
  json list = json::array();
  for (const auto& p : primes)
    list.push_back({{"prime", p.prime}, {"rank", p.rank}, {"reconstructed", p.reconstructed}});
  return {
      {"primes", list},
      {"agree", agree},
      {"statement",
       "rank and row-space membership computed over Z/pZ for each prime, W's rational entries mapped to the "
       "field; rank over Q >= rank mod p always, and the answers equal the rational ones unless p divides "
       "one "
       "of finitely many non-zero integers (minors of K_T with cleared denominators); all primes agreeing "
       "(docs/attack.md \"Exact method\")"}};
}

bool with_privacy(const AttackGossipJob& job) {
  return job.privacy.sigma > 0;
}

// summary.json's "privacy" object (docs/attack.md "Privacy beside reconstruction").
json privacy_summary(const AttackGossipJob& job, const Graph& g, const std::vector<std::vector<node_t>>& sets,
                     const std::vector<std::int8_t>& mask, const std::vector<int>& exact_rank,
                     const attack::AttackPrivacy& p, RunResult& result) {
  const bool epsilon = job.privacy.delta > 0;
  // Sets whose floating-point basis is larger / smaller than the exact rank.
  std::int64_t above = 0, below = 0;
  for (std::size_t i = 0; i < exact_rank.size(); ++i) {
    above += p.rank[i] > exact_rank[i];
    below += p.rank[i] < exact_rank[i];
  }
  json s = {
      {"sigma", job.privacy.sigma},
      {"sensitivity", job.privacy.sensitivity},
      {"ldp_mu", p.ldp_mu},
      {"floor", p.floor},
      {"rank_min", p.rank_min},
      {"rank_max", p.rank_max},
      {"dropped", p.dropped},
      {"rank_above_exact", above},
      {"rank_below_exact", below},
      {"below_floor", p.below_floor},
      {"gap_reconstructible", p.gap_reconstructible},
      {"gap_hidden", p.gap_hidden},
      {"clamped", p.clamped},
      {"statement",
       "each victim's view is exactly a Gaussian mechanism with mu = (Delta/sigma) ||P e_u||, P the "
       "projection onto the row space of K_T (every node adds its noise once; the attackers know their "
       "own inputs and noises); the exact reconstruction decides mu = Delta/sigma, the others come from "
       "an orthonormal basis in floating point, strictly below (docs/math.md §7.2)"}};
  if (epsilon) {
    s["delta"] = job.privacy.delta;
    s["ldp_epsilon"] = p.ldp_epsilon;
  }
  s["by_distance"] = add_privacy_by_distance(result, attack::privacy_by_distance(g, sets, mask, p), epsilon);
  return s;
}

json one_set(const AttackGossipJob& job, const Graph& g, const attack::GossipRounds& rounds,
             const std::vector<node_t>& attackers, RunResult& result) {
  const attack::GossipAttackResult r =
      attack::attack_gossip(rounds, attackers, job.params, true, job.float_check);
  const bool exact = job.params.method == attack::Method::exact;
  add_attack_nodes_csv(result, r, g.n);
  add_attack_relations_csv(result, r);
  json s = {{"attackers", r.attackers},
            {"observed", r.observed},
            {"rows", r.rows_total},
            {"rank", r.rank},
            {"reconstructible", r.reconstructible},
            {"reconstructed", r.reconstructible.size()},
            {"reconstructed_fraction", double(r.reconstructible.size()) / g.n},
            {"relations", r.relations.size()},
            {"indistinguishable", r.indistinguishable},
            {"values", {{"max_error", r.max_error}, {"distribution", "N(0, 1), Philox seed"}}},
            {"seconds_attack", r.seconds}};
  if (exact) {
    s["rows_reduced"] = r.rows;
    s["certificate"] = certificate(r.primes, r.primes_agree);
  }
  if (with_privacy(job)) {
    std::vector<std::int8_t> mask(static_cast<std::size_t>(g.n), 0);
    for (node_t j : r.reconstructible) mask[static_cast<std::size_t>(j)] = 1;
    const std::vector<std::vector<node_t>> sets{r.attackers};
    const attack::AttackPrivacy p =
        attack::attack_privacy(rounds, sets, mask, job.params.secagg, job.privacy);
    add_attack_privacy_csv(result, g, r, p);
    s["privacy"] = privacy_summary(job, g, sets, mask, {r.rank}, p, result);
  }
  if (r.float_checked)
    s["float"] = {{"rank", r.float_rank},
                  {"svd_rank", r.svd_rank},
                  {"reconstructed", r.float_reconstructible.size()},
                  {"only_exact", difference(r.reconstructible, r.float_reconstructible)},
                  {"only_float", difference(r.float_reconstructible, r.reconstructible)},
                  {"agree", r.float_reconstructible == r.reconstructible && r.float_rank == r.rank}};
  return s;
}

json every_attacker(const AttackGossipJob& job, const Graph& g, const attack::GossipRounds& rounds,
                    RunResult& result) {
  const attack::AllAttackersResult r = attack::attack_gossip_all(rounds, job.params, job.float_check);
  add_attackers_csv(result, r, job.float_check);
  result.matrix("reconstructible.npy", g.n, g.n, r.reconstructible);
  double mean = 0;
  for (int x : r.reconstructed) mean += x;
  json s = {{"attackers", "all"},
            {"rank", r.rank},
            {"reconstructed", r.reconstructed},
            {"reconstructed_mean", mean / g.n},
            {"reconstructed_fraction_mean", mean / g.n / g.n},
            {"seconds_attack", r.seconds}};
  if (job.params.method == attack::Method::exact)
    s["certificate"] = certificate(r.primes_total, r.primes_agree);
  if (job.float_check)
    s["float"] = {{"disagreements", r.disagreements}, {"reconstructed", r.float_reconstructed}};
  if (with_privacy(job)) {
    std::vector<std::vector<node_t>> sets;
    for (node_t a = 0; a < g.n; ++a) sets.push_back({a});
    const attack::AttackPrivacy p =
        attack::attack_privacy(rounds, sets, r.reconstructible, job.params.secagg, job.privacy);
    result.matrix("mu.npy", g.n, g.n, p.mu);
    if (!p.epsilon.empty()) result.matrix("epsilon.npy", g.n, g.n, p.epsilon);
    s["privacy"] = privacy_summary(job, g, sets, r.reconstructible, r.rank, p, result);
  }
  if (job.centralities) {
    s["centralities"] = add_attack_centralities(result, g, r);
  }
  return s;
}

}  // namespace

RunResult run_attack_gossip_job(const AttackGossipJob& job) {
  const Stopwatch clock;
  const Graph g = make_graph(job.graph);
  bool every = false;
  const std::vector<node_t> attackers = attack::parse_attackers(job.attackers, g.n, job.params.seed, &every);
  if (job.centralities && !is_connected(g))
    throw InvalidParameter(
        "centralities",
        "centralities needs a connected graph (hop distances, eigenvector centrality); use lcc=1");
  const attack::GossipRounds rounds(g, job.weights, job.params);
  if (job.params.method == attack::Method::exact && !rounds.exact_available())
    throw InvalidParameter("method",
                           "method exact needs the rational entries of a named weighting; weights from "
                           "a file are doubles: use method float");
  if (with_privacy(job)) attack::check_attack_privacy(rounds, job.privacy);

  RunResult result;
  result.node_ids = g.file_ids;  // node_map.csv for a renumbered file graph
  json summary = {{"model", "attack gossip"},
                  {"n", g.n},
                  {"edges", g.num_edges()},
                  {"steps", job.params.steps},
                  {"weights", to_string(job.weights)},
                  {"method", method_name(job.params.method)},
                  {"secagg", job.params.secagg},
                  {"dynamic", job.params.dynamic},
                  {"seed", job.params.seed}};
  summary.update(every ? every_attacker(job, g, rounds, result) : one_set(job, g, rounds, attackers, result));
  summary["seconds"] = clock.seconds();

  json manifest = manifest_header("attack gossip", job.invocation);
  manifest["parameters"] = {{"graph", job.graph},
                            {"weights", to_string(job.weights)},
                            {"attackers", job.attackers},
                            {"steps", job.params.steps},
                            {"method", method_name(job.params.method)},
                            {"secagg", job.params.secagg},
                            {"dynamic", job.params.dynamic},
                            {"seed", job.params.seed},
                            {"float_check", job.float_check},
                            {"centralities", job.centralities}};
  if (with_privacy(job)) {
    manifest["parameters"]["sigma"] = job.privacy.sigma;
    manifest["parameters"]["sensitivity"] = job.privacy.sensitivity;
    if (job.privacy.delta > 0) manifest["parameters"]["delta"] = job.privacy.delta;
  }
  result.summary = std::move(summary);
  result.manifest = std::move(manifest);
  return result;
}

void check_attack_gossip_job(const AttackGossipJob& job) {
  bool every = false;  // attackers against n: the study's validation sees node:7 on n = 5 too
  (void)attack::parse_attackers(job.attackers, planned_node_count(job.graph), job.params.seed, &every);
  if (job.params.dynamic > 0 && job.weights.scheme == Weighting::file)
    throw InvalidParameter("dynamic",
                           "dynamic rebuilds W on every round's graph: it needs a named weighting");
  if (job.privacy.delta > 0 && !with_privacy(job))
    throw InvalidParameter("delta", "delta converts the mu of --sigma to epsilon: give sigma too");
  if (with_privacy(job) && job.params.method != attack::Method::exact)
    throw InvalidParameter("sigma", "sigma needs method exact (it decides who reaches the LDP level)");
  if (with_privacy(job) && job.params.dynamic > 0)
    throw InvalidParameter("sigma", "sigma needs a static graph (dynamic 0): the view is a Krylov space");
  if (job.params.method == attack::Method::exact && job.weights.scheme == Weighting::file)
    throw InvalidParameter("method",
                           "method exact needs the rational entries of a named weighting; weights "
                           "from a file are doubles: use method float");
  // A W file is read whole and checked as every gossip command checks it (docs/reliability.md §1): n x n on
  // the graph's edges, non-negative, rows summing to 1, and symmetric where the privacy accountant needs it.
  if (job.weights.scheme == Weighting::file) {
    const Graph g = make_graph(job.graph);
    const CsrMatrix w = make_weights(g, job.weights);
    try {
      if (with_privacy(job))
        validate_gossip_matrix(w, g);
      else
        validate_row_stochastic(w, g);
    } catch (const InvalidParameter&) {
      throw;
    } catch (const InvalidInput& e) {
      throw InvalidParameter("weights", "weights " + to_string(job.weights) + ": " + e.what());
    }
  }
}

namespace jobs {

Model attack_gossip_model() {
  using namespace declare;
  Model m = named_model(
      "attack gossip",
      "reconstruction attack on gossip averaging: which private values curious nodes determine exactly "
      "(docs/math.md §7.1-7.2)",
      "--graph florentine --attackers all --steps 4 --out out/attack-gossip");
  using Job = AttackGossipJob;
  Binding<Job> bind;
  m.parameters = graph_parameters(
      bind,
      {bind(text("attackers", "attacking nodes: a list (0,1), all (every node alone, batched) or random:K")
                .forms({"LIST", "all", "random:K"})
                .fallback("0"),
            &Job::attackers),
       bind(integer("steps", "gossip rounds T observed").required().range(between(1, 1e6)), &Job::params,
            &attack::GossipAttackParams::steps),
       bind(choice("method", "exact (Z/pZ for two primes) | float (the reference code's RREF tolerances)",
                   {"exact", "float"})
                .fallback("exact"),
            [](Job& job, const std::string& method) {
              job.params.method = method == "exact" ? attack::Method::exact : attack::Method::floating;
            }),
       bind(flag("secagg", "secure aggregation per neighbourhood (Remark 4.5): an attacker sees only sums"),
            &Job::params, &attack::GossipAttackParams::secagg),
       bind(real("dynamic", "time-varying graph (Remark 4.6): probability that an edge is absent in a round")
                .fallback("0")
                .range(between(0, 0.999999)),
            &Job::params, &attack::GossipAttackParams::dynamic),
       bind(natural("seed", "seed of the private values, random:K and the dynamic rounds").fallback("0"),
            &Job::params, &attack::GossipAttackParams::seed),
       bind(flag("no-float-check", "skip the floating-point reduction run next to the exact one"),
            [](Job& job, bool off) { job.float_check = !off; }),
       bind(flag("centralities",
                 "with attackers all: centralities.csv and the correlations of docs/math.md §7.4")
                .needs("attackers", {"all"}, "one attacker per node"),
            &Job::centralities),
       bind(
           real("sigma",
                "also each victim's exact mu for Gaussian noise of this absolute std (in the units of the "
                "values) "
                "added once by every node (privacy.csv or mu.npy, docs/math.md §7.2); needs method exact and "
                "a "
                "static graph")
               .range(above(0))
               .unit(units::absolute_std),
           [](Job& job, double sigma) { job.privacy.sigma = sigma; }),
       bind(real("delta", "with sigma: also epsilon at this delta (analytic Gaussian curve)")
                .range(Range{.min = 0.0, .max = 1.0, .min_exclusive = true, .max_exclusive = true}),
            [](Job& job, double delta) { job.privacy.delta = delta; }),
       bind(real("sensitivity", "with sigma: l2 sensitivity Delta of a node's value")
                .fallback("1")
                .range(above(0)),
            [](Job& job, double sensitivity) { job.privacy.sensitivity = sensitivity; }),
       threads_parameter(), out_parameter(), quiet_parameter()});
  m.validate = bind.check(check_attack_gossip_job);
  m.execute = bind.run(run_attack_gossip_job);
  m.describe = [](const json& s, const RunContext& c) {
    if (s["attackers"] == "all")
      return format_line(
          "attack gossip: n = %d, T = %d, every node alone: %.2f nodes reconstructed on average "
          "(%s), %.3f s -> %s\n",
          s["n"].get<int>(), s["steps"].get<int>(), s["reconstructed_mean"].get<double>(),
          s["method"].get<std::string>().c_str(), s["seconds"].get<double>(), c.out_dir.string().c_str());
    return format_line("attack gossip: n = %d, T = %d, rank %d, %d nodes reconstructed (%s), %.3f s -> %s\n",
                       s["n"].get<int>(), s["steps"].get<int>(), s["rank"].get<int>(),
                       s["reconstructed"].get<int>(), s["method"].get<std::string>().c_str(),
                       s["seconds"].get<double>(), c.out_dir.string().c_str());
  };
  // Per attacker and prime about (rows + rank) rank n field operations; ~2 ns each (benchmarks/RESULTS.md).
  m.resources = bind.estimate([](const Job& job) {
    const GraphSize g = graph_size(job.graph);
    const double n = g.n, degree = n > 0 ? 2 * g.m / n : 0, T = job.params.steps;
    const double rank = std::min(n, 1 + T * degree), per = 2 * (1 + T * degree + rank) * rank * n * 2e-9;
    const double sets = job.attackers == "all" ? n : 1;
    // Nothing here is tiled: the knowledge rows and, for all attackers, the n x n reconstructible mask are
    // held whole, so Model::run refuses what does not fit before anything is written.
    const double bytes = 8 * (1 + T * degree) * n * 3 + (sets > 1 ? n * n : 0);
    return Estimate{bytes, sets * per, bytes};
  });
  return m;
}

}  // namespace jobs

}  // namespace netdp
