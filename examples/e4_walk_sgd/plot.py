"""E4 / thesis Fig. 7.2: objective (log) and test accuracy against the steps for centralized, local and network
DP-SGD by a random walk on the complete graph, eps = 10 (left) and eps = 1 (right); mean over 20 runs with a
band of one standard deviation.

    build/netdp run examples/e4_walk_sgd/study.toml --out DIR
    python3 examples/e4_walk_sgd/plot.py DIR        # writes DIR/e4_walk_sgd.png

Needs matplotlib (apt-get install python3-matplotlib).
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # examples/, for plot_common
from plot_common import columns, command_line, plt, save, summaries  # noqa: E402

COLORS = {"centralized": "tab:green", "local": "tab:red", "network": "tab:blue"}


def curves(out):
    """(epsilon, variant) -> columns of curves.csv, from every unit directory of the study."""
    found = {}
    for unit, summary in summaries(out, "e4"):
        found[summary["epsilon"], summary["variant"]] = (columns(unit / "curves.csv"), summary["sigma"])
    return found


def main(out):
    data = curves(out)
    fig, axes = plt.subplots(2, 2, figsize=(11, 7), sharex=True)
    for col, eps in enumerate((10.0, 1.0)):
        for variant, color in COLORS.items():
            if (eps, variant) not in data:
                continue
            c, sigma = data[eps, variant]
            label = f"{variant} DP-SGD (sigma {sigma:.3g})"
            for row, key in enumerate(("objective", "accuracy")):
                ax = axes[row][col]
                mean, std = c[f"{key}_mean"], c[f"{key}_std"]
                ax.plot(c["step"], mean, color=color, label=label)
                ax.fill_between(c["step"], [m - s for m, s in zip(mean, std)], [m + s for m, s in zip(mean, std)],
                                color=color, alpha=0.2)
        axes[0][col].set(yscale="log", ylabel="training objective", title=f"eps = {eps:g}, delta = 1e-6")
        axes[1][col].set(xlabel="step", ylabel="test accuracy")
        axes[0][col].legend(fontsize=8)
    save(fig, out, "e4_walk_sgd.png")


if __name__ == "__main__":
    command_line(main, __doc__)
