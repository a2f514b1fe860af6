"""Hand-over of a Python graph to the engine (issue 12, docs/python.md "Graphs and weights"): the old route (a
Matrix Market file written by the old python/netdp/_graphs.py, read by the engine) against the in-memory one.

Usage: PYTHONPATH=build/python python3 benchmarks/python_handover.py OLD_GRAPHS_PY [REPEATS]
with OLD_GRAPHS_PY from `git show 82ea43b:python/netdp/_graphs.py > /tmp/old_graphs.py`. Each timing is one
graph_spec (conversion and hand-over) plus gossip_loss.estimate's graph build in the engine (graph_size, which
builds the graph from the spec once): the whole route up to the graph in netdp's CSR, both ways.
"""

import importlib.util
import json
import shutil
import statistics
import sys
import tempfile
import time

import networkx as nx
import numpy as np
import scipy.sparse as sp

from netdp import _netdp
from netdp._graphs import Handover, graph_spec


def old_route(old, graph):
    scratch = tempfile.mkdtemp(prefix="netdp-bench-")
    try:
        spec, _ = old.graph_spec(graph, scratch)
        return _netdp.estimate_model("gossip-loss", json.dumps({"graph": spec, "steps": 10}))
    finally:
        shutil.rmtree(scratch)


def new_route(graph):
    with Handover() as handover:
        spec, _ = graph_spec(graph, handover)
        return _netdp.estimate_model("gossip-loss", json.dumps({"graph": spec, "steps": 10}))


def timed(run, repeats):
    seconds = []
    for _ in range(repeats):
        start = time.perf_counter()
        result = run()
        seconds.append(time.perf_counter() - start)
    return statistics.median(seconds), min(seconds), result


def main():
    spec = importlib.util.spec_from_file_location("old_graphs", sys.argv[1])
    old = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(old)
    repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    rng = np.random.default_rng(1)
    n, m = 100_000, 1_000_000
    ends = rng.integers(0, n, size=(2, m))
    upper = sp.coo_matrix((np.ones(m), (ends[0], ends[1])), shape=(n, n))
    graphs = {f"scipy csr, n = {n}, {m} random pairs (both directions stored)": (upper + upper.T).tocsr(),
              "networkx gnm_random_graph(20000, 200000)": nx.gnm_random_graph(20_000, 200_000, seed=1)}
    for name, graph in graphs.items():
        old_median, old_min, old_estimate = timed(lambda: old_route(old, graph), repeats)
        new_median, new_min, new_estimate = timed(lambda: new_route(graph), repeats)
        assert old_estimate == new_estimate  # the same graph (the estimate counts its nodes and edges)
        print(f"{name}: file {old_median:.3f} s (min {old_min:.3f}), memory {new_median:.3f} s "
              f"(min {new_min:.3f}), {old_median / new_median:.1f}x")


if __name__ == "__main__":
    main()
