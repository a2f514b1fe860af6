// Driver of the random-walk accountant (docs/math.md §5.2-5.4): validation, device choice, memory plan, then
// the backend (kernels/walk_loss_kernels.hpp) tile by tile into the sink.
#include "netdp/accounting/walk_loss.hpp"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>

#include "accounting/checks.hpp"
#include "accounting/row_tiles.hpp"
#include "core/progress.hpp"
#include "netdp/accounting/walk_loss_chebyshev.hpp"
#include "netdp/core/error.hpp"
#include "netdp/core/format.hpp"
#include "netdp/core/spectral.hpp"
#include "netdp/core/weighting.hpp"
#include "walk_loss_kernels.hpp"

namespace netdp {

WalkLossMethod parse_walk_loss_method(std::string_view text) {
  if (text == "spectral") return WalkLossMethod::spectral;
  if (text == "finite") return WalkLossMethod::finite;
  if (text == "series") return WalkLossMethod::series;
  throw InvalidParameter("method",
                         "method: expected spectral, finite or series, got '" + std::string(text) + "'");
}

std::string to_string(WalkLossMethod m) {
  return m == WalkLossMethod::spectral ? "spectral" : m == WalkLossMethod::finite ? "finite" : "series";
}

WalkLossSolver parse_walk_loss_solver(std::string_view text) {
  if (text == "auto") return WalkLossSolver::automatic;
  if (text == "eigen") return WalkLossSolver::eigen;
  if (text == "chebyshev") return WalkLossSolver::chebyshev;
  throw InvalidParameter("solver",
                         "solver: expected auto, eigen or chebyshev, got '" + std::string(text) + "'");
}

std::string to_string(WalkLossSolver s) {
  return s == WalkLossSolver::automatic ? "auto" : s == WalkLossSolver::eigen ? "eigen" : "chebyshev";
}

SenderView parse_sender_view(std::string_view text) {
  if (text == "anonymous") return SenderView::anonymous;
  if (text == "known") return SenderView::known;
  throw InvalidParameter("sender", "sender: expected anonymous or known, got '" + std::string(text) + "'");
}

std::string to_string(SenderView s) {
  return s == SenderView::anonymous ? "anonymous" : "known";
}

double walk_local_loss(const WalkLossParams& p) {
  return p.alpha / (2.0 * p.sigma * p.sigma);
}

double walk_contributions(const WalkLossParams& p, node_t n) {
  return p.contributions > 0 ? p.contributions : double(p.steps) / double(n);
}

void validate(const WalkLossParams& p, node_t n) {
  using accounting_checks::bad;
  accounting_checks::check_order_and_noise(p.alpha, p.sigma);
  if (p.steps < 1) bad("steps", "steps must be >= 1, got " + std::to_string(p.steps));
  if (!(p.tolerance > 0.0) || !(p.tolerance < 1.0))
    bad("tolerance", "tolerance must be in (0, 1), got " + format_double(p.tolerance));
  if (!(p.contributions >= 0.0) || !std::isfinite(p.contributions))
    bad("contributions", "contributions must be >= 0 (0 = T/n), got " + format_double(p.contributions));
  accounting_checks::check_rows(p.source, n, p.tile_sources, p.memory_limit);
}

bool walk_weak_convexity_holds(const WalkLossParams& p, bool stated) {
  const double sigma2 = p.sigma * p.sigma, a = p.alpha * (p.alpha - 1.0);
  return stated ? sigma2 >= 2.0 * a : sigma2 >= a / 2.0;
}

namespace {

double harmonic_number(int steps) {
  double h = 0;
  for (int t = 1; t <= steps; ++t) h += 1.0 / t;
  return h;
}

// Cost model of auto (seconds on the 2-core benchmark machine, benchmarks/RESULTS.md): dsyevd (one core) and
// the GEMM take about kEigenCost n^3, the expansion kChebyshevCost K n (nnz(W) + 4n) on one core. The thread
// count is left out on purpose: the choice, like the results, must not depend on it.
constexpr double kEigenCost = 1.75e-10, kChebyshevCost = 2.5e-10;
constexpr node_t kAlwaysEigen = 512;  // below this the dense solver is cheap and exact

}  // namespace

double walk_loss_solver_seconds(WalkLossSolver solver, double n, double nnz, int degree) {
  if (solver == WalkLossSolver::eigen) return kEigenCost * n * n * n;
  return kChebyshevCost * degree * n * (nnz + 4 * n);
}

WalkSolverChoice choose_walk_loss_solver(const CsrMatrix& w, const WalkLossParams& p) {
  WalkSolverChoice choice;
  choice.solver = WalkLossSolver::eigen;
  choice.rule = "given";
  if (p.solver == WalkLossSolver::eigen) return choice;
  if (p.solver == WalkLossSolver::automatic && w.n <= kAlwaysEigen) {
    choice.rule = "auto: n <= " + std::to_string(kAlwaysEigen) + ", the dense solver is cheap";
    return choice;
  }
  double lambda_2 = 0, lambda_min = 0;
  if (p.lambda_2 && p.lambda_min) {
    lambda_2 = *p.lambda_2;
    lambda_min = *p.lambda_min;
  } else {
    const SpectralSummary spectrum = spectral_summary(w);
    lambda_2 = spectrum.lambda_2;
    lambda_min = spectrum.lambda_min;
  }
  walk_chebyshev_interval(w, lambda_2, lambda_min, &choice.lo, &choice.hi);
  const int method = static_cast<int>(p.method);
  WalkChebyshevPlan plan = plan_walk_chebyshev(method, p.steps, choice.lo, choice.hi, p.tolerance);
  choice.degree = plan.degree;
  choice.error_bound = plan.error_bound;
  choice.coefficients = std::move(plan.coefficients);
  choice.solver = WalkLossSolver::chebyshev;
  choice.rule = "given";
  if (p.solver == WalkLossSolver::automatic) {
    const double n = w.n, nnz = double(w.values.size());
    const double eigen = walk_loss_solver_seconds(WalkLossSolver::eigen, n, nnz, 0);
    const double chebyshev = walk_loss_solver_seconds(WalkLossSolver::chebyshev, n, nnz, choice.degree);
    choice.solver = chebyshev < eigen ? WalkLossSolver::chebyshev : WalkLossSolver::eigen;
    choice.rule = "auto: estimated " + format_double(chebyshev) + " s (chebyshev, degree " +
                  std::to_string(choice.degree) + ") vs " + format_double(eigen) + " s (eigen)";
  }
  return choice;
}

WalkLossRun walk_loss(const Graph& g, const CsrMatrix& w, const WalkLossParams& p, LossRowSink& sink) {
  const auto started = std::chrono::steady_clock::now();
  auto since = [](auto t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  validate(p, g.n);
  if (w.n != g.n)
    throw InvalidInput("walk-loss: W is " + std::to_string(w.n) + " x " + std::to_string(w.n) +
                       " but the graph has " + std::to_string(g.n) + " nodes");
  validate_gossip_matrix(w, g);  // Thm 7.7 assumes a symmetric bistochastic W
  node_t components = 0;
  connected_components(g, &components);
  if (components > 1)
    throw InvalidInput("walk-loss: the graph has " + std::to_string(components) +
                       " connected components; the random-walk accountant needs an irreducible W");

  const ResolvedDevice device = resolve_device(p.device);
  const std::int64_t n = g.n;
  const double constant = p.method == WalkLossMethod::spectral ? std::log(double(p.steps)) / double(n)
                          : p.method == WalkLossMethod::finite ? harmonic_number(p.steps) / double(n)
                                                               : 0.0;
  const kernels::WalkLossProblem problem{g,
                                         w,
                                         static_cast<int>(p.method),
                                         p.sender == SenderView::known,
                                         p.steps,
                                         constant,
                                         walk_contributions(p, g.n) * p.alpha / (p.sigma * p.sigma),
                                         p.clip,
                                         walk_local_loss(p)};
  const node_t first = p.source.value_or(0);
  const node_t count = p.source ? 1 : g.n;

  WalkLossRun run;
  run.device = device.name;
  run.device_note = device.note;
  if (device.kind == DeviceKind::cuda) {
    // The same solver choice as on the CPU; the Chebyshev solver runs the same bodies and the same CSR
    // product.
    WalkSolverChoice choice;
    if (p.method != WalkLossMethod::series) choice = choose_walk_loss_solver(w, p);
    const bool chebyshev = choice.solver == WalkLossSolver::chebyshev;
    const kernels::WalkChebyshevExpansion expansion{choice.lo, choice.hi, choice.coefficients};
    const auto engine = kernels::walk_loss_cuda(problem, chebyshev ? &expansion : nullptr, device.index,
                                                first, count, p.tile_sources, p.memory_limit, sink);
    kernels::CudaWalkLossRun cuda;
    if (engine) {
      cuda = engine->plan();
      for_each_row_tile(first, count, cuda.tile_sources, [&](node_t s, node_t rows) {
        throw_if_stopped();
        engine->loss_rows(s, rows);
      });
      engine->finish();
    }
    run.tile_sources = cuda.tile_sources;
    run.tiles = cuda.tiles;
    run.memory_estimate = cuda.device_bytes;
    run.eigen_seconds = cuda.eigen_seconds;
    run.solver = p.method == WalkLossMethod::series ? "propagation" : chebyshev ? "chebyshev" : "eigen";
    run.solver_rule = p.method == WalkLossMethod::series ? "series method" : choice.rule;
    if (chebyshev) {
      run.degree = choice.degree;
      run.interval_lo = choice.lo;
      run.interval_hi = choice.hi;
      run.error_bound = problem.scale * choice.error_bound;
    }
  } else if (p.method == WalkLossMethod::series) {
    run.solver = "propagation";
    run.solver_rule = "series method";
    const RowTilePlan plan =
        plan_row_tiles("walk-loss", "the propagation panels", n, count,
                       kernels::walk_series_cpu_workspace_bytes(g.n, omp_get_max_threads()), n * 8,
                       p.tile_sources, p.memory_limit);
    run.tile_sources = plan.tile;
    run.tiles = plan.tiles;
    run.memory_estimate = plan.memory_estimate;
    stream_row_tiles(first, count, plan.tile, g.n, sink,
                     [&](node_t start, node_t rows, std::span<double> out) {
                       kernels::walk_series_rows_cpu(problem, start, rows, out);
                     });
  } else if (const WalkSolverChoice choice = choose_walk_loss_solver(w, p);
             choice.solver == WalkLossSolver::chebyshev) {
    run.solver = "chebyshev";
    run.solver_rule = choice.rule;
    run.degree = choice.degree;
    run.interval_lo = choice.lo;
    run.interval_hi = choice.hi;
    run.error_bound = problem.scale * choice.error_bound;
    const RowTilePlan plan =
        plan_row_tiles("walk-loss", "the Chebyshev panels", n, count,
                       kernels::walk_chebyshev_cpu_workspace_bytes(g.n, omp_get_max_threads()), n * 8,
                       p.tile_sources, p.memory_limit);
    run.tile_sources = plan.tile;
    run.tiles = plan.tiles;
    run.memory_estimate = plan.memory_estimate;
    const kernels::WalkChebyshevExpansion expansion{choice.lo, choice.hi, choice.coefficients};
    stream_row_tiles(first, count, plan.tile, g.n, sink,
                     [&](node_t start, node_t rows, std::span<double> out) {
                       kernels::walk_chebyshev_rows_cpu(problem, expansion, start, rows, out);
                     });
  } else {
    run.solver = "eigen";
    run.solver_rule = choice.rule;
    // Eigenvectors (n^2) and dsyevd's workspace (about 2 n^2 + 6 n) are fixed; a tile needs 3 rows per
    // source.
    const RowTilePlan plan =
        plan_row_tiles("walk-loss", "the eigendecomposition", n, count, (3 * n * n + 7 * n) * 8, 3 * n * 8,
                       p.tile_sources, p.memory_limit);
    run.tile_sources = plan.tile;
    run.tiles = plan.tiles;
    run.memory_estimate = plan.memory_estimate;
    const auto eigen_started = std::chrono::steady_clock::now();
    const kernels::SymmetricEigen eigen = kernels::symmetric_eigen_cpu(w);
    run.eigen_seconds = since(eigen_started);
    stream_row_tiles(first, count, plan.tile, g.n, sink,
                     [&](node_t start, node_t rows, std::span<double> out) {
                       kernels::walk_spectral_rows_cpu(problem, eigen, start, rows, out);
                     });
  }
  run.seconds = since(started);
  return run;
}

std::vector<double> walk_loss_matrix(const Graph& g, const CsrMatrix& w, const WalkLossParams& p,
                                     WalkLossRun* run) {
  return collect_loss_matrix(g.n, run, [&](LossRowSink& sink) { return walk_loss(g, w, p, sink); });
}

}  // namespace netdp
