#include "netdp/jobs/mf_loss_job.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <limits>
#include <optional>
#include <sstream>
#include <utility>

#include "core/progress.hpp"
#include "jobs/job_graph.hpp"
#include "jobs/mf_job_parts.hpp"
#include "jobs/model_list.hpp"
#include "jobs/model_parts.hpp"
#include "netdp/accounting/loss_report.hpp"
#include "netdp/core/error.hpp"
#include "netdp/core/format.hpp"
#include "netdp/io/results_dir.hpp"
#include "netdp/mf/mf_baseline.hpp"
#include "netdp/mf/mf_trust.hpp"

namespace netdp {

using json = nlohmann::json;

namespace {

/// "all" or a comma list of node ids.
std::vector<node_t> parse_attackers(const std::string& text, node_t n) {
  std::vector<node_t> out;
  if (text == "all") {
    for (node_t v = 0; v < n; ++v) out.push_back(v);
    return out;
  }
  std::string_view rest = text;
  while (true) {
    const std::size_t comma = rest.find(',');
    const std::string_view item = rest.substr(0, comma);
    long long v = -1;
    const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), v);
    if (ec != std::errc() || end != item.data() + item.size() || item.empty())
      throw InvalidParameter(
          "attackers", "attackers: expected all or a comma list of nodes, got '" + excerpt(text, 200) + "'");
    if (n > 0 && (v < 0 || v >= n))
      throw InvalidParameter(
          "attackers", "attackers: node " + std::to_string(v) + " is not in 0.." + std::to_string(n - 1));
    if (std::find(out.begin(), out.end(), static_cast<node_t>(v)) != out.end())
      throw InvalidParameter("attackers", "attackers: node " + std::to_string(v) + " is listed twice");
    out.push_back(static_cast<node_t>(v));
    if (comma == std::string_view::npos) break;
    rest = rest.substr(comma + 1);
  }
  return out;
}

/// The victims' participation sets of an observation-pi file: [victims, k] (one set each) or [victims,
/// sets, k], integer column indices, negative entries padding.
std::vector<std::vector<std::vector<std::int64_t>>> read_observation_sets(const std::string& path) {
  const mf::NpyArray a = mf::read_npy_array(path, "observation-pi");
  if (a.shape.size() != 2 && a.shape.size() != 3)
    throw InvalidParameter("observation-pi", "observation-pi " + path +
                                                 ": expected a 2-D [victims, k] or 3-D "
                                                 "[victims, sets, k] array, got " +
                                                 std::to_string(a.shape.size()) + "-D");
  const std::int64_t victims = a.shape[0], sets = a.shape.size() == 3 ? a.shape[1] : 1, k = a.shape.back();
  std::vector<std::vector<std::vector<std::int64_t>>> out(static_cast<std::size_t>(victims));
  for (std::int64_t v = 0; v < victims; ++v)
    for (std::int64_t j = 0; j < sets; ++j) {
      std::vector<std::int64_t> set;
      for (std::int64_t i = 0; i < k; ++i) {
        const double x = a.data[static_cast<std::size_t>((v * sets + j) * k + i)];
        if (x != std::floor(x) || !std::isfinite(x))
          throw InvalidParameter("observation-pi", "observation-pi " + path +
                                                       ": indices must be integers, got " + format_double(x));
        // Beyond 2^53 a double is no exact index (1e300 would convert to a negative integer).
        if (x >= 0x1p53)
          throw InvalidParameter("observation-pi", "observation-pi " + path + ": index " + format_double(x) +
                                                       " is not a column of C");
        if (x >= 0) set.push_back(static_cast<std::int64_t>(x));
      }
      if (!set.empty()) out[static_cast<std::size_t>(v)].push_back(std::move(set));
    }
  return out;
}

