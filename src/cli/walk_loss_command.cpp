// `netdp walk-loss`: pairwise privacy loss of random-walk DP-SGD on a graph (MATH_SPEC 5) into a results
// directory.
#include <cstdio>
#include <memory>

#include "cli/options.hpp"
#include "netdp/core/error.hpp"
#include "netdp/jobs/walk_loss_job.hpp"

namespace netdp::cli {

namespace {

struct WalkOptions : LossOptions {
  std::string method = "spectral", sender = "anonymous", target_statistic = "max-observer",
              condition = "stated";
  double contributions = 0, target_mean_loss = 0;
  int colluders = 0;
  bool clip = false;
};

WalkLossJob make_walk_job(const WalkOptions& o, const nlohmann::json& invocation) {
  const CommonLossValues common = parse_loss_options(o);
  WalkLossJob job;
  job.graph = o.graph;
  job.weights = parse_weights_spec(o.weights);
  job.gap = parse_gap_definition(o.gap);
  job.auto_steps = common.auto_steps;
  job.colluders = o.colluders;
  job.target_mean_loss = o.target_mean_loss;
  job.target_statistic =
      o.target_statistic == "all-pairs" ? TargetStatistic::all_pairs : TargetStatistic::max_observer;
  job.stated_condition = o.condition == "stated";
  job.out_dir = o.out;
  job.progress = !o.quiet;
  job.write_matrix = !o.no_matrix;
  job.invocation = invocation;
  auto& p = job.params;
  p.alpha = o.alpha;
  p.sigma = o.sigma;
  p.steps = common.steps;
  p.contributions = o.contributions;
  p.method = parse_walk_loss_method(o.method);
  p.sender = parse_sender_view(o.sender);
  p.clip = o.clip;
  p.source = common.source;
  p.device = common.device;
  p.tile_sources = o.tile_sources;
  p.memory_limit = common.memory_limit;
  return job;
}

}  // namespace

Command add_walk_loss_command(CLI::App& app, const nlohmann::json& invocation) {
  auto* c = app.add_subcommand(
      "walk-loss", "pairwise Renyi loss eps(u -> v) of random-walk DP-SGD on a graph (Thm 7.7, Lemma D.17)");
  auto o = std::make_shared<WalkOptions>();
  add_loss_options(*c, *o, "noise multiplier: each step adds N(0, Delta^2 sigma^2)",
                   "walk length T, or auto for the horizon T_RW of the reference figures (MATH_SPEC 2.3)");
  c->add_option(
       "--method", o->method,
       "spectral: closed form of Thm 7.7 (ln T, -log(I - W + J/n)); finite: exact finite-T sum via the "
       "spectrum; series: the same sum by propagation")
      ->check(CLI::IsMember({"spectral", "finite", "series"}))
      ->capture_default_str();
  c->add_option("--sender", o->sender,
                "anonymous: v does not know who sent it the token; known: it does (5.4)")
      ->check(CLI::IsMember({"anonymous", "known"}))
      ->capture_default_str();
  c->add_option("--contributions", o->contributions,
                "contributions N_u of each node (0 = T/n, MATH_SPEC 5.2)")
      ->capture_default_str();
  c->add_flag("--clip", o->clip, "clip losses to [0, alpha/(2 sigma^2)] like the reference figures");
  c->add_option("--colluders", o->colluders,
                "also report the worst coalition of K observers per source (5.5)")
      ->capture_default_str();
  c->add_option("--target-mean-loss", o->target_mean_loss,
                "choose sigma so that the mean loss equals this (MATH_SPEC 5.8); needs --steps T")
      ->capture_default_str();
  c->add_option("--target-statistic", o->target_statistic,
                "max-observer: max_v (1/n) sum_u eps(u -> v); all-pairs: mean over ordered pairs")
      ->check(CLI::IsMember({"max-observer", "all-pairs"}))
      ->capture_default_str();
  c->add_option("--condition", o->condition,
                "weak-convexity condition checked: stated (sigma^2 >= 2a(a-1)) or exact (a(a-1)/2)")
      ->check(CLI::IsMember({"stated", "exact"}))
      ->capture_default_str();
  return {c,
          [o, invocation] {
            auto s = run_walk_loss_job(make_walk_job(*o, invocation));
            report("walk-loss: n = %d, T = %d, sigma = %g, mean loss %.6g, max %.6g, %s, %.3f s -> %s\n",
                   s["n"].get<int>(), s["steps"].get<int>(), s["sigma"].get<double>(),
                   s["mean_loss"].get<double>(), s["max_loss"].get<double>(),
                   s["device"].get<std::string>().c_str(), s["seconds"].get<double>(), o->out.c_str());
            return 0;
          },
          true, [o, invocation] { check_walk_loss_job(make_walk_job(*o, invocation)); }};
}

}  // namespace netdp::cli
