"""Graphs and gossip matrices from Python objects (docs/python.md "Graphs and weights"): networkx graphs keep
their labels, scipy.sparse matrices and edge arrays give the graphs of the equivalent specs, a matrix given as
weights is used as given."""

import os

import networkx as nx
import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp

import netdp
from conftest import cli_arguments, run_cli


def test_networkx_labels_round_trip():
    G = nx.florentine_families_graph()  # the engine's florentine family is numbered in networkx's node order
    r = netdp.gossip_loss(G, steps=5, t_start=1, device="cpu")
    spec = netdp.gossip_loss("florentine", steps=5, t_start=1, device="cpu")
    assert r.loss.tobytes() == spec.loss.tobytes()
    assert r.node_labels == list(G.nodes())
    assert r.node_index["Medici"] == 1
    table = r.labelled()
    assert set(table) == set(G.nodes()) and set(table["Medici"]) == set(G.nodes())
    assert table["Medici"]["Strozzi"] == r.loss[1, 4]
    # A source is a node label; its row is the full matrix's row.
    row = netdp.gossip_loss(G, steps=5, t_start=1, source="Strozzi", device="cpu")
    assert row.loss.shape == (1, 15)
    assert row.loss[0].tobytes() == r.loss[4].tobytes()
    assert row.labelled() == {"Strozzi": table["Strozzi"]}
    with pytest.raises(ValueError, match="'Nobody' is not a node"):
        netdp.gossip_loss(G, steps=5, source="Nobody")


def test_networkx_keeps_isolated_nodes_and_drops_self_loops():
    G = nx.Graph([("a", "b"), ("b", "c"), ("c", "c")])
    G.add_node("lonely")
    r = netdp.graph(G)
    assert r.stats["n"] == 4 and r.stats["edges"] == 2
    assert r.node_labels == ["a", "b", "c", "lonely"]
    assert r.edges.tolist() == [[0, 1], [1, 2]]


def test_directed_networkx_graph_is_refused():
    with pytest.raises(ValueError, match="undirected"):
        netdp.graph(nx.DiGraph([(0, 1)]))


def test_edge_array_and_sparse_adjacency_equal_the_spec():
    ring = np.array([[i, (i + 1) % 8] for i in range(8)])
    expected = netdp.gossip_loss("ring:n=8", steps=6, device="cpu").loss
    assert netdp.gossip_loss(ring, steps=6, device="cpu").loss.tobytes() == expected.tobytes()
    adjacency = sp.coo_matrix((np.ones(16), (np.r_[ring[:, 0], ring[:, 1]], np.r_[ring[:, 1], ring[:, 0]])))
    assert netdp.gossip_loss(adjacency.tocsr(), steps=6, device="cpu").loss.tobytes() == expected.tobytes()
    with pytest.raises(ValueError, match="m x 2 integer array"):
        netdp.gossip_loss(np.zeros((3, 3)), steps=6)


def lazy_ring(n):
    """W = I/2 + (P + P^T)/4 on the ring: symmetric and doubly stochastic, not one of the named schemes."""
    P = sp.diags([np.ones(n - 1)], [1], shape=(n, n)).tolil()
    P[n - 1, 0] = 1
    P = P.tocsr()
    return (0.5 * sp.identity(n) + 0.25 * (P + P.T)).tocsr()


def test_sparse_weights_are_used_as_given(tmp_path):
    n, steps, alpha, sigma = 8, 5, 2.0, 0.8
    W = lazy_ring(n)
    r = netdp.gossip_loss("ring:n=8", weights=W, steps=steps, alpha=alpha, sigma=sigma, accounting="theorem",
                          cap="none", device="cpu")
    # The same matrix written by scipy and read by the netdp program: the same losses, to the bit.
    scipy.io.mmwrite(tmp_path / "W.mtx", W, precision=17)
    run_cli(cli_arguments("gossip-loss", graph="ring:n=8", weights=f"file:{tmp_path / 'W.mtx'}", steps=steps,
                          alpha=alpha, sigma=sigma, accounting="theorem", cap="none", device="cpu",
                          out=str(tmp_path / "cli")))
    assert r.loss.tobytes() == np.load(tmp_path / "cli" / "loss.npy").tobytes()
    # Theorem 6.1 on this W, computed here with dense powers (docs/gossip_loss.md): f(u, v) = alpha/(2 sigma^2)
    # sum_{t=0}^{T-1} sum_{w in N(v)} (W^t)_{wu}^2 / ||row w of W^t||^2.
    Wd = W.toarray()
    expected = np.zeros((n, n))
    power = np.eye(n)
    for _ in range(steps):
        share = power**2 / (power**2).sum(axis=1, keepdims=True)  # share[w, u]
        for v in range(n):
            for w in ((v - 1) % n, (v + 1) % n):
                expected[:, v] += share[w, :]
        power = power @ Wd
    expected *= alpha / (2 * sigma**2)
    off = ~np.eye(n, dtype=bool)
    assert np.allclose(r.loss[off], expected[off], rtol=1e-12, atol=0)
    metropolis = netdp.gossip_loss("ring:n=8", steps=steps, alpha=alpha, sigma=sigma, accounting="theorem",
                                   cap="none", device="cpu")
    assert not np.allclose(metropolis.loss[off], expected[off], rtol=1e-6)


