// `netdp bound ring-sum | ring-histogram` (MATH_SPEC 3) and `netdp bound sgd-rdp | sgd-closed-form |
// sgd-sigma` (MATH_SPEC 4.3).
#include <memory>

#include "cli/bound_command.hpp"
#include "netdp/bounds/complete_graph_sgd.hpp"
#include "netdp/bounds/complete_graph_sgd_sigma.hpp"
#include "netdp/bounds/ring.hpp"

namespace netdp::cli::bound {

using json = nlohmann::json;

namespace {

struct RingOptions {
  GridOptions grid;
  int turns = 1, categories = 2;
  double epsilon = 0, delta = 1e-6, delta_prime = 1e-6, sensitivity = 1, colluders = 1;
  std::string composition = "advanced", gamma = "corrected";
};

void add_ring_options(CLI::App& c, RingOptions& o) {
  add_grid_options(c, o.grid);
  c.add_option("--turns", o.turns, "K full turns of the token")->capture_default_str();
  c.add_option("--delta", o.delta, "delta")->capture_default_str();
  c.add_option("--delta-prime", o.delta_prime, "composition slack delta'")->capture_default_str();
  c.add_option("--composition", o.composition,
               "advanced (C2, Thm 5.5 / 5.7), optimal_min (C3) or simple (C1)")
      ->check(CLI::IsMember({"optimal_min", "optimal-min", "advanced", "simple"}))
      ->capture_default_str();
  c.add_option("--colluders", o.colluders, "2 or more colluders break network DP on the ring (eps = inf)")
      ->capture_default_str();
}

json ring_parameters(const RingOptions& o) {
  return {{"turns", o.turns},
          {"eps", o.epsilon},
          {"delta", o.delta},
          {"delta_prime", o.delta_prime},
          {"composition", bounds::to_string(bounds::parse_composition(o.composition))},
          {"colluders", o.colluders}};
}

struct SgdOptions {
  GridOptions grid;
  WalkOptions walk;
  double lipschitz = 1, epsilon = 1, delta = 1e-6, sigma = 0, alpha = 2, slope_factor = 4;
  std::string horizon = "infinite";
};

void add_sgd_options(CLI::App& c, SgdOptions& o, double default_lipschitz) {
  o.lipschitz = default_lipschitz;
  o.walk.delta_prime = o.walk.delta_hat = o.walk.delta_tilde = 1e-6;
  add_grid_options(c, o.grid);
  add_walk_options(c, o.walk, 10);
  c.add_option("--lipschitz", o.lipschitz, "Lipschitz constant L of the losses")->capture_default_str();
  c.add_option("--delta", o.delta, "delta")->capture_default_str();
}

bounds::SgdParams sgd_params(const SgdOptions& o) {
  bounds::SgdParams p;
  p.steps = o.walk.steps;
  p.steps_per_node = o.walk.steps_per_node;
  p.lipschitz = o.lipschitz;
  p.epsilon = o.epsilon;
  p.delta = o.delta;
  p.sigma = o.sigma;
  p.alpha = o.alpha;
  p.slope_factor = o.slope_factor;
  p.horizon = bounds::parse_sgd_horizon(o.horizon);
  p.contributions = contribution_options(o.walk);
  p.composition = bounds::parse_composition(o.walk.composition);
  p.delta_prime = o.walk.delta_prime;
  p.colluders = o.walk.colluders;
  p.sender_known = o.walk.sender_known;
  p.delta_tilde = o.walk.delta_tilde;
  return p;
}

json sgd_parameters(const SgdOptions& o) {
  json j = walk_parameters(o.walk);
  j.update({{"lipschitz", o.lipschitz}, {"eps", o.epsilon}, {"delta", o.delta}});
  return j;
}

}  // namespace

Registered add_ring_sum(CLI::App& bound, const json& invocation) {
  auto* c = bound.add_subcommand("ring-sum",
                                 "real summation by a token on a directed ring, K turns (3.1, Thm 5.5)");
  auto o = std::make_shared<RingOptions>();
  o->epsilon = 1;
  add_ring_options(*c, *o);
  c->add_option("--eps", o->epsilon, "Perturb is (eps, delta)-LDP")->capture_default_str();
  c->add_option("--sensitivity", o->sensitivity, "Delta, for sigma_loc")->capture_default_str();
  return {c,
          [o, invocation] {
            bounds::RingSumParams p;
            p.turns = o->turns;
            p.epsilon = o->epsilon;
            p.delta = o->delta;
            p.delta_prime = o->delta_prime;
            p.sensitivity = o->sensitivity;
            p.composition = bounds::parse_composition(o->composition);
            p.colluders = o->colluders;
            json parameters = ring_parameters(*o);
            parameters["sensitivity"] = p.sensitivity;
            return run_bound({"ring-sum", parameters, [p] { bounds::validate(p); },
                              [p](double n) { return bounds::ring_sum(n, p).columns(); }},
                             o->grid, invocation);
          },
          &o->grid};
}

Registered add_ring_histogram(CLI::App& bound, const json& invocation) {
  auto* c = bound.add_subcommand("ring-histogram",
                                 "histograms by a token on a directed ring, K turns (3.2, Thm 5.7)");
  auto o = std::make_shared<RingOptions>();
  o->epsilon = 0.25;
  add_ring_options(*c, *o);
  c->add_option("--eps", o->epsilon, "per-cycle level after shuffling (SH1); Thm 5.7 needs eps < 1/2")
      ->capture_default_str();
  c->add_option("--categories", o->categories, "histogram size L")->capture_default_str();
  c->add_option("--gamma", o->gamma, "corrected (MATH_SPEC 3.2) or literal (as printed, inverted)")
      ->check(CLI::IsMember({"corrected", "literal"}))
      ->capture_default_str();
  return {c,
          [o, invocation] {
            bounds::RingHistogramParams p;
            p.turns = o->turns;
            p.epsilon = o->epsilon;
            p.delta = o->delta;
            p.delta_prime = o->delta_prime;
            p.categories = o->categories;
            p.gamma_rule = bounds::parse_histogram_gamma(o->gamma);
            p.composition = bounds::parse_composition(o->composition);
            p.colluders = o->colluders;
            json parameters = ring_parameters(*o);
            parameters.update({{"categories", p.categories}, {"gamma", o->gamma}});
            return run_bound({"ring-histogram", parameters, [p] { bounds::validate(p); },
                              [p](double n) { return bounds::ring_histogram(n, p).columns(); }},
                             o->grid, invocation);
          },
          &o->grid};
}

Registered add_sgd_rdp(CLI::App& bound, const json& invocation) {
  auto* c = bound.add_subcommand("sgd-rdp",
                                 "network RDP of random-walk DP-SGD on the complete graph (4.3.1, Prop D.11) "
                                 "and its (eps, delta) conversion; T = 10 n by default");
  auto o = std::make_shared<SgdOptions>();
  add_sgd_options(*c, *o, 1);
  c->add_option("--eps", o->epsilon, "local (eps, delta) level of a noisy gradient (sets sigma)")
      ->capture_default_str();
  c->add_option("--sigma", o->sigma, "absolute noise std instead of --eps (0 = from --eps)")
      ->capture_default_str();
  c->add_option("--alpha", o->alpha, "Renyi order reported")->capture_default_str();
  c->add_option("--slope-factor", o->slope_factor,
                "4 (thesis, Delta = 2L), 2 (reference code), 1 (Delta = L)")
      ->check(CLI::IsMember({1.0, 2.0, 4.0}))
      ->capture_default_str();
  c->add_option("--horizon", o->horizon, "infinite (ln n, the thesis) or finite (exact sum up to T)")
      ->check(CLI::IsMember({"infinite", "finite"}))
      ->capture_default_str();
  return {c,
          [o, invocation] {
            const bounds::SgdParams p = sgd_params(*o);
            json parameters = sgd_parameters(*o);
            parameters.update({{"sigma", o->sigma},
                               {"alpha", o->alpha},
                               {"slope_factor", o->slope_factor},
                               {"horizon", o->horizon}});
            return run_bound({"sgd-rdp", parameters, [p] { bounds::validate(p); },
                              [p](double n) { return bounds::sgd_network_rdp(n, p).columns(); }},
                             o->grid, invocation);
          },
          &o->grid};
}

Registered add_sgd_closed_form(CLI::App& bound, const json& invocation) {
  auto* c = bound.add_subcommand("sgd-closed-form",
                                 "Thm 7.2 closed form for random-walk DP-SGD on the complete graph (4.3.2); "
                                 "T = 10 n by default");
  auto o = std::make_shared<SgdOptions>();
  o->epsilon = 0.5;
  add_sgd_options(*c, *o, 1);
  c->add_option("--eps", o->epsilon, "local (eps, delta) level of a noisy gradient (< 1)")
      ->capture_default_str();
  return {c,
          [o, invocation] {
            const bounds::SgdParams p = sgd_params(*o);
            return run_bound({"sgd-closed-form", sgd_parameters(*o), [p] { bounds::validate(p); },
                              [p](double n) { return bounds::sgd_closed_form(n, p).columns(); }},
                             o->grid, invocation);
          },
          &o->grid};
}

Registered add_sgd_sigma(CLI::App& bound, const json& invocation) {
  auto* c = bound.add_subcommand("sgd-sigma",
                                 "smallest noise std for local, central and network DP-SGD at a target (eps, "
                                 "delta) (4.3.3, Remark D.12); T = 10 n by default");
  auto o = std::make_shared<SgdOptions>();
  add_sgd_options(*c, *o, 0.4);
  auto procedure = std::make_shared<std::string>("thesis");
  auto cap = std::make_shared<double>(1.2), central = std::make_shared<double>(1.25);
  o->slope_factor = 0;
  c->add_option("--eps", o->epsilon, "target eps")->capture_default_str();
  c->add_option("--procedure", *procedure,
                "thesis (Remark D.12, bisection) or code (the reference findSigma)")
      ->check(CLI::IsMember({"thesis", "code"}))
      ->capture_default_str();
  c->add_option("--slope-factor", o->slope_factor, "1, 2 or 4; 0 = the procedure's own (thesis 4, code 2)")
      ->check(CLI::IsMember({0.0, 1.0, 2.0, 4.0}))
      ->capture_default_str();
  c->add_option("--cap-factor", *cap, "code: contribution cap K = ceil(this T/n)")->capture_default_str();
  c->add_option("--central-constant", *central,
                "code: c in ln(c T/(delta n)) of the central sigma ([S4]: 2.5)")
      ->capture_default_str();
  return {c,
          [o, procedure, cap, central, invocation] {
            bounds::SigmaSearchParams p;
            p.epsilon = o->epsilon;
            p.delta = o->delta;
            p.steps = o->walk.steps;
            p.steps_per_node = o->walk.steps_per_node;
            p.lipschitz = o->lipschitz;
            p.procedure = bounds::parse_sigma_procedure(*procedure);
            p.slope_factor = o->slope_factor;
            p.contributions = contribution_options(o->walk);
            p.sender_known = o->walk.sender_known;
            p.delta_tilde = o->walk.delta_tilde;
            p.delta_prime = o->walk.delta_prime;
            p.cap_factor = *cap;
            p.central_constant = *central;
            p.colluders = o->walk.colluders;
            json parameters = sgd_parameters(*o);
            parameters.update({{"procedure", *procedure},
                               {"slope_factor", o->slope_factor},
                               {"cap_factor", p.cap_factor},
                               {"central_constant", p.central_constant}});
            return run_bound({"sgd-sigma", parameters, [p] { bounds::validate(p); },
                              [p](double n) { return bounds::sgd_sigma_search(n, p).columns(p.procedure); }},
                             o->grid, invocation);
          },
          &o->grid};
}

}  // namespace netdp::cli::bound
