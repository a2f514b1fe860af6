#pragma once
// Reconstruction attacks on gossip averaging (docs/math.md §7.1-7.2, docs/attack.md): the knowledge matrix
// K_T of a set of curious nodes, its rank, the nodes whose private value it determines (e_j in its row
// space), the linear relations left among the others, indistinguishable nodes, and the reconstruction of
// random private values. Decided exactly over Z/pZ for two 61/62-bit primes (W's rational entries mapped to
// the field), or with the reference code's floating-point reduction.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "netdp/core/graph.hpp"
#include "netdp/core/weighting.hpp"

namespace netdp::attack {

enum class Method { exact, floating };

struct GossipAttackParams {
  int steps = 10;          // T: rounds observed (rows (W^t)_{v,:} for t < T)
  bool secagg = false;     // Remark 4.5: each attacker sees only the sum its neighbours send it
  double dynamic = 0;      // Remark 4.6: probability that an edge is absent in a round (0 = static graph)
  std::uint64_t seed = 0;  // private values, random attackers, the rounds' graphs
  Method method = Method::exact;
};

/// "0,1,5" | "all" | "random:K" (K distinct nodes drawn with the seed). `all` returns an empty list and sets
/// *every. Bad items, repeats, nodes out of range and more attackers than nodes throw InvalidParameter
/// ("attackers").
std::vector<node_t> parse_attackers(const std::string& text, node_t n, std::uint64_t seed, bool* every);

/// The gossip rounds the attack sees: the graph of every round and W_t on it, as doubles and, for the named
/// weightings, as exact rationals (reduced modulo each prime on use).
class GossipRounds {
 public:
  GossipRounds(const Graph& g, const WeightsSpec& weights, const GossipAttackParams& params);
  node_t n() const { return n_; }
  int steps() const { return steps_; }
  bool exact_available() const { return exact_; }
  bool dynamic() const { return graphs_.size() > 1; }
  const Graph& graph(int t) const { return graphs_[dynamic() ? static_cast<std::size_t>(t) : 0]; }
  struct Impl;
  const Impl& impl() const { return *impl_; }
  ~GossipRounds();

 private:
  node_t n_ = 0;
  int steps_ = 0;
  bool exact_ = false;
  std::vector<Graph> graphs_;
  std::unique_ptr<Impl> impl_;
};

struct PrimeCertificate {
  std::uint64_t prime = 0;
  int rank = 0;
  int reconstructed = 0;
};

struct GossipAttackResult {
  std::vector<node_t> attackers, observed;  // observed: N(A) of the first round's graph (secagg: A)
  int rows = 0;                             // rows of K_T (rows generated before an early stop at rank n)
  int rows_total = 0;                       // rows of K_T
  int rank = 0;
  std::vector<node_t> reconstructible;                 // sorted, attackers included
  std::vector<std::vector<node_t>> relations;          // support of each remaining relation, pivot first
  std::vector<std::vector<node_t>> indistinguishable;  // groups of >= 2 nodes with identical columns
  std::vector<PrimeCertificate> primes;                // exact mode
  bool primes_agree = true;
  // The floating-point reduction of the same K_T (docs/math.md §7.2 Numerics) and the SVD rank.
  int float_rank = 0, svd_rank = 0;
  std::vector<node_t> float_reconstructible;
  bool float_checked = false;
  // Random private values x ~ N(0, 1), the observations of a simulated gossip run, and x_hat from the
  // minimum-norm least-squares solution of K_T x = Y.
  std::vector<double> private_values, reconstructed_values;
  double max_error = 0;  // over the reconstructible nodes
  double seconds = 0;
};

/// The attack of one set of attackers. `values`: also simulate and reconstruct private values; `float_check`:
/// also run the floating-point reduction (exact mode).
GossipAttackResult attack_gossip(const GossipRounds& rounds, const std::vector<node_t>& attackers,
                                 const GossipAttackParams& params, bool values = true,
                                 bool float_check = true);

/// Every node alone as the attacker (Fig. 4.3's all-to-all), in parallel over the OpenMP threads; rows of
/// the result are in attacker order and do not depend on the thread count.
struct AllAttackersResult {
  std::vector<int> rank, reconstructed, float_reconstructed;
  std::vector<std::int8_t> reconstructible;  // n x n: [attacker, node]
  int disagreements = 0;                     // attackers whose float set differs from the exact one
  bool primes_agree = true;
  std::vector<PrimeCertificate> primes_total;  // summed ranks per prime
  double seconds = 0;
};
AllAttackersResult attack_gossip_all(const GossipRounds& rounds, const GossipAttackParams& params,
                                     bool float_check = true);

}  // namespace netdp::attack
