"""Thesis Fig. A.2: replicate 0's random geometric graph (n = 50, r = 0.2) after T = 1, 4 and 16 rounds, attackers
{0, 1} red, the nodes both methods reconstruct orange, the nodes only the exact decision reconstructs purple
(the reference's float elimination loses them), the others grey; and, right, the number reconstructed against T,
exact and float, for each of the 20 graphs and on average. Each exact unit also runs the float elimination on the
same knowledge matrix (summary.json `float`, nodes.csv `float_reconstructible`): what `method = "float"` computes
alone (docs/attack.md "Floating-point mode").

    build/netdp run examples/figA_2_rgg_attack_steps/study.toml --out DIR
    python3 examples/figA_2_rgg_attack_steps/plot.py DIR      # writes DIR/figA_2.png

The drawing uses replicate 0's graph with its positions, which this script writes with `netdp graph` (the
program is $NETDP, else build/netdp) into DIR/graph0. Needs matplotlib and networkx.
"""
import csv
import json
import os
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import networkx as nx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # examples/, for plot_common
from plot_common import command_line, plt, save  # noqa: E402
# Paper-specific, drawn here rather than with netdp.plot: exact-only against float nodes on the graph's positions.

STEPS = [1, 2, 4, 8, 12, 16]


def unit(out, point, replicate):
    return f"{out}/rgg/p{point:04d}/rep-{replicate}"


def write_graph(out):
    """DIR/graph0: edges.txt and positions.csv of replicate 0's graph, the draw of its unit's spec."""
    spec = dict(json.load(open(f"{unit(out, 0, 0)}/unit.json"))["arguments"])["graph"]
    netdp = os.environ.get("NETDP", str(Path(__file__).resolve().parents[2] / "build/netdp"))
    subprocess.run([netdp, "graph", "--graph", spec, "--out", f"{out}/graph0", "--diameter-limit", "0"],
                   check=True, stdout=subprocess.DEVNULL)


def positions(out):
    with open(f"{out}/graph0/positions.csv", newline="") as f:
        return {int(r["node"]): (float(r["x"]), float(r["y"])) for r in csv.DictReader(f)}


CLASSES = [("attacker", "tab:red"), ("reconstructed (exact and float)", "tab:orange"),
           ("reconstructed (exact only)", "tab:purple"), ("not reconstructed", "lightgrey")]


def node_class(row):
    if row["attacker"] == "1":
        return 0
    if row["float_reconstructible"] == "1":
        return 1
    return 2 if row["reconstructible"] == "1" else 3


def main(out):
    write_graph(out)
    counts, floats = defaultdict(dict), defaultdict(dict)  # [replicate][T]
    for point, steps in enumerate(STEPS):
        for replicate in range(20):
            s = json.load(open(f"{unit(out, point, replicate)}/summary.json"))
            counts[replicate][steps] = s["reconstructed"]
            floats[replicate][steps] = s["float"]["reconstructed"]
    g = nx.Graph()
    g.add_nodes_from(range(50))  # first, so that g's node order is 0..49, the order of nodes.csv's colours
    lines = Path(f"{out}/graph0/edges.txt").read_text().split("\n")
    g.add_edges_from(tuple(map(int, e.split())) for e in lines if e.strip() and not e.startswith("#"))
    fig, axes = plt.subplots(1, 4, figsize=(19, 4.6))
    for ax, steps in zip(axes, [1, 4, 16]):
        rows = list(csv.DictReader(open(f"{unit(out, STEPS.index(steps), 0)}/nodes.csv")))
        nx.draw(g, positions(out), ax=ax, node_color=[CLASSES[node_class(r)][1] for r in rows], node_size=50,
                edge_color="0.7")
        ax.set_title(f"graph 0 after T = {steps}: {counts[0][steps]} exact, {floats[0][steps]} float", fontsize=10)
    for label, colour in CLASSES:
        axes[0].scatter([], [], color=colour, label=label)
    axes[0].legend(fontsize=7, loc="lower left", framealpha=0.9)
    right = axes[3]
    for replicate in counts:
        right.plot(STEPS, [counts[replicate][t] for t in STEPS], color="tab:purple", alpha=0.15, lw=0.8)
        right.plot(STEPS, [floats[replicate][t] for t in STEPS], color="tab:orange", alpha=0.15, lw=0.8)
    for values, colour, label in ((counts, "tab:purple", "exact (two primes)"),
                                  (floats, "tab:orange", "float (reference tolerances)")):
        right.plot(STEPS, [sum(v[t] for v in values.values()) / len(values) for t in STEPS], "o-", color=colour,
                   lw=2, label=f"{label}, mean of 20 graphs")
    right.plot([], [], color="0.5", alpha=0.5, lw=0.8, label="one graph (thin lines)")
    right.set_xlabel("rounds of gossip seen, T")
    right.set_ylabel("nodes reconstructed (attackers included)")
    right.set_title("reconstruction against T: exact keeps growing after T = 8", fontsize=10)
    right.grid(True, alpha=0.3)
    right.legend(fontsize=8)
    fig.suptitle("Fig. A.2: attackers {0, 1} on random geometric graphs (n = 50, r = 0.2), Metropolis W")
    save(fig, out, "figA_2.png")
    grows = sum(1 for c in counts.values() if c[16] > c[8])
    grows_float = sum(1 for c in floats.values() if c[16] > c[8])
    print(f"graphs where T = 16 reconstructs more than T = 8: {grows} of {len(counts)} exact, {grows_float} float")
    for t in STEPS:
        print(f"T = {t}: mean reconstructed {sum(c[t] for c in counts.values()) / len(counts):.2f} exact, "
              f"{sum(c[t] for c in floats.values()) / len(floats):.2f} float")


if __name__ == "__main__":
    command_line(main, __doc__)
