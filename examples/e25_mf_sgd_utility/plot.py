"""E25: final test loss of MF-D-SGD against epsilon (delta = 1e-6), one curve per noise correlation, with the
unnoised run as a horizontal line; mean over the runs with a 95% interval (1.96 std / sqrt(runs)).

    build/netdp run examples/e25_mf_sgd_utility/study.toml --out DIR
    python3 examples/e25_mf_sgd_utility/plot.py DIR        # writes DIR/e25.png

Needs matplotlib (apt-get install python3-matplotlib).
"""
import math
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # examples/, for plot_common
from plot_common import command_line, finish, plt, save, summaries  # noqa: E402


def points(out):
    """correlation display name -> [(epsilon, final test loss mean, 95% half-width)], from every unit."""
    found = defaultdict(list)
    for _, s in summaries(out):
        loss = s["final"]["test_loss"]
        half = 1.96 * loss["std"] / math.sqrt(s["runs"])
        found[s["correlation_name"]].append((s["privacy"]["epsilon"], loss["mean"], half))
    return found


def main(out):
    data = points(out)
    fig, ax = plt.subplots(figsize=(6.5, 4.5))
    for name, pts in sorted(data.items()):
        if name == "Unnoised baseline":
            ax.axhline(pts[0][1], color="black", linestyle=":", label=name)
            continue
        pts.sort()
        eps = [p[0] for p in pts]
        ax.errorbar(eps, [p[1] for p in pts], yerr=[p[2] for p in pts], marker="o", ms=3, capsize=2, label=name)
    ax.set_xscale("log")
    ax.set_yscale("log")
    finish(ax, "epsilon (delta = 1e-6) of every node's release under LDP", "final test loss (mean squared error / 2)",
           "E25: MF-D-SGD on ego 414, T = 80, synthetic regression")
    save(fig, out, "e25.png")


if __name__ == "__main__":
    command_line(main, __doc__)
