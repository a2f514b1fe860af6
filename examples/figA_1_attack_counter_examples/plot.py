"""Thesis Fig. A.1: four small graphs, attacker 0 (red), reconstructible nodes (purple) and the others (green).

    build/netdp run examples/figA_1_attack_counter_examples/study.toml --out DIR   # from the repository root
    python3 examples/figA_1_attack_counter_examples/plot.py DIR                    # writes DIR/figA_1.png

Needs matplotlib and networkx.
"""
import csv
import json
import sys
from pathlib import Path

import networkx as nx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # examples/, for plot_common
from plot_common import command_line, plt, save  # noqa: E402

NAMES = ["G1", "G2", "G3", "G4"]


def main(out):
    fig, axes = plt.subplots(1, 4, figsize=(14, 3.5))
    for point, (ax, name) in enumerate(zip(axes, NAMES)):
        unit = f"{out}/counter/p{point:04d}/rep-0"
        s = json.load(open(f"{unit}/summary.json"))
        edges = Path(__file__).with_name(f"g{point + 1}.edges").read_text().split("\n")
        g = nx.Graph([tuple(map(int, e.split())) for e in edges if e.strip()])
        rows = {int(r["node"]): r for r in csv.DictReader(open(f"{unit}/nodes.csv"))}
        colours = ["tab:red" if rows[v]["attacker"] == "1" else "tab:purple" if rows[v]["reconstructible"] == "1"
                   else "tab:green" for v in sorted(g)]
        nx.draw(g, nx.kamada_kawai_layout(g), ax=ax, nodelist=sorted(g), node_color=colours, with_labels=True,
                font_color="white")
        ax.set_title(f"{name}: {s['reconstructed']} of {s['n']} reconstructible")
        print(f"{name}: reconstructible {s['reconstructible']} of {s['n']} nodes, rank {s['rank']}")
    save(fig, out, "figA_1.png")


if __name__ == "__main__":
    command_line(main, __doc__)
