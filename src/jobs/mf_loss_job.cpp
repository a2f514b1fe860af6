#include "netdp/jobs/mf_loss_job.hpp"

#include <charconv>
#include <cmath>
#include <limits>
#include <sstream>

#include "core/progress.hpp"
#include "jobs/mf_job_parts.hpp"
#include "jobs/model_list.hpp"
#include "jobs/model_parts.hpp"
#include "netdp/accounting/loss_report.hpp"
#include "netdp/core/error.hpp"
#include "netdp/io/format.hpp"
#include "netdp/io/results_dir.hpp"
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
  check_mf_spec(job.spec, true);
  mf::parse_trust(job.trust);
  parse_attackers(job.attackers, 0);
  if (!(job.alpha > 1)) throw InvalidParameter("alpha", "alpha must be > 1, got " + format_double(job.alpha));
  if (!(job.sigma > 0)) throw InvalidParameter("sigma", "sigma must be > 0, got " + format_double(job.sigma));
}

json run_mf_loss_job(const MfLossJob& job) {
  const Stopwatch clock;
  check_mf_loss_job(job);
  const mf::TrustModel trust = mf::parse_trust(job.trust);
  const MfSetup setup = mf_setup(job.spec);
  const std::vector<node_t> attackers = parse_attackers(job.attackers, setup.g.n);
  const Stopwatch accounting_clock;
  const mf::Matrix sens =
      mf::pairwise_sensitivity(trust, setup.w, setup.c, setup.participation, attackers, true);
  const double accounting_seconds = accounting_clock.seconds();

  // RDP(u -> v) = alpha sens^2 / (2 sigma^2) (docs/math.md §9.3, §9.4), +inf where sens is.
  mf::Matrix loss = sens;
  for (double& x : loss.a) x = std::isinf(x) ? x : job.alpha * x * x / (2 * job.sigma * job.sigma);
  std::vector<LossAggregate> buckets;
  LossAggregate all;
  std::vector<node_t> distance;
  std::vector<node_t> queue;
  distance.resize(static_cast<std::size_t>(setup.g.n));
  for (std::size_t a = 0; a < attackers.size(); ++a) {
    bfs_distances(setup.g, attackers[a], distance, queue);
    for (node_t u = 0; u < setup.g.n; ++u) {
      if (u == attackers[a]) continue;
      const double x = loss(static_cast<std::int64_t>(a), u);
      const std::size_t bucket =
          distance[static_cast<std::size_t>(u)] < 0 ? 0 : distance[static_cast<std::size_t>(u)] + 1;
      if (buckets.size() <= bucket) buckets.resize(bucket + 1);
      buckets[bucket].add(x);
      all.add(x);
    }
  }
  const json rows = distance_rows(buckets);

  ResultsDir out(job.out_dir);
  mf::write_npy_matrix(out.file("sensitivity.npy").string(), sens);
  mf::write_npy_matrix(out.file("loss.npy").string(), loss);
  mf::write_npy_matrix(out.file("C.npy").string(), setup.c);
  out.write_text("by_distance.csv", by_distance_csv(rows));

  json summary = {{"model", "mf-loss"}};
  summary.update(mf_description(job.spec, setup));
  summary.update({
      {"workload", "message W_T (blocks W^{t-s}, t >= s; docs/math.md §9.2)"},
      {"trust", job.trust},
      {"trust_model",
       trust == mf::TrustModel::ldp
           ? "LDP: the attacker sees every message (B = I)"
           : "PNDP: attacker v sees the messages of every w with W_vw > 0, itself included, and "
             "its own noise"},
      {"attackers", attackers.size() == static_cast<std::size_t>(setup.g.n) ? json("all") : json(attackers)},
      {"alpha", job.alpha},
      {"sigma", job.sigma},
      {"ldp_sensitivity", mf::sensitivity(setup.c, setup.participation)},
      {"pairs", all.count},
      {"mean_loss", all.mean()},
      {"min_loss", all.count ? all.min : 0.0},
      {"max_loss", all.count ? all.max : 0.0},
      {"by_distance", rows},
      {"seconds", accounting_seconds},
      {"seconds_total", clock.seconds()},
  });
  json manifest = manifest_header("mf-loss", job.invocation);
  manifest["parameters"] = {{"graph", job.spec.graph},
                            {"weights", job.spec.weights},
                            {"steps", job.spec.steps},
                            {"participation", job.spec.participation},
                            {"correlation", job.spec.correlation},
                            {"trust", job.trust},
                            {"attackers", job.attackers},
                            {"alpha", job.alpha},
                            {"sigma", job.sigma}};
  return publish_results(out, summary, std::move(manifest),
                         json::array({"sensitivity.npy", "loss.npy", "C.npy", "by_distance.csv"}),
                         clock.seconds());
}

namespace jobs {

namespace {

MfLossJob mf_loss_job(const Values& v, const RunContext& context) {
  MfLossJob job;
  job.spec = mf_spec(v);
  job.trust = v.text("trust");
  job.attackers = v.text("attackers");
  job.alpha = v.real("alpha");
  job.sigma = v.real("sigma");
  job.out_dir = context.out_dir.string();
  job.progress = !context.quiet;
  job.invocation = context.invocation;
  return job;
}

}  // namespace

Model mf_loss_model() {
  using namespace declare;
  Model m;
  m.name = "mf-loss";
  m.help = "pairwise sensitivities and Renyi losses of correlated-noise D-SGD (MF-D-SGD) under a trust model";
  m.parameters = mf_parameters(true);
  append(m.parameters,
         {choice("trust",
                 "ldp: the attacker sees every message; pndp: attacker v sees its neighbours and itself",
                 {"ldp", "pndp"})
              .fallback("pndp"),
          text("attackers", "all | comma list of attacker nodes (rows of the outputs)").fallback("all"),
          real("alpha", "Renyi order alpha > 1").fallback("2").range(above(1)),
          real("sigma", "noise multiplier: loss = alpha sens^2 / (2 sigma^2)").fallback("1").range(above(0)),
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
    const GraphSize g = graph_size(v.text("graph"));
    const double n = g.n, T = static_cast<double>(v.integer("steps")),
                 rows = (2 * g.m / std::max(n, 1.0) + 1) * T;
    const double attackers = v.text("attackers") == "all" ? n : 1;
    return Estimate{2 * 3 * 8 * rows * n * T + 16 * attackers * n, attackers * 4 * rows * rows * n * T / 5e9};
  };
  return m;
}

}  // namespace jobs

}  // namespace netdp