/// trust observation's files read whole before any work: each finite and of its shape, B's columns those of
/// C (or a multiple of T), the sets' indices columns of C, A of B's rows by C's columns. That A = B C needs
/// the product and stays with the run.
void check_observation_files(const MfLossJob& job) {
  const mf::Matrix b = mf::read_npy_matrix(job.observation_b, "observation-b");
  const std::int64_t T = job.spec.steps, columns = b.cols;
  if (!job.observation_c.empty()) {
    const mf::Matrix c = mf::read_npy_matrix(job.observation_c, "observation-c");
    if (c.rows != c.cols)
      throw InvalidParameter("observation-c", "observation-c: C must be square, got " +
                                                  std::to_string(c.rows) + " x " + std::to_string(c.cols));
    if (b.cols != c.rows)
      throw InvalidParameter("observation-b", "observation-b: B must have N = " + std::to_string(c.rows) +
                                                  " columns (C is N x N), got " + std::to_string(b.rows) +
                                                  " x " + std::to_string(b.cols));
  } else if (columns % T != 0) {
    throw InvalidParameter("observation-b", "observation-b: N = " + std::to_string(columns) +
                                                " columns is not a multiple of T = " + std::to_string(T) +
                                                "; give observation-c");
  }
  if (b.rows < 1) throw InvalidParameter("observation-b", "observation-b: B has no rows");
  if (!job.observation_pi.empty())
    for (const auto& victim : read_observation_sets(job.observation_pi)) {
      if (victim.empty()) throw InvalidParameter("observation-pi", "observation-pi: a victim has no set");
      for (const auto& set : victim)
        for (const std::int64_t i : set)
          if (i >= columns)
            throw InvalidParameter("observation-pi", "observation-pi: index " + std::to_string(i) +
                                                         " is not a column of C (0.." +
                                                         std::to_string(columns - 1) + ")");
    }
  if (!job.observation_a.empty()) {
    const mf::Matrix a = mf::read_npy_matrix(job.observation_a, "observation-a");
    if (a.rows != b.rows || a.cols != columns)
      throw InvalidParameter("observation-a", "observation-a: A must be " + std::to_string(b.rows) + " x " +
                                                  std::to_string(columns) +
                                                  " (B's rows x C's columns), got " + std::to_string(a.rows) +
                                                  " x " + std::to_string(a.cols));
  }
}

}  // namespace

void check_mf_loss_job(const MfLossJob& job) {
  const mf::TrustModel trust = mf::parse_trust(job.trust);
  const bool observation = trust == mf::TrustModel::observation;
  check_mf_spec(job.spec, !observation);
  // The attackers against the graph's nodes, as the run reads them (the study's validation sees node 7 on
  // n = 5 too).
  parse_attackers(job.attackers, observation ? 0 : planned_node_count(job.spec.graph));
  if (!(job.alpha > 1)) throw InvalidParameter("alpha", "alpha must be > 1, got " + format_double(job.alpha));
  if (!(job.sigma > 0))
    throw InvalidParameter("noise-multiplier",
                           "noise-multiplier must be > 0, got " + format_double(job.sigma));
  // loss = alpha sens^2 / (2 sigma^2): a multiplier whose square underflows would write inf and NaN.
  if (!std::isfinite(job.alpha / (2 * job.sigma * job.sigma)))
    throw InvalidParameter("noise-multiplier", "noise-multiplier " + format_double(job.sigma) +
                                                   " is too small: alpha / (2 sigma^2) overflows");
  if (job.delta && !(*job.delta > 0 && *job.delta < 1))
    throw InvalidParameter("delta", "delta must be in (0, 1), got " + format_double(*job.delta));
  mf::parse_conversion(job.conversion);
  if (!(job.secret_ratio >= 0) || !std::isfinite(job.secret_ratio))
    throw InvalidParameter("secret-ratio",
                           "secret-ratio must be finite and >= 0, got " + format_double(job.secret_ratio));
  if (job.baseline != "none" && job.baseline != "muffliato")
    throw InvalidParameter("baseline", "baseline: expected none or muffliato, got '" + job.baseline + "'");
  if (job.baseline == "muffliato" && trust != mf::TrustModel::pndp)
    throw InvalidParameter(
        "baseline", "baseline muffliato bounds the PNDP attacker: it needs trust pndp, got " + job.trust);
  if (observation && job.observation_b.empty())
    throw InvalidParameter("observation-b", "observation-b is required by trust observation");
  if (observation) check_observation_files(job);
}

