// Graph and weight-matrix files (docs/design.md "Conventions": whitespace-separated `u v [w]`, `#` comments,
// 0-based ids; Matrix Market coordinate files). Files are read whole and parsed with std::from_chars:
// millions of lines are common (SNAP graphs), so no iostreams per token.
#include "netdp/core/graph_io.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/memory_info.hpp"
#include "netdp/core/error.hpp"

namespace netdp {
namespace {

using Edges = std::vector<std::pair<node_t, node_t>>;

std::string read_file(const std::string& path, const char* what) {
  // A directory opens as a stream on Linux and reports a huge size: refuse it by name, not with "out of
  // memory".
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw InvalidInput(std::string(what) + " '" + path + "' is a directory, not a file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InvalidInput(std::string("cannot open ") + what + " '" + path + "'");
  std::string text;
  in.seekg(0, std::ios::end);
  text.resize(static_cast<std::size_t>(std::max<std::streamoff>(0, in.tellg())));
  in.seekg(0);
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  if (!in) throw InvalidInput(std::string("cannot read ") + what + " '" + path + "'");
  return text;
}

// Walks the lines of a file, remembering the current line for error messages.
class LineReader {
 public:
  LineReader(const std::string& path, std::string text) : path_(path), text_(std::move(text)) {}

  bool next(std::string_view& line) {
    if (pos_ >= text_.size()) return false;
    std::size_t end = text_.find('\n', pos_);
    if (end == std::string::npos) end = text_.size();
    line = std::string_view(text_).substr(pos_, end - pos_);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    pos_ = end + 1;
    ++number_;
    current_ = line;
    return true;
  }

  [[noreturn]] void fail(const std::string& what) const {
    throw InvalidInput(path_ + ":" + std::to_string(number_) + ": " + what + " in line \"" +
                       excerpt(current_) + "\"");
  }
  [[noreturn]] void fail_at_end(const std::string& what) const {
    throw InvalidInput(path_ + ":" + std::to_string(number_) + ": " + what + " (end of file)");
  }
  const std::string& path() const { return path_; }
  std::size_t size() const { return text_.size(); }

 private:
  std::string path_, text_;
  std::size_t pos_ = 0;
  std::int64_t number_ = 0;
  std::string_view current_;
};

// Splits on spaces and tabs into at most `max` tokens; returns the count (max + 1 when there are more).
int split(std::string_view line, std::string_view* tokens, int max) {
  int count = 0;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    if (i >= line.size()) break;
    std::size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t') ++i;
    if (count == max) return max + 1;
    tokens[count++] = line.substr(start, i - start);
  }
  return count;
}

std::string_view strip_comment(std::string_view line, char marker) {
  std::size_t hash = line.find(marker);
  return hash == std::string_view::npos ? line : line.substr(0, hash);
}

// A node id token: an integer in [base, 2^31 - 1), returned 0-based.
node_t parse_id(const LineReader& reader, std::string_view token, int base) {
  std::int64_t value = 0;
  auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), value);
  if (ec != std::errc() || end != token.data() + token.size())
    reader.fail("node id '" + excerpt(token, 20) + "' is not an integer");
  if (value < 0) reader.fail("negative node id " + std::to_string(value));
  if (value < base) reader.fail("node id 0 in a 1-based file");
  if (value - base >= std::numeric_limits<node_t>::max())
    reader.fail("node id " + std::to_string(value) + " does not fit 32-bit node ids");
  return static_cast<node_t>(value - base);
}

double parse_weight(const LineReader& reader, std::string_view token) {
  double value = 0;
  auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), value);
  if (ec != std::errc() || end != token.data() + token.size())
    reader.fail("value '" + excerpt(token, 20) + "' is not a number");
  if (!std::isfinite(value)) reader.fail("value '" + std::string(token) + "' is not finite");
  return value;
}

std::int64_t parse_count(const LineReader& reader, std::string_view token, const char* what) {
  std::int64_t value = 0;
  auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), value);
  if (ec != std::errc() || end != token.data() + token.size() || value < 0)
    reader.fail(std::string(what) + " '" + excerpt(token, 20) + "' is not a non-negative integer");
  return value;
}

