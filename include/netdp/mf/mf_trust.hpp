#pragma once
// Pairwise sensitivities of a local correlation C under the trust models of docs/math.md §9.4: what an
// attacker v observes of the message workload W_T, and the bound of the privacy theorem (§9.3) for every
// victim u: sens(u -> v)^2 = max_j sum_{s,t in pi_j(u)} |(C^T B^+ B C)_{s,t}|.
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "netdp/core/graph.hpp"
#include "netdp/core/sparse_matrix.hpp"
#include "netdp/mf/mf_workload.hpp"

namespace netdp::mf {

enum class TrustModel {
  ldp,          // the attacker sees every message: B = I, sens = sens_Pi(C) for every victim
  pndp,         // attacker v sees the messages of every w with W_vw > 0 (itself included) and its own noise
  observation,  // a user-supplied (A, B, C, Pi) (ObservationModel below)
  secldp,  // netdp's reading of SecLDP (§9.4): every message seen, pairwise-cancelling edge secrets hidden
};
/// "ldp" | "pndp" | "observation" | "secldp"; InvalidParameter("trust")
TrustModel parse_trust(std::string_view text);
std::string to_string(TrustModel trust);

/// C^-1 by LU; false when C is singular.
bool invert(Matrix& c);

/// sens(v, u) for every attacker v in `attackers` (rows) and victim u (columns, n of them): +inf where u = v
/// and everywhere when C = 0 (no noise). C (T x T, T = p.steps()) is every node's local correlation and must
/// be invertible otherwise (InvalidParameter("correlation")). Attackers are processed in parallel over the
/// OpenMP threads when `parallel`; every row is computed by the same serial code, so results do not depend on
/// the thread count. `secret_ratio` (SecLDP only, >= 0): the std of each edge secret over the local noise's.
Matrix pairwise_sensitivity(TrustModel trust, const CsrMatrix& w, const Matrix& c, const Participation& p,
                            const std::vector<node_t>& attackers, bool parallel, double secret_ratio = 1.0);
/// The same with one C per node (c.size() == n: MAFALDA-L, §9.2 C = K^T diag(C_1..C_n) K) or one shared (size
/// 1). LDP: sens(u -> v) = sens_Pi(C_u). SecLDP: sens(u -> v) = sqrt(kappa_u) sens_Pi(C_u) (§9.4).
Matrix pairwise_sensitivity(TrustModel trust, const CsrMatrix& w, const std::vector<Matrix>& c,
                            const Participation& p, const std::vector<node_t>& attackers, bool parallel,
                            double secret_ratio = 1.0);

/// The PNDP row of one attacker v (n entries), structured (§9.4): an orthonormal basis of the row space of
/// the observed messages (I_T (x) P_v) W_T K^T diag(C_u^-1) K, restricted to the nodes they reach, by one
/// SVD. `c` and `c_inverse` hold one matrix (shared) or n (per node); `c_inverse` empty means C = I.
std::vector<double> pndp_row(const CsrMatrix& w, const CsrMatrix& w_transpose, std::span<const Matrix> c,
                             std::span<const Matrix> c_inverse, const Participation& p, node_t attacker);

/// A user-supplied observation model O = A G + B Z (§9.3, §9.4): B (m x N) the noise the attacker
/// observes, C (N x N) the global correlation, A = B C (checked when given), and for every victim its
/// participation sets, column indices of C. sens(victim)^2 = max over its sets pi of sum_{s,t in pi}
/// |(C^T B^+ B C)_{s,t}|, B^+ B the projector on B's row space (an SVD, numpy's rank tolerance).
struct ObservationModel {
  Matrix b, c;
  std::vector<std::vector<std::vector<std::int64_t>>> victims;  // victims[j][set] = column indices
};
/// Throws InvalidParameter naming observation-b, observation-c, observation-a or observation-pi when the
/// shapes disagree, an index is outside 0..N-1, or A differs from B C by more than 1e-9 (1 + max |A|).
void validate(const ObservationModel& m, const Matrix* a);
/// The participation sets of N / T victims in node-major order (victim u: columns u T + s, s in the sets of
/// `p`, §9.2). InvalidParameter("observation-b") unless T divides N.
std::vector<std::vector<std::vector<std::int64_t>>> node_major_sets(std::int64_t columns,
                                                                    const Participation& p);
/// The global node-major C = diag(C_1, ..., C_{N/T}) of local correlations (one shared, or one per node).
Matrix block_diagonal(const std::vector<Matrix>& c, std::int64_t nodes);
/// sens(victim) for every victim of the model.
std::vector<double> observation_sensitivity(const ObservationModel& m);

/// SecLDP's observation model of one step for attacker v (docs/math.md §9.4), in the generic form above:
/// B = [I_n without row v, its column v zero | r D'] ((n - 1) x (n + m')), D' the signed incidence matrix
/// of the m' edges not at v (an edge: W_ij or W_ji nonzero, i != j; ordered by (min, max) endpoint), C =
/// I, victim u's one set {u}. Its sensitivity of victim u is sqrt(kappa_u), kappa_u = ((I + r^2
/// L_{G-v})^-1)_uu; T steps are T independent copies (B (x) I_T), so sens(u -> v) = sqrt(kappa_u)
/// sens_Pi(C_u). Needs n >= 2 and r >= 0 (InvalidParameter("secret-ratio")).
ObservationModel secldp_step_model(const CsrMatrix& w, node_t attacker, double secret_ratio);

/// CSR transpose.
CsrMatrix transpose(const CsrMatrix& w);

/// (epsilon, delta) of the losses (§9.3 conversions): a pair with sensitivity sens at noise multiplier sigma
/// is (sens / sigma)-GDP, i.e. (alpha, alpha sens^2 / (2 sigma^2))-RDP at every alpha (G5).
enum class EpsilonConversion {
  gdp,          // the exact Gaussian privacy profile (G4, dp::gdp_epsilon): the tightest
  rdp,          // the RDP curve over dp::default_rdp_orders, improved conversion (dp::rdp_curve_to_epsilon)
  rdp_classic,  // the closed form of C6 for a linear curve (dp::linear_rdp_to_epsilon)
};
EpsilonConversion parse_conversion(std::string_view text);  // gdp | rdp | rdp-classic
std::string to_string(EpsilonConversion c);
/// epsilon at delta; +inf when sens is, 0 when sens = 0.
double epsilon_of_sensitivity(double sens, double sigma, double delta, EpsilonConversion c);

}  // namespace netdp::mf
