"""Graphs and gossip matrices from Python objects (docs/python.md "Graphs and weights").

The engine reads graphs and W from specs (docs/graphs.md). A networkx graph, a scipy.sparse matrix or an edge
array becomes two index arrays (rows, cols) with NumPy, and a matrix given as ``weights`` three (rows, cols,
float64 values); the native module takes them through the buffer protocol, copies them once into netdp's own CSR
(the graph a Matrix Market file of the same entries gives: self-loops dropped, (i, j) and (j, i) one edge; for W
the same stored entries, repeats summed) and registers the result as ``memory:id=K`` (docs/graphs.md "Graphs in
memory") for the length of the call. No file is written and no number formatted as text.
"""

import itertools
import os

import numpy as np

from . import _netdp


def _is_networkx(graph):
    return hasattr(graph, "is_directed") and hasattr(graph, "nodes") and hasattr(graph, "edges")


def _is_sparse(matrix):
    return hasattr(matrix, "tocoo") and hasattr(matrix, "shape")


class Handover:
    """The objects registered for one call (``with Handover() as h:``): removed from the engine's registry when
    the block ends, whatever happens. ``described`` says what each was, for the run's manifest."""

    def __init__(self):
        self.ids, self.described = [], {}

    def __enter__(self):
        return self

    def __exit__(self, *error):
        while self.ids:
            _netdp.unregister_object(self.ids.pop())

    def graph(self, n, rows, cols, what):
        self.ids.append(_netdp.register_graph(n, rows, cols))
        self.described["graph"] = what
        return f"memory:id={self.ids[-1]}"

    def weights(self, n, rows, cols, values, what):
        self.ids.append(_netdp.register_weights(n, rows, cols, values))
        self.described["weights"] = what
        return f"memory:id={self.ids[-1]}"


def _networkx_ends(graph, nodes):
    """The edges of a networkx graph as (rows, cols) of node indices (list(G.nodes()) order), without a Python
    statement per edge."""
    index = {label: i for i, label in enumerate(nodes)}
    ends = np.fromiter(map(index.__getitem__, itertools.chain.from_iterable(graph.edges())), dtype=np.int64,
                       count=2 * graph.number_of_edges())
    return ends[0::2], ends[1::2]


def graph_spec(graph, handover):
    """(spec, nodes): the graph spec the engine reads, and the node labels by index (None when the nodes are
    0..n-1 already). `graph` is a spec string, a path, a networkx graph, a scipy.sparse matrix (its pattern of
    off-diagonal entries) or an array of edges (m x 2 integers, nodes 0..max id); objects are registered with
    `handover`."""
    if isinstance(graph, str):
        return graph, None
    if isinstance(graph, os.PathLike):
        return "file:" + os.fspath(graph), None
    if _is_networkx(graph):
        if graph.is_directed():
            raise ValueError("graph: netdp's graphs are undirected; got a directed networkx graph "
                             "(use G.to_undirected())")
        nodes = list(graph.nodes())
        rows, cols = _networkx_ends(graph, nodes)
        what = f"networkx {type(graph).__name__}: {len(nodes)} nodes, {len(rows)} edges"
        return handover.graph(len(nodes), rows, cols, what), nodes
    if _is_sparse(graph):
        n = graph.shape[0]
        if graph.shape != (n, n):
            raise ValueError(f"graph: an adjacency matrix must be square, got shape {graph.shape}")
        coo = graph.tocoo()
        what = f"scipy.sparse {type(graph).__name__}: {n} x {n}, {coo.nnz} stored entries"
        return handover.graph(n, coo.row, coo.col, what), None
    edges = np.asarray(graph)
    if edges.ndim != 2 or edges.shape[1] != 2 or not np.issubdtype(edges.dtype, np.integer):
        raise ValueError("graph: expected a graph spec, a path, a networkx graph, a scipy.sparse matrix or an "
                         f"m x 2 integer array of edges, got {type(graph).__name__}")
    if edges.size == 0:
        raise ValueError("graph: the edge array is empty")
    if edges.min() < 0:
        raise ValueError("graph: node ids must be >= 0")
    n = int(edges.max()) + 1
    what = f"edge array: {n} nodes, {len(edges)} rows"
    return handover.graph(n, edges[:, 0], edges[:, 1], what), None


