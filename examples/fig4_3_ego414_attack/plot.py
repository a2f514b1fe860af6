"""Thesis Fig. 4.3 / A.3 and Table 4.1 / A.1 (ego column), exact and floating-point side by side. Top left: the ego
graph 414 coloured by the number of nodes each node reconstructs as the only attacker (T = 10, exact). Top right:
one attacker's reconstructed set (Fig. A.3), the nodes only the exact decision finds in their own colour. Bottom
left (netdp, docs/attack.md "Privacy beside reconstruction"): with noise of std sigma added once by every node, the
exact mu of every (attacker, victim) pair by hop distance, next to the fraction of pairs reconstructed. Bottom
right: every attacker's count, exact against the reference code's float elimination (experiment ego_float).
Prints Table 4.1 / A.1's ego correlations for both methods next to the thesis' values.

    build/netdp run examples/fig4_3_ego414_attack/study.toml --out DIR    # from the repository root
    python3 examples/fig4_3_ego414_attack/plot.py DIR [EDGES] [ATTACKER]  # writes DIR/fig4_3.png

EDGES defaults to data/facebook/414.edges; ATTACKER (top right) to the attacker whose floating-point set loses the
most nodes. Nodes are numbered as netdp numbers lcc=1 graphs (increasing original id,
docs/graphs.md). Needs matplotlib, numpy, networkx.
"""
import csv
import json
import sys
from pathlib import Path

import networkx as nx
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # examples/, for plot_common
from plot_common import plt, save  # noqa: E402
# Paper-specific, drawn here rather than with netdp.plot: centrality colours, exact-only nodes, exact/float scatter.


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


def method_panel(ax, exact, floating):
    """Nodes reconstructed by each attacker, exact against the reference's floating-point elimination."""
    top = max(exact.max(), floating.max()) + 5
    ax.plot([0, top], [0, top], "k--", lw=0.8, label="same count")
    ax.scatter(exact, floating, s=12, alpha=0.6, label=f"an attacker ({len(exact)} in all)")
    ax.set_xlabel("nodes reconstructed, exact (two primes)")
    ax.set_ylabel("nodes reconstructed, float (method float)")
    differ = int(np.sum(exact != floating))
    ax.set_title(f"exact against float elimination, T = 10: {differ} of {len(exact)} attackers differ\n"
                 f"(mean {exact.mean():.1f} exact, {floating.mean():.1f} float)", fontsize=10)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)


def correlations(summary):
    c = summary["centralities"]
    return (c["spearman_degree"], c["spearman_eigenvector"], c["spearman_betweenness"],
            c["kendall_distance"]["mean"], c["kendall_distance"]["std"], c["kendall_communicability"]["mean"],
            c["kendall_communicability"]["std"])


def main(out, edges, attacker):
    unit, unit_float = f"{out}/ego/p0000/rep-0", f"{out}/ego_float/p0000/rep-0"
    rows = list(csv.DictReader(open(f"{unit}/attackers.csv")))
    counts = np.array([int(r["reconstructed"]) for r in rows])
    counts_float = np.array([int(r["reconstructed"]) for r in csv.DictReader(open(f"{unit_float}/attackers.csv"))])
    known = np.load(f"{unit}/reconstructible.npy")
    known_float = np.load(f"{unit_float}/reconstructible.npy")
    if attacker is None:  # the attacker that float elimination costs the most nodes
        attacker = int(np.argmax(counts - counts_float))
    g = lcc_graph(edges)
    pos = nx.spring_layout(g, seed=1)
    fig, axes = plt.subplots(2, 2, figsize=(14, 12))
    (left, right), (privacy, methods) = axes
    drawn = nx.draw_networkx_nodes(g, pos, ax=left, node_color=[counts[v] for v in g], cmap="viridis", node_size=40)
    nx.draw_networkx_edges(g, pos, ax=left, alpha=0.1)
    fig.colorbar(drawn, ax=left, label="nodes it reconstructs alone (exact, T = 10)")
    left.set_title("each node of ego 414 alone as attacker (Fig. 4.3)")
    # Four classes for one attacker: the attacker, the nodes both methods reconstruct, the nodes only the exact
    # decision finds (float elimination loses them), the rest.
    classes = [("attacker", "tab:red"), ("reconstructed (exact and float)", "tab:orange"),
               ("reconstructed (exact only)", "tab:purple"), ("not reconstructed", "lightgrey")]

    def kind(v):
        return 0 if v == attacker else 1 if known_float[attacker, v] else 2 if known[attacker, v] else 3
    nx.draw_networkx_nodes(g, pos, ax=right, node_color=[classes[kind(v)][1] for v in g], node_size=40)
    nx.draw_networkx_edges(g, pos, ax=right, alpha=0.1)
    for label, colour in classes:
        right.scatter([], [], color=colour, label=label)
    right.legend(fontsize=8, loc="lower right")
    right.set_title(f"attacker {attacker} (Fig. A.3): {counts[attacker]} nodes exact, {counts_float[attacker]} float")
    s = json.load(open(f"{unit}/summary.json"))
    privacy_panel(privacy, s["privacy"])
    method_panel(methods, counts, counts_float)
    fig.suptitle("Gossip reconstruction attack on Facebook ego 414 (148 nodes), every node alone as attacker, "
                 "T = 10, Metropolis W")
    save(fig, out, "fig4_3.png")
    s_float = json.load(open(f"{unit_float}/summary.json"))
    print("Table 4.1 / A.1 (ego 414)    exact           float           thesis")
    thesis = (0.94, 0.64, 0.66, -0.51, 0.13, 0.08, 0.35)
    e, f = correlations(s), correlations(s_float)
    for i, name in enumerate(("Spearman degree", "Spearman eigenvector", "Spearman betweenness")):
        print(f"{name:28s} {e[i]:6.3f}          {f[i]:6.3f}          {thesis[i]:5.2f}")
    for i, name in ((3, "Kendall distance"), (5, "Kendall communicability")):
        print(f"{name:28s} {e[i]:6.3f} +- {e[i + 1]:.3f} {f[i]:6.3f} +- {f[i + 1]:.3f} {thesis[i]:5.2f} +- "
              f"{thesis[i + 1]:.2f}")
    print("nodes reconstructed per attacker: exact %.1f, float %.1f; float differs for %d of %d attackers" %
          (counts.mean(), counts_float.mean(), np.sum(counts != counts_float), len(rows)))
    for r in s["privacy"]["by_distance"]:
        print("distance %s: %d pairs, %d reconstructed, mean mu %.3f" %
              (r["distance"], r["pairs"], r["reconstructible"], r["mu_mean"]))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "data/facebook/414.edges",
         int(sys.argv[3]) if len(sys.argv) > 3 else None)