namespace {

/// The observation model of the job: B, C (given or node-major diag of C_local), the sets (given or
/// node-major).
mf::ObservationModel observation_model(const MfLossJob& job, const MfSetup& setup) {
  mf::ObservationModel m;
  m.b = mf::read_npy_matrix(job.observation_b, "observation-b");
  if (!job.observation_c.empty()) {
    m.c = mf::read_npy_matrix(job.observation_c, "observation-c");
  } else {
    const std::int64_t T = setup.participation.steps();
    if (m.b.cols % T != 0)
      throw InvalidParameter("observation-b", "observation-b: N = " + std::to_string(m.b.cols) +
                                                  " columns is not a multiple of T = " + std::to_string(T) +
                                                  "; give observation-c");
    const std::int64_t nodes = m.b.cols / T;
    if (setup.c.size() > 1 && static_cast<std::int64_t>(setup.c.size()) != nodes)
      throw InvalidParameter("observation-b", "observation-b: N / T = " + std::to_string(nodes) +
                                                  " nodes, but the correlation has one C for each of " +
                                                  std::to_string(setup.c.size()));
    m.c = mf::block_diagonal(setup.c, nodes);
  }
  m.victims = job.observation_pi.empty() ? mf::node_major_sets(m.c.cols, setup.participation)
                                         : read_observation_sets(job.observation_pi);
  std::optional<mf::Matrix> a;
  if (!job.observation_a.empty()) a = mf::read_npy_matrix(job.observation_a, "observation-a");
  mf::validate(m, a ? &*a : nullptr);
  return m;
}

}  // namespace

