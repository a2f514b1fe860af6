// The in-memory registry of graphs and weight matrices (docs/graphs.md "Graphs in memory").
#include "netdp/core/memory_graphs.hpp"

#include <cmath>
#include <limits>
#include <map>
#include <mutex>
#include <utility>
#include <vector>

#include "core/memory_info.hpp"
#include "netdp/core/error.hpp"

namespace netdp {
namespace {

struct Registry {
  std::mutex mutex;
  std::int64_t next = 0;
  std::map<std::int64_t, std::shared_ptr<const Graph>> graphs;
  std::map<std::int64_t, std::shared_ptr<const CsrMatrix>> weights;
};

Registry& registry() {
  static Registry r;
  return r;
}

// n and the lengths, checked before anything is allocated from them.
node_t checked_size(std::int64_t n, std::size_t rows, std::size_t cols, const char* what) {
  if (n < 1) throw InvalidInput(std::string(what) + ": no nodes (the matrix has no rows)");
  if (n >= std::numeric_limits<node_t>::max())
    throw InvalidInput(std::string(what) + ": " + std::to_string(n) + " nodes do not fit 32-bit node ids");
  if (rows != cols)
    throw InvalidInput(std::string(what) + ": " + std::to_string(rows) + " row indices but " +
                       std::to_string(cols) + " column indices");
  return static_cast<node_t>(n);
}

node_t checked_id(std::int64_t id, node_t n, const char* what) {
  if (id < 0 || id >= n)
    throw InvalidInput(std::string(what) + ": index " + std::to_string(id) + " outside the " +
                       std::to_string(n) + " x " + std::to_string(n) + " matrix");
  return static_cast<node_t>(id);
}

template <class Map>
auto find_entry(Map& map, std::int64_t id, const std::string& what) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  auto it = map.find(id);
  if (it == map.end())
    throw InvalidInput(
        what + ": nothing registered as " + std::to_string(id) +
        " in this process (memory: specs come from the Python package, for the length of a call)");
  return it->second;
}

template <class Map, class Object>
std::int64_t insert(Map& map, Object object) {
  auto shared = std::make_shared<const Object>(std::move(object));
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  const std::int64_t id = r.next++;
  map.emplace(id, std::move(shared));
  return id;
}

}  // namespace

Graph graph_from_index_arrays(std::int64_t n, std::span<const std::int64_t> rows,
                              std::span<const std::int64_t> cols) {
  const node_t size = checked_size(n, rows.size(), cols.size(), "graph");
  require_memory(graph_build_bytes(double(size), double(rows.size())),
                 "graph of " + std::to_string(size) + " nodes handed over in memory");
  std::vector<std::pair<node_t, node_t>> edges(rows.size());
  for (std::size_t k = 0; k < rows.size(); ++k)
    edges[k] = {checked_id(rows[k], size, "graph"), checked_id(cols[k], size, "graph")};
  return graph_from_edges(size, edges);  // as the Matrix Market reader: the diagonal dropped, (i,j) = (j,i)
}

CsrMatrix matrix_from_index_arrays(std::int64_t n, std::span<const std::int64_t> rows,
                                   std::span<const std::int64_t> cols, std::span<const double> values) {
  const node_t size = checked_size(n, rows.size(), cols.size(), "weights");
  if (values.size() != rows.size())
    throw InvalidInput("weights: " + std::to_string(rows.size()) + " indices but " +
                       std::to_string(values.size()) + " values");
  require_memory(graph_build_bytes(double(size), 2.0 * double(rows.size())),
                 "weights of " + std::to_string(size) + " nodes handed over in memory");
  std::vector<Triplet> triplets(rows.size());
  for (std::size_t k = 0; k < rows.size(); ++k) {
    if (!std::isfinite(values[k]))
      throw InvalidInput("weights: entry (" + std::to_string(rows[k]) + ", " + std::to_string(cols[k]) +
                         ") = " + std::to_string(values[k]) + " is not finite");
    triplets[k] = {checked_id(rows[k], size, "weights"), checked_id(cols[k], size, "weights"), values[k]};
  }
  return csr_from_triplets(size, std::move(triplets));  // as load_weight_matrix: repeats summed
}

std::int64_t register_memory_graph(Graph g) {
  return insert(registry().graphs, std::move(g));
}

std::int64_t register_memory_weights(CsrMatrix w) {
  return insert(registry().weights, std::move(w));
}

bool unregister_memory_object(std::int64_t id) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  return r.graphs.erase(id) + r.weights.erase(id) > 0;
}

std::shared_ptr<const Graph> memory_graph(std::int64_t id, const std::string& what) {
  return find_entry(registry().graphs, id, what);
}

std::shared_ptr<const CsrMatrix> memory_weights(std::int64_t id, const std::string& what) {
  return find_entry(registry().weights, id, what);
}

std::size_t memory_object_count() {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  return r.graphs.size() + r.weights.size();
}

std::string memory_spec(std::int64_t id) {
  return "memory:id=" + std::to_string(id);
}

}  // namespace netdp
