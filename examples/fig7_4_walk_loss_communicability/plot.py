"""Thesis Fig. 7.4 / D.3 / D.4: walk privacy-loss matrix next to the communicability exp(W), and each node's mean
loss against its eigenvector centrality (the "Katz" panel: the reference code uses eigenvector centrality).

The loss matrix is the study's loss.npy; W (Metropolis-Hastings, docs/math.md §2.1) and exp(W) are recomputed here
from the edge list, numbered as netdp numbers `lcc=1` graphs (increasing original id, docs/graphs.md), for the
comparison only.

    build/netdp run examples/fig7_4_walk_loss_communicability/study.toml --out DIR   # with data/facebook/414.edges
    python3 examples/fig7_4_walk_loss_communicability/plot.py DIR [EDGES]            # writes DIR/fig7_4.png

EDGES defaults to data/facebook/414.edges. Needs matplotlib, numpy, networkx.
"""
import sys
from pathlib import Path

import networkx as nx
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # examples/, for plot_common
from plot_common import plt, save  # noqa: E402


def lcc_graph(path):
    """The largest component, relabelled 0..k-1 by increasing original id (netdp's lcc=1 numbering)."""
    g = nx.read_edgelist(path, nodetype=int)
    keep = sorted(max(nx.connected_components(g), key=len))
    return nx.relabel_nodes(g.subgraph(keep), {old: new for new, old in enumerate(keep)})


def metropolis(g):
    n = g.number_of_nodes()
    w = np.zeros((n, n))
    for u, v in g.edges():
        w[u, v] = w[v, u] = 1.0 / (1 + max(g.degree(u), g.degree(v)))
    w[np.diag_indices(n)] = 1.0 - w.sum(axis=1)
    return w


def main(out, edges):
    loss = np.load(f"{out}/ego/p0000/rep-0/loss.npy")
    g = lcc_graph(edges)
    n = loss.shape[0]
    if g.number_of_nodes() != n:
        sys.exit(f"{edges}: {g.number_of_nodes()} nodes in the largest component, loss.npy has {n}")
    lam, vec = np.linalg.eigh(metropolis(g))
    comm = (vec * np.exp(lam)) @ vec.T
    np.fill_diagonal(comm, 0.0)
    off = ~np.eye(n, dtype=bool)
    centrality = nx.eigenvector_centrality_numpy(g)
    mean_loss = loss.sum(axis=1) / (n - 1)

    fig, axes = plt.subplots(1, 3, figsize=(14, 4.3))
    with np.errstate(divide="ignore"):
        a = axes[0].imshow(np.where(off, np.log(loss), np.nan), cmap="viridis")
        b = axes[1].imshow(np.where(off, np.log2(comm), np.nan), cmap="viridis")
    fig.colorbar(a, ax=axes[0], label="ln eps(u -> v)")
    fig.colorbar(b, ax=axes[1], label="log2 communicability exp(W)")
    axes[0].set_title("walk privacy loss (Thm 7.7)")
    axes[1].set_title("communicability (zero diagonal)")
    for ax in axes[:2]:
        ax.set_xlabel("observer v")
        ax.set_ylabel("source u")
    r = np.corrcoef(np.log(loss[off]), np.log(np.maximum(comm[off], 1e-300)))[0, 1]
    axes[2].scatter([centrality[v] for v in range(n)], mean_loss, s=8)
    axes[2].set_xlabel("eigenvector centrality of u")
    axes[2].set_ylabel("mean loss of u over observers")
    axes[2].set_title(f"mean loss vs centrality (log-log corr. loss/comm. {r:.2f})", fontsize=9)
    fig.suptitle(f"Fig. 7.4: ego {Path(edges).stem} (n = {n}), alpha = 2, sigma = 10, T = T_RW")
    save(fig, out, "fig7_4.png")


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2] if len(sys.argv) == 3 else "data/facebook/414.edges")