def _entries(matrix):
    """(n, rows, cols, values): every stored entry of a square matrix (scipy sparse: explicit zeros included;
    dense: the non-zero entries), values as float64."""
    if _is_sparse(matrix):
        coo = matrix.tocoo()
        shape = coo.shape
        rows, cols, values = coo.row, coo.col, np.asarray(coo.data, dtype=np.float64)
    else:
        dense = np.asarray(matrix, dtype=np.float64)
        shape = dense.shape
        if dense.ndim == 2:
            rows, cols = np.nonzero(dense)
            values = dense[rows, cols]
    n = shape[0]
    if len(shape) != 2 or shape != (n, n):
        raise ValueError(f"weights: expected a scheme name, a path or a square matrix, got shape {shape}")
    return n, rows, cols, values


def weights_spec(weights, handover):
    """The weights parameter's value: a scheme name or file: spec as given, a path as file:PATH, a matrix (scipy
    sparse or dense, rows and columns in the graph's node order) registered with `handover`, used as given."""
    if isinstance(weights, str):
        return weights
    if isinstance(weights, os.PathLike):
        return "file:" + os.fspath(weights)
    n, rows, cols, values = _entries(weights)
    kind = f"scipy.sparse {type(weights).__name__}" if _is_sparse(weights) else "dense matrix"
    return handover.weights(n, rows, cols, values, f"{kind}: {n} x {n}, {len(values)} stored entries")


# Registry parameters whose values name nodes (docs/python.md "Graphs and weights"): source (an index),
# attackers (a list, or all / random:K), start (node:U, uniform or stationary); sources and victims for models
# that take them.
NODE_PARAMETERS = ("source", "sources", "attackers", "victims", "start")


def _node_index(nodes):
    """{label: index}, with each label's text too ("n3", "5") so that a text form (node:n3, "0,1") finds it."""
    index = {label: i for i, label in enumerate(nodes)}
    for label, i in list(index.items()):
        index.setdefault(str(label), i)
    return index


def _is_label(index, value):
    try:
        return value in index
    except TypeError:  # an unhashable value (a list) is not one label
        return False


def _one_node(name, index, value):
    if not _is_label(index, value):
        raise ValueError(f"{name}: {value!r} is not a node of the graph")
    return index[value]


def node_value(name, value, nodes):
    """The engine's value of a node-valued parameter given with the graph's labels (`nodes`: the labels by
    index): a label -> its index; a list of labels -> "i,j,..." (the CLI's list); for start, a label or
    "node:LABEL" -> "node:i"; a keyword of the parameter (all, random:K, uniform, stationary) as given."""
    index = _node_index(nodes)
    if name == "start":
        if _is_label(index, value):
            return f"node:{index[value]}"
        if isinstance(value, str) and value.startswith("node:") and value[5:] in index:
            return f"node:{index[value[5:]]}"
        return value  # uniform, stationary, or a node:U the engine checks
    if _is_label(index, value):  # first: a tuple can be one label (grid_2d_graph's nodes)
        return index[value] if name == "source" else str(index[value])
    if isinstance(value, (list, tuple, np.ndarray)):
        items = value.tolist() if isinstance(value, np.ndarray) else value
        return ",".join(str(_one_node(name, index, v)) for v in items)
    if isinstance(value, str) and name != "source":
        parts = value.split(",")
        known = [p in index for p in parts]
        if all(known):  # "n0,n1": the CLI's comma list, in labels
            return ",".join(str(index[p]) for p in parts)
        if not any(known):
            return value  # all, random:K: the parameter's own keywords (the engine checks them)
        value = parts[known.index(False)]
    raise ValueError(f"{name}: {value!r} is not a node of the graph")


def node_arguments(values, kwargs, nodes, parameters):
    """`values` (by registry name) with every node-valued parameter that the caller gave (kwargs, by Python
    name; `parameters`: {Python name: registry description}) turned from the graph's labels into indices;
    unchanged when the graph has no labels (`nodes` None)."""
    if nodes is None:
        return values
    for key, value in kwargs.items():
        name = parameters[key]["name"] if key in parameters else None
        if name in NODE_PARAMETERS and value is not None:
            values[name] = node_value(name, value, nodes)
    return values
