// The data side of `attack dgd`: updates, theta^0 and the inversion of gradients to data (docs/attack.md).
#include "jobs/attack_dgd_parts.hpp"

#include <cmath>
#include <memory>

#include "netdp/attack/echelon.hpp"
#include "netdp/core/error.hpp"
#include "netdp/core/philox.hpp"
#include "netdp/simulation/convex_models.hpp"

namespace netdp {
namespace {

constexpr std::uint64_t kAssumptionStream = 20, kInitStream = 22;

std::vector<double> normals(std::size_t count, std::uint64_t seed, std::uint64_t kind) {
  PhiloxStream stream(seed, kind << 56, 0);
  std::vector<double> out(count);
  for (std::size_t i = 0; i < count; i += 2) {
    const auto [a, b] = stream.next_normal_pair();
    out[i] = a;
    if (i + 1 < count) out[i + 1] = b;
  }
  return out;
}

double norm_of_difference(const double* a, const double* b, std::size_t d) {
  double s = 0;
  for (std::size_t i = 0; i < d; ++i) s += (a[i] - b[i]) * (a[i] - b[i]);
  return std::sqrt(s);
}

// Appends the constant feature 1 (the intercept) to every example.
LocalData with_intercept(const LocalData& d) {
  LocalData out = d;
  out.dim = d.dim + 1;
  out.features.clear();
  for (std::int64_t i = 0; i < d.examples(); ++i) {
    const auto x = d.x(i);
    out.features.insert(out.features.end(), x.begin(), x.end());
    out.features.push_back(1.0);
  }
  return out;
}

// The minimiser of (1/n) sum_v (1/m_v) sum_i (x_i^T theta - y_i)^2 / 2, minimum-norm when not unique: least
// squares on the rows scaled by 1/sqrt(m_v).
std::vector<double> least_squares_optimum(const LocalData& d) {
  std::vector<double> a, y;
  for (node_t v = 0; v < d.n; ++v) {
    const double w = 1 / std::sqrt(static_cast<double>(d.size(v)));
    for (std::int64_t i = d.offsets[static_cast<std::size_t>(v)];
         i < d.offsets[static_cast<std::size_t>(v) + 1]; ++i) {
      for (double x : d.x(i)) a.push_back(w * x);
      y.push_back(w * d.labels[static_cast<std::size_t>(i)]);
    }
  }
  return attack::least_squares(a, static_cast<int>(d.examples()), d.dim, y);
}

}  // namespace

DgdObjective parse_dgd_objective(std::string_view text) {
  if (text == "assumption") return DgdObjective::assumption;
  if (text == "quadratic") return DgdObjective::quadratic;
  if (text == "least-squares") return DgdObjective::least_squares;
  throw InvalidParameter("objective", "objective: expected assumption, quadratic or least-squares, got '" +
                                          std::string(text) + "'");
}

std::string to_string(DgdObjective o) {
  return o == DgdObjective::assumption  ? "assumption"
         : o == DgdObjective::quadratic ? "quadratic"
                                        : "least-squares";
}

DgdInit parse_dgd_init(std::string_view text) {
  if (text == "optimum") return DgdInit::optimum;
  if (text == "zero") return DgdInit::zero;
  if (text == "random") return DgdInit::random;
  throw InvalidParameter("init", "init: expected optimum, zero or random, got '" + std::string(text) + "'");
}

std::string to_string(DgdInit i) {
  return i == DgdInit::optimum ? "optimum" : i == DgdInit::zero ? "zero" : "random";
}

DgdProblem make_dgd_problem(const AttackDgdJob& job, node_t n) {
  DgdProblem p;
  const auto nn = static_cast<std::size_t>(n);
  if (job.objective == DgdObjective::assumption) {
    p.dim = job.dim;
    auto g = std::make_shared<std::vector<double>>(
        normals(nn * static_cast<std::size_t>(p.dim), job.params.seed, kAssumptionStream));
    p.update = [g](node_t v, std::span<const double>, std::span<double> out) {
      std::copy_n(g->data() + static_cast<std::size_t>(v) * out.size(), out.size(), out.begin());
    };
    p.theta0 = job.init == DgdInit::random
                   ? normals(nn * static_cast<std::size_t>(p.dim), job.params.seed, kInitStream)
                   : std::vector<double>(nn * static_cast<std::size_t>(p.dim), 0.0);
    p.inversion = "none";
    return p;
  }
  const Objective o =
      job.objective == DgdObjective::quadratic ? Objective::quadratic : Objective::least_squares;
  LocalData raw = job.data.empty() ? synthetic_data(o, n, job.dim, job.samples, job.params.seed)
                                   : read_csv_data(job.data, o, n, 0);
  auto data = std::make_shared<LocalData>(o == Objective::least_squares ? with_intercept(raw) : raw);
  p.dim = data->dim;
  p.examples = data->examples();
  const auto d = static_cast<std::size_t>(p.dim);
  const double eta = job.step_size;
  p.update = [data, o, eta](node_t v, std::span<const double> theta, std::span<double> out) {
    std::fill(out.begin(), out.end(), 0.0);
    std::vector<double> g(out.size());
    const std::int64_t begin = data->offsets[static_cast<std::size_t>(v)],
                       end = data->offsets[static_cast<std::size_t>(v) + 1];
    for (std::int64_t i = begin; i < end; ++i) {
      example_gradient(o, *data, i, theta, g);
      for (std::size_t q = 0; q < out.size(); ++q) out[q] -= eta * g[q] / static_cast<double>(end - begin);
    }
  };
  std::vector<double> start(d, 0.0);
  if (job.init == DgdInit::optimum)
    start = o == Objective::quadratic ? objective_optimum(o, *data, 0).theta : least_squares_optimum(*data);
  p.theta0.resize(nn * d);
  for (std::size_t v = 0; v < nn; ++v)
    std::copy(start.begin(), start.end(), p.theta0.begin() + static_cast<std::ptrdiff_t>(v * d));
  if (job.init == DgdInit::random) p.theta0 = normals(nn * d, job.params.seed, kInitStream);
  if (data->examples() != n) {
    p.inversion = "none (several examples per node)";
    return p;
  }
  if (o == Objective::quadratic) {
    // g = -eta (theta - x): x = theta + g / eta, with theta^0 for the node's unknown current parameters.
    auto theta0 = std::make_shared<std::vector<double>>(p.theta0);
    p.invert = [data, theta0, eta, d](node_t v, const double* g) {
      std::vector<double> x(d);
      for (std::size_t q = 0; q < d; ++q) x[q] = (*theta0)[static_cast<std::size_t>(v) * d + q] + g[q] / eta;
      const double* truth = data->x(v).data();
      const std::vector<double> zero(d, 0.0);
      const double scale = norm_of_difference(truth, zero.data(), d);
      return norm_of_difference(x.data(), truth, d) / (scale > 0 ? scale : 1.0);
    };
    p.inversion = "x = theta^0 + g / eta (quadratic, one example per node)";
  } else {
    // g = -eta r (x, 1): x = g_w / g_b, independent of theta and eta.
    const std::size_t features = d - 1;
    p.invert = [data, features](node_t v, const double* g) {
      std::vector<double> x(features);
      for (std::size_t q = 0; q < features; ++q) x[q] = g[q] / g[features];
      const double* truth = data->x(v).data();
      const std::vector<double> zero(features, 0.0);
      const double scale = norm_of_difference(truth, zero.data(), features);
      return norm_of_difference(x.data(), truth, features) / (scale > 0 ? scale : 1.0);
    };
    p.inversion = "x = g_w / g_b (least squares with an intercept, one example per node)";
  }
  return p;
}

}  // namespace netdp
