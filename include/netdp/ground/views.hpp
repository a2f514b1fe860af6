#pragma once
// The ground (docs/design.md "The ground"): non-owning views of the CSR structures the backends read. A view
// is built from any type with the same members (the library's CsrMatrix and Graph, a test's arrays), so the
// backends take W and the graph without knowing the library's classes. The viewed storage must outlive the
// view.
#include <concepts>
#include <cstdint>
#include <span>
#include <utility>

#include "netdp/ground/types.hpp"

namespace netdp {

/// A square sparse matrix in CSR form: offsets (n + 1), columns sorted within each row, values.
struct CsrView {
  node_t n = 0;
  std::span<const offset_t> offsets;
  std::span<const node_t> columns;
  std::span<const double> values;

  CsrView() = default;
  CsrView(node_t size, std::span<const offset_t> o, std::span<const node_t> c, std::span<const double> v)
      : n(size), offsets(o), columns(c), values(v) {}
  template <class M>
  requires requires(const M& m) { m.n, m.offsets.data(), m.columns.data(), m.values.data(); }
  CsrView(const M& m) : n(m.n), offsets(m.offsets), columns(m.columns), values(m.values) {}

  std::int64_t nnz() const { return offsets.empty() ? 0 : offsets.back(); }
};

/// An undirected graph in CSR form: N(u) = adjacency[offsets[u] .. offsets[u + 1]), sorted, u excluded.
struct GraphView {
  node_t n = 0;
  std::span<const offset_t> offsets;
  std::span<const node_t> adjacency;

  GraphView() = default;
  GraphView(node_t size, std::span<const offset_t> o, std::span<const node_t> a)
      : n(size), offsets(o), adjacency(a) {}
  template <class G>
  requires requires(const G& g) { g.n, g.offsets.data(), g.adjacency.data(); }
  GraphView(const G& g) : n(g.n), offsets(g.offsets), adjacency(g.adjacency) {}

  node_t num_nodes() const { return n; }
  std::int64_t num_edges() const { return offsets.empty() ? 0 : offsets.back() / 2; }
  node_t degree(node_t u) const { return static_cast<node_t>(offsets[u + 1] - offsets[u]); }
  std::span<const node_t> neighbors(node_t u) const {
    return adjacency.subspan(static_cast<std::size_t>(offsets[u]), static_cast<std::size_t>(degree(u)));
  }
};

/// One synchronous gossip round: W_t and the graph E_t its messages travel on.
struct RoundView {
  CsrView w;
  GraphView graph;
};

}  // namespace netdp
