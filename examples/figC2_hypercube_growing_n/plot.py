"""Thesis Fig. C.2: gossip (Muffliato) privacy loss on the hypercube by hop distance from u = 0, d = 4..12.

One line per dimension (n = 2^d), mean loss at each Hamming distance (on the hypercube every pair at a given
distance has the same loss, docs/math.md §6.7), and the LDP level 1.

    build/netdp run examples/figC2_hypercube_growing_n/study.toml --out DIR
    python3 examples/figC2_hypercube_growing_n/plot.py DIR        # writes DIR/figC2.png

Needs matplotlib (apt-get install python3-matplotlib).
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # examples/, for plot_common
from plot_common import command_line, netdp_plot, plt, save  # noqa: E402


def main(out):
    curves = netdp_plot.study_by_distance(out, lambda row: int(row["graph"].split("dim=")[1]))
    fig, ax = plt.subplots(figsize=(7, 4.5))
    cmap = plt.get_cmap("viridis")
    dims = sorted(curves)
    for i, d in enumerate(dims):
        # no band: every pair at one Hamming distance has the same loss (docs/math.md §6.7)
        netdp_plot.by_distance(ax, curves[d], f"d = {d} (n = {2 ** d})", band_label="", with_band=False,
                               color=cmap(i / max(1, len(dims) - 1)))
    ax.axhline(1.0, color="black", ls="--", lw=1, label="LDP level")
    ax.set_yscale("log")
    netdp_plot.finish(ax, "shortest-path (Hamming) distance from u = 0",
                      "Renyi privacy loss of u towards v (alpha = 2)",
                      "Fig. C.2: hypercube, loss by distance for growing n", legend=False)
    ax.legend(fontsize=7, ncol=2)
    save(fig, out, "figC2.png")


if __name__ == "__main__":
    command_line(main, __doc__)
