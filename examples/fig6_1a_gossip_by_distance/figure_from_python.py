"""Thesis Fig. 6.1a through the Python API (docs/python.md), notebook style: no study file, no CSV parsing.

The same setting as study.toml (Metropolis-Hastings weights, alpha = 2, sigma = 1, T = T_stop, sum over t = 1..T,
losses capped at the LDP level 1): the mean pairwise loss by hop distance on the hypercube (d = 11), the 45 x 45
grid (a networkx graph here: its nodes are (row, column) labels), and five Erdos-Renyi (c = 1) and five random
geometric (r = 0.07) graphs of 2048 nodes, with a band from the smallest to the largest pairwise loss.

    python3 examples/fig6_1a_gossip_by_distance/figure_from_python.py OUT.png            # 2 min 14 s on 2 busy shared cores
    python3 examples/fig6_1a_gossip_by_distance/figure_from_python.py OUT.png --small    # seconds, small graphs

Needs the netdp package (scripts/setup.sh installs it), networkx and matplotlib (Debian packages).
"""
# %% Imports and the figure's setting
import argparse
import sys
from pathlib import Path

import networkx as nx
import numpy as np

import netdp
import netdp.plot as netdp_plot

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # examples/, for plot_common
from plot_common import plt  # noqa: E402

SETTING = dict(accounting="theorem", weights="metropolis", alpha=2, sigma=1, steps="auto", t_start=1, cap="ldp",
               no_matrix=True)  # the figure plots Thm 6.1 (not an upper bound: docs/math.md §6.9)


def graphs(small):
    """{label: [graphs]}: spec strings for the engine's generators, a networkx graph for the grid."""
    if small:
        return {"hypercube (d = 6)": ["hypercube:dim=6"], "grid 8 x 8": [nx.grid_2d_graph(8, 8)],
                "Erdos-Renyi (c = 1)": [f"er:n=64,c=1,seed={s}" for s in (1, 2)],
                "random geometric (r = 0.3)": [f"rgg:n=64,r=0.3,seed={s}" for s in (1, 2)]}
    return {"hypercube (d = 11)": ["hypercube:dim=11"], "grid 45 x 45": [nx.grid_2d_graph(45, 45)],
            "Erdos-Renyi (c = 1, 5 graphs)": [f"er:n=2048,c=1,seed={s}" for s in range(1, 6)],
            "random geometric (r = 0.07, 5 graphs)": [f"rgg:n=2048,r=0.07,seed={s}" for s in range(1, 6)]}


# %% The losses by distance: one gossip_loss call per graph
def curves(small):
    """{label: (distances, mean over graphs of the mean loss, min, max)}."""
    out = {}
    for label, family in graphs(small).items():
        tables = [netdp.gossip_loss(g, **SETTING, device="auto").by_distance for g in family]
        finite = [np.isfinite(t["distance"]) for t in tables]
        distances = sorted(set().union(*(t["distance"][f].tolist() for t, f in zip(tables, finite))))
        rows = [[t for t in tables if d in list(t["distance"])] for d in distances]
        pick = lambda t, d, column: t[column][list(t["distance"]).index(d)]  # noqa: E731
        out[label] = (np.array(distances),
                      np.array([np.mean([pick(t, d, "mean") for t in ts]) for d, ts in zip(distances, rows)]),
                      np.array([min(pick(t, d, "min") for t in ts) for d, ts in zip(distances, rows)]),
                      np.array([max(pick(t, d, "max") for t in ts) for d, ts in zip(distances, rows)]))
    return out


# %% The figure
def draw(data, path):
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for label, (d, mean, low, high) in data.items():
        points = {k: {"mean": m, "min": lo, "max": hi} for k, m, lo, hi in zip(d, mean, low, high)}
        netdp_plot.by_distance(ax, points, label, band_label="")
    ax.axhline(1.0, color="black", ls="--", lw=1, label="LDP level")
    ax.set_yscale("log")
    ax.set_ylim(1e-8, 2)
    ax.set_xlim(0, 50)
    netdp_plot.finish(ax, "shortest-path distance between u and v", "Renyi privacy loss of u towards v (alpha = 2)",
                      "Fig. 6.1a: private gossip averaging, loss by distance (Python API; bands: min to max)")
    fig.tight_layout()
    fig.savefig(path, dpi=150)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("png", help="where to write the figure")
    parser.add_argument("--small", action="store_true", help="small graphs (a quick check)")
    args = parser.parse_args()
    draw(curves(args.small), args.png)
    print(f"wrote {args.png}")
