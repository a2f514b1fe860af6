"""Graphs and gossip matrices from Python objects (docs/python.md "Graphs and weights"): networkx graphs keep
their labels, scipy.sparse matrices and edge arrays give the graphs of the equivalent specs, a matrix given as
weights is used as given."""

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
    r = netdp.gossip_loss("ring:n=8", weights=W, steps=steps, alpha=alpha, sigma=sigma, cap="none", device="cpu")
    # The same matrix written by scipy and read by the netdp program: the same losses, to the bit.
    scipy.io.mmwrite(tmp_path / "W.mtx", W, precision=17)
    run_cli(cli_arguments("gossip-loss", graph="ring:n=8", weights=f"file:{tmp_path / 'W.mtx'}", steps=steps,
                          alpha=alpha, sigma=sigma, cap="none", device="cpu", out=str(tmp_path / "cli")))
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
    metropolis = netdp.gossip_loss("ring:n=8", steps=steps, alpha=alpha, sigma=sigma, cap="none", device="cpu")
    assert not np.allclose(metropolis.loss[off], expected[off], rtol=1e-6)


def test_dense_weights_equal_sparse_weights():
    W = lazy_ring(8)
    a = netdp.gossip_loss("ring:n=8", weights=W, steps=4, device="cpu").loss
    b = netdp.gossip_loss("ring:n=8", weights=W.toarray(), steps=4, device="cpu").loss
    assert a.tobytes() == b.tobytes()
