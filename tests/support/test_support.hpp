#pragma once
// Helpers shared by the test executables: scratch directories, running the CLI, reading .npy files.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <initializer_list>
#include <string>
#include <vector>

#include <omp.h>
#include <nlohmann/json.hpp>

#include "netdp/bounds/complete_graph_sgd_sigma.hpp"
#include "netdp/core/graph.hpp"
#include "netdp/core/sparse_matrix.hpp"
#include "netdp/simulation/gossip_sim.hpp"
#include "netdp/simulation/walk_sim.hpp"
#include "netdp/simulation/walk_sim_params.hpp"

namespace netdp::testing {

/// Plain walks (no accounting) on the CPU: the parameters the walk engine's tests vary.
inline WalkSimParams plain_walk_params(std::int64_t steps, std::int64_t runs, std::uint64_t seed) {
  WalkSimParams p;
  p.steps = steps;
  p.runs = runs;
  p.seed = seed;
  p.accounting = false;
  p.device = {DeviceKind::cpu, 0};
  return p;
}

/// Walks with accounting, each contribution (eps0, delta)-LDP, every other parameter at its default: the
/// parameters the accounting tests vary.
inline WalkSimParams accounted_walk_params(std::int64_t steps, std::int64_t runs, std::uint64_t seed,
                                           double eps0, double delta) {
  WalkSimParams p;
  p.steps = steps;
  p.runs = runs;
  p.seed = seed;
  p.eps0 = eps0;
  p.delta = delta;
  return p;
}

/// The nodes 0 .. n - 1 (every node an attacker or a victim).
inline std::vector<node_t> all_nodes(node_t n) {
  std::vector<node_t> v(static_cast<std::size_t>(n));
  for (node_t i = 0; i < n; ++i) v[static_cast<std::size_t>(i)] = i;
  return v;
}

/// Runs `run` with OpenMP's thread count set to `threads`, the previous count restored after: the
/// same-results-for-any-thread-count tests.
template <class Run>
auto with_threads(int threads, Run&& run) {
  const int saved = omp_get_max_threads();
  omp_set_num_threads(threads);
  auto result = run();
  omp_set_num_threads(saved);
  return result;
}

/// The identity as an n x n gossip matrix (every node keeps its own value).
CsrMatrix identity_gossip(node_t n);

/// walk-sgd's sigma search by the Fig. 7.2 code procedure (docs/math.md §4.3.3) for T = steps.
bounds::SigmaSearchParams code_sigma_search(double epsilon, double delta, double steps, double lipschitz);

/// The visit statistics of two walk_sim results (visits, returns, hits, their histograms, the visit counts
/// and the paths) compared exactly.
void expect_same_visit_statistics(const WalkSimResult& a, const WalkSimResult& b);

/// A fresh directory under the system temp dir, removed with its contents on destruction.
class ScratchDir {
 public:
  ScratchDir();
  ~ScratchDir();
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }
  /// Writes `content` to a file in the directory and returns its path.
  std::string write(const std::string& name, const std::string& content) const;

 private:
  std::filesystem::path path_;
};

struct CliResult {
  int exit_code = -1;
  std::string out, err;
};
/// The netdp program the CLI tests run: $NETDP_TEST_CLI when set (the GPU check's bundle runs the tests away
/// from the build tree, scripts/gpu_check.sh), else `netdp` in the build directory above the test program's.
/// No compile-time path: the sanitizer build's test objects are then the normal build's, from ccache
/// (docs/reliability.md §5 "Compile time").
std::string netdp_cli_path();

/// Whether this test program runs with AddressSanitizer's runtime (the sanitizer build, scripts/sanitize.sh),
/// and so the netdp program beside it too. A run-time question: the unit and CLI test programs' own code is
/// compiled without the sanitizers, so __SANITIZE_ADDRESS__ does not tell.
bool under_address_sanitizer();

/// Runs the built netdp binary with `args` (a shell-quoted argument string), capturing stdout and stderr;
/// `shell_prefix` runs first in the same shell (e.g. "ulimit -d 4194304; ").
CliResult run_cli(const std::string& args, const std::string& shell_prefix = "");

