#include "netdp/jobs/mf_loss_job.hpp"

#include <charconv>
#include <cmath>
#include <limits>
#include <optional>
#include <sstream>
#include <utility>

#include "core/progress.hpp"
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
      throw InvalidParameter("attackers",
                             "attackers: expected all or a comma list of nodes, got '" + text + "'");
    if (n > 0 && (v < 0 || v >= n))
      throw InvalidParameter(
          "attackers", "attackers: node " + std::to_string(v) + " is not in 0.." + std::to_string(n - 1));
    out.push_back(static_cast<node_t>(v));
    if (comma == std::string_view::npos) break;
    rest = rest.substr(comma + 1);
  }
  return out;
}

}  // namespace

void check_mf_loss_job(const MfLossJob& job) {
  const mf::TrustModel trust = mf::parse_trust(job.trust);
  const bool observation = trust == mf::TrustModel::observation;
  check_mf_spec(job.spec, !observation);
  parse_attackers(job.attackers, 0);
  if (!(job.alpha > 1)) throw InvalidParameter("alpha", "alpha must be > 1, got " + format_double(job.alpha));
  if (!(job.sigma > 0))
    throw InvalidParameter("noise-multiplier",
                           "noise-multiplier must be > 0, got " + format_double(job.sigma));
  if (job.delta && !(*job.delta > 0 && *job.delta < 1))
    throw InvalidParameter("delta", "delta must be in (0, 1), got " + format_double(*job.delta));
  mf::parse_conversion(job.conversion);
  if (job.baseline != "none" && job.baseline != "muffliato")
    throw InvalidParameter("baseline", "baseline: expected none or muffliato, got '" + job.baseline + "'");
  if (job.baseline == "muffliato" && trust != mf::TrustModel::pndp)
    throw InvalidParameter(
        "baseline", "baseline muffliato bounds the PNDP attacker: it needs trust pndp, got " + job.trust);
  if (observation && job.observation_b.empty())
    throw InvalidParameter("observation-b", "observation-b is required by trust observation");
  if (!observation)
    for (const auto& [name, path] : {std::pair{"observation-b", &job.observation_b},
                                     {"observation-c", &job.observation_c},
                                     {"observation-a", &job.observation_a},
                                     {"observation-pi", &job.observation_pi}})
      if (!path->empty()) throw InvalidParameter(name, std::string(name) + " needs trust observation");
}

namespace {

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
        if (x >= 0) set.push_back(static_cast<std::int64_t>(x));
      }
      if (!set.empty()) out[static_cast<std::size_t>(v)].push_back(std::move(set));
    }
  return out;
}

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

json run_mf_loss_job(const MfLossJob& job) {
  const Stopwatch clock;
  check_mf_loss_job(job);
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
    sens = mf::pairwise_sensitivity(trust, setup.w, setup.c, setup.participation, attackers, true);
  }
  const double accounting_seconds = accounting_clock.seconds();

  // RDP(u -> v) = alpha sens^2 / (2 sigma^2) (docs/math.md §9.3, §9.4), +inf where sens is.
  mf::Matrix loss = sens;
  for (double& x : loss.a) x = std::isinf(x) ? x : job.alpha * x * x / (2 * job.sigma * job.sigma);
  mf::Matrix epsilon = sens;
  if (job.delta)
    for (double& x : epsilon.a) x = mf::epsilon_of_sensitivity(x, job.sigma, *job.delta, conversion);
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
    by_hops(baseline_loss, baseline_buckets, baseline_all);
  }

  ResultsDir out(job.out_dir);
  mf::write_npy_matrix(out.file("sensitivity.npy").string(), sens);
  mf::write_npy_matrix(out.file("loss.npy").string(), loss);
  json files = json::array({"sensitivity.npy", "loss.npy"});
  if (job.delta) {
    mf::write_npy_matrix(out.file("epsilon.npy").string(), epsilon);
    files.push_back("epsilon.npy");
  }
  mf::write_npy_matrix(out.file("C.npy").string(), observation ? model.c : mf::stack_rows(setup.c));
  files.push_back("C.npy");
  if (!observation) {
    out.write_text("by_distance.csv", by_distance_csv(rows));
    files.push_back("by_distance.csv");
  }
  json baseline_summary;
  if (baseline) {
    const json baseline_rows = distance_rows(baseline_buckets);
    mf::write_npy_matrix(out.file("baseline_loss.npy").string(), baseline_loss);
    out.write_text("baseline_by_distance.csv", by_distance_csv(baseline_rows));
    files.push_back("baseline_loss.npy");
    files.push_back("baseline_by_distance.csv");
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
      "C)_st|"};
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
                                 {"baseline", job.baseline},
                                 {"observation_b", job.observation_b},
                                 {"observation_c", job.observation_c},
                                 {"observation_a", job.observation_a},
                                 {"observation_pi", job.observation_pi}});
  return publish_results(out, summary, std::move(manifest), files, clock.seconds());
}

