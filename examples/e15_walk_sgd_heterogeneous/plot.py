"""E15 / thesis Fig. D.5, D.6: heterogeneous (targets = sum of coordinates) against shuffled data on a random
geometric graph of 200 nodes. Left: mean pairwise privacy loss by decile of the Euclidean distance (the same for
both); right: mean distance between the nodes' current estimates by decile, at several steps (solid:
heterogeneous, dashed: shuffled).

    build/netdp run examples/e15_walk_sgd_heterogeneous/study.toml --out DIR
    python3 examples/e15_walk_sgd_heterogeneous/plot.py DIR        # writes DIR/e15_walk_sgd_heterogeneous.png

Needs matplotlib (apt-get install python3-matplotlib).
"""
import csv
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # examples/, for plot_common
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter  # noqa: E402
from plot_common import command_line, plt, save, summaries  # noqa: E402
# Paper-specific, drawn here rather than with netdp.plot: loss and discrepancy by decile of distance.


NAMES = {"coordinates": "heterogeneous (target = sum of coordinates)", "shuffled-coordinates": "shuffled targets"}


def main(out):
    fig, (left, right) = plt.subplots(1, 2, figsize=(13, 5))
    graph = ""
    for unit, summary in summaries(out, "e15"):
        kind = summary["node_data"]
        graph = summary["graph"]
        style = "-" if kind == "coordinates" else "--"
        privacy, discrepancy = {}, defaultdict(dict)
        with open(unit / "by_distance.csv", newline="") as f:
            for r in csv.DictReader(f):
                q = int(r["quantile"])
                privacy[q] = float(r["privacy_mean"])
                discrepancy[int(r["step"])][q] = float(r["discrepancy_mean"])
        qs = sorted(privacy)
        # The loss depends on the graph and the walk only, not on the data: the two curves coincide.
        left.plot(qs, [privacy[q] for q in qs], style, marker="o" if style == "-" else "x", ms=7,
                  label=NAMES.get(kind, kind))
        steps = sorted(discrepancy)
        cmap = plt.get_cmap("viridis")
        shown = steps[0::2]  # t = 0 (the data's heterogeneity before any visit: initial-estimate local) to T
        for i, step in enumerate(shown):
            right.plot(qs, [discrepancy[step][q] for q in qs], style, color=cmap(i / max(1, len(shown) - 1)),
                       label=f"{NAMES.get(kind, kind)}, step t = {step}")
    left.set_yscale("log")
    # Plain numbers at 1, 2, 3, 5 x 10^k: the curve spans about one decade, where the default shows a single tick.
    left.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 3.0, 5.0)))
    left.yaxis.set_major_formatter(FuncFormatter(lambda y, _: f"{y:g}"))
    left.yaxis.set_minor_formatter(NullFormatter())
    left.set_xticks(range(1, 11))
    left.set(xlabel="decile of the Euclidean distance between u and v (1 = closest)",
             ylabel="mean pairwise Renyi loss eps(u -> v), alpha = 2 (log scale)",
             title="privacy loss by distance: identical for both data sets")
    right.set_xticks(range(1, 11))
    right.set(xlabel="decile of the Euclidean distance between u and v (1 = closest)",
              ylabel="mean |estimate_u - estimate_v| (model units)",
              title="estimate discrepancy by distance during training")
    for ax in (left, right):
        ax.grid(True, which="major", alpha=0.3)
    left.legend(fontsize=8)
    right.legend(fontsize=6, ncol=2, title="solid: heterogeneous, dashed: shuffled", title_fontsize=7)
    fig.suptitle("E15 / Fig. D.5, D.6: random-walk DP-SGD with position-dependent against shuffled node data "
                 f"({graph})")
    save(fig, out, "e15_walk_sgd_heterogeneous.png")


if __name__ == "__main__":
    command_line(main, __doc__)