/// Runs `netdp ARGS --out OUT` and expects it refused as bad input: exit code 2, one line on stderr
/// (containing `fragment` when not empty, e.g. the parameter's name), and no manifest.json in OUT.
void expect_refused(const std::string& args, const std::filesystem::path& out,
                    const std::string& fragment = "");

/// Runs `netdp ARGS --out OUT` and expects exit code 0 (stderr shown otherwise) and each of `files` in OUT.
/// Returns whether the command succeeded: `ASSERT_TRUE(run_cli_into(...))`.
bool run_cli_into(const std::string& args, const std::filesystem::path& out,
                  std::initializer_list<const char*> files = {});

struct NpyArray {
  std::vector<std::int64_t> shape;
  std::vector<double> values;
};
/// Reads a float64 C-order .npy file (the only kind netdp writes).
NpyArray read_npy(const std::string& path);

std::string read_text(const std::string& path);

/// max_i |gpu_i - cpu_i| / |cpu_i| (CUDA against the CPU oracle); entries NaN on both sides are equal (the
/// standard error of a single run).
double max_relative_error(const std::vector<double>& gpu, const std::vector<double>& cpu);

/// max_i |gpu_i - cpu_i| / max(|cpu_i|, |cpu_0|): the relative error with a floor at the curve's start. A
/// curve that decays by many orders (gossip error curves reach ~1e-32, or exact consensus on a complete
/// graph) carries the rounding differences of its start (the noise's ulps, the reductions' order) as
/// absolute errors of the start's scale, which a plain relative error near 0 would magnify beyond meaning.
double max_error_with_start_floor(const std::vector<double>& gpu, const std::vector<double>& cpu);
nlohmann::json read_json(const std::filesystem::path& path);

/// The comma-separated cells of every line of a CSV file, header first.
std::vector<std::vector<std::string>> read_csv_cells(const std::filesystem::path& path);

/// The learning models' curves.csv (read_csv_cells): the header holds every one of `columns`, and the first
/// row, the model at 0 with logistic loss, has objective_mean (column 1) = log 2.
void expect_curves_from_zero_model(const std::vector<std::vector<std::string>>& curves,
                                   std::initializer_list<const char*> columns);

/// Path of a file in the source tree, e.g. source_path("tests/data/x.txt").
std::string source_path(const std::string& relative);

/// A graph and its Metropolis-Hastings gossip matrix W-MH (docs/math.md §2.2).
struct MetropolisGraph {
  Graph g;
  CsrMatrix w;
};
MetropolisGraph with_metropolis(Graph g);

/// A named graph and its W-MH: the cases of the accountants' device-bodies suites.
struct GraphCase {
  std::string name;
  Graph graph;
  CsrMatrix w;
};
GraphCase graph_case(std::string name, Graph g);
/// The graphs of those suites: the awkward small ones (a path, a star, a path with an isolated node,
/// hypercube:dim=3), then `random`, a bigger random one.
std::vector<GraphCase> bodies_graph_cases(GraphCase random);

/// Gossip simulator parameters for the CPU: `protocol`, T = steps and R = runs, every other one at its
/// default.
GossipSimParams cpu_gossip_params(GossipProtocol protocol, int steps, std::int64_t runs);

/// Dense row-major n x n matrices, for the oracles of the gossip accountant and simulator tests.
using Dense = std::vector<double>;
Dense dense_identity(std::size_t n);
/// a b: c_ij = sum_k a_ik b_kj, accumulated over k in increasing order.
Dense dense_product(const Dense& a, const Dense& b, std::size_t n);
/// The messages of the product P (n x n) over the graph E, Theorem 6.1 literally: f(u, v) += scale P_{w,u}^2
/// / ||row w of P||^2 for every w in N_E(v) and every u (diagonal included).
void add_gossip_messages(const Dense& product, const Graph& e, double scale, Dense& f);

/// `call` must throw InvalidInput (or a subclass) whose message contains `needle`.
void expect_invalid(const std::function<void()>& call, const std::string& needle);

}  // namespace netdp::testing
