"""Node-valued parameters in the caller's labels (docs/python.md "Graphs and weights"): with a networkx graph,
source, attackers and start take the graph's labels, as lists, comma text or node:LABEL."""

import json

import networkx as nx
import pytest

import netdp
from netdp import _graphs, _netdp

LABELS = ["n0", "n1", "n2", "n3", "n4"]


def test_every_node_parameter_of_the_registry_is_known():
    # The registry's node-valued parameters, by their help text: a stale NODE_PARAMETERS fails here.
    described = json.loads(_netdp.describe_models())
    naming = {p["name"] for m in described for p in m["parameters"]
              if p["name"] in ("source", "attackers", "start", "sources", "victims")}
    assert naming == {"source", "attackers", "start"}
    assert naming <= set(_graphs.NODE_PARAMETERS)


@pytest.mark.parametrize("name, value, expected", [
    ("source", "n3", 3),
    ("start", "n3", "node:3"),
    ("start", "node:n4", "node:4"),
    ("start", "uniform", "uniform"),
    ("start", "stationary", "stationary"),
    ("attackers", ["n0", "n2"], "0,2"),
    ("attackers", ("n4",), "4"),
    ("attackers", "n1", "1"),
    ("attackers", "n1,n3", "1,3"),
    ("attackers", "all", "all"),
    ("attackers", "random:2", "random:2"),
])
def test_labels_become_indices(name, value, expected):
    assert _graphs.node_value(name, value, LABELS) == expected


def test_tuple_and_integer_labels():
    grid = list(nx.grid_2d_graph(2, 2).nodes())  # (0, 0), (0, 1), (1, 0), (1, 1)
    assert _graphs.node_value("source", (1, 0), grid) == 2
    assert _graphs.node_value("attackers", [(1, 1), (0, 0)], grid) == "3,0"
    shuffled = [7, 3, 5]
    assert _graphs.node_value("attackers", [5, 7], shuffled) == "2,0"
    assert _graphs.node_value("start", "node:3", shuffled) == "node:1"  # the text of label 3


@pytest.mark.parametrize("name, value", [("source", "n9"), ("attackers", ["n0", "zz"]), ("attackers", "n0,zz")])
def test_unknown_labels_are_refused(name, value):
    with pytest.raises(ValueError, match="not a node of the graph"):
        _graphs.node_value(name, value, LABELS)


def test_without_labels_nothing_changes():
    values = {"attackers": "0,1"}
    assert _graphs.node_arguments(values, {"attackers": "0,1"}, None, {}) == {"attackers": "0,1"}


def labelled_path():
    return nx.relabel_nodes(nx.path_graph(5), dict(enumerate(LABELS)))


def test_walk_sim_starts_at_a_label():
    by_label = netdp.walk_sim(labelled_path(), start="n3", steps=2, runs=1, seed=1)
    by_index = netdp.walk_sim("path:n=5", start="node:3", steps=2, runs=1, seed=1)
    assert by_label.summary["start"] == by_index.summary["start"]


def test_attackers_as_labels():
    r = netdp.attack_gossip(labelled_path(), attackers=["n0", "n4"], steps=4)
    table = r.nodes
    attackers = sorted(str(label) for label, a in zip(table["label"], table["attacker"]) if a == 1)
    assert attackers == ["n0", "n4"]
