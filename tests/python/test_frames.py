"""Results as typed tables (docs/python.md "Results"): CSV files as pandas DataFrames (NumPy structured arrays
without pandas) with int64 / float64 / str columns, NaN for empty cells, a label column beside node indices;
Result.path, the report of a temporary run, Result.plot()."""

import os
import sys
import types

import networkx as nx
import numpy as np
import pytest

import netdp
from netdp import _frames

try:
    import pandas
except ImportError:
    pandas = None

# Both table kinds where pandas is installed; structured arrays only where it is not.
KINDS = ["structured"] + (["pandas"] if pandas is not None else [])


@pytest.fixture(params=KINDS)
def kind(request, monkeypatch):
    if request.param == "structured":
        monkeypatch.setattr(_frames, "pandas", None)
    return request.param


def column(table, name):
    return np.asarray(table[name])


def columns_of(table):
    return list(table.columns) if pandas is not None and isinstance(table, pandas.DataFrame) else \
        list(table.dtype.names)


def test_a_float_column_of_whole_numbers_stays_float(kind):
    # A ring of 6 nodes after 3 steps: every pairwise loss is 1, written "1.0" by the model (by_distance.csv).
    r = netdp.gossip_loss("ring:n=6", alpha=2, sigma=1, steps=3, no_matrix=True, device="cpu")
    table = r.by_distance
    assert (pandas is not None and isinstance(table, pandas.DataFrame)) == (kind == "pandas")
    assert column(table, "mean").dtype == np.float64 and column(table, "max").dtype == np.float64
    assert list(column(table, "max")) == [1.0, 1.0, 1.0]
    # Counted by hand: each node has 2 nodes at distance 1, 2 at distance 2 and 1 at distance 3.
    assert column(table, "distance").dtype == np.int64 and list(column(table, "distance")) == [1, 2, 3]
    assert column(table, "pairs").dtype == np.int64 and list(column(table, "pairs")) == [12, 12, 6]
    assert r.by_distance["pairs"][2] == 6  # the old dict-of-columns access still works


def test_the_manifests_tables_decide_the_types(tmp_path, kind):
    netdp.gossip_loss("ring:n=6", alpha=2, sigma=1, steps=3, no_matrix=True, device="cpu", out=tmp_path / "run")
    text = (tmp_path / "run" / "by_distance.csv").read_text()
    assert text.splitlines()[1] == "1,12,1.0,1.0,1.0"  # counted above; whole floats spelt as floats
    manifest = netdp.Result("gossip-loss", str(tmp_path / "run"), None, None, "").manifest
    assert manifest["tables"]["by_distance.csv"] == {"distance": "int64", "pairs": "int64", "mean": "float64",
                                                     "min": "float64", "max": "float64"}
    # Declared types win over the look of the cells: a float64 column of "1", a text column of digits.
    (tmp_path / "t").mkdir()
    (tmp_path / "t" / "x.csv").write_text("a,b,c\n1,1,1\n2,2,2\n")
    (tmp_path / "t" / "manifest.json").write_text('{"tables": {"x.csv": {"a": "float64", "b": "text"}}}')
    table = netdp.read_csv(tmp_path / "t" / "x.csv")
    assert column(table, "a").dtype == np.float64 and list(column(table, "b")) == ["1", "2"]
    assert column(table, "c").dtype == np.int64  # not declared: by the look of its cells


def test_without_a_manifest_the_cells_decide(tmp_path, kind):
    path = tmp_path / "by_distance.csv"
    path.write_text("distance,pairs,mean,tiny,worst\n1,12,1.0,1e-300,inf\ninf,2,0.5,2e-300,nan\n")
    table = netdp.read_csv(path)
    assert column(table, "pairs").dtype == np.int64 and column(table, "mean").dtype == np.float64
    distance = column(table, "distance")  # integers and an unreachable "inf": float64
    assert distance.dtype == np.float64 and distance[0] == 1 and np.isinf(distance[1])
    assert column(table, "tiny").dtype == np.float64 and column(table, "worst").dtype == np.float64


def test_empty_cells_are_nan_and_text_stays_text(tmp_path, kind):
    path = tmp_path / "privacy.csv"
    path.write_text("node,distance,mu,epsilon,role\n0,1,0.5,,attacker\n1,,1,,target\n")
    table = netdp.read_csv(path)
    assert column(table, "node").dtype == np.int64
    distance = column(table, "distance")  # an integer column with an empty cell: float64, NaN
    assert distance.dtype == np.float64 and distance[0] == 1 and np.isnan(distance[1])
    assert column(table, "mu").dtype == np.float64  # "0.5" and "1": a float column
    assert np.isnan(column(table, "epsilon")).all()
    assert list(column(table, "role")) == ["attacker", "target"]


