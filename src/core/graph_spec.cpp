// Graph specs `FAMILY:key=value,...` (docs/design.md "Conventions"; families of docs/math.md §2.5).
// parse_graph_spec checks the syntax, the family and the key names; make_graph parses the values and calls
// the generators, which check ranges.
#include "netdp/core/graph_spec.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <numbers>
#include <optional>
#include <vector>

#include "core/memory_info.hpp"
#include "netdp/core/error.hpp"
#include "netdp/core/graph_generators.hpp"
#include "netdp/core/graph_io.hpp"
#include "netdp/core/memory_graphs.hpp"

namespace netdp {
namespace {

class Values;
using Builder = Graph (*)(const Values&);

struct Family {
  std::string_view name;
  std::vector<std::string_view> keys;
  Builder build;
  std::string_view usage;        // keys and defaults
  std::string_view description;  // one line
};

const std::vector<Family>& families();

const Family* find_family(std::string_view name) {
  if (name == "davis") name = "southern-women";
  for (const Family& f : families())
    if (f.name == name) return &f;
  return nullptr;
}

std::string join(const std::vector<std::string_view>& items) {
  std::string out;
  for (auto item : items) out += (out.empty() ? "" : ", ") + std::string(item);
  return out;
}

[[noreturn]] void fail(std::string_view text, const std::string& what) {
  throw InvalidInput("graph spec '" + std::string(text) + "': " + what);
}

// Checks the family and the key names (both parse_graph_spec and make_graph accept hand-built specs).
const Family& check_family_and_keys(const GraphSpec& spec) {
  const Family* family = find_family(spec.family);
  if (!family) {
    std::vector<std::string_view> names;
    for (const Family& f : families()) names.push_back(f.name);
    names.push_back("davis");
    fail(spec.text, "unknown graph family '" + spec.family + "' (known families: " + join(names) + ")");
  }
  for (const auto& [key, value] : spec.params)
    if (std::find(family->keys.begin(), family->keys.end(), key) == family->keys.end())
      fail(spec.text,
           "unknown key '" + key + "' for family '" + spec.family + "' (" +
               (family->keys.empty() ? std::string("it takes no keys") : "keys: " + join(family->keys)) +
               ")");
  return *family;
}

// Typed access to a spec's values; every error names the spec, the key and the value.
class Values {
 public:
  explicit Values(const GraphSpec& spec, const Family& family) : spec_(spec), family_(family) {}

  bool has(const std::string& key) const { return spec_.params.count(key) > 0; }
  const std::string& text(const std::string& key) const {
    auto it = spec_.params.find(key);
    if (it == spec_.params.end())
      fail(spec_.text,
           "missing key '" + key + "' (" + std::string(family_.name) + " keys: " + join(family_.keys) + ")");
    return it->second;
  }

  template <class T>
  T number(const std::string& key, const char* kind) const {
    const std::string& value = text(key);
    T result{};
    auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), result);
    if (ec != std::errc() || end != value.data() + value.size() || value.empty())
      fail(spec_.text, key + "=" + value + " is not " + kind);
    return result;
  }

  node_t int32(const std::string& key) const {
    auto value = number<std::int64_t>(key, "an integer");
    if (value < std::numeric_limits<node_t>::min() || value > std::numeric_limits<node_t>::max())
      fail(spec_.text, key + "=" + text(key) + " does not fit a 32-bit integer");
    return static_cast<node_t>(value);
  }
  double real(const std::string& key) const {
    double value = number<double>(key, "a number");
    if (!std::isfinite(value)) fail(spec_.text, key + "=" + text(key) + " is not finite");
    return value;
  }
  std::uint64_t seed(const std::string& key) const {
    return has(key) ? number<std::uint64_t>(key, "a non-negative 64-bit integer") : 0;
  }
  bool flag(const std::string& key, bool fallback) const {
    if (!has(key)) return fallback;
    const std::string& value = text(key);
    if (value == "1" || value == "true" || value == "yes") return true;
    if (value == "0" || value == "false" || value == "no") return false;
    fail(spec_.text, key + "=" + value + " is not a boolean (0, 1, true, false)");
  }
  [[noreturn]] void error(const std::string& what) const { fail(spec_.text, what); }
  const std::string& spec_text() const { return spec_.text; }

 private:
  const GraphSpec& spec_;
  const Family& family_;
};

Graph build_grid(const Values& v) {
  if (v.has("n")) {
    if (v.has("rows") || v.has("cols")) v.error("give either n (square side) or rows and cols, not both");
    return grid_graph(v.int32("n"), v.int32("n"));
  }
  return grid_graph(v.int32("rows"), v.int32("cols"));
}

