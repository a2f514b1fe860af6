#include "netdp/mf/mf_workload.hpp"

#include <cblas.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>

#include "netdp/ground/serial_blas.hpp"
#include "netdp/core/error.hpp"
#include "netdp/core/weighting.hpp"

namespace netdp::mf {

Matrix Matrix::identity(std::int64_t n) {
  Matrix m(n, n);
  for (std::int64_t i = 0; i < n; ++i) m(i, i) = 1.0;
  return m;
}

Matrix multiply(const Matrix& a, const Matrix& b, bool transpose_a, bool transpose_b) {
  kernels::use_single_threaded_blas();
  const std::int64_t m = transpose_a ? a.cols : a.rows, k = transpose_a ? a.rows : a.cols;
  const std::int64_t n = transpose_b ? b.rows : b.cols;
  Matrix c(m, n);
  if (m == 0 || n == 0 || k == 0) return c;
  cblas_dgemm(CblasRowMajor, transpose_a ? CblasTrans : CblasNoTrans, transpose_b ? CblasTrans : CblasNoTrans,
              static_cast<int>(m), static_cast<int>(n), static_cast<int>(k), 1.0, a.a.data(),
              static_cast<int>(a.cols), b.a.data(), static_cast<int>(b.cols), 0.0, c.a.data(),
              static_cast<int>(n));
  return c;
}

Matrix transpose(const Matrix& a) {
  Matrix t(a.cols, a.rows);
  for (std::int64_t i = 0; i < a.rows; ++i)
    for (std::int64_t j = 0; j < a.cols; ++j) t(j, i) = a(i, j);
  return t;
}

Matrix prefix_sum(int steps) {
  Matrix m(steps, steps);
  for (int i = 0; i < steps; ++i)
    for (int j = 0; j <= i; ++j) m(i, j) = 1.0;
  return m;
}

namespace {

int parse_positive(std::string_view text, std::string_view what) {
  int value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < 1)
    throw InvalidParameter("participation", "participation " + std::string(what) +
                                                ": expected a positive integer, got '" + std::string(text) +
                                                "'");
  return value;
}

}  // namespace

Participation parse_participation(std::string_view text, int steps) {
  if (steps < 1) throw InvalidParameter("steps", "steps must be >= 1, got " + std::to_string(steps));
  if (text == "every") return {1, steps};
  if (text == "single") return {steps, 1};
  const std::string_view prefix = "cyclic:";
  if (text.substr(0, prefix.size()) != prefix)
    throw InvalidParameter("participation", "participation: expected every, single or cyclic:b=B,k=K, got '" +
                                                std::string(text) + "'");
  int b = 0, k = 0;
  std::string_view rest = text.substr(prefix.size());
  while (!rest.empty()) {
    const std::size_t comma = rest.find(',');
    const std::string_view item = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    if (item.substr(0, 2) == "b=")
      b = parse_positive(item.substr(2), "b");
    else if (item.substr(0, 2) == "k=")
      k = parse_positive(item.substr(2), "k");
    else
      throw InvalidParameter("participation",
                             "participation: unknown key '" + std::string(item) + "' (expected b=B,k=K)");
  }
  if (b == 0 || k == 0) throw InvalidParameter("participation", "participation cyclic needs both b and k");
  if (static_cast<std::int64_t>(b) * k != steps)
    throw InvalidParameter("participation",
                           "participation cyclic:b=" + std::to_string(b) + ",k=" + std::to_string(k) +
                               " needs steps = b k = " + std::to_string(static_cast<std::int64_t>(b) * k) +
                               ", got " + std::to_string(steps));
  return {b, k};
}

std::string to_string(const Participation& p) {
  if (p.batches == 1) return "every";
  if (p.epochs == 1) return "single";
  return "cyclic:b=" + std::to_string(p.batches) + ",k=" + std::to_string(p.epochs);
}

