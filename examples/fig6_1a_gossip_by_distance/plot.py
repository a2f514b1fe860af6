"""Thesis Fig. 6.1a: gossip (Muffliato) privacy loss by hop distance, one line per graph.

Draws the mean pairwise loss at each shortest-path distance (experiments fixed_graphs and random_graphs, all
ordered pairs), with a shaded band from the smallest to the largest pairwise loss at that distance (over all
pairs and, for the random graphs, all five graphs: the paper's error bars), and the LDP level 1 for reference.

    build/netdp run examples/fig6_1a_gossip_by_distance/study.toml --out DIR
    python3 examples/fig6_1a_gossip_by_distance/plot.py DIR        # writes DIR/fig6_1a.png, DIR/fig6_1a_exact.png

fig6_1a_exact.png (experiments theorem_* and exact_*, about 512 nodes): per graph, Theorem 6.1's sum (the
papers' curve, not an upper bound) and the exact loss of each pair's Gaussian view (docs/math.md §6.9), mean
with a min-max band, and the LDP level.

Needs matplotlib (apt-get install python3-matplotlib).
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # examples/, for plot_common
from plot_common import command_line, legend_with_band, netdp_plot, plt, results, save  # noqa: E402

LABELS = {"hypercube": "hypercube (d = 11)", "er": "Erdos-Renyi (c = 1, 5 graphs)",
          "rgg": "random geometric (r = 0.07, 5 graphs)", "grid": "grid 45 x 45"}


def main(out):
    # curves[family][distance] = {"mean": ..., "min": ..., "max": ...}
    curves = netdp_plot.study_by_distance(out, lambda row: row["graph"].split(":")[0]
                                          if row["experiment"] in ("fixed_graphs", "random_graphs") else None)

    fig, ax = plt.subplots(figsize=(7, 4.5))
    for family in ("hypercube", "er", "rgg", "grid"):
        if family not in curves:
            continue
        netdp_plot.by_distance(ax, curves[family], LABELS[family], band_label="")
    ax.axhline(1.0, color="black", ls="--", lw=1, label="LDP level")
    ax.set_yscale("log")
    ax.set_ylim(1e-8, 2)  # the grid goes on to distance 88 and 3e-18; the other graphs end by distance 23
    ax.set_xlim(0, 50)
    netdp_plot.finish(ax, "shortest-path distance between u and v (hops)",
                      "Renyi privacy loss of u towards v (alpha = 2)",
                      "Fig. 6.1a: private gossip averaging, loss by distance (bands: min to max over the pairs)")
    legend_with_band(ax, "shaded: min to max over the pairs", fontsize=8)
    save(fig, out, "fig6_1a.png")
    exact_figure(out)


def exact_figure(out):
    """Theorem against exact, one panel per graph family (experiments theorem_* and exact_*)."""
    curves = netdp_plot.study_by_distance(out, lambda row: (row["experiment"].split("_")[0], row["graph"].split(":")[0])
                                          if row["experiment"].startswith(("theorem_", "exact_")) else None)
    if not curves:
        return
    sizes = {}
    for row in results(out):
        if row["experiment"].startswith("exact_") and row["statistic"] == "n":
            sizes[row["graph"].split(":")[0]] = int(float(row["mean"]))
    fig, axes = plt.subplots(1, 4, figsize=(18, 4.5), sharey=True)
    for ax, family in zip(axes, ("hypercube", "er", "rgg", "grid")):
        for kind, label in (("theorem", "Theorem 6.1 (sum, not a bound)"),
                            ("exact", "accounting exact (each pair's view)")):
            if (kind, family) in curves:
                netdp_plot.by_distance(ax, curves[kind, family], label, band_label="")
        ax.axhline(1.0, color="black", ls="--", lw=1, label="LDP level")
        ax.set_yscale("log")
        ax.set_ylim(1e-8, 2)
        name = family if family not in sizes else f"{family}, n = {sizes[family]}"
        netdp_plot.finish(ax, "shortest-path distance between u and v (hops)", "Renyi loss of u towards v (alpha = 2)"
                          if family == "hypercube" else "", f"{name} (bands: min to max over the pairs)")
        legend_with_band(ax, "shaded: min to max over the pairs", fontsize=7)
    fig.suptitle("Fig. 6.1a graphs: Theorem 6.1 against the exact loss (T = T_stop, t = 1..T)")
    save(fig, out, "fig6_1a_exact.png")


if __name__ == "__main__":
    command_line(main, __doc__)
