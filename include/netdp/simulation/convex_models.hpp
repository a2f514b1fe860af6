#pragma once
// The built-in convex models shared by the learning simulations (muffliato-gd, walk-sgd): objectives
// phi(theta) = (1/n) sum_v f_v(theta) with f_v the mean loss over node v's examples plus a ridge term
// (docs/math.md §6.5, §4.3), their gradients and optimum, and the local datasets (synthetic, CSV, and the
// learning split of the reference preprocessing). Docs: docs/muffliato_gd.md "Objectives and data",
// docs/walk_sgd.md "Data".
//
// Randomness: synthetic_data reads one sequential PhiloxStream(seed, 16 << 56) (stream kind 16, the kind
// muffliato_gd.hpp reserves for data); learning_split shuffles with PhiloxStream(seed, 19 << 56).
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "netdp/core/graph.hpp"

namespace netdp {

/// Stream kinds of the data (docs/design.md principle 2); 16 = MgdStream::data of muffliato_gd.hpp.
constexpr std::uint64_t kConvexDataStream = 16, kLearningSplitStream = 19;
// ---- Objectives: phi(theta) = (1/n) sum_v f_v(theta), f_v = (1/m_v) sum_{i in D_v} l(theta; i) + mu/2
// ||theta||^2

enum class Objective {
  quadratic,      // l(theta; i) = ||theta - x_i||^2 / 2 (x_i: a target y in R^p)
  least_squares,  // l(theta; i) = (x_i^T theta - y_i)^2 / 2
  logistic,       // l(theta; i) = ln(1 + exp(-y_i x_i^T theta)), y_i in {-1, +1}
};
Objective parse_objective(std::string_view text);  // quadratic | least-squares | logistic
std::string to_string(Objective o);

/// The local datasets D_v: node v holds the examples offsets[v] .. offsets[v + 1] - 1.
struct LocalData {
  node_t n = 0;
  int dim = 0;                           // p
  std::vector<std::int64_t> offsets{0};  // n + 1, every node with at least one example
  std::vector<double> features;          // examples x p, row-major (quadratic: the targets)
  std::vector<double> labels;            // one per example; empty for quadratic

