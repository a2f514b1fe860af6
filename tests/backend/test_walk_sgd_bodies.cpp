// The walk-SGD step body (kernels/common/walk_sgd_bodies.hpp) on the host against a slow step written here:
// every visit kind, both clipping orders, contiguous and listed mini-batches, every loss. Label
// device-bodies: no GPU needed.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "common/walk_sgd_bodies.hpp"

namespace netdp {
namespace {

namespace ws = kernels::walk_sgd;
using kernels::convex::Loss;

/// The update of one visit, written out: mean of the (clipped) example gradients + mu x, + sigma z, clipped
/// after the noise in the after-noise order; noise only: sigma z (clipped likewise); skip: nothing.
std::vector<double> slow_step(Loss loss, ws::ClipOrder order, ws::Visit visit, const std::vector<double>& f,
                              const std::vector<double>& y, const std::vector<std::int64_t>& examples,
                              const std::vector<double>& z, std::vector<double> x, double gamma, double sigma,
                              double clip, double mu) {
  const int p = static_cast<int>(x.size());
  if (visit == ws::Visit::skip) return x;
  auto norm = [](const std::vector<double>& v) {
    double s = 0;
    for (double a : v) s += a * a;
    return std::sqrt(s);
  };
  std::vector<double> g(p, 0.0);
  if (visit == ws::Visit::contribute) {
    for (std::int64_t i : examples) {
      double margin = 0;
      for (int k = 0; k < p; ++k) margin += f[i * p + k] * x[k];
      std::vector<double> gi(p);
      for (int k = 0; k < p; ++k) {
        if (loss == Loss::quadratic) gi[k] = x[k] - f[i * p + k];
        if (loss == Loss::least_squares) gi[k] = (margin - y[i]) * f[i * p + k];
        if (loss == Loss::logistic) gi[k] = -y[i] * f[i * p + k] / (1 + std::exp(y[i] * margin));
      }
      const double c = order == ws::ClipOrder::per_example && norm(gi) > clip ? clip / norm(gi) : 1.0;
      for (int k = 0; k < p; ++k) g[k] += c * gi[k] / double(examples.size());
    }
    for (int k = 0; k < p; ++k) g[k] += mu * x[k];
  }
  for (int k = 0; k < p; ++k) g[k] += sigma * z[k];
  const double c = order == ws::ClipOrder::after_noise && norm(g) > clip ? clip / norm(g) : 1.0;
  for (int k = 0; k < p; ++k) x[k] -= gamma * c * g[k];
  return x;
}

TEST(WalkSgdBodies, VisitStepMatchesTheSlowStep) {
  const int p = 3;
  const std::vector<double> f = {0.5, -1.0, 2.0, 1.5, 0.3, -0.7, -0.2, 0.8, 0.1, 1.0, 1.0, -1.0};
  const std::vector<double> y = {1, -1, -1, 1};
  const std::vector<double> z = {0.3, -1.2, 0.6};
  const std::vector<double> x0 = {0.2, -0.1, 0.4};
  for (Loss loss : {Loss::quadratic, Loss::least_squares, Loss::logistic}) {
    for (ws::ClipOrder order : {ws::ClipOrder::per_example, ws::ClipOrder::after_noise}) {
      for (ws::Visit visit : {ws::Visit::contribute, ws::Visit::noise_only, ws::Visit::skip}) {
        for (int listed = 0; listed < 2; ++listed) {
          ws::StepView s;
          s.loss = loss;
          s.dim = p;
          s.features = f.data();
          s.labels = y.data();
          s.step_size = 0.3;
          s.sigma = 0.8;
          s.clip = 0.5;
          s.l2 = 0.05;
          s.order = order;
          const std::vector<std::int64_t> batch = {3, 1};
          const std::vector<std::int64_t> range = {1, 2, 3};
          std::vector<double> x = x0, g(p), scratch(p);
          if (listed)
            ws::visit_step(s, visit, 0, batch.data(), 2, z.data(), x.data(), g.data(), scratch.data());
          else
            ws::visit_step(s, visit, 1, nullptr, 3, z.data(), x.data(), g.data(), scratch.data());
          const auto expected =
              slow_step(loss, order, visit, f, y, listed ? batch : range, z, x0, 0.3, 0.8, 0.5, 0.05);
          for (int k = 0; k < p; ++k)
            EXPECT_NEAR(x[k], expected[k], 1e-15)
                << "loss " << int(loss) << " order " << int(order) << " visit " << int(visit);
        }
      }
    }
  }
}

}  // namespace
}  // namespace netdp