Graph build_torus(const Values& v) {
  std::vector<node_t> sides;
  if (v.has("shape")) {
    if (v.has("side") || v.has("dims")) v.error("give either shape or side and dims, not both");
    const std::string& shape = v.text("shape");
    std::size_t start = 0;
    for (;;) {
      std::size_t x = shape.find('x', start);
      std::string_view part = std::string_view(shape).substr(start, x == std::string::npos ? x : x - start);
      node_t side = 0;
      auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), side);
      if (part.empty() || ec != std::errc() || end != part.data() + part.size())
        v.error("shape=" + shape + " is not a list of sides like 4x4x8");
      sides.push_back(side);
      if (x == std::string::npos) break;
      start = x + 1;
    }
  } else {
    node_t dims = v.has("dims") ? v.int32("dims") : 2;
    if (dims < 1 || dims > 64) v.error("dims=" + std::to_string(dims) + " must be in 1..64");
    sides.assign(static_cast<std::size_t>(dims), v.int32("side"));
  }
  return torus_graph(sides);
}

Graph build_er(const Values& v) {
  node_t n = v.int32("n");
  if (v.has("p") == v.has("c")) v.error("give exactly one of p (edge probability) and c (p = c ln(n) / n)");
  double p = 0;
  if (v.has("p")) {
    p = v.real("p");
  } else {
    double c = v.real("c");
    if (c < 0) v.error("c=" + v.text("c") + " must be >= 0");
    // docs/math.md §2.5: q = c ln(n) / n; capped at 1 for tiny n.
    p = n >= 1 ? std::min(1.0, c * std::log(double(n)) / n) : 0.0;
  }
  return erdos_renyi_graph(n, p, v.seed("seed"), v.flag("connected", true));
}

Graph build_file(const Values& v) {
  EdgeListOptions options;
  options.one_based = v.flag("one-based", false);
  options.largest_component = v.flag("lcc", false);
  // docs/math.md §12 item 59: sorted = increasing file id (netdp), insertion = first appearance (networkx).
  const std::string order = v.has("order") ? v.text("order") : "sorted";
  if (order != "sorted" && order != "insertion")
    v.error("order=" + order + " is not sorted (increasing file id) or insertion (first appearance)");
  options.insertion_order = order == "insertion";
  return load_graph_file(v.text("path"), options);
}

// A graph the Python package registered (docs/graphs.md "Graphs in memory"): a copy of it.
Graph build_memory(const Values& v) {
  return *memory_graph(v.number<std::int64_t>("id", "an integer"),
                       "graph spec '" + excerpt(v.spec_text()) + "'");
}

// A family whose only key is n.
template <Graph (*generator)(node_t)>
Graph build_n(const Values& v) {
  return generator(v.int32("n"));
}
// A named graph, without keys.
template <Graph (*generator)()>
Graph build_named(const Values&) {
  return generator();
}
Graph build_hypercube(const Values& v) {
  return hypercube_graph(v.int32("dim"));
}
Graph build_rgg(const Values& v) {
  return random_geometric_graph(v.int32("n"), v.real("r"), v.seed("seed"));
}
Graph build_regular(const Values& v) {
  return random_regular_graph(v.int32("n"), v.int32("d"), v.seed("seed"));
}

// A '/'-separated list of numbers (sizes=50/50/50, p_in=0.25/0.35/0.4); `what` names the expected items.
template <class T>
std::vector<T> slash_list(const Values& v, const std::string& key, const char* what) {
  const std::string& text = v.text(key);
  std::vector<T> items;
  for (std::size_t start = 0;;) {
    const std::size_t slash = text.find('/', start);
    const std::string_view part =
        std::string_view(text).substr(start, slash == std::string::npos ? slash : slash - start);
    T item{};
    auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), item);
    if (part.empty() || ec != std::errc() || end != part.data() + part.size())
      v.error(key + "=" + text + " is not " + what);
    items.push_back(item);
    if (slash == std::string::npos) return items;
    start = slash + 1;
  }
}

std::vector<node_t> block_sizes(const Values& v) {
  return slash_list<node_t>(v, "sizes", "a list of block sizes like 50/50/50");
}

Graph build_sbm(const Values& v) {
  return stochastic_block_graph(
      block_sizes(v), slash_list<double>(v, "p_in", "a probability or a list like 0.3/0.4"),
      slash_list<double>(v, "p_out", "a probability or a list like 0.05/0.02/0.07"), v.seed("seed"));
}

