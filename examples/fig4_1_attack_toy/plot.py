"""Thesis Fig. 4.1: the toy graph, attackers {0, 1} in red, nodes they reconstruct after T = 3 rounds in orange,
the others (3 and 4) in grey; one panel per T of the study (metropolis weights).

    build/netdp run examples/fig4_1_attack_toy/study.toml --out DIR
    python3 examples/fig4_1_attack_toy/plot.py DIR        # writes DIR/fig4_1.png

Needs matplotlib and networkx.
"""
import json
import sys
from pathlib import Path

import networkx as nx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # examples/, for plot_common
from plot_common import plt, results, save  # noqa: E402


def main(out):
    g = nx.read_edgelist(Path(__file__).with_name("fig4_1.edges"), nodetype=int)
    pos = nx.spring_layout(g, seed=3)
    points = sorted({(row["point"], row["steps"]) for row in results(out)
                     if row.get("weights", "metropolis") == "metropolis"}, key=lambda p: int(p[1]))
    fig, axes = plt.subplots(1, len(points), figsize=(4 * len(points), 4))
    for ax, (point, steps) in zip(axes, points):
        s = json.load(open(f"{out}/toy/{point}/rep-0/summary.json"))
        known = set(s["reconstructible"])
        colours = ["tab:red" if v in s["attackers"] else "tab:orange" if v in known else "lightgrey" for v in g]
        nx.draw(g, pos, ax=ax, node_color=colours, with_labels=True)
        ax.set_title(f"T = {steps}: rank of K_T {s['rank']}, {len(known)} of 12 values known", fontsize=10)
    for label, colour in (("attacker (0, 1)", "tab:red"), ("value reconstructed by the attackers", "tab:orange"),
                          ("value not reconstructed", "lightgrey")):
        axes[0].scatter([], [], color=colour, s=80, label=label)
    fig.legend(loc="lower center", ncol=3, fontsize=9)
    fig.suptitle("Fig. 4.1: which private values two curious nodes compute from T rounds of gossip "
                 "(Metropolis W, exact decision; node labels are node ids)")
    fig.tight_layout(rect=(0, 0.07, 1, 1))
    fig.savefig(f"{out}/fig4_1.png", dpi=150)  # not save(): its tight_layout would drop the legend's margin
    print(f"wrote {out}/fig4_1.png")


if __name__ == "__main__":
    main(sys.argv[1])
