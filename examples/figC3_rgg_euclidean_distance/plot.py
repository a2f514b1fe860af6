"""Thesis Fig. C.3: gossip (Muffliato) loss from source u = 0 on a random geometric graph against the Euclidean
distance of the observer to u (left, log scale), and against the hop distance (right), with the rank correlation
of each: on a random geometric graph the Euclidean distance predicts the loss better than the hop count.

    build/netdp run examples/figC3_rgg_euclidean_distance/study.toml --out DIR
    python3 examples/figC3_rgg_euclidean_distance/plot.py DIR     # writes DIR/figC3.png, DIR/figC3_points.csv

The positions come from `netdp graph --graph SPEC` (positions.csv, the same draw as the study's graph); the
program is $NETDP, else build/netdp. Needs matplotlib and numpy.
"""
import json
import os
import subprocess
import sys
from collections import deque
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # examples/, for plot_common
from plot_common import command_line, plt, save  # noqa: E402
# Paper-specific, drawn here rather than with netdp.plot: loss against Euclidean distance, rank correlations.

ROOT = Path(__file__).resolve().parents[2]


def average_ranks(values):
    """Ranks 0..n-1, ties at their average rank (the hop distances have many)."""
    values = np.asarray(values)
    order = np.argsort(values, kind="stable")
    ranks = np.empty(len(values))
    ranks[order] = np.arange(len(values))
    _, inverse, counts = np.unique(values, return_inverse=True, return_counts=True)
    sums = np.bincount(inverse, weights=ranks)
    return sums[inverse] / counts[inverse]


def spearman(a, b):
    """Spearman's rank correlation: Pearson's on the average ranks."""
    return float(np.corrcoef(average_ranks(a), average_ranks(b))[0, 1])


def hops(n, edges, source):
    neighbours = [[] for _ in range(n)]
    for u, v in edges:
        neighbours[u].append(v)
        neighbours[v].append(u)
    dist = [-1] * n
    dist[source] = 0
    queue = deque([source])
    while queue:
        u = queue.popleft()
        for v in neighbours[u]:
            if dist[v] < 0:
                dist[v] = dist[u] + 1
                queue.append(v)
    return np.array(dist)


def main(out):
    unit = Path(out) / "rgg/p0000/rep-0"
    spec = dict(json.load(open(unit / "unit.json"))["arguments"])["graph"]
    source = json.load(open(unit / "summary.json"))["source"]
    netdp = os.environ.get("NETDP", str(ROOT / "build/netdp"))
    graph_dir = Path(out) / "graph"
    subprocess.run([netdp, "graph", "--graph", spec, "--out", str(graph_dir), "--diameter-limit", "0"],
                   check=True, stdout=subprocess.DEVNULL)
    xy = np.loadtxt(graph_dir / "positions.csv", delimiter=",", skiprows=1)[:, 1:]
    edges = np.loadtxt(graph_dir / "edges.txt", dtype=int, comments="#", ndmin=2)
    loss = np.load(unit / "loss.npy")[0]
    n = len(loss)
    others = np.arange(n) != source
    euclid = np.hypot(*(xy - xy[source]).T)
    hop = hops(n, edges, source)
    rho_e = spearman(euclid[others], loss[others])  # negative: the loss falls with the distance
    rho_h = spearman(hop[others], loss[others])
    with open(Path(out) / "figC3_points.csv", "w") as f:
        f.write("v,euclidean,hops,loss\n")
        for v in np.flatnonzero(others):
            f.write(f"{v},{euclid[v]!r},{hop[v]},{loss[v]!r}\n")

    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2), sharey=True)
    left.scatter(euclid[others], loss[others], s=4, alpha=0.5)
    left.set_xlabel(f"Euclidean distance to node {source}")
    left.set_title(f"Spearman rank correlation {rho_e:.3f}")
    right.scatter(hop[others] + np.random.default_rng(0).uniform(-0.2, 0.2, others.sum()), loss[others], s=4,
                  alpha=0.5, color="C1")
    right.set_xlabel(f"hop distance to node {source} (jittered)")
    right.set_title(f"Spearman rank correlation {rho_h:.3f}")
    left.set_yscale("log")
    left.set_ylabel(f"loss eps({source} -> v), alpha = 2, sigma = 1")
    fig.suptitle(f"Muffliato on {spec}: loss against distance (thesis Fig. C.3)")
    save(fig, out, "figC3.png")
    print(f"Spearman(euclidean, loss) = {rho_e:.4f}, Spearman(hops, loss) = {rho_h:.4f}, "
          f"n = {n}, pairs = {int(others.sum())}, max loss {loss[others].max():.4g}, "
          f"min loss {loss[others].min():.4g}")


command_line(main, __doc__)
