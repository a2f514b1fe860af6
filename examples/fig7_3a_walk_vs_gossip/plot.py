"""Thesis Fig. 7.3a (and D.2): random walk versus gossip, privacy loss by hop distance, one panel per graph.

In each panel: the mean pairwise loss of the walk with an anonymous sender (Fig. 7.3a, solid), of the walk whose
observer knows the sender (Fig. D.2, dotted) and of gossip (dashed), against the shortest-path distance; shaded
bands go from the smallest to the largest pairwise loss (over all pairs and, for the random graphs, the five graphs).

    build/netdp run examples/fig7_3a_walk_vs_gossip/study.toml --out DIR
    python3 examples/fig7_3a_walk_vs_gossip/plot.py DIR        # writes DIR/fig7_3a.png

Needs matplotlib (apt-get install python3-matplotlib).
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # examples/, for plot_common
from plot_common import by_distance, command_line, plt, save  # noqa: E402

PANELS = [("hypercube", "hypercube (d = 11)"), ("er", "Erdos-Renyi (c = 1.2, 5 graphs)"),
          ("rgg", "random geometric (r = 0.07, 5 graphs)"), ("grid", "grid 45 x 45")]
CURVES = [("walk anonymous", dict(color="tab:blue", ls="-"), "walk, anonymous sender (7.3a)"),
          ("walk known", dict(color="tab:blue", ls=":"), "walk, known sender (D.2)"),
          ("gossip ", dict(color="tab:red", ls="--"), "gossip")]


def main(out):
    # data[(family, "walk anonymous" | "walk known" | "gossip ")][distance] = {"mean", "min", "max"}
    data = by_distance(out, lambda row: (row["graph"].split(":")[0],
                                         row["experiment"].split("_")[0] + " " + row["sender"]))

    fig, axes = plt.subplots(2, 2, figsize=(10, 7), sharey=True)
    for ax, (family, title) in zip(axes.flat, PANELS):
        for curve, style, label in CURVES:
            points = data.get((family, curve))
            if not points:
                continue
            ds = sorted(points)
            ax.plot(ds, [points[d]["mean"] for d in ds], marker="o", ms=2, label=label, **style)
            if curve != "walk known":
                ax.fill_between(ds, [points[d]["min"] for d in ds], [points[d]["max"] for d in ds],
                                color=style["color"], alpha=0.12, linewidth=0)
        ax.axhline(1.0, color="black", lw=0.8, ls="-.", label="LDP level")
        ax.set_yscale("log")
        ax.set_ylim(1e-8, 2)  # gossip on the grid goes on down to 3e-18
        ax.set_title(title, fontsize=10)
        ax.grid(True, alpha=0.3)
    for ax in axes[1]:
        ax.set_xlabel("shortest-path distance between u and v")
    for ax in axes[:, 0]:
        ax.set_ylabel("Renyi loss of u towards v (alpha = 2)")
    axes[0, 0].legend(fontsize=8)
    fig.suptitle("Fig. 7.3a: random walk versus gossip, loss by distance")
    save(fig, out, "fig7_3a.png")


if __name__ == "__main__":
    command_line(main, __doc__)