double sensitivity_squared(const Matrix& x, const Participation& p) {
  const int b = p.batches, k = p.epochs;
  double best = 0.0;
  for (int j = 0; j < b; ++j) {
    double sum = 0.0;
    for (int e = 0; e < k; ++e)
      for (int f = 0; f < k; ++f) sum += std::abs(x(j + e * b, j + f * b));
    best = std::max(best, sum);
  }
  return best;
}

double sensitivity(const Matrix& c, const Participation& p) {
  if (std::all_of(c.a.begin(), c.a.end(), [](double v) { return v == 0.0; }))
    return std::numeric_limits<double>::infinity();
  return std::sqrt(sensitivity_squared(multiply(c, c, true, false), p));
}

WeightsSpec parse_mf_weights(std::string_view weights) {
  try {
    return parse_weights_spec(weights);
  } catch (const InvalidParameter&) {
    throw;
  } catch (const InvalidInput& e) {
    throw InvalidParameter("weights", std::string("weights: ") + e.what() + " or average");
  }
}

CsrMatrix mf_gossip_matrix(const Graph& g, std::string_view weights) {
  if (weights != "average") {
    const WeightsSpec spec = parse_mf_weights(weights);
    CsrMatrix w = make_weights(g, spec);
    if (spec.scheme != Weighting::file) return w;
    // A given W gets the gossip commands' check (non-negative rows summing to 1): a file with rows of any sum
    // made mf-loss abort in the SVD of the observations (found while writing the weights_file fuzz target).
    try {
      validate_row_stochastic(w, g);
    } catch (const InvalidInput& e) {
      throw InvalidParameter("weights", "weights " + to_string(spec) + ": " + e.what());
    }
    return w;
  }
  std::vector<Triplet> triplets;
  triplets.reserve(g.adjacency.size() + static_cast<std::size_t>(g.n));
  for (node_t u = 0; u < g.n; ++u) {
    const double share = 1.0 / (g.degree(u) + 1.0);
    triplets.push_back({u, u, share});
    for (node_t v : g.neighbors(u)) triplets.push_back({u, v, share});
  }
  return csr_from_triplets(g.n, std::move(triplets));
}

std::vector<std::int64_t> commutation(int n, int steps) {
  std::vector<std::int64_t> pi(static_cast<std::size_t>(n) * steps);
  for (int t = 0; t < steps; ++t)
    for (int u = 0; u < n; ++u)
      pi[static_cast<std::size_t>(t) * n + u] = static_cast<std::int64_t>(u) * steps + t;
  return pi;
}

Matrix dense_workload(const CsrMatrix& w, int steps, int power) {
  const std::int64_t n = w.n, size = n * steps;
  // powers[p] = W^p, p = 0 .. steps - 1 + power.
  std::vector<Matrix> powers;
  powers.push_back(Matrix::identity(n));
  const Matrix wd = [&] {
    Matrix m(n, n);
    m.a = to_dense(w);
    return m;
  }();
  for (int p = 1; p < steps + power; ++p) powers.push_back(multiply(wd, powers.back()));
  Matrix out(size, size);
  for (int t = 0; t < steps; ++t)
    for (int s = 0; s <= t; ++s) {
      const Matrix& block = powers[static_cast<std::size_t>(t - s + power)];
      for (std::int64_t i = 0; i < n; ++i)
        for (std::int64_t j = 0; j < n; ++j) out(t * n + i, s * n + j) = block(i, j);
    }
  return out;
}

namespace {

/// Calls visit(stack, first, width) for every block of up to 64 identity columns E_J, J = first ..
/// first + width - 1, with stack[p] = W^p E_J (n x block row-major, p < powers; unused columns stay 0).
template <class Visit>
void for_each_power_block(const CsrMatrix& w, std::int64_t powers, bool parallel, Visit visit) {
  const std::int64_t n = w.n, block = std::min<std::int64_t>(n, 64);
  std::vector<double> stack(static_cast<std::size_t>(powers * n * block));
  for (std::int64_t first = 0; first < n; first += block) {
    const std::int64_t width = std::min(block, n - first);
    std::fill(stack.begin(), stack.end(), 0.0);
    for (std::int64_t j = 0; j < width; ++j) stack[static_cast<std::size_t>((first + j) * block + j)] = 1.0;
    for (std::int64_t p = 1; p < powers; ++p)
      csr_multiply(w, stack.data() + (p - 1) * n * block, stack.data() + p * n * block, block, parallel);
    visit(stack, first, width, block);
  }
}

}  // namespace

