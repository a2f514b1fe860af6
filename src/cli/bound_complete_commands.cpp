// `netdp bound complete-sum` and `netdp bound complete-histogram` (MATH_SPEC 4.1, 4.2).
#include <memory>

#include "cli/bound_command.hpp"
#include "netdp/bounds/complete_graph_histogram.hpp"
#include "netdp/bounds/complete_graph_sum.hpp"

namespace netdp::cli::bound {

using json = nlohmann::json;

namespace {
struct SumOptions {
  GridOptions grid;
  WalkOptions walk;
  std::string analysis = "thesis", cycle_bound = "closed", delta_cycle = "assume_delta";
  double epsilon = 0.1, delta = 1e-7;
};

struct HistogramOptions {
  GridOptions grid;
  WalkOptions walk;
  std::string analysis = "numerical";
  double epsilon = 0.5, delta = 1e-7;
  int categories = 2;
};
}  // namespace

Registered add_complete_sum(CLI::App& bound, const json& invocation) {
  auto* c = bound.add_subcommand("complete-sum",
                                 "real summation by a random walk on the complete graph (4.1, Thm 7.1 / [S2] "
                                 "Thm 3) and its LDP analogue; T = 100 n by default");
  auto o = std::make_shared<SumOptions>();
  add_grid_options(*c, o->grid);
  add_walk_options(*c, o->walk, 100);
  c->add_option("--analysis", o->analysis,
                "thesis: sqrt(n) amplification per cycle (4.1.1); preprint: n^{1/3}, c tuned (4.1.2)")
      ->check(CLI::IsMember({"thesis", "preprint"}))
      ->capture_default_str();
  c->add_option("--eps", o->epsilon, "eps0: every Gaussian contribution is (eps0, delta)-LDP")
      ->capture_default_str();
  c->add_option("--delta", o->delta, "delta of every contribution")->capture_default_str();
  c->add_option("--cycle-bound", o->cycle_bound,
                "thesis per-cycle level: closed (3 eps/sqrt(n), needs eps <= 1) or exact_max (max over m "
                "<= n)")
      ->check(CLI::IsMember({"closed", "exact_max"}))
      ->capture_default_str();
  c->add_option("--delta-cycle", o->delta_cycle,
                "thesis per-cycle delta: assume_delta (the figures), k_delta, group_privacy, exact_gaussian "
                "(the last two need integer n)")
      ->check(CLI::IsMember({"assume_delta", "k_delta", "group_privacy", "exact_gaussian"}))
      ->capture_default_str();
  return {c,
          [o, invocation] {
            bounds::CompleteSumParams p;
            p.epsilon = o->epsilon;
            p.delta = o->delta;
            p.delta_prime = o->walk.delta_prime;
            p.steps = o->walk.steps;
            p.steps_per_node = o->walk.steps_per_node;
            p.contributions = contribution_options(o->walk);
            p.composition = bounds::parse_composition(o->walk.composition);
            p.cycle_bound = bounds::parse_cycle_bound(o->cycle_bound);
            p.delta_cycle = bounds::parse_delta_cycle_rule(o->delta_cycle);
            p.colluders = o->walk.colluders;
            p.sender_known = o->walk.sender_known;
            p.delta_tilde = o->walk.delta_tilde;
            const bounds::SumAnalysis a = bounds::parse_sum_analysis(o->analysis);
            json parameters = walk_parameters(o->walk);
            parameters.update({{"analysis", o->analysis},
                               {"eps", p.epsilon},
                               {"delta", p.delta},
                               {"cycle_bound", o->cycle_bound},
                               {"delta_cycle", o->delta_cycle}});
            return run_bound({"complete-sum", parameters, [p] { bounds::validate(p); },
                              [p, a](double n) { return bounds::complete_sum(a, n, p).columns(); }},
                             o->grid, invocation);
          },
          &o->grid};
}

Registered add_complete_histogram(CLI::App& bound, const json& invocation) {
  auto* c = bound.add_subcommand("complete-histogram",
                                 "histograms (RR_gamma contributions) by a random walk on the complete graph "
                                 "(4.2, Thm D.1 / [S2] Thm 6); T = 100 n by default");
  auto o = std::make_shared<HistogramOptions>();
  add_grid_options(*c, o->grid);
  add_walk_options(*c, o->walk, 100);
  c->add_option("--analysis", o->analysis,
                "closed: Thm D.1; numerical: un-simplified SH2 and SS2, max over cycle lengths (Remark D.2); "
                "preprint: [S2] Thm 6 with c tuned")
      ->check(CLI::IsMember({"closed", "numerical", "preprint"}))
      ->capture_default_str();
  c->add_option("--eps", o->epsilon, "LDP level of each RR_gamma contribution")->capture_default_str();
  c->add_option("--delta", o->delta, "delta of the shuffling bound (SH2)")->capture_default_str();
  c->add_option("--categories", o->categories, "histogram size L")->capture_default_str();
  return {c,
          [o, invocation] {
            bounds::CompleteHistogramParams p;
            p.epsilon = o->epsilon;
            p.delta = o->delta;
            p.delta_prime = o->walk.delta_prime;
            p.steps = o->walk.steps;
            p.steps_per_node = o->walk.steps_per_node;
            p.categories = o->categories;
            p.contributions = contribution_options(o->walk);
            p.composition = bounds::parse_composition(o->walk.composition);
            p.colluders = o->walk.colluders;
            p.sender_known = o->walk.sender_known;
            p.delta_tilde = o->walk.delta_tilde;
            const bounds::HistogramAnalysis a = bounds::parse_histogram_analysis(o->analysis);
            json parameters = walk_parameters(o->walk);
            parameters.update({{"analysis", o->analysis},
                               {"eps", p.epsilon},
                               {"delta", p.delta},
                               {"categories", p.categories}});
            return run_bound({"complete-histogram", parameters, [p] { bounds::validate(p); },
                              [p, a](double n) { return bounds::complete_histogram(a, n, p).columns(); }},
                             o->grid, invocation);
          },
          &o->grid};
}

}  // namespace netdp::cli::bound
