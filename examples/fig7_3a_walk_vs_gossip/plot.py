"""Thesis Fig. 7.3a (and D.2): random walk versus gossip, privacy loss by hop distance, one panel per graph.

In each panel: the mean pairwise loss of the walk with an anonymous sender (Fig. 7.3a, solid), of the walk whose
observer knows the sender (Fig. D.2, dotted) and of gossip (dashed), against the shortest-path distance; shaded
bands (netdp.plot.by_distance) go from the smallest to the largest pairwise loss (over all pairs and, for the
random graphs, the five graphs).

    build/netdp run examples/fig7_3a_walk_vs_gossip/study.toml --out DIR
    python3 examples/fig7_3a_walk_vs_gossip/plot.py DIR        # writes DIR/fig7_3a.png

Needs matplotlib (apt-get install python3-matplotlib).
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # examples/, for plot_common
from plot_common import command_line, legend_with_band, netdp_plot, plt, save  # noqa: E402

PANELS = [("hypercube", "hypercube (d = 11)"), ("er", "Erdos-Renyi (c = 1.2, 5 graphs)"),
          ("rgg", "random geometric (r = 0.07, 5 graphs)"), ("grid", "grid 45 x 45")]
CURVES = [("walk anonymous", dict(color="tab:blue", ls="-"), "walk, anonymous sender (7.3a)"),
          ("walk known", dict(color="tab:blue", ls=":"), "walk, known sender (D.2)"),
          ("gossip ", dict(color="tab:red", ls="--"), "gossip")]


def main(out):
    # data[(family, "walk anonymous" | "walk known" | "gossip ")][distance] = {"mean", "min", "max"}
    data = netdp_plot.study_by_distance(out, lambda row: (row["graph"].split(":")[0],
                                                          row["experiment"].split("_")[0] + " " + row["sender"]))

    fig, axes = plt.subplots(2, 2, figsize=(10, 7), sharey=True)
    for k, (ax, (family, title)) in enumerate(zip(axes.flat, PANELS)):
        for curve, style, label in CURVES:
            points = data.get((family, curve))
            if not points:
                continue
            # the known-sender walk without its band: three overlapping bands would hide the curves
            netdp_plot.by_distance(ax, points, label, band_label="", with_band=curve != "walk known", ms=2, **style)
        ax.axhline(1.0, color="black", lw=0.8, ls="-.", label="LDP level")
        ax.set_yscale("log")
        ax.set_ylim(1e-8, 2)  # gossip on the grid goes on down to 3e-18
        netdp_plot.finish(ax, "shortest-path distance between u and v (hops)",
                          "Renyi loss of u towards v (alpha = 2)" if k % 2 == 0 else "", title, legend=False)
        if k == 0:
            legend_with_band(ax, "shaded: min to max over the pairs (graphs)", fontsize=7)
    fig.suptitle("Fig. 7.3a: random walk versus gossip, loss by distance (bands: min to max over the pairs)")
    save(fig, out, "fig7_3a.png")


if __name__ == "__main__":
    command_line(main, __doc__)