bool has_mtx_extension(const std::string& path) {
  return std::filesystem::path(path).extension() == ".mtx";
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// With insertion_order, ids are first renumbered by first appearance; the largest component then keeps that
// relative order (it renumbers in increasing id), which is networkx's read_edgelist + subgraph order.
// `base` is added back to each index for the file ids (1 for one-based files).
Graph finish(node_t n, Edges& edges, const EdgeListOptions& options, int base) {
  std::vector<std::int64_t> file_ids;  // the file id of each index, when renumbered
  if (options.insertion_order) {
    std::vector<node_t> rank(static_cast<std::size_t>(n), -1);
    node_t next = 0;
    for (auto& [u, v] : edges) {
      for (node_t* id : {&u, &v}) {
        node_t& r = rank[static_cast<std::size_t>(*id)];
        if (r < 0) {
          r = next++;
          file_ids.push_back(std::int64_t{*id} + base);
        }
        *id = r;
      }
    }
    n = next;
  }
  Graph g = graph_from_edges(n, edges);
  if (options.largest_component) {
    std::vector<node_t> kept;
    g = largest_connected_component(g, &kept);
    if (kept.size() != static_cast<std::size_t>(n) || !file_ids.empty()) {
      std::vector<std::int64_t> ids;
      ids.reserve(kept.size());
      for (node_t old : kept) ids.push_back(file_ids.empty() ? std::int64_t{old} + base : file_ids[old]);
      file_ids = std::move(ids);
    }
  }
  g.file_ids = std::move(file_ids);
  return g;
}

// A Matrix Market coordinate file after its header and size line: entries still to be read from `reader`.
struct MatrixMarket {
  bool pattern = false, symmetric = false;
  node_t n = 0;
  std::int64_t entries = 0;
};

MatrixMarket read_mtx_header(LineReader& reader) {
  std::string_view line, tokens[5];
  if (!reader.next(line)) reader.fail_at_end("empty Matrix Market file");
  if (split(line, tokens, 5) != 5 || lower(tokens[0]) != "%%matrixmarket" || lower(tokens[1]) != "matrix")
    reader.fail("expected the header '%%MatrixMarket matrix coordinate <field> <symmetry>'");
  if (lower(tokens[2]) != "coordinate")
    reader.fail("only 'coordinate' Matrix Market files are supported, not '" + std::string(tokens[2]) + "'");
  MatrixMarket mm;
  std::string field = lower(tokens[3]), symmetry = lower(tokens[4]);
  if (field != "pattern" && field != "real" && field != "integer")
    reader.fail("unsupported field '" + std::string(tokens[3]) + "' (pattern, real or integer)");
  if (symmetry != "general" && symmetry != "symmetric")
    reader.fail("unsupported symmetry '" + std::string(tokens[4]) + "' (general or symmetric)");
  mm.pattern = field == "pattern";
  mm.symmetric = symmetry == "symmetric";
  while (reader.next(line)) {
    if (!line.empty() && line.front() == '%') continue;
    int count = split(line, tokens, 3);
    if (count == 0) continue;
    if (count != 3) reader.fail("expected the size line 'rows columns entries'");
    std::int64_t rows = parse_count(reader, tokens[0], "row count");
    std::int64_t cols = parse_count(reader, tokens[1], "column count");
    mm.entries = parse_count(reader, tokens[2], "entry count");
    if (rows != cols)
      reader.fail("the matrix must be square, got " + std::to_string(rows) + " x " + std::to_string(cols));
    if (rows == 0) reader.fail("the matrix has no rows");
    if (rows >= std::numeric_limits<node_t>::max()) reader.fail("too many rows for 32-bit node ids");
    mm.n = static_cast<node_t>(rows);
    return mm;
  }
  reader.fail_at_end("missing the size line 'rows columns entries'");
}

// Calls visit(i, j, value) for every entry (0-based; value 1 for pattern files).
template <class Visit>
void read_mtx_entries(LineReader& reader, const MatrixMarket& mm, Visit visit) {
  std::string_view line, tokens[3];
  const int expected = mm.pattern ? 2 : 3;
  std::int64_t seen = 0;
  while (reader.next(line)) {
    if (line.empty() || line.front() == '%') continue;
    int count = split(line, tokens, 3);
    if (count == 0) continue;
    if (count != expected)
      reader.fail(mm.pattern ? "expected 'i j' (pattern entry)" : "expected 'i j value'");
    if (++seen > mm.entries)
      reader.fail("more entries than the " + std::to_string(mm.entries) + " announced in the size line");
    node_t i = parse_id(reader, tokens[0], 1), j = parse_id(reader, tokens[1], 1);
    if (i >= mm.n || j >= mm.n)
      reader.fail("entry outside the " + std::to_string(mm.n) + " x " + std::to_string(mm.n) + " matrix");
    visit(i, j, mm.pattern ? 1.0 : parse_weight(reader, tokens[2]));
  }
  if (seen < mm.entries)
    reader.fail_at_end("only " + std::to_string(seen) + " of the " + std::to_string(mm.entries) +
                       " entries announced in the size line");
}

// The most entries the rest of the file can hold: every entry line takes at least 4 bytes ("1 1\n").
std::int64_t max_entries(const LineReader& reader) {
  return std::int64_t(reader.size() / 4) + 1;
}

// A declared size is checked against the memory before anything is allocated from it; the entry count
// only as far as the file can hold entries (a 3-line file declaring 2e9 entries allocates nothing for them).
void require_mtx_memory(const LineReader& reader, const MatrixMarket& mm) {
  require_memory(graph_build_bytes(double(mm.n), double(std::min(mm.entries, max_entries(reader)))),
                 "Matrix Market file '" + reader.path() + "': " + std::to_string(mm.n) + " declared rows");
}

}  // namespace