const std::vector<Family>& families() {
  // clang-format off
  static const std::vector<Family> table = {
    {"complete",       {"n"},                               build_n<complete_graph>,
     "complete:n=N",                          "complete graph K_n"},
    {"ring",           {"n"},                               build_n<ring_graph>,
     "ring:n=N",                              "cycle 0-1-...-(n-1)-0"},
    {"path",           {"n"},                               build_n<path_graph>,
     "path:n=N",                              "path 0-1-...-(n-1)"},
    {"star",           {"n"},                               build_n<star_graph>,
     "star:n=N",                              "centre 0 and leaves 1..n-1"},
    {"grid",           {"rows", "cols", "n"},               build_grid,
     "grid:rows=R,cols=C | n=S",              "2-D grid (n = side of a square), node r*C+c"},
    {"torus",          {"side", "dims", "shape"},           build_torus,
     "torus:side=S[,dims=2] | shape=4x4x8",   "C-dimensional torus, row-major numbering"},
    {"hypercube",      {"dim"},                             build_hypercube,
     "hypercube:dim=D",                       "2^D nodes, edges at Hamming distance 1"},
    {"exponential",    {"n"},                               build_n<exponential_graph>,
     "exponential:n=N",                       "i ~ i +- 2^k mod n (Ying et al.)"},
    {"er",             {"n", "p", "c", "seed", "connected"}, build_er,
     "er:n=N,p=P|c=C[,seed=0][,connected=1]", "Erdos-Renyi G(n, p), p = c ln(n)/n; redrawn until connected"},
    {"rgg",            {"n", "r", "seed"},                  build_rgg,
     "rgg:n=N,r=R[,seed=0]",                  "random geometric graph in the unit square"},
    {"regular",        {"n", "d", "seed"},                  build_regular,
     "regular:n=N,d=D[,seed=0]",              "random d-regular graph"},
    {"sbm",            {"sizes", "p_in", "p_out", "seed"},  build_sbm,
     "sbm:sizes=A/B/..,p_in=P,p_out=Q[,seed=0]", "stochastic block model: G(size, p_in) blocks, p_out across "
                                                 "(P, Q: one value or one per block / block pair)"},
    {"florentine",     {},                                  build_named<florentine_families_graph>,
     "florentine",                            "Padgett's Florentine families (15 nodes, 20 edges)"},
    {"southern-women", {},                                  build_named<southern_women_graph>,
     "southern-women | davis",                "Davis Southern Women (18 women + 14 events, 89 edges)"},
    {"file",           {"path", "one-based", "lcc", "order"}, build_file,
     "file:PATH[,one-based=0][,lcc=0][,order=sorted]",
     "edge list `u v [w]`, or Matrix Market when PATH ends in .mtx"},
    {"memory",         {"id"},                              build_memory,
     "memory:id=K",                           "a graph handed over by the Python package (Python only)"},
  };
  // clang-format on
  return table;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// Position of the first ",key=" in `s` (key: letters, digits, '-', '_'), or npos.
std::size_t find_key_suffix(std::string_view s) {
  for (std::size_t comma = s.find(','); comma != std::string_view::npos; comma = s.find(',', comma + 1)) {
    std::size_t i = comma + 1;
    while (i < s.size() && (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '-' || s[i] == '_'))
      ++i;
    if (i > comma + 1 && i < s.size() && s[i] == '=') return comma;
  }
  return std::string_view::npos;
}

void parse_key_values(std::string_view list, GraphSpec& spec) {
  std::size_t start = 0;
  for (;;) {
    std::size_t comma = list.find(',', start);
    std::string_view item = trim(list.substr(start, comma == std::string_view::npos ? comma : comma - start));
    std::size_t eq = item.find('=');
    if (item.empty()) fail(spec.text, "empty item (stray comma?)");
    if (eq == std::string_view::npos || eq == 0)
      fail(spec.text, "expected key=value, got '" + std::string(item) + "'");
    std::string key(trim(item.substr(0, eq))), value(trim(item.substr(eq + 1)));
    if (value.empty()) fail(spec.text, "key '" + key + "' has an empty value");
    if (!spec.params.emplace(key, value).second) fail(spec.text, "key '" + key + "' is given twice");
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
}

}  // namespace

GraphSpec parse_graph_spec(std::string_view text) {
  GraphSpec spec;
  spec.text = std::string(text);
  std::string_view body = trim(text);
  if (body.empty()) fail(text, "empty graph spec (expected FAMILY:key=value,...)");
  std::size_t colon = body.find(':');
  spec.family = std::string(trim(body.substr(0, colon)));
  if (spec.family.empty()) fail(text, "missing the family name before ':'");
  std::string_view rest = colon == std::string_view::npos ? std::string_view() : body.substr(colon + 1);
  if (spec.family == "file") {
    // The path may contain ',' and '=': it runs up to the first ",key=".
    std::size_t suffix = find_key_suffix(rest);
    std::string_view path = rest.substr(0, suffix);
    if (path.empty()) fail(text, "file needs a path: file:PATH[,one-based=1][,lcc=1][,order=insertion]");
    spec.params["path"] = std::string(path);
    if (suffix != std::string_view::npos) parse_key_values(rest.substr(suffix + 1), spec);
  } else if (colon != std::string_view::npos && !trim(rest).empty()) {
    parse_key_values(rest, spec);
  }
  check_family_and_keys(spec);
  return spec;
}

std::optional<PlannedGraph> planned_graph_size(const GraphSpec& spec) {
  const Family& family = check_family_and_keys(spec);
  const Values v(spec, family);
  const std::string_view name = family.name;
  try {
    const auto n_key = [&](const char* key) { return double(v.int32(key)); };
    if (name == "complete") return PlannedGraph{n_key("n"), n_key("n") * (n_key("n") - 1) / 2};
    if (name == "ring" || name == "path" || name == "star") return PlannedGraph{n_key("n"), n_key("n")};
    if (name == "grid") {
      const double rows = v.has("n") ? n_key("n") : n_key("rows"), cols = v.has("n") ? rows : n_key("cols");
      return PlannedGraph{rows * cols, 2 * rows * cols};
    }
    if (name == "torus" && !v.has("shape")) {
      const double dims = v.has("dims") ? n_key("dims") : 2, nodes = std::pow(n_key("side"), dims);
      return PlannedGraph{nodes, dims * nodes};
    }
    if (name == "hypercube") {
      const double dim = n_key("dim"), nodes = std::ldexp(1.0, int(std::clamp(dim, 0.0, 1023.0)));
      return PlannedGraph{nodes, dim * nodes / 2};
    }
    if (name == "exponential")
      return PlannedGraph{n_key("n"), n_key("n") * std::ceil(std::log2(std::max(2.0, n_key("n"))))};
    // Random families: the expected edge count with a margin of 10 % (a draw beyond it is vanishingly rare
    // at the sizes where memory matters); docs/math.md §2.5.
    if (name == "er") {
      const double n = n_key("n");
      const double p = v.has("p") ? v.real("p") : std::min(1.0, v.real("c") * std::log(std::max(n, 1.0)) / n);
      return PlannedGraph{n, 1.1 * std::clamp(p, 0.0, 1.0) * n * (n - 1) / 2};
    }
    if (name == "rgg") {
      const double n = n_key("n"), r = v.real("r");
      return PlannedGraph{n, 1.1 * std::min(1.0, std::numbers::pi * r * r) * n * (n - 1) / 2};
    }
    if (name == "sbm") {
      const std::vector<node_t> sizes = block_sizes(v);
      double nodes = 0, inside = 0, across = 0;
      for (node_t size : sizes) {
        across += double(size) * nodes;  // pairs with the blocks before this one
        inside += double(size) * (double(size) - 1) / 2;
        nodes += double(size);
      }
      // The largest probability of each kind: an upper bound when they differ per block.
      const auto largest = [&](const char* key) {
        const std::vector<double> p = slash_list<double>(v, key, "a probability");
        return std::clamp(*std::max_element(p.begin(), p.end()), 0.0, 1.0);
      };
      return PlannedGraph{nodes, 1.1 * (largest("p_in") * inside + largest("p_out") * across)};
    }
    if (name == "regular") return PlannedGraph{n_key("n"), n_key("n") * double(v.int32("d")) / 2};
    if (name == "memory") {  // its exact size, without a copy (jobs::graph_size builds small graphs only)
      const auto g =
          memory_graph(v.number<std::int64_t>("id", "an integer"), "graph spec '" + excerpt(spec.text) + "'");
      return PlannedGraph{double(g->n), double(g->num_edges())};
    }
  } catch (const InvalidInput&) {
    // a bad key: the builder refuses it with its own message
  }
  return std::nullopt;  // files (their readers check as they read), named graphs, shapes
}

Graph make_graph(const GraphSpec& spec) {
  const Family& family = check_family_and_keys(spec);
  // Refuse before building (docs/reliability.md §2): complete:n=100000 would need 5e9 edges.
  if (const auto size = planned_graph_size(spec); size && size->nodes > 0 && size->edges >= 0)
    require_memory(graph_build_bytes(size->nodes, size->edges), "graph '" + excerpt(spec.text) + "'");
  return family.build(Values(spec, family));
}

Graph make_graph(std::string_view text) {
  return make_graph(parse_graph_spec(text));
}

std::vector<double> graph_positions(const GraphSpec& spec) {
  const Family& family = check_family_and_keys(spec);
  std::vector<double> positions;
  if (family.name == "rgg") {
    const Values v(spec, family);
    random_geometric_graph(v.int32("n"), v.real("r"), v.seed("seed"), &positions);
  }
  return positions;
}

std::string graph_families_help() {
  std::size_t width = 0;
  for (const Family& f : families()) width = std::max(width, f.usage.size());
  std::string help;
  for (const Family& f : families())
    help += std::string(f.usage) + std::string(width + 2 - f.usage.size(), ' ') + std::string(f.description) +
            "\n";
  return help;
}

}  // namespace netdp
