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
from plot_common import command_line, plt, save, summaries  # noqa: E402


def main(out):
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.5))
    for unit, summary in summaries(out, "e15"):
        kind = summary["node_data"]
        style = "-" if kind == "coordinates" else "--"
        privacy, discrepancy = {}, defaultdict(dict)
        with open(unit / "by_distance.csv", newline="") as f:
            for r in csv.DictReader(f):
                q = int(r["quantile"])
                privacy[q] = float(r["privacy_mean"])
                discrepancy[int(r["step"])][q] = float(r["discrepancy_mean"])
        qs = sorted(privacy)
        left.plot(qs, [privacy[q] for q in qs], style, marker="o", label=kind)
        steps = sorted(discrepancy)
        cmap = plt.get_cmap("viridis")
        shown = steps[0::2]  # t = 0 (the data's heterogeneity before any visit: initial-estimate local) to T
        for i, step in enumerate(shown):
            right.plot(qs, [discrepancy[step][q] for q in qs], style, color=cmap(i / max(1, len(shown) - 1)),
                       label=f"{kind}, t = {step}")
    left.set(yscale="log", xlabel="distance decile", ylabel="mean pairwise Renyi loss")
    right.set(xlabel="distance decile", ylabel="mean |estimate_u - estimate_v|")
    left.legend()
    right.legend(fontsize=6, ncol=2)
    save(fig, out, "e15_walk_sgd_heterogeneous.png")


if __name__ == "__main__":
    command_line(main, __doc__)
