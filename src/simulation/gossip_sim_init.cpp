// Initial values x and the noisy start x^0 = x + eta of Alg 6.1 (docs/math.md §6.1), drawn as laid out in
// gossip_sim.hpp.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <fstream>
#include <string>

#include "netdp/core/error.hpp"
#include "netdp/core/philox.hpp"
#include "simulation/gossip_sim_internal.hpp"

namespace netdp {

namespace {

/// Standard normals i = 0, 1, ... of a stream, pair i/2 from offset 4 (i/2): out[i] = base[i] + scale z_i.
void add_normals(PhiloxStream& s, std::span<const double> base, double scale, std::span<double> out) {
  for (std::size_t i = 0; i < out.size(); i += 2) {
    const auto [z0, z1] = s.next_normal_pair();
    out[i] = base[i] + scale * z0;
    if (i + 1 < out.size()) out[i + 1] = base[i + 1] + scale * z1;
  }
}

/// Rows of numbers (separated by blanks or commas, '#' comments) with their line numbers.
struct NumberLine {
  int line;
  std::vector<double> values;
};

std::vector<NumberLine> read_number_lines(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InvalidParameter("init", "init file:" + path + ": cannot open the file");
  std::vector<NumberLine> lines;
  std::string text;
  for (int number = 1; std::getline(in, text); ++number) {
    if (auto hash = text.find('#'); hash != std::string::npos) text.resize(hash);
    NumberLine row{number, {}};
    std::size_t at = 0;
    while (true) {
      while (at < text.size() && (std::isspace(static_cast<unsigned char>(text[at])) || text[at] == ','))
        ++at;
      if (at == text.size()) break;
      std::size_t end = at;
      while (end < text.size() && !std::isspace(static_cast<unsigned char>(text[end])) && text[end] != ',')
        ++end;
      double value = 0;
      auto [stop, ec] = std::from_chars(text.data() + at, text.data() + end, value);
      if (ec != std::errc() || stop != text.data() + end || !std::isfinite(value))
        throw InvalidParameter("init", "init file:" + path + " line " + std::to_string(number) + ": '" +
                                           text.substr(at, end - at) + "' is not a finite number");
      row.values.push_back(value);
      at = end;
    }
    if (!row.values.empty()) lines.push_back(std::move(row));
  }
  return lines;
}

std::vector<double> values_from_file(node_t n, int dim, const std::string& path) {
  const auto lines = read_number_lines(path);
  std::vector<double> x;
  x.reserve(static_cast<std::size_t>(n) * dim);
  for (const auto& row : lines) {
    if (dim > 1 && row.values.size() != static_cast<std::size_t>(dim))
      throw InvalidParameter("init", "init file:" + path + " line " + std::to_string(row.line) +
                                         ": expected " + std::to_string(dim) + " values (dim), got " +
                                         std::to_string(row.values.size()));
    x.insert(x.end(), row.values.begin(), row.values.end());
  }
  const std::size_t expected = static_cast<std::size_t>(n) * dim;
  if (x.size() != expected) {
    const std::string what =
        dim > 1 ? std::to_string(lines.size()) + " lines of values" : std::to_string(x.size()) + " values";
    throw InvalidParameter(
        "init", "init file:" + path + ": " + what + ", but the graph has " + std::to_string(n) + " nodes" +
                    (lines.empty() ? "" : " (last line " + std::to_string(lines.back().line) + ")"));
  }
  return x;
}

}  // namespace

std::vector<double> initial_values(node_t n, const GossipSimParams& p) {
  const std::size_t size = static_cast<std::size_t>(n) * static_cast<std::size_t>(p.dim);
  std::vector<double> x(size, 0.0);
  PhiloxStream s(p.seed, gossip_subsequence(GossipStream::init, 0, 0));
  switch (p.init.kind) {
    case InitKind::zero:
      break;
    case InitKind::normal:
      add_normals(s, x, 1.0, x);
      break;
    case InitKind::uniform:
      for (double& value : x) value = s.next_uniform_double();
      break;
    case InitKind::file:
      x = values_from_file(n, p.dim, p.init.path);
      break;
  }
  return x;
}

double initial_spread(std::span<const double> x, int dim) {
  const auto n = static_cast<node_t>(x.size() / static_cast<std::size_t>(dim));
  std::vector<double> xbar(static_cast<std::size_t>(dim));
  gossip_sim_detail::node_average(x, n, dim, xbar);
  return gossip_sim_detail::squared_error(x, n, dim, xbar);
}

namespace gossip_sim_detail {

void node_average(std::span<const double> x, node_t n, int dim, std::span<double> out) {
  for (int k = 0; k < dim; ++k) {
    double sum = 0;
    for (node_t v = 0; v < n; ++v) sum += x[static_cast<std::size_t>(v) * dim + k];
    out[k] = sum / n;
  }
}

double squared_error(std::span<const double> state, node_t n, int dim, std::span<const double> ref) {
  double total = 0;
  for (int k = 0; k < dim; ++k) {
    double sum = 0;
    for (node_t v = 0; v < n; ++v) {
      const double d = state[static_cast<std::size_t>(v) * dim + k] - ref[k];
      sum += d * d;
    }
    total += sum;
  }
  return total / n;
}

}  // namespace gossip_sim_detail

}  // namespace netdp