RunResult run_mf_loss_job(const MfLossJob& job) {
  const Stopwatch clock;
  const mf::TrustModel trust = mf::parse_trust(job.trust);
  const bool observation = trust == mf::TrustModel::observation;
  const mf::EpsilonConversion conversion = mf::parse_conversion(job.conversion);
  const MfSetup setup = mf_setup(job.spec);
  std::vector<node_t> attackers;
  mf::Matrix sens;
  mf::ObservationModel model;
  const Stopwatch accounting_clock;
  if (observation) {
    model = observation_model(job, setup);
    const std::vector<double> row = mf::observation_sensitivity(model);
    sens = mf::Matrix(1, static_cast<std::int64_t>(row.size()));
    sens.a = row;
  } else {
    attackers = parse_attackers(job.attackers, setup.g.n);
    sens = mf::pairwise_sensitivity(trust, setup.w, setup.c, setup.participation, attackers, true,
                                    job.secret_ratio);
    // +inf is a pair without noise (C = 0) or the attacker itself; with noise, an infinite sensitivity is an
    // overflow of an ill-conditioned C (C = [[1e200, 0], [1e300, 1e-200]] wrote a NaN mean with exit 0).
    const bool noise = std::any_of(setup.c.begin(), setup.c.end(), [](const mf::Matrix& c) {
      return std::any_of(c.a.begin(), c.a.end(), [](double x) { return x != 0.0; });
    });
    for (std::size_t a = 0; noise && a < attackers.size(); ++a)
      for (node_t u = 0; u < setup.g.n; ++u)
        if (u != attackers[a])
          require_finite(sens(static_cast<std::int64_t>(a), u),
                         "the sensitivity of victim " + std::to_string(u) + " to attacker " +
                             std::to_string(attackers[a]),
                         "use a better-conditioned correlation");
  }
  const double accounting_seconds = accounting_clock.seconds();

  // RDP(u -> v) = alpha sens^2 / (2 sigma^2) (docs/math.md §9.3, §9.4), +inf where sens is.
  // A finite sensitivity gives a finite loss and epsilon; +inf (the attacker itself, no noise) stays +inf,
  // and nothing NaN reaches a file (docs/reliability.md §1 "No non-finite number in an output").
  mf::Matrix loss = sens;
  for (double& x : loss.a) {
    require_finite(std::isinf(x) ? 0.0 : x, "a pairwise sensitivity", "check correlation and weights");
    if (!std::isinf(x)) {
      x = job.alpha * x * x / (2 * job.sigma * job.sigma);
      require_finite(x, "a pairwise loss alpha sens^2 / (2 sigma^2)", "raise noise-multiplier");
    }
  }
  mf::Matrix epsilon = sens;
  if (job.delta)
    for (double& x : epsilon.a) {
      const bool infinite = std::isinf(x);
      x = mf::epsilon_of_sensitivity(x, job.sigma, *job.delta, conversion);
      if (!infinite) require_finite(x, "a pairwise epsilon", "raise noise-multiplier or delta");
    }
  // Hop distances from each attacker (index d + 1 = distance d, 0 = unreachable, as distance_rows reads
  // them).
  std::vector<std::vector<std::size_t>> bucket_of(attackers.size());
  {
    std::vector<node_t> distance(static_cast<std::size_t>(setup.g.n)), queue;
    for (std::size_t a = 0; a < attackers.size(); ++a) {
      bfs_distances(setup.g, attackers[a], distance, queue);
      for (const node_t d : distance) bucket_of[a].push_back(d < 0 ? 0 : static_cast<std::size_t>(d) + 1);
    }
  }
  // The statistics of a loss matrix over the (attacker, victim != attacker) pairs, by hop distance.
  const auto by_hops = [&](const mf::Matrix& m, std::vector<LossAggregate>& buckets, LossAggregate& all) {
    for (std::size_t a = 0; a < attackers.size(); ++a)
      for (node_t u = 0; u < setup.g.n; ++u) {
        if (u == attackers[a]) continue;
        const double x = m(static_cast<std::int64_t>(a), u);
        const std::size_t bucket = bucket_of[a][static_cast<std::size_t>(u)];
        if (buckets.size() <= bucket) buckets.resize(bucket + 1);
        buckets[bucket].add(x);
        all.add(x);
      }
  };
  std::vector<LossAggregate> buckets, epsilon_buckets;
  LossAggregate all, all_epsilon;
  by_hops(loss, buckets, all);
  by_hops(epsilon, epsilon_buckets, all_epsilon);
  if (observation)
    for (std::size_t j = 0; j < loss.a.size(); ++j) all.add(loss.a[j]), all_epsilon.add(epsilon.a[j]);
  const json rows = distance_rows(buckets);

  // The earlier Muffliato-SGD bound at the same T, alpha and sigma, one gradient of sensitivity 1 per round
  // (docs/math.md §6.5 "muffliato_mfdl").
  const bool baseline = job.baseline == "muffliato";
  mf::Matrix baseline_loss;
  std::vector<LossAggregate> baseline_buckets;
  LossAggregate baseline_all;
  if (baseline) {
    mf::MuffliatoBaselineParams bp;
    bp.steps = setup.participation.steps();
    bp.alpha = job.alpha;
    bp.sigma = job.sigma;
    baseline_loss = mf::muffliato_baseline_loss(setup.w, bp, attackers, true);
    for (const double x : baseline_loss.a)
      require_finite(std::isinf(x) ? 0.0 : x, "a baseline loss", "raise noise-multiplier");
    by_hops(baseline_loss, baseline_buckets, baseline_all);
  }

  RunResult result;
  result.node_ids = setup.g.file_ids;  // node_map.csv for a renumbered file graph
  const auto add_matrix = [&](const std::string& name, const mf::Matrix& m) {
    result.matrix(name, m.rows, m.cols, m.a);
  };
  add_matrix("sensitivity.npy", sens);
  add_matrix("loss.npy", loss);
  if (job.delta) add_matrix("epsilon.npy", epsilon);
  add_matrix("C.npy", observation ? model.c : mf::stack_rows(setup.c));
  if (!observation) result.add(by_distance_table("by_distance.csv", rows));
  json baseline_summary;
  if (baseline) {
    const json baseline_rows = distance_rows(baseline_buckets);
    add_matrix("baseline_loss.npy", baseline_loss);
    result.add(by_distance_table("baseline_by_distance.csv", baseline_rows));
    // The same rounding as muffliato_baseline_loss's factor * T, so that capped pairs compare equal.
    const double cap =
        job.alpha / (2 * job.sigma * job.sigma) * static_cast<double>(setup.participation.steps());
    std::int64_t capped = 0;
    for (const double x : baseline_loss.a) capped += x == cap;
    baseline_summary = {{"name", "muffliato_mfdl"},
                        {"bound",
                         "alpha / (2 sigma^2) min(T, sum_s (T - s) sum_{w in N(v) + v} (W^s)_uw / "
                         "||(W^s)_:w||^2) (docs/math.md §6.5), C = I, sensitivity 1 per round"},
                        {"cap", cap},
                        {"capped_pairs", capped},
                        {"pairs", baseline_all.count},
                        {"mean_loss", baseline_all.mean()},
                        {"min_loss", baseline_all.count ? baseline_all.min : 0.0},
                        {"max_loss", baseline_all.count ? baseline_all.max : 0.0},
                        {"by_distance", baseline_rows}};
  }

  json summary = {{"model", "mf-loss"}};
  summary.update(mf_description(job.spec, setup));
  double ldp = 0.0;
  for (const mf::Matrix& c : setup.c) ldp = std::max(ldp, mf::sensitivity(c, setup.participation));
  const char* trust_words[] = {
      "LDP: the attacker sees every message (B = I)",
      "PNDP: attacker v sees the messages of every w with W_vw > 0, itself included, and its own noise",
      "observation: the user's O = A G + B Z, sens^2 = max over each victim's sets of sum |(C^T B^+ B "
      "C)_st|",
      "SecLDP (netdp's reading, docs/math.md §9.4): attacker v sees every message; each edge adds a "
      "pairwise-cancelling secret, hidden unless the edge is v's; sens^2 = ((I + r^2 L_{G-v})^-1)_uu "
      "sens_Pi(C_u)^2"};
  summary.update({
      {"workload",
       observation ? "user-supplied A = B C" : "message W_T (blocks W^{t-s}, t >= s; docs/math.md §9.2)"},
      {"trust", job.trust},
      {"trust_model", trust_words[static_cast<int>(trust)]},
      {"attackers", observation                                               ? json("observation")
                    : attackers.size() == static_cast<std::size_t>(setup.g.n) ? json("all")
                                                                              : json(attackers)},
      {"alpha", job.alpha},
      // noise_multiplier is the name since issue 29; sigma, the same number, stays for one release
      // (docs/outputs.md "mf-loss").
      {"noise_multiplier", job.sigma},
      {"sigma", job.sigma},
      {"ldp_sensitivity", ldp},
      {"pairs", all.count},
      {"mean_loss", all.mean()},
      {"min_loss", all.count ? all.min : 0.0},
      {"max_loss", all.count ? all.max : 0.0},
      {"seconds", accounting_seconds},
      {"seconds_total", clock.seconds()},
  });
  if (!observation) summary["by_distance"] = rows;
  if (trust == mf::TrustModel::secldp) summary["secret_ratio"] = job.secret_ratio;
  if (baseline) summary["baseline"] = baseline_summary;
  if (observation) {
    summary["n"] = sens.cols;
    summary["victims"] = sens.cols;
    summary["observation_rows"] = model.b.rows;
    summary["observation_columns"] = model.b.cols;
  }
  if (job.delta)
    summary.update({{"delta", *job.delta},
                    {"conversion", mf::to_string(conversion)},
                    {"mean_epsilon", all_epsilon.mean()},
                    {"max_epsilon", all_epsilon.count ? all_epsilon.max : 0.0}});
  json manifest = manifest_header("mf-loss", job.invocation);
  manifest["parameters"] = mf_spec_manifest(job.spec);
  manifest["parameters"].update({{"trust", job.trust},
                                 {"attackers", job.attackers},
                                 {"alpha", job.alpha},
                                 {"noise_multiplier", job.sigma},
                                 {"sigma", job.sigma},  // the old name, for one release
                                 {"delta", job.delta ? json(*job.delta) : json(nullptr)},
                                 {"conversion", job.conversion},
                                 {"secret_ratio", job.secret_ratio},
                                 {"baseline", job.baseline},
                                 {"observation_b", job.observation_b},
                                 {"observation_c", job.observation_c},
                                 {"observation_a", job.observation_a},
                                 {"observation_pi", job.observation_pi}});
  result.summary = std::move(summary);
  result.manifest = std::move(manifest);
  return result;
}

