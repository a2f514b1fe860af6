#pragma once
// Pairwise sensitivities of a local correlation C under the trust models of docs/math.md §9.4: what an
// attacker v observes of the message workload W_T, and the bound of the privacy theorem (§9.3) for every
// victim u: sens(u -> v)^2 = max_j sum_{s,t in pi_j(u)} |(C^T B^+ B C)_{s,t}|.
#include <string>
#include <string_view>
#include <vector>

#include "netdp/core/graph.hpp"
#include "netdp/core/sparse_matrix.hpp"
#include "netdp/mf/mf_workload.hpp"

namespace netdp::mf {

enum class TrustModel {
  ldp,   // the attacker sees every message: B = I, sens = sens_Pi(C) for every victim
  pndp,  // attacker v sees the messages of every w with W_vw > 0 (itself included) and its own noise
};
TrustModel parse_trust(std::string_view text);  // "ldp" | "pndp"; InvalidParameter("trust")
std::string to_string(TrustModel trust);

/// C^-1 by LU; false when C is singular.
bool invert(Matrix& c);

/// sens(v, u) for every attacker v in `attackers` (rows) and victim u (columns, n of them): +inf where u = v
/// and everywhere when C = 0 (no noise). C (T x T, T = p.steps()) is every node's local correlation and must
/// be invertible otherwise (InvalidParameter("correlation")). Attackers are processed in parallel over the
/// OpenMP threads when `parallel`; every row is computed by the same serial code, so results do not depend on
/// the thread count.
Matrix pairwise_sensitivity(TrustModel trust, const CsrMatrix& w, const Matrix& c, const Participation& p,
                            const std::vector<node_t>& attackers, bool parallel);

/// The PNDP row of one attacker v (n entries), structured (§9.4): an orthonormal basis of the row space of
/// the observed messages (I_T (x) P_v) W_T (I_n (x) C^-1), restricted to the nodes they reach, by one SVD;
/// `c_inverse` empty means C = I.
std::vector<double> pndp_row(const CsrMatrix& w, const CsrMatrix& w_transpose, const Matrix& c,
                             const Matrix& c_inverse, const Participation& p, node_t attacker);

/// CSR transpose.
CsrMatrix transpose(const CsrMatrix& w);

}  // namespace netdp::mf
