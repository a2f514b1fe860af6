"""Thesis Fig. A.2: replicate 0's random geometric graph (n = 50, r = 0.2) after T = 1, 4 and 8 rounds, attackers
{0, 1} red, reconstructed nodes purple, the others green; and, right, the number reconstructed against T for each
of the 20 graphs (it stops growing: more rounds add nothing once the Krylov space is full).

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


def main(out):
    write_graph(out)
    counts = defaultdict(dict)  # counts[replicate][T]
    for point, steps in enumerate(STEPS):
        for replicate in range(20):
            s = json.load(open(f"{unit(out, point, replicate)}/summary.json"))
            counts[replicate][steps] = s["reconstructed"]
    fig, axes = plt.subplots(1, 4, figsize=(17, 4))
    for ax, steps in zip(axes, [1, 4, 8]):
        rows = list(csv.DictReader(open(f"{unit(out, STEPS.index(steps), 0)}/nodes.csv")))
        colours = ["tab:red" if r["attacker"] == "1" else "tab:purple" if r["reconstructible"] == "1"
                   else "tab:green" for r in rows]
        g = nx.Graph()
        g.add_nodes_from(range(len(rows)))
        lines = Path(f"{out}/graph0/edges.txt").read_text().split("\n")
        g.add_edges_from(tuple(map(int, e.split())) for e in lines if e.strip() and not e.startswith("#"))
        nx.draw(g, positions(out), ax=ax, node_color=colours, node_size=60)
        ax.set_title(f"T = {steps}: {counts[0][steps]} reconstructed")
    for replicate, by_steps in counts.items():
        axes[3].plot(STEPS, [by_steps[t] for t in STEPS], color="tab:blue", alpha=0.4)
    axes[3].set_xlabel("T")
    axes[3].set_ylabel("nodes reconstructed (attackers included)")
    save(fig, out, "figA_2.png")
    grows = sum(1 for c in counts.values() if c[16] > c[8])
    print(f"graphs where T = 16 reconstructs more than T = 8: {grows} of {len(counts)}")
    for t in STEPS:
        print(f"T = {t}: mean reconstructed {sum(c[t] for c in counts.values()) / len(counts):.2f}")


if __name__ == "__main__":
    command_line(main, __doc__)