namespace jobs {

Model mf_loss_model() {
  using namespace declare;
  Model m = named_model(
      "mf-loss",
      "pairwise sensitivities and Renyi losses of correlated-noise D-SGD (MF-D-SGD) under a trust model",
      "--graph florentine --weights average --steps 10 --out out/mf-loss");
  using Job = MfLossJob;
  Binding<Job> bind;
  m.parameters = mf_parameters(bind, false);
  const auto path = [](std::string Job::*field) {
    return [field](Job& job, const std::string& text) { job.*field = text; };
  };
  append(
      m.parameters,
      {bind(choice("trust",
                   "ldp: the attacker sees every message; pndp: attacker v sees its neighbours and itself; "
                   "observation: B, C, A, Pi from .npy files; secldp: every message seen, edge secrets "
                   "hidden except the attacker's own (docs/math.md §9.4)",
                   {"ldp", "pndp", "observation", "secldp"})
                .fallback("pndp"),
            &Job::trust),
       bind(real("secret-ratio",
                 "trust secldp: std of each pairwise edge secret over the std of the local noise (0 = LDP)")
                .fallback("1")
                .range(at_least(0))
                .unit("secret std / local noise std")
                .needs("trust", {"secldp"}),
            &Job::secret_ratio),
       bind(text("attackers", "all | comma list of attacker nodes (rows of the outputs)").fallback("all"),
            &Job::attackers),
       bind(real("alpha", "Renyi order alpha > 1").fallback("2").range(above(1)), &Job::alpha),
       // A noise multiplier, not an absolute std (issue 29): --sigma is its deprecated spelling; the loss is
       // alpha sens^2 / (2 sigma^2).
       bind(noise_multiplier("noise std over the sensitivity sens_Pi(C): loss = alpha sens^2 / (2 sigma^2), "
                             "sigma this multiplier",
                             above(0)),
            &Job::sigma),
       bind(real("delta",
                 "write epsilon.npy: epsilon at this delta in (0, 1) of each (sens / sigma)-GDP pair"),
            &Job::delta),
       bind(choice(
                "conversion",
                "epsilon from: gdp (exact Gaussian profile) | rdp (RDP orders grid, improved) | rdp-classic",
                {"gdp", "rdp", "rdp-classic"})
                .fallback("gdp"),
            &Job::conversion),
       bind(choice(
                "baseline",
                "muffliato: also the earlier Muffliato-SGD bound (C = I, one gossip step per round) for the "
                "same attackers: baseline_loss.npy, baseline_by_distance.csv",
                {"none", "muffliato"})
                .fallback("none"),
            &Job::baseline),
       bind(
           text("observation-b", "trust observation: B (m x N float64 .npy), the noise the attacker observes")
               .needs("trust", {"observation"}),
           path(&Job::observation_b)),
       bind(text("observation-c", "trust observation: C (N x N .npy); default: node-major diag of C_local")
                .needs("trust", {"observation"}),
            path(&Job::observation_c)),
       bind(text("observation-a", "trust observation: A (m x N .npy), checked to equal B C")
                .needs("trust", {"observation"}),
            path(&Job::observation_a)),
       bind(text("observation-pi",
                 "trust observation: victims' participation sets, [victims, k] or [victims, sets, k] integer "
                 ".npy (-1 pads); default: node-major from participation")
                .needs("trust", {"observation"}),
            path(&Job::observation_pi)),
       threads_parameter(), out_parameter(), quiet_parameter()});
  m.validate = bind.check(check_mf_loss_job);
  m.execute = bind.run(run_mf_loss_job);
  m.describe = [](const json& s, const RunContext& c) {
    return format_line("mf-loss: n = %d, T = %d, %s, %s, %s, mean loss %.6g, max %.6g, %.3f s -> %s\n",
                       s["n"].get<int>(), s["steps"].get<int>(),
                       s["correlation_name"].get<std::string>().c_str(),
                       s["participation"].get<std::string>().c_str(), s["trust"].get<std::string>().c_str(),
                       s["mean_loss"].get<double>(), s["max_loss"].get<double>(), s["seconds"].get<double>(),
                       c.out_dir.string().c_str());
  };
  // Per attacker: the observed rows (deg + 1) T over n T columns, three copies (rows, SVD, basis), for two
  // threads; about 5e9 flop/s (benchmarks/RESULTS.md).
  // The observation matrices are held whole (no tiling): Model::run refuses what does not fit, with the
  // T x T matrices of C (mf_required_bytes) and, for trust observation, the .npy files and their copies.
  m.resources = bind.estimate([](const Job& job) {
    const double T = job.spec.steps;
    if (job.spec.graph.empty()) {
      double files = 0;
      for (const std::string* path :
           {&job.observation_b, &job.observation_c, &job.observation_a, &job.observation_pi}) {
        std::error_code ec;
        const auto size = path->empty() ? 0 : std::filesystem::file_size(*path, ec);
        if (!ec) files += double(size);
      }
      const double bytes = mf_required_bytes(job.spec, 1) + 4 * files;
      return Estimate{std::max(bytes, 1e8), 1.0, bytes};
    }
    const GraphSize g = graph_size(job.spec.graph);
    const double n = g.n, rows = (2 * g.m / std::max(n, 1.0) + 1) * T;
    const double attackers = job.attackers == "all" ? n : 1;
    if (job.trust == "secldp") {
      // Per attacker: one step's B, (n - 1) x (n + m) dense, its SVD (three copies, two threads), about
      // 4 n^2 (n + m) flop at 1.5e9 flop/s (ego 414, all 148 attackers: 14 s of CPU, 2026-11-29); T does not
      // enter (docs/math.md §9.4).
      const double bytes = 2 * 3 * 8 * n * (n + g.m) + 16 * attackers * n +
                           mf_required_bytes(job.spec, node_t(std::min(n, 1e9)));
      return Estimate{bytes, attackers * 4 * n * n * (n + g.m) / 1.5e9, bytes};
    }
    // Per attacker: the observed rows (deg + 1) T over n T columns, three copies (rows, SVD, basis), for two
    // threads; about 5e9 flop/s (benchmarks/RESULTS.md).
    const double bytes =
        2 * 3 * 8 * rows * n * T + 16 * attackers * n + mf_required_bytes(job.spec, node_t(std::min(n, 1e9)));
    return Estimate{bytes, attackers * 4 * rows * rows * n * T / 5e9, bytes};
  });
  return m;
}

}  // namespace jobs

}  // namespace netdp
