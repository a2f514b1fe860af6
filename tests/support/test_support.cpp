#include "support/test_support.hpp"

#include "netdp/core/error.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <sys/wait.h>
#include <algorithm>
#include <array>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "netdp/core/graph_generators.hpp"
#include "netdp/core/weighting.hpp"

namespace netdp::testing {

namespace fs = std::filesystem;

ScratchDir::ScratchDir() {
  std::random_device rd;
  for (int attempt = 0; attempt < 100; ++attempt) {
    auto candidate = fs::temp_directory_path() /
                     ("netdp-test-" + std::to_string(getpid()) + "-" + std::to_string(rd() % 1000000000u));
    if (fs::create_directory(candidate)) {
      path_ = candidate;
      return;
    }
  }
  throw std::runtime_error("cannot create a scratch directory");
}

ScratchDir::~ScratchDir() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

std::string ScratchDir::write(const std::string& name, const std::string& content) const {
  auto file = path_ / name;
  std::ofstream(file, std::ios::binary) << content;
  return file.string();
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

nlohmann::json read_json(const fs::path& path) {
  return nlohmann::json::parse(read_text(path.string()));
}

std::vector<std::vector<std::string>> read_csv_cells(const fs::path& path) {
  std::istringstream in(read_text(path.string()));
  std::vector<std::vector<std::string>> rows;
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> row;
    std::istringstream cells(line);
    for (std::string cell; std::getline(cells, cell, ',');) row.push_back(cell);
    rows.push_back(row);
  }
  return rows;
}

void expect_curves_from_zero_model(const std::vector<std::vector<std::string>>& curves,
                                   std::initializer_list<const char*> columns) {
  ASSERT_GE(curves.size(), 2u);
  for (const char* column : columns)
    EXPECT_NE(std::find(curves[0].begin(), curves[0].end(), column), curves[0].end()) << column;
  EXPECT_EQ(curves[0][1], "objective_mean");
  EXPECT_NEAR(std::stod(curves[1][1]), std::log(2.0), 1e-12);
}

// Defined by AddressSanitizer's runtime only; a weak reference is null without it.
extern "C" void __asan_init() __attribute__((weak));

bool under_address_sanitizer() {
  return &__asan_init != nullptr;
}

std::string netdp_cli_path() {
  if (const char* cli = std::getenv("NETDP_TEST_CLI"); cli && *cli) return cli;
  // Test programs live in BUILD/tests, the program in BUILD (CMakeLists.txt: netdp_cli's output name).
  return (std::filesystem::read_symlink("/proc/self/exe").parent_path().parent_path() / "netdp").string();
}

CliResult run_cli(const std::string& args, const std::string& shell_prefix) {
  ScratchDir scratch;
  auto out = scratch / "stdout", err = scratch / "stderr";
  std::string command =
      shell_prefix + netdp_cli_path() + " " + args + " >" + out.string() + " 2>" + err.string();
  int status = std::system(command.c_str());
  CliResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = read_text(out.string());
  r.err = read_text(err.string());
  return r;
}

void expect_refused(const std::string& args, const std::filesystem::path& out, const std::string& fragment) {
  const CliResult r = run_cli(args + " --out " + out.string());
  EXPECT_EQ(r.exit_code, 2) << "netdp " << args << ": " << r.err;
  if (!fragment.empty()) {
    EXPECT_NE(r.err.find(fragment), std::string::npos) << "netdp " << args << ": " << r.err;
  }
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << "netdp " << args << ": " << r.err;
  EXPECT_FALSE(std::filesystem::exists(out / "manifest.json")) << "netdp " << args;
}

bool run_cli_into(const std::string& args, const std::filesystem::path& out,
                  std::initializer_list<const char*> files) {
  const CliResult r = run_cli(args + " --out " + out.string());
  EXPECT_EQ(r.exit_code, 0) << "netdp " << args << ": " << r.err;
  for (const char* file : files) EXPECT_TRUE(std::filesystem::exists(out / file)) << file;
  return r.exit_code == 0;
}

NpyArray read_npy(const std::string& path) {
  std::string bytes = read_text(path);
  if (bytes.size() < 10 || bytes.compare(0, 6, "\x93NUMPY") != 0) throw std::runtime_error("not an npy file");
  std::size_t header_len = static_cast<unsigned char>(bytes[8]) | (static_cast<unsigned char>(bytes[9]) << 8);
  std::string header = bytes.substr(10, header_len);
  if (header.find("'descr': '<f8'") == std::string::npos ||
      header.find("'fortran_order': False") == std::string::npos)
    throw std::runtime_error("unexpected npy header: " + header);
  NpyArray a;
  auto open = header.find('('), close = header.find(')');
  std::stringstream dims(header.substr(open + 1, close - open - 1));
  std::string item;
  std::int64_t count = 1;
  while (std::getline(dims, item, ',')) {
    if (item.find_first_not_of(' ') == std::string::npos) continue;
    a.shape.push_back(std::stoll(item));
    count *= a.shape.back();
  }
  std::size_t offset = 10 + header_len;
  if (bytes.size() != offset + count * sizeof(double)) throw std::runtime_error("npy size mismatch");
  a.values.resize(count);
  std::memcpy(a.values.data(), bytes.data() + offset, count * sizeof(double));
  return a;
}

std::string source_path(const std::string& relative) {
  return std::string(NETDP_SOURCE_DIR) + "/" + relative;
}

double max_relative_error(const std::vector<double>& gpu, const std::vector<double>& cpu) {
  double worst = 0.0;
  for (std::size_t i = 0; i < cpu.size(); ++i) {
    if (std::isnan(cpu[i]) && std::isnan(gpu[i])) continue;
    worst = std::max(worst, std::abs(gpu[i] - cpu[i]) / std::max(std::abs(cpu[i]), 1e-300));
  }
  return worst;
}

double max_error_with_start_floor(const std::vector<double>& gpu, const std::vector<double>& cpu) {
  if (gpu.size() != cpu.size() || cpu.empty()) return INFINITY;
  const double floor = std::isnan(cpu.front()) ? 0.0 : std::fabs(cpu.front());
  double worst = 0;
  for (std::size_t i = 0; i < cpu.size(); ++i) {
    if (std::isnan(cpu[i]) || std::isnan(gpu[i])) {
      if (std::isnan(cpu[i]) != std::isnan(gpu[i])) return INFINITY;  // NaN only where the CPU has NaN
      continue;
    }
    worst = std::max(worst, std::fabs(gpu[i] - cpu[i]) / std::max({std::fabs(cpu[i]), floor, DBL_MIN}));
  }
  return worst;
}

MetropolisGraph with_metropolis(Graph g) {
  CsrMatrix w = gossip_matrix(g, Weighting::metropolis);
  return {std::move(g), std::move(w)};
}

GraphCase graph_case(std::string name, Graph g) {
  MetropolisGraph m = with_metropolis(std::move(g));
  return {std::move(name), std::move(m.g), std::move(m.w)};
}

std::vector<GraphCase> bodies_graph_cases(GraphCase random) {
  std::vector<GraphCase> out;
  out.push_back(graph_case("path:n=7", path_graph(7)));
  out.push_back(graph_case("star:n=9", star_graph(9)));
  const std::vector<std::pair<node_t, node_t>> edges{{0, 1}, {1, 2}, {2, 3}, {3, 4}};
  out.push_back(graph_case("path:n=5 + isolated node 5", graph_from_edges(6, edges)));
  out.push_back(graph_case("hypercube:dim=3", hypercube_graph(3)));
  out.push_back(std::move(random));
  return out;
}

CsrMatrix identity_gossip(node_t n) {
  std::vector<Triplet> t;
  for (node_t u = 0; u < n; ++u) t.push_back({u, u, 1.0});
  return csr_from_triplets(n, t);
}

bounds::SigmaSearchParams code_sigma_search(double epsilon, double delta, double steps, double lipschitz) {
  bounds::SigmaSearchParams s;
  s.epsilon = epsilon;
  s.delta = delta;
  s.steps = steps;
  s.lipschitz = lipschitz;
  s.procedure = bounds::SigmaProcedure::code;
  return s;
}

void expect_same_visit_statistics(const WalkSimResult& a, const WalkSimResult& b) {
  EXPECT_EQ(a.visits, b.visits);
  EXPECT_EQ(a.returns, b.returns);
  EXPECT_EQ(a.return_time_sum, b.return_time_sum);
  EXPECT_EQ(a.hits, b.hits);
  EXPECT_EQ(a.hitting_time_sum, b.hitting_time_sum);
  EXPECT_EQ(a.return_times.counts, b.return_times.counts);
  EXPECT_EQ(a.return_times.overflow, b.return_times.overflow);
  EXPECT_EQ(a.return_times.sum, b.return_times.sum);
  EXPECT_EQ(a.hitting_times.counts, b.hitting_times.counts);
  EXPECT_EQ(a.hitting_times.overflow, b.hitting_times.overflow);
  EXPECT_EQ(a.visit_counts, b.visit_counts);
  EXPECT_EQ(a.visit_counts_above_nv, b.visit_counts_above_nv);
  EXPECT_EQ(a.paths, b.paths);
}

GossipSimParams cpu_gossip_params(GossipProtocol protocol, int steps, std::int64_t runs) {
  GossipSimParams p;
  p.protocol = protocol;
  p.steps = steps;
  p.runs = runs;
  p.device = {DeviceKind::cpu, 0};
  return p;
}

Dense dense_identity(std::size_t n) {
  Dense d(n * n, 0.0);
  for (std::size_t i = 0; i < n; ++i) d[i * n + i] = 1.0;
  return d;
}

Dense dense_product(const Dense& a, const Dense& b, std::size_t n) {
  Dense c(n * n, 0.0);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t k = 0; k < n; ++k)
      for (std::size_t j = 0; j < n; ++j) c[i * n + j] += a[i * n + k] * b[k * n + j];
  return c;
}

void add_gossip_messages(const Dense& product, const Graph& e, double scale, Dense& f) {
  const std::size_t n = e.n;
  for (std::size_t v = 0; v < n; ++v)
    for (node_t w : e.neighbors(static_cast<node_t>(v))) {
      double norm = 0;
      for (std::size_t k = 0; k < n; ++k) norm += product[w * n + k] * product[w * n + k];
      for (std::size_t u = 0; u < n; ++u)
        f[u * n + v] += scale * product[w * n + u] * product[w * n + u] / norm;
    }
}

void expect_invalid(const std::function<void()>& call, const std::string& needle) {
  try {
    call();
    ADD_FAILURE() << "no InvalidInput thrown (expected one naming '" << needle << "')";
  } catch (const InvalidInput& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

}  // namespace netdp::testing
