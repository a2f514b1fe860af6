"""Graphs and gossip matrices from Python objects (docs/python.md "Graphs and weights").

The engine reads graphs from graph specs (docs/graphs.md), and a Matrix Market file is one of them
(``file:PATH.mtx``). A networkx graph, a scipy.sparse matrix or an edge array is written once as such a file in
the run's scratch directory and passed as ``file:...``: the C++ reader then builds the same graph the CLI builds
from the same file, which is what makes Python results equal the CLI's. A matrix given as ``weights`` is written
the same way with every stored entry at 17 significant digits (read back exactly: docs/weights_and_spectra.md).
"""

import os

import numpy as np


def _is_networkx(graph):
    return hasattr(graph, "is_directed") and hasattr(graph, "nodes") and hasattr(graph, "edges")


def _is_sparse(matrix):
    return hasattr(matrix, "tocoo") and hasattr(matrix, "shape")


def _write_pattern(path, n, rows, cols):
    """A Matrix Market pattern file: every stored (i, j), i != j, is an edge (docs/graphs.md "Matrix Market")."""
    with open(path, "w", encoding="ascii") as f:
        f.write("%%MatrixMarket matrix coordinate pattern general\n")
        f.write(f"{n} {n} {len(rows)}\n")
        if len(rows):
            np.savetxt(f, np.column_stack([rows + 1, cols + 1]), fmt="%d")


def _write_values(path, matrix):
    """A Matrix Market real file holding every stored entry of `matrix` exactly (%.17g round-trips a double)."""
    if _is_sparse(matrix):
        coo = matrix.tocoo()
        shape = coo.shape
        rows, cols, vals = coo.row, coo.col, np.asarray(coo.data, dtype=np.float64)
    else:
        dense = np.asarray(matrix, dtype=np.float64)
        shape = dense.shape
        if dense.ndim == 2:
            rows, cols = np.nonzero(dense)
            vals = dense[rows, cols]
    n = shape[0]
    if len(shape) != 2 or shape != (n, n):
        raise ValueError(f"weights: expected a scheme name, a path or a square matrix, got shape {shape}")
    with open(path, "w", encoding="ascii") as f:
        f.write("%%MatrixMarket matrix coordinate real general\n")
        f.write(f"{n} {n} {len(rows)}\n")
        if len(rows):
            table = np.empty(len(rows), dtype=[("i", np.int64), ("j", np.int64), ("w", np.float64)])
            table["i"], table["j"], table["w"] = np.asarray(rows) + 1, np.asarray(cols) + 1, vals
            np.savetxt(f, table, fmt=["%d", "%d", "%.17g"])


def graph_spec(graph, scratch):
    """(spec, nodes): the graph spec the engine reads, and the node labels by index (None when the nodes are
    0..n-1 already). `graph` is a spec string, a path, a networkx graph, a scipy.sparse matrix (its pattern of
    off-diagonal entries) or an array of edges (m x 2 integers, nodes 0..max id)."""
    if isinstance(graph, str):
        return graph, None
    if isinstance(graph, os.PathLike):
        return "file:" + os.fspath(graph), None
    path = os.path.join(scratch, "graph.mtx")
    if _is_networkx(graph):
        if graph.is_directed():
            raise ValueError("graph: netdp's graphs are undirected; got a directed networkx graph "
                             "(use G.to_undirected())")
        nodes = list(graph.nodes())
        index = {label: i for i, label in enumerate(nodes)}
        pairs = np.array([(index[u], index[v]) for u, v in graph.edges() if u != v], dtype=np.int64)
        pairs = pairs.reshape(-1, 2)
        _write_pattern(path, len(nodes), pairs[:, 0], pairs[:, 1])
        return "file:" + path, nodes
    if _is_sparse(graph):
        n = graph.shape[0]
        if graph.shape != (n, n):
            raise ValueError(f"graph: an adjacency matrix must be square, got shape {graph.shape}")
        coo = graph.tocoo()
        _write_pattern(path, n, np.asarray(coo.row, dtype=np.int64), np.asarray(coo.col, dtype=np.int64))
        return "file:" + path, None
    edges = np.asarray(graph)
    if edges.ndim != 2 or edges.shape[1] != 2 or not np.issubdtype(edges.dtype, np.integer):
        raise ValueError("graph: expected a graph spec, a path, a networkx graph, a scipy.sparse matrix or an "
                         f"m x 2 integer array of edges, got {type(graph).__name__}")
    if edges.size == 0:
        raise ValueError("graph: the edge array is empty")
    if edges.min() < 0:
        raise ValueError("graph: node ids must be >= 0")
    edges = edges.astype(np.int64)
    _write_pattern(path, int(edges.max()) + 1, edges[:, 0], edges[:, 1])
    return "file:" + path, None


def weights_spec(weights, scratch):
    """The weights parameter's value: a scheme name or file: spec as given, a path as file:PATH, a matrix (scipy
    sparse or dense, rows and columns in the graph's node order) as a file used as given."""
    if isinstance(weights, str):
        return weights
    if isinstance(weights, os.PathLike):
        return "file:" + os.fspath(weights)
    path = os.path.join(scratch, "weights.mtx")
    _write_values(path, weights)
    return "file:" + path
