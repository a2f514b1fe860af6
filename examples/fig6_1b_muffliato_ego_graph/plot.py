"""Thesis Fig. 6.1b / C.4: the ego graph drawn with each node coloured by the loss of source u towards it.

Reads the row of experiment `source` (loss.npy, 1 x n) and the edge list the study used; nodes are numbered as
netdp numbers `lcc=1` graphs (the largest component's original ids in increasing order, docs/graphs.md), so node k
of the drawing is entry k of the row. Layout: networkx spring layout, seed 1.

    build/netdp run examples/fig6_1b_muffliato_ego_graph/study.toml --out DIR     # with data/facebook/414.edges
    python3 examples/fig6_1b_muffliato_ego_graph/plot.py DIR [EDGES]   # writes DIR/fig6_1b.png

EDGES defaults to data/facebook/414.edges. Needs matplotlib, numpy, networkx (apt-get install python3-matplotlib
python3-networkx).
"""
import sys
from pathlib import Path

import networkx as nx
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # examples/, for plot_common
from plot_common import plt, save  # noqa: E402
# Paper-specific, drawn here rather than with netdp.plot: one source's loss row coloured on the ego graph.


def lcc_graph(path):
    """The largest component, relabelled 0..k-1 by increasing original id (netdp's lcc=1 numbering)."""
    g = nx.read_edgelist(path, nodetype=int)
    keep = sorted(max(nx.connected_components(g), key=len))
    return nx.relabel_nodes(g.subgraph(keep), {old: new for new, old in enumerate(keep)})


def main(out, edges):
    row = np.load(f"{out}/source/p0000/rep-0/loss.npy").reshape(-1)
    g = lcc_graph(edges)
    if g.number_of_nodes() != row.size:
        sys.exit(f"{edges}: {g.number_of_nodes()} nodes in the largest component, the loss row has {row.size}")
    u = 0
    pos = nx.spring_layout(g, seed=1)
    fig, ax = plt.subplots(figsize=(6.5, 5.5))
    nx.draw_networkx_edges(g, pos, ax=ax, alpha=0.15, width=0.5)
    nodes = [v for v in g.nodes if v != u]
    sc = nx.draw_networkx_nodes(g, pos, nodelist=nodes, node_color=[row[v] for v in nodes], cmap="viridis",
                                vmin=0, vmax=row.max(), node_size=25, ax=ax)
    nx.draw_networkx_nodes(g, pos, nodelist=[u], node_color="red", node_shape="*", node_size=200, ax=ax)
    fig.colorbar(sc, ax=ax, label="Renyi loss of u towards v (alpha = 1.5; cap 0.2)")
    ax.set_title(f"Fig. 6.1b: Muffliato on ego {Path(edges).stem} (n = {row.size}), source u = {u} (star)")
    ax.axis("off")
    save(fig, out, "fig6_1b.png")


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2] if len(sys.argv) == 3 else "data/facebook/414.edges")
