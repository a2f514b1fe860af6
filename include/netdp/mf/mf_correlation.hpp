#pragma once
// Correlation families C_local (T x T) of docs/math.md §9.5 and the MAFALDA optimiser of §9.6.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "netdp/core/sparse_matrix.hpp"
#include "netdp/mf/mf_workload.hpp"

namespace netdp::mf {

enum class CorrelationKind { none, ldp, antipgd, sr, bsr, dmf, optimal, mafalda, mafalda_l, file };

/// The objective the optimiser minimises (§9.6): the exact tr(G_W X^-1), or the reference code's surrogate
/// tr(X^-1 S^T S) with S the upper Cholesky factor of P G_W P, i.e. tr(X^-1 P G_W P) (equal only for
/// persymmetric G_W).
enum class Surrogate { exact, code };

struct CorrelationSpec {
  CorrelationKind kind = CorrelationKind::ldp;
  std::string path;                 // kind file: a T x T (shared) or (n T) x T (per node) float64 .npy
  bool symmetric_toeplitz = false;  // sr / bsr: the reference code's symmetric Toeplitz matrix
  int band = 0;                     // bsr: entries with i - j >= band are 0; 0 = the participation's b
  Surrogate surrogate = Surrogate::exact;
  int max_iterations = 10000;
};

/// "none" | "ldp" | "antipgd" | "sr" | "bsr" | "dmf" | "optimal" | "mafalda" | "mafalda-l" | "file:PATH".
/// Throws InvalidParameter("correlation").
CorrelationSpec parse_correlation(std::string_view text);
std::string to_string(CorrelationKind kind);
/// The display name of §9.5 (DP-D-SGD, ANTIPGD, SR, BSR, D-MF, Optimal (Message Loss), MAFALDA-SGD, ...).
std::string display_name(CorrelationKind kind);

/// y_0 = 1, y_k = (1 - sum_{j=1}^{k-1} y_j y_{k-j}) / 2 = C(2k, k) / 4^k, k < count (§9.5).
std::vector<double> sr_coefficients(int count);
/// Lower-triangular Toeplitz from a first column (entries with i - j >= band are 0 when band > 0); symmetric
/// Toeplitz when `symmetric`.
Matrix toeplitz(const std::vector<double>& column, int band, bool symmetric);

/// Options and outcome of the optimiser of §9.6.
struct OptimizeResult {
  Matrix x;  // X = C^T C, feasible: masked entries 0, each residue class's diagonal sums to 1
  Matrix c;  // C = P chol(P X P)^T P
  int iterations = 0;
  double objective = 0;    // the minimised objective at X
  bool converged = false;  // max |projected gradient| <= 1e-8; false: 30 step trials without a decrease
};
/// Minimises tr(G X^-1) over the constraint set of the participation (§9.6). Throws InvalidInput when it does
/// not converge within max_iterations.
OptimizeResult optimize_factorization(const Matrix& gram, const Participation& p, int max_iterations);
/// The Gram the surrogate optimises: S^T S with S = U, P G P = U^T U (the upper Cholesky factor), = P G P.
Matrix surrogate_gram(const Matrix& gram);
/// C = P chol(P X P)^T P (lower triangular, C^T C = X). Throws InvalidInput when X is not positive definite.
Matrix factor_from_gram(const Matrix& x);

/// C_local of a spec for T steps. `w` (the gossip matrix) is needed by optimal and mafalda only.
/// iterations receives the optimiser's count (0 when no optimisation ran), converged its stopping rule.
Matrix correlation_matrix(const CorrelationSpec& spec, const Participation& p, const CsrMatrix* w,
                          int* iterations = nullptr, bool* converged = nullptr);

/// The local correlations of every node: one T x T C_local shared by all nodes (size 1), or one per node
/// (size n: MAFALDA-L, or a file of (n T) x T rows, node u's C in rows u T .. u T + T - 1; §9.2). n is w's
/// size (0 without a graph). iterations: the largest count over the nodes; converged: every node's rule.
std::vector<Matrix> correlation_matrices(const CorrelationSpec& spec, const Participation& p,
                                         const CsrMatrix* w, int* iterations = nullptr,
                                         bool* converged = nullptr);
/// MAFALDA-L (§9.5): node u's C_u minimises tr(G_u X^-1) with G_u = A_u^T A_u its own post-average Gram,
/// nodes in parallel. The sum of the per-node objectives is at most MAFALDA's shared objective.
std::vector<OptimizeResult> optimize_per_node(const std::vector<Matrix>& grams, const Participation& p,
                                              int max_iterations, bool parallel);
/// The correlations one below the other ((count T) x T), for C.npy.
Matrix stack_rows(const std::vector<Matrix>& c);

/// tr(C^-T G C^-1) = ||S C^-1||_F^2 for S^T S = G (C invertible; +inf when C = 0, 0 when G = 0).
double workload_error(const Matrix& gram, const Matrix& c);

/// A .npy array of any dimension, converted to double: float64 ('<f8'), int64 ('<i8') or int32 ('<i4'),
/// C order (Fortran order for 2-D only). Throws InvalidParameter(parameter) naming the file.
struct NpyArray {
  std::vector<std::int64_t> shape;
  std::vector<double> data;  // C order
};
NpyArray read_npy_array(const std::string& path, const std::string& parameter);
/// Reads a 2-D .npy file with finite entries. Throws InvalidParameter(parameter).
Matrix read_npy_matrix(const std::string& path, const std::string& parameter);
/// Writes a float64 2-D .npy file.
void write_npy_matrix(const std::string& path, const Matrix& m);

}  // namespace netdp::mf
