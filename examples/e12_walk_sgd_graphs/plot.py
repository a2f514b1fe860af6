"""E12 / thesis Fig. 7.3b: training objective against the steps for centralized, local and network (random-walk)
DP-SGD on the complete graph, the hypercube and a random geometric graph; mean over 8 runs with a band from the
smallest to the largest run (netdp.plot.curve). Left: the released code's calibration (eps = 10, complete-graph
search); right: the thesis text (eps_bar = 1, Thm 7.7 mean loss, network only).

    build/netdp run examples/e12_walk_sgd_graphs/study.toml --out DIR
    python3 examples/e12_walk_sgd_graphs/plot.py DIR        # writes DIR/e12_walk_sgd_graphs.png

Needs matplotlib (apt-get install python3-matplotlib).
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # examples/, for plot_common
from plot_common import command_line, legend_with_band, netdp_plot, plt, save, summaries  # noqa: E402

VARIANT_COLORS = {"centralized": "tab:green", "local": "tab:red", "network": "tab:blue"}
GRAPH_STYLES = {"complete": "-", "hypercube": "--", "rgg": ":"}


def main(out):
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5), sharey=True)
    for ax, experiment, title in ((axes[0], "code", "code: eps = 10, complete-graph sigma"),
                                  (axes[1], "text", "text: eps_bar = 1, Thm 7.7 sigma per graph")):
        for unit, s in summaries(out, experiment):
            family = s["graph"].split(":")[0]
            netdp_plot.curve(unit, "objective", ax, label=f"{s['variant']} / {family} (sigma {s['sigma']:.3g})",
                             band_label="", color=VARIANT_COLORS[s["variant"]], ls=GRAPH_STYLES[family])
        ax.set_yscale("log")
        netdp_plot.finish(ax, "walk step", "training objective (logistic loss)" if ax is axes[0] else "",
                          f"{title}; bands: min to max over the runs")
        legend_with_band(ax, "shaded: min to max over the runs", fontsize=7)
    save(fig, out, "e12_walk_sgd_graphs.png")


if __name__ == "__main__":
    command_line(main, __doc__)
