#pragma once
// Single-source body of one step of random-walk DP-SGD (docs/walk_sgd.md, docs/math.md §4.3 and §5.1): the
// token holder's visit (a clipped local gradient step with Gaussian noise, noise only, or nothing) and the
// token's move to the next holder. src/simulation/walk_sgd.cpp runs it on the CPU, one run per thread;
// tests/backend/test_walk_sgd_bodies.cpp checks it on the host against a slow step written in the test.
#include <cstdint>

#include "common/convex_model_math.hpp"
#include "common/hd.hpp"
#include "common/walk_sim_bodies.hpp"

namespace netdp::kernels::walk_sgd {

/// Where the clipping happens (docs/walk_sgd.md "Clipping order").
enum class ClipOrder : int {
  per_example = 0,  // every example's gradient clipped to L, averaged, then + N(0, sigma^2 I) (Alg. 7.2/7.3)
  after_noise = 1,  // clip(mean gradient + N(0, sigma^2 I), L): the reference code of Fig. 7.2 (§11 E4)
};

/// What the holder does at a visit (docs/walk_sgd.md "Variants"): its contribution, noise only (network
/// variant over the cap K) or nothing (local variant over the cap: it only forwards the token).
enum class Visit : int { contribute = 0, noise_only = 1, skip = 2 };

/// The data and the constants of a step.
struct StepView {
  convex::Loss loss = convex::Loss::logistic;
  int dim = 0;                       // p
  const double* features = nullptr;  // examples x p, row-major
  const double* labels = nullptr;    // one per example (nullptr for quadratic)
  double step_size = 0;              // gamma
  double sigma = 0;                  // absolute std of the Gaussian noise
  double clip = 0;                   // L (0 = no clipping)
  double l2 = 0;                     // mu: + mu x in every contributed gradient (data-independent)
  ClipOrder order = ClipOrder::per_example;
};

/// x <- x - gamma * update for one visit over the examples batch[0..count) (batch = nullptr: the examples
/// first .. first + count - 1). noise: p standard normals. g, scratch: p doubles each.
NETDP_HD inline void visit_step(const StepView& s, Visit visit, std::int64_t first, const std::int64_t* batch,
                                std::int64_t count, const double* noise, double* x, double* g,
                                double* scratch) {
  if (visit == Visit::skip) return;
  const int p = s.dim;
  for (int k = 0; k < p; ++k) g[k] = 0;
  if (visit == Visit::contribute) {
    for (std::int64_t j = 0; j < count; ++j) {
      const std::int64_t i = batch ? batch[j] : first + j;
      convex::example_gradient(s.loss, s.features + i * p, s.labels ? s.labels[i] : 0.0, x, p, scratch);
      const double scale = s.order == ClipOrder::per_example ? convex::clip_scale(scratch, p, s.clip) : 1.0;
      for (int k = 0; k < p; ++k) g[k] += scale * scratch[k];
    }
    for (int k = 0; k < p; ++k) g[k] = g[k] / double(count) + s.l2 * x[k];
  }
  for (int k = 0; k < p; ++k) g[k] += s.sigma * noise[k];
  const double scale = s.order == ClipOrder::after_noise ? convex::clip_scale(g, p, s.clip) : 1.0;
  for (int k = 0; k < p; ++k) x[k] -= s.step_size * scale * g[k];
}

/// The next holder after v at step t: the walk rule of walk-sim (walk_sim_bodies.hpp), words from `words`.
template <WalkKind kKind>
NETDP_HD node_t next_holder(const walk::ModelView& m, node_t v, philox::Stream& words,
                            const walk::Retry& retry, std::int64_t t) {
  return walk::next_node<kKind>(m, v, words, retry, t);
}

}  // namespace netdp::kernels::walk_sgd
