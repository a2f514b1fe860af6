"""Thesis Fig. 4.3: the ego graph 414 coloured by the number of nodes each node reconstructs as the only attacker
(T = 10), and, middle, one attacker's reconstructed set (Fig. A.3); prints Table 4.1's ego correlations. Right
(netdp, docs/attack.md "Privacy beside reconstruction"): with noise of std sigma added once by every node, the exact
mu of every (attacker, victim) pair by hop distance, next to the fraction of pairs reconstructed.

    build/netdp run examples/fig4_3_ego414_attack/study.toml --out DIR    # from the repository root
    python3 examples/fig4_3_ego414_attack/plot.py DIR [EDGES] [ATTACKER]  # writes DIR/fig4_3.png

Nodes are numbered as netdp numbers lcc=1 graphs (increasing original id, docs/graphs.md). Needs matplotlib,
numpy, networkx.
"""
import csv
import json
import sys
from pathlib import Path

import networkx as nx
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # examples/, for plot_common
from plot_common import plt, save  # noqa: E402


def lcc_graph(path):
    g = nx.read_edgelist(path, nodetype=int)
    keep = sorted(max(nx.connected_components(g), key=len))
    return nx.relabel_nodes(g.subgraph(keep), {old: new for new, old in enumerate(keep)})


def privacy_panel(ax, p):
    """Mean, min and max mu over the (attacker, victim) pairs at each hop distance, the LDP level Delta/sigma, and
    the fraction of those pairs that are reconstructible (exactly the pairs at the LDP level)."""
    rows = [r for r in p["by_distance"] if r["distance"] is not None and r["distance"] > 0]
    d = [r["distance"] for r in rows]
    ax.fill_between(d, [r["mu_min"] for r in rows], [r["mu_max"] for r in rows], alpha=0.2, label="min-max")
    ax.plot(d, [r["mu_mean"] for r in rows], "o-", label="mean exact mu")
    ax.axhline(p["ldp_mu"], color="k", ls="--", label="LDP level Delta/sigma")
    ax.plot(d, [p["ldp_mu"] * r["reconstructible"] / r["pairs"] for r in rows], "s:", color="tab:red",
            label="reconstructed fraction (x LDP)")
    ax.set_xlabel("hop distance attacker -> victim")
    ax.set_ylabel(f"mu (sigma = {p['sigma']:g}, Delta = {p['sensitivity']:g})")
    title = "privacy beside reconstruction"
    if "ldp_epsilon" in p:
        title += f" (LDP eps = {p['ldp_epsilon']:.2f} at delta = {p['delta']:g})"
    ax.set_title(title)
    ax.legend(fontsize=8)


def main(out, edges, attacker):
    unit = f"{out}/ego/p0000/rep-0"
    rows = list(csv.DictReader(open(f"{unit}/attackers.csv")))
    counts = np.array([int(r["reconstructed"]) for r in rows])
    known = np.load(f"{unit}/reconstructible.npy")
    g = lcc_graph(edges)
    pos = nx.spring_layout(g, seed=1)
    fig, (left, right, privacy) = plt.subplots(1, 3, figsize=(18, 5.5))
    drawn = nx.draw_networkx_nodes(g, pos, ax=left, node_color=[counts[v] for v in g], cmap="viridis", node_size=40)
    nx.draw_networkx_edges(g, pos, ax=left, alpha=0.1)
    fig.colorbar(drawn, ax=left, label="nodes reconstructed (T = 10)")
    left.set_title("each node alone as attacker")
    colours = ["tab:red" if v == attacker else "tab:orange" if known[attacker, v] else "lightgrey" for v in g]
    nx.draw_networkx_nodes(g, pos, ax=right, node_color=colours, node_size=40)
    nx.draw_networkx_edges(g, pos, ax=right, alpha=0.1)
    right.set_title(f"attacker {attacker}: {counts[attacker]} nodes reconstructed")
    s = json.load(open(f"{unit}/summary.json"))
    privacy_panel(privacy, s["privacy"])
    save(fig, out, "fig4_3.png")
    c = s["centralities"]
    print("Table 4.1 (ego 414): Spearman degree %.3f, eigenvector %.3f, betweenness %.3f" %
          (c["spearman_degree"], c["spearman_eigenvector"], c["spearman_betweenness"]))
    print("Kendall tau vs distance %.3f +- %.3f, vs communicability %.3f +- %.3f" %
          (c["kendall_distance"]["mean"], c["kendall_distance"]["std"], c["kendall_communicability"]["mean"],
           c["kendall_communicability"]["std"]))
    print("float reduction disagrees for %d of %d attackers" % (s["float"]["disagreements"], len(rows)))
    for r in s["privacy"]["by_distance"]:
        print("distance %s: %d pairs, %d reconstructed, mean mu %.3f" %
              (r["distance"], r["pairs"], r["reconstructible"], r["mu_mean"]))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "data/facebook/414.edges",
         int(sys.argv[3]) if len(sys.argv) > 3 else 0)
