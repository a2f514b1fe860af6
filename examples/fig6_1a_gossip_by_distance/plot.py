"""Thesis Fig. 6.1a: gossip (Muffliato) privacy loss by hop distance, one line per graph.

Draws the mean pairwise loss at each shortest-path distance (experiments fixed_graphs and random_graphs, all
ordered pairs), with a shaded band from the smallest to the largest pairwise loss at that distance (over all
pairs and, for the random graphs, all five graphs: the paper's error bars), and the LDP level 1 for reference.

    build/netdp run examples/fig6_1a_gossip_by_distance/study.toml --out DIR
    python3 examples/fig6_1a_gossip_by_distance/plot.py DIR        # writes DIR/fig6_1a.png

Needs matplotlib (apt-get install python3-matplotlib).
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # examples/, for plot_common
from plot_common import by_distance, command_line, finish, mean_band, plt, save  # noqa: E402

LABELS = {"hypercube": "hypercube (d = 11)", "er": "Erdos-Renyi (c = 1, 5 graphs)",
          "rgg": "random geometric (r = 0.07, 5 graphs)", "grid": "grid 45 x 45"}


def main(out):
    # curves[family][distance] = {"mean": ..., "min": ..., "max": ...}
    curves = by_distance(out, lambda row: row["graph"].split(":")[0]
                         if row["experiment"] in ("fixed_graphs", "random_graphs") else None)

    fig, ax = plt.subplots(figsize=(7, 4.5))
    for family in ("hypercube", "er", "rgg", "grid"):
        if family not in curves:
            continue
        ds = sorted(curves[family])
        pts = [curves[family][d] for d in ds]
        mean_band(ax, ds, pts, label=LABELS[family])
    ax.axhline(1.0, color="black", ls="--", lw=1, label="LDP level")
    ax.set_yscale("log")
    ax.set_ylim(1e-8, 2)  # the grid goes on to distance 88 and 3e-18; the other graphs end by distance 23
    ax.set_xlim(0, 50)
    finish(ax, "shortest-path distance between u and v", "Renyi privacy loss of u towards v (alpha = 2)",
           "Fig. 6.1a: private gossip averaging, loss by distance")
    save(fig, out, "fig6_1a.png")


if __name__ == "__main__":
    command_line(main, __doc__)