Graph load_edge_list(const std::string& path, const EdgeListOptions& options) {
  LineReader reader(path, read_file(path, "graph file"));
  const int base = options.one_based ? 1 : 0;
  Edges edges;
  node_t max_id = -1;
  std::string_view line, tokens[3];
  while (reader.next(line)) {
    int count = split(strip_comment(line, '#'), tokens, 3);
    if (count == 0) continue;
    if (count != 2 && count != 3) reader.fail("expected 'u v' or 'u v weight'");
    node_t u = parse_id(reader, tokens[0], base), v = parse_id(reader, tokens[1], base);
    if (count == 3) parse_weight(reader, tokens[2]);  // checked, then unused: weights belong to W
    edges.emplace_back(u, v);
    max_id = std::max({max_id, u, v});
  }
  if (edges.empty()) throw InvalidInput("graph file '" + path + "' has no edges");
  // The node count comes from the largest id, not from the file's size: refuse before allocating per node.
  require_memory(graph_build_bytes(double(max_id) + 1, double(edges.size())),
                 "graph file '" + path + "': node ids up to " + std::to_string(max_id + base) + " (" +
                     std::to_string(max_id + 1) + " nodes)");
  return finish(max_id + 1, edges, options, base);
}

Graph load_matrix_market(const std::string& path, const EdgeListOptions& options) {
  LineReader reader(path, read_file(path, "Matrix Market file"));
  MatrixMarket mm = read_mtx_header(reader);
  require_mtx_memory(reader, mm);
  Edges edges;
  edges.reserve(static_cast<std::size_t>(std::min<std::int64_t>(mm.entries, max_entries(reader))));
  read_mtx_entries(reader, mm, [&](node_t i, node_t j, double) { edges.emplace_back(i, j); });
  return finish(mm.n, edges, options, 1);  // graph_from_edges drops the diagonal and merges (i,j), (j,i)
}

Graph load_matrix_market(const std::string& path, bool largest_component) {
  EdgeListOptions options;
  options.largest_component = largest_component;
  return load_matrix_market(path, options);
}

Graph load_graph_file(const std::string& path, const EdgeListOptions& options) {
  if (!has_mtx_extension(path)) return load_edge_list(path, options);
  if (options.one_based)
    throw InvalidInput("'" + path +
                       "': the one-based option does not apply to Matrix Market files (always 1-based)");
  return load_matrix_market(path, options);
}

CsrMatrix load_weight_matrix(const std::string& path) {
  std::vector<Triplet> triplets;
  if (has_mtx_extension(path)) {
    LineReader reader(path, read_file(path, "weight matrix file"));
    MatrixMarket mm = read_mtx_header(reader);
    require_mtx_memory(reader, mm);
    if (mm.pattern)
      throw InvalidInput("weight matrix file '" + path + "' is a pattern file: it has no values");
    read_mtx_entries(reader, mm, [&](node_t i, node_t j, double w) {
      triplets.push_back({i, j, w});
      if (mm.symmetric && i != j) triplets.push_back({j, i, w});  // symmetric files store one triangle
    });
    return csr_from_triplets(mm.n, std::move(triplets));
  }
  LineReader reader(path, read_file(path, "weight matrix file"));
  node_t max_id = -1;
  std::string_view line, tokens[3];
  while (reader.next(line)) {
    int count = split(strip_comment(line, '#'), tokens, 3);
    if (count == 0) continue;
    if (count != 3) reader.fail("expected 'i j weight'");
    node_t i = parse_id(reader, tokens[0], 0), j = parse_id(reader, tokens[1], 0);
    triplets.push_back({i, j, parse_weight(reader, tokens[2])});
    max_id = std::max({max_id, i, j});
  }
  if (triplets.empty()) throw InvalidInput("weight matrix file '" + path + "' has no entries");
  require_memory(graph_build_bytes(double(max_id) + 1, 2.0 * double(triplets.size())),
                 "weight matrix file '" + path + "': ids up to " + std::to_string(max_id));
  return csr_from_triplets(max_id + 1, std::move(triplets));
}

void write_edge_list(const Graph& g, const std::string& path) {
  std::string text = "# " + std::to_string(g.n) + " " + std::to_string(g.num_edges()) + "\n";
  text.reserve(text.size() + static_cast<std::size_t>(g.num_edges()) * 16);
  char buffer[32];
  for (node_t u = 0; u < g.n; ++u)
    for (node_t v : g.neighbors(u)) {
      if (v <= u) continue;
      // An int32 takes at most 11 characters.
      char* end = std::to_chars(buffer, buffer + 11, u).ptr;
      *end++ = ' ';
      end = std::to_chars(end, end + 11, v).ptr;
      *end++ = '\n';
      text.append(buffer, end);
    }
  // docs/design.md principle 6: never leave a half-written file under the final name.
  const std::string temporary = path + ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (!out) throw InvalidInput("cannot write '" + temporary + "'");
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    out.close();
    if (!out) {
      std::remove(temporary.c_str());
      throw std::runtime_error("error while writing '" + temporary + "'");
    }
  }
  std::error_code ec;
  std::filesystem::rename(temporary, path, ec);
  if (ec) {
    std::remove(temporary.c_str());
    throw std::runtime_error("cannot rename '" + temporary + "' to '" + path + "': " + ec.message());
  }
}

}  // namespace netdp