namespace jobs {

namespace {

MfLossJob mf_loss_job(const Values& v, const RunContext& context) {
  MfLossJob job;
  job.spec = mf_spec(v);
  job.trust = v.text("trust");
  job.attackers = v.text("attackers");
  job.alpha = v.real("alpha");
  job.sigma = v.real("noise-multiplier");  // a multiplier: the loss is alpha sens^2 / (2 sigma^2)
  if (v.has("delta")) job.delta = v.real("delta");
  job.conversion = v.text("conversion");
  job.baseline = v.text("baseline");
  for (const auto& [name, path] : {std::pair{"observation-b", &job.observation_b},
                                   {"observation-c", &job.observation_c},
                                   {"observation-a", &job.observation_a},
                                   {"observation-pi", &job.observation_pi}})
    if (v.has(name)) *path = v.text(name);
  set_run_context(job, context);
  return job;
}

}  // namespace

Model mf_loss_model() {
  using namespace declare;
  Model m;
  m.name = "mf-loss";
  m.example = "--graph florentine --weights average --steps 10 --out out/mf-loss";
  m.help = "pairwise sensitivities and Renyi losses of correlated-noise D-SGD (MF-D-SGD) under a trust model";
  m.parameters = mf_parameters(false);
  append(m.parameters,
         {choice("trust",
                 "ldp: the attacker sees every message; pndp: attacker v sees its neighbours and itself; "
                 "observation: B, C, A, Pi from .npy files",
                 {"ldp", "pndp", "observation"})
              .fallback("pndp"),
          text("attackers", "all | comma list of attacker nodes (rows of the outputs)").fallback("all"),
          real("alpha", "Renyi order alpha > 1").fallback("2").range(above(1)),
          // A noise multiplier, not an absolute std (issue 29): --sigma is its deprecated spelling.
          real("noise-multiplier",
               "noise std over the sensitivity sens_Pi(C): loss = alpha sens^2 / (2 sigma^2), sigma this "
               "multiplier")
              .fallback("1")
              .range(above(0))
              .unit(units::noise_multiplier)
              .alias("sigma"),
          real("delta", "write epsilon.npy: epsilon at this delta in (0, 1) of each (sens / sigma)-GDP pair"),
          choice("conversion",
                 "epsilon from: gdp (exact Gaussian profile) | rdp (RDP orders grid, improved) | rdp-classic",
                 {"gdp", "rdp", "rdp-classic"})
              .fallback("gdp"),
          choice("baseline",
                 "muffliato: also the earlier Muffliato-SGD bound (C = I, one gossip step per round) for the "
                 "same attackers: baseline_loss.npy, baseline_by_distance.csv",
                 {"none", "muffliato"})
              .fallback("none"),
          text("observation-b", "trust observation: B (m x N float64 .npy), the noise the attacker observes"),
          text("observation-c", "trust observation: C (N x N .npy); default: node-major diag of C_local"),
          text("observation-a", "trust observation: A (m x N .npy), checked to equal B C"),
          text("observation-pi",
               "trust observation: victims' participation sets, [victims, k] or [victims, sets, k] integer "
               ".npy (-1 pads); default: node-major from participation"),
          threads_parameter(), out_parameter(), quiet_parameter()});
  m.validate = [](const Values& v) { check_mf_loss_job(mf_loss_job(v, {})); };
  m.execute = [](const Values& v, const RunContext& c) { return run_mf_loss_job(mf_loss_job(v, c)); };
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
  m.resources = [](const Values& v) {
    if (!v.has("graph")) return Estimate{1e8, 1.0};
    const GraphSize g = graph_size(v.text("graph"));
    const double n = g.n, T = static_cast<double>(v.integer("steps")),
                 rows = (2 * g.m / std::max(n, 1.0) + 1) * T;
    const double attackers = v.text("attackers") == "all" ? n : 1;
    // The observation matrices are held whole (no tiling): Model::run refuses what does not fit.
    const double bytes = 2 * 3 * 8 * rows * n * T + 16 * attackers * n;
    return Estimate{bytes, attackers * 4 * rows * rows * n * T / 5e9, bytes};
  };
  return m;
}

}  // namespace jobs

}  // namespace netdp
