"""E4 / thesis Fig. 7.2: objective (log) and test accuracy against the steps for centralized, local and network
DP-SGD by a random walk on the complete graph, eps = 10 (left) and eps = 1 (right); mean over 20 runs with a
band from the smallest to the largest run (netdp.plot.curve).

    build/netdp run examples/e4_walk_sgd/study.toml --out DIR
    python3 examples/e4_walk_sgd/plot.py DIR        # writes DIR/e4_walk_sgd.png

Needs matplotlib (apt-get install python3-matplotlib).
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # examples/, for plot_common
from plot_common import command_line, legend_with_band, netdp_plot, plt, save, summaries  # noqa: E402

COLORS = {"centralized": "tab:green", "local": "tab:red", "network": "tab:blue"}


def main(out):
    units = {(s["epsilon"], s["variant"]): (unit, s["sigma"]) for unit, s in summaries(out, "e4")}
    fig, axes = plt.subplots(2, 2, figsize=(11, 7), sharex=True)
    for col, eps in enumerate((10.0, 1.0)):
        for variant, color in COLORS.items():
            if (eps, variant) not in units:
                continue
            unit, sigma = units[eps, variant]
            for row, stem in enumerate(("objective", "accuracy")):
                netdp_plot.curve(unit, stem, axes[row][col], label=f"{variant} DP-SGD (sigma {sigma:.3g})",
                                 band_label="", color=color)
        axes[0][col].set_yscale("log")
        netdp_plot.finish(axes[0][col], "", "training objective (logistic loss)",
                          f"eps = {eps:g}, delta = 1e-6: mean over the runs, band min to max")
        netdp_plot.finish(axes[1][col], "walk step", "test accuracy (fraction)", f"eps = {eps:g}: test accuracy")
        for row in (0, 1):
            legend_with_band(axes[row][col], "shaded: min to max over the runs", fontsize=7)
    save(fig, out, "e4_walk_sgd.png")


if __name__ == "__main__":
    command_line(main, __doc__)