def test_dense_weights_equal_sparse_weights():
    W = lazy_ring(8)
    a = netdp.gossip_loss("ring:n=8", weights=W, steps=4, device="cpu").loss
    b = netdp.gossip_loss("ring:n=8", weights=W.toarray(), steps=4, device="cpu").loss
    assert a.tobytes() == b.tobytes()


def test_objects_cross_in_memory_without_files(tmp_path, monkeypatch):
    """No graph.mtx or weights.mtx any more: the scratch directory only receives the results, and the
    registry's entries are gone after the call, an error included (docs/python.md "Graphs and weights")."""
    import netdp._models as models

    made = []

    def mkdtemp(**kwargs):
        made.append(tmp_path / f"scratch{len(made)}")
        made[-1].mkdir()
        return str(made[-1])

    monkeypatch.setattr(models.tempfile, "mkdtemp", mkdtemp)
    monkeypatch.setattr(models.shutil, "rmtree", lambda *args, **kwargs: None)  # keep the scratch to look
    r = netdp.gossip_loss(nx.florentine_families_graph(), steps=3, device="cpu")
    assert r.manifest["parameters"]["graph"].startswith("memory:id=")
    assert r.manifest["invocation"]["objects"] == {"graph": "networkx Graph: 15 nodes, 20 edges"}
    ring = netdp.gossip_loss("ring:n=8", weights=lazy_ring(8), steps=3, device="cpu")
    assert ring.manifest["parameters"]["weights"].startswith("memory:id=")
    assert ring.manifest["invocation"]["objects"] == {"weights": "scipy.sparse csr_matrix: 8 x 8, 24 stored entries"}
    with pytest.raises(ValueError, match="row 0"):
        netdp.gossip_loss("ring:n=4", weights=sp.identity(4, format="csr") * 0.5, steps=2)
    assert len(made) == 3 and [os.listdir(d) for d in made[:2]] == [["out"], ["out"]]
    assert not list(tmp_path.rglob("*.mtx"))
    assert netdp._netdp.memory_object_count() == 0


def test_large_networkx_graph_converts_to_the_same_edges():
    """200,000 edges of a networkx graph with string labels: the engine's edges are the graph's, mapped to
    indices in list(G.nodes()) order (derived here with NumPy from G's own edge list)."""
    H = nx.gnm_random_graph(20000, 200000, seed=5)
    G = nx.relabel_nodes(H, {u: f"n{(u * 7919) % 20000}" for u in H})  # labels in a shuffled order
    nodes = list(G.nodes())
    index = {label: i for i, label in enumerate(nodes)}
    pairs = np.array([sorted((index[u], index[v])) for u, v in G.edges()])
    expected = np.unique(pairs, axis=0)
    r = netdp.graph(G)
    assert r.node_labels == nodes
    assert r.stats["n"] == 20000 and r.stats["edges"] == 200000
    assert r.edges.tolist() == expected.tolist()


def test_sparse_matrix_and_edge_array_equal_the_cli_on_the_mtx_file(tmp_path):
    """Self-loops and repeated edges in both directions: the graph handed over in memory is the one the CLI reads
    from the same entries as a Matrix Market file, so the losses are equal to the bit."""
    n = 24
    rng = np.random.default_rng(3)
    chords = rng.integers(0, n, size=(40, 2))
    edges = np.vstack([np.column_stack([np.arange(n), (np.arange(n) + 1) % n]), chords, chords[:5, ::-1], [[2, 2]]])
    A = sp.coo_matrix((np.ones(len(edges)), (edges[:, 0], edges[:, 1])), shape=(n, n))
    scipy.io.mmwrite(tmp_path / "g.mtx", A)
    setting = dict(steps=5, t_start=1, device="cpu")
    run_cli(cli_arguments("gossip-loss", graph=f"file:{tmp_path / 'g.mtx'}", **setting, out=str(tmp_path / "cli")))
    expected = np.load(tmp_path / "cli" / "loss.npy").tobytes()
    assert netdp.gossip_loss(A.tocsr(), **setting).loss.tobytes() == expected
    assert netdp.gossip_loss(edges, **setting).loss.tobytes() == expected