def test_a_label_column_beside_node_indices(tmp_path, kind):
    path = tmp_path / "nodes.csv"
    path.write_text("node,reconstructed,error\n1,0.25,0\n0,1,0\n")
    table = netdp.read_csv(path, labels=["alice", "bob"])
    assert columns_of(table) == ["node", "label", "reconstructed", "error"]
    assert list(column(table, "label")) == ["bob", "alice"]
    assert column(table, "reconstructed").dtype == np.float64  # "0.25" and "1": a float column
    two = tmp_path / "pairs.csv"
    two.write_text("u,v,loss\n0,1,0.5\n")
    assert columns_of(netdp.read_csv(two, labels=["a", "b"])) == ["u", "u_label", "v", "v_label", "loss"]


def test_tuple_labels_stay_whole(tmp_path, kind):
    # grid_2d_graph's nodes are (row, column) tuples: one label per cell, not two columns.
    path = tmp_path / "relations.csv"
    path.write_text("relation,node\n0,3\n0,1\n")
    labels = list(nx.grid_2d_graph(2, 2).nodes())
    assert list(column(netdp.read_csv(path, labels=labels), "label")) == [(1, 1), (0, 1)]


def test_networkx_labels_in_per_node_tables(kind):
    # An attack on a path a - b - c - d by its first node: nodes.csv lists every node with its label.
    G = nx.relabel_nodes(nx.path_graph(4), {0: "a", 1: "b", 2: "c", 3: "d"})
    r = netdp.attack_gossip(G, attackers="0", steps=3)
    nodes = r.nodes
    assert column(nodes, "node").dtype == np.int64
    assert [G_label for G_label in column(nodes, "label")] == ["abcd"[i] for i in column(nodes, "node")]
    assert r.node_labels == ["a", "b", "c", "d"]


def test_path_and_report_of_a_kept_and_a_temporary_run(tmp_path):
    kept = netdp.gossip_loss("ring:n=6", steps=3, device="cpu", out=tmp_path / "kept")
    assert kept.path == str(tmp_path / "kept") and os.path.isdir(kept.path)
    assert str(tmp_path / "kept") in kept.report
    temporary = netdp.gossip_loss("ring:n=6", steps=3, device="cpu")
    assert temporary.path is None
    assert "netdp-" not in temporary.report and "(temporary" in temporary.report
    assert isinstance(temporary.summary, dict) and temporary.summary["n"] == 6


@pytest.fixture
def fake_plot(monkeypatch):
    """netdp.plot stood in for by a module that records what plot_result saw (the real one is another part of
    issue 30): the directory's files, read during the call."""
    seen = {}

    def plot_result(directory, out=None, ax=None):
        seen["directory"], seen["out"], seen["ax"] = directory, out, ax
        seen["files"] = sorted(os.listdir(directory))
        seen["loss"] = np.load(os.path.join(directory, "loss.npy"))
        with open(os.path.join(directory, "by_distance.csv"), "rb") as f:
            seen["by_distance"] = f.read()
        return "figure"

    module = types.ModuleType("netdp.plot")
    module.plot_result = plot_result
    monkeypatch.setitem(sys.modules, "netdp.plot", module)
    monkeypatch.setattr(netdp, "plot", module, raising=False)
    return seen


def test_plot_hands_the_run_directory_to_plot_result(tmp_path, fake_plot):
    r = netdp.gossip_loss("ring:n=6", steps=3, device="cpu", out=tmp_path / "run")
    assert r.plot(out="f.png", ax="axes") == "figure"
    assert fake_plot["directory"] == str(tmp_path / "run") and fake_plot["out"] == "f.png"
    assert fake_plot["ax"] == "axes"


def test_plot_of_a_temporary_run_sees_the_same_files(tmp_path, fake_plot):
    kept = netdp.gossip_loss("ring:n=6", steps=3, device="cpu", out=tmp_path / "run")
    temporary = netdp.gossip_loss("ring:n=6", steps=3, device="cpu")
    temporary.plot()
    assert fake_plot["files"] == kept.files
    assert np.array_equal(fake_plot["loss"], kept.loss)
    assert fake_plot["by_distance"] == (tmp_path / "run" / "by_distance.csv").read_bytes()
    assert not os.path.exists(fake_plot["directory"])  # the scratch copy is gone after the call
