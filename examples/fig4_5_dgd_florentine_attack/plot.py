"""Thesis Fig. 4.5 and A.6 on the Florentine families graph (T = 7, W = I - L/d_max). Left: each node coloured by
its success rate as the only attacker: the fraction of the 14 other nodes whose data it recovers with a
relative error below 0.1 (least squares, learning rate 1e-5), averaged over 10 data sets. Middle: attacker 5's
per-node errors. Right (Fig. A.6): attacker 5's data error per target against the learning rate, markers by
distance (2 or 3 from the attacker).

    build/netdp run examples/fig4_5_dgd_florentine_attack/study.toml --out DIR
    python3 examples/fig4_5_dgd_florentine_attack/plot.py DIR   # writes DIR/fig4_5.png, prints the rates

Needs matplotlib, numpy and networkx (florentine_families_graph: the same node order as netdp's florentine).
"""
import csv
import sys
from collections import defaultdict
from pathlib import Path

import networkx as nx
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # examples/, for plot_common
from plot_common import command_line, plt, save  # noqa: E402
# Paper-specific, drawn here rather than with netdp.plot: success rates and errors by learning rate (Fig. A.6).

THRESHOLD = 0.1
RATES = [1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1]


def targets(unit):
    with open(Path(unit) / "nodes.csv", newline="") as f:
        return [r for r in csv.DictReader(f) if r["role"] != "attacker"]


def main(out):
    rate, errors5 = [], defaultdict(list)
    for attacker in range(15):
        successes = []
        for unit in sorted(Path(out, "every_attacker", f"p{attacker:04d}").glob("rep-*")):
            rows = targets(unit)
            ok = [r["ols_data_error"] != "" and float(r["ols_data_error"]) < THRESHOLD for r in rows]
            successes.append(np.mean(ok))
            if attacker == 5:
                for r in rows:
                    errors5[int(r["node"])].append(float(r["ols_data_error"]) if r["ols_data_error"] else np.nan)
        rate.append(np.mean(successes))
    g = nx.florentine_families_graph()
    names = list(g)  # networkx order = netdp's node ids
    g = nx.relabel_nodes(g, {name: i for i, name in enumerate(names)})
    pos = nx.spring_layout(g, seed=3)
    fig, (left, middle, right) = plt.subplots(1, 3, figsize=(17, 5))
    drawn = nx.draw_networkx_nodes(g, pos, ax=left, node_color=rate, cmap="viridis", vmin=0, vmax=1)
    nx.draw_networkx_edges(g, pos, ax=left, alpha=0.3)
    nx.draw_networkx_labels(g, pos, ax=left, font_size=8, font_color="white")
    fig.colorbar(drawn, ax=left, label=f"success rate (data error < {THRESHOLD})")
    left.set_title("each node as attacker")
    median5 = [np.nanmedian(errors5[v]) if v in errors5 else np.nan for v in range(15)]
    colours = ["tab:red" if v == 5 else "tab:green" if median5[v] < THRESHOLD else "lightgrey" for v in range(15)]
    nx.draw(g, pos, ax=middle, node_color=colours, with_labels=True, font_size=8)
    middle.set_title(f"attacker 5: green = median data error < {THRESHOLD}")
    distance = nx.single_source_shortest_path_length(g, 5)
    by_node = defaultdict(lambda: defaultdict(list))
    for point, lr in enumerate(RATES):
        for unit in Path(out, "learning_rate", f"p{point:04d}").glob("rep-*"):
            for r in targets(unit):
                if r["ols_data_error"]:
                    by_node[int(r["node"])][lr].append(float(r["ols_data_error"]))
    for v, curve in sorted(by_node.items()):
        if distance[v] in (2, 3):
            right.plot(RATES, [np.mean(curve[lr]) for lr in RATES], "o-" if distance[v] == 2 else "s--",
                       label=f"node {v} (distance {distance[v]})")
    right.axhline(THRESHOLD, color="grey", lw=1)
    right.set_xscale("log")
    right.set_yscale("log")
    right.set_xlabel("learning rate")
    right.set_ylabel("relative data error (mean of 4 data sets)")
    right.legend(fontsize=7)
    save(fig, out, "fig4_5.png")
    for attacker, r in enumerate(rate):
        print(f"attacker {attacker:2d} ({names[attacker]}): success rate {r:.2f}")


if __name__ == "__main__":
    command_line(main, __doc__)