Matrix power_inner_products(const CsrMatrix& w, int max_power, bool parallel) {
  kernels::use_single_threaded_blas();
  const std::int64_t n = w.n, powers = max_power + 1;
  Matrix f(powers, powers);
  for_each_power_block(w, powers, parallel,
                       [&](const std::vector<double>& stack, std::int64_t, std::int64_t, std::int64_t block) {
                         // F += P P^T over this block's columns (upper triangle).
                         cblas_dsyrk(CblasRowMajor, CblasUpper, CblasNoTrans, static_cast<int>(powers),
                                     static_cast<int>(n * block), 1.0, stack.data(),
                                     static_cast<int>(n * block), 1.0, f.a.data(), static_cast<int>(powers));
                       });
  for (std::int64_t i = 0; i < powers; ++i)
    for (std::int64_t j = 0; j < i; ++j) f(i, j) = f(j, i);
  return f;
}

Matrix workload_gram(const CsrMatrix& w, int steps, int power, bool parallel) {
  const Matrix f = power_inner_products(w, steps - 1 + power, parallel);
  Matrix g(steps, steps);
  for (int s = 0; s < steps; ++s)
    for (int r = 0; r < steps; ++r) {
      double sum = 0.0;
      for (int t = std::max(s, r); t < steps; ++t) sum += f(t - s + power, t - r + power);
      g(s, r) = sum;
    }
  return g;
}

std::vector<Matrix> node_workload_grams(const CsrMatrix& w, int steps, int power, bool parallel) {
  kernels::use_single_threaded_blas();
  const std::int64_t n = w.n, powers = steps + power;
  std::vector<Matrix> grams(static_cast<std::size_t>(n));
  for_each_power_block(
      w, powers, parallel,
      [&](const std::vector<double>& stack, std::int64_t first, std::int64_t width, std::int64_t block) {
#pragma omp parallel for schedule(dynamic, 1) if (parallel)
        for (std::int64_t j = 0; j < width; ++j) {
          // F(a, b) = <W^a e_i, W^b e_i>: the column j of every power, gathered, then one SYRK.
          std::vector<double> column(static_cast<std::size_t>(powers * n));
          for (std::int64_t p = 0; p < powers; ++p)
            for (std::int64_t r = 0; r < n; ++r)
              column[static_cast<std::size_t>(p * n + r)] =
                  stack[static_cast<std::size_t>((p * n + r) * block + j)];
          Matrix f(powers, powers);
          cblas_dsyrk(CblasRowMajor, CblasUpper, CblasNoTrans, static_cast<int>(powers), static_cast<int>(n),
                      1.0, column.data(), static_cast<int>(n), 0.0, f.a.data(), static_cast<int>(powers));
          // G[s, r] = G[s + 1, r + 1] + F(T - 1 - s + power, T - 1 - r + power) (the sum of §9.6, from the
          // end; F's upper triangle read as symmetric).
          const auto at = [&](std::int64_t a, std::int64_t b) { return a <= b ? f(a, b) : f(b, a); };
          Matrix g(steps, steps);
          for (int s = steps - 1; s >= 0; --s)
            for (int r = steps - 1; r >= 0; --r)
              g(s, r) = (s + 1 < steps && r + 1 < steps ? g(s + 1, r + 1) : 0.0) +
                        at(steps - 1 - s + power, steps - 1 - r + power);
          grams[static_cast<std::size_t>(first + j)] = std::move(g);
        }
      });
  return grams;
}

}  // namespace netdp::mf