  std::int64_t examples() const { return offsets.back(); }
  std::int64_t size(node_t v) const { return offsets[v + 1] - offsets[v]; }
  std::span<const double> x(std::int64_t i) const {
    return {features.data() + i * dim, static_cast<std::size_t>(dim)};
  }
};

/// Throws InvalidInput unless the sizes agree, every node has an example, values are finite and logistic
/// labels are +-1.
void validate(const LocalData& d, Objective o);

/// Synthetic data from the seed (stream kind 16, one sequential stream of normal pairs and uniforms):
/// theta_true ~ N(0, I_p) first, then node by node, example by example:
///   quadratic:      x_i = theta_true + N(0, I_p)                 (the targets y_v of the issue)
///   least-squares:  x_i ~ N(0, I_p), y_i = x_i^T theta_true + 0.1 N(0, 1)
///   logistic:       x_i ~ N(0, I_p), y_i = +1 with probability 1 / (1 + exp(-x_i^T theta_true)), else -1
/// `samples` examples per node.
/// `separation` S > 0 (logistic only) draws y = +1 with probability sigmoid(S x^T theta / ||theta||), S the
/// logit per standard deviation of the margin, so the Bayes accuracy E[sigmoid(S |Z|)] grows with S
/// (docs/walk_sgd.md "Data"); 0 keeps sigmoid(x^T theta).
LocalData synthetic_data(Objective o, node_t n, int dim, int samples, std::uint64_t seed,
                         double separation = 0);

/// Rows of a CSV file (commas or blanks between numbers, '#' comments, blank lines and one header line
/// skipped): p features then a label (least-squares: real, logistic: +-1); quadratic: p values per row (a
/// target). The N rows are split across the n nodes in file order, node v getting rows floor(v N / n) ..
/// floor((v + 1) N / n) - 1; N >= n. dim = 0: p from the first row. InvalidParameter "data" names the line.
LocalData read_csv_data(const std::string& path, Objective o, node_t n, int dim = 0);

/// Gradient of l(theta; i) into out (p values).
void example_gradient(Objective o, const LocalData& d, std::int64_t i, std::span<const double> theta,
                      std::span<double> out);
/// f_v(theta), with the ridge term mu/2 ||theta||^2.
double local_objective(Objective o, const LocalData& d, double l2, node_t v, std::span<const double> theta);
/// phi(theta) = (1/n) sum_v f_v(theta).
double global_objective(Objective o, const LocalData& d, double l2, std::span<const double> theta);
/// grad phi(theta) into out.
void global_gradient(Objective o, const LocalData& d, double l2, std::span<const double> theta,
                     std::span<double> out);
/// Fraction of all examples with sign(x_i^T theta) = y_i (x_i^T theta >= 0 predicts +1); logistic only.
double accuracy(const LocalData& d, std::span<const double> theta);

/// theta* = argmin phi and phi* = phi(theta*). Quadratic and least squares: phi is quadratic, phi(theta) =
/// phi* + (theta - theta*)^T A (theta - theta*) / 2, theta* = A^{-1} b by Cholesky (A = (1/n) sum_v (1/m_v)
/// X_v^T X_v + mu I, or (1 + mu) I for quadratic). Logistic: damped Newton from 0 until ||grad phi|| <= 1e-12
/// (at most 200 iterations; converged = false otherwise, e.g. separable data with mu = 0).
struct Optimum {
  std::vector<double> theta;
  double value = 0;
  std::vector<double> hessian;  // A (p x p) for quadratic objectives; empty for logistic
  std::string method;           // "closed form (Cholesky)" or "damped Newton"
  int iterations = 0;
  double gradient_norm = 0;
  bool converged = true;
};
Optimum objective_optimum(Objective o, const LocalData& d, double l2);
/// phi(theta) - phi*: the quadratic form for quadratic objectives (no cancellation), else the difference.
double optimality_gap(Objective o, const LocalData& d, double l2, const Optimum& opt,
                      std::span<const double> theta);

/// The reference preprocessing of the learning figures (docs/math.md §11 E4, docs/walk_sgd.md "Data"):
/// `rows` (one node holding every example, logistic labels +-1) is standardised column by column (mean 0,
/// std 1; a constant column is left at 0), every row is scaled to l2 norm 1, a constant 1 is appended when
/// `intercept` (p + 1 features), and the rows are split, class by class, into a test part of
/// round(test_fraction * class size) rows chosen by a Philox shuffle and the training rest; the training
/// rows (in shuffled order) go to n users with m = floor(N_train / n) each (the remainder is dropped).
/// InvalidParameter "graph" (the number of users) when N_train < n.
struct LearningSplit {
  LocalData train;  // n users x m examples
  LocalData test;   // one node holding the test rows
  std::int64_t dropped = 0;
};
LearningSplit learning_split(const LocalData& rows, Objective o, node_t users, double test_fraction,
                             bool intercept, std::uint64_t seed);

/// Where the rows of a learning run come from (walk-sgd, muffliato-sgd): a CSV file (read_csv_data with one
/// node) or `synthetic_rows` synthetic rows of `synthetic_dim` features (synthetic_data with one node), then
/// learning_split, all from `seed`.
struct LearningDataSpec {
  std::string csv;  // empty: synthetic
  std::int64_t synthetic_rows = 20640;
  int synthetic_dim = 8;
  double synthetic_separation = 0;  // synthetic_data's separation (0: sigmoid(x^T theta))
  double test_fraction = 0.2;
  bool intercept = true;
  std::uint64_t seed = 0;
};
LearningSplit load_learning_split(const LearningDataSpec& spec, Objective o, node_t users);

/// Heterogeneous node data of docs/walk_sgd.md "Heterogeneous data" (docs/math.md §11 E15): node v holds
/// one quadratic target, the sum of its coordinates positions[2v] + positions[2v + 1]; `shuffled` permutes
/// the targets over the nodes (Fisher-Yates on PhiloxStream(seed, 19 << 56 | 1)), which keeps their values
/// and removes their link to the positions.
LocalData coordinate_targets(std::span<const double> positions, bool shuffled, std::uint64_t seed);

}  // namespace netdp
