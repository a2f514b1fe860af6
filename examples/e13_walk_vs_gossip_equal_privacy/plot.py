"""E13 / thesis Table 7.1: final test accuracy (mean and std over 8 runs) of the random walk (walk-sgd) and of
gossip (muffliato-sgd) at the same mean privacy loss, on four graphs; writes DIR/table_7_1.csv and
DIR/e13_walk_vs_gossip.png (accuracy against the target, one panel per graph).

    build/netdp run examples/e13_walk_vs_gossip_equal_privacy/study.toml --out DIR
    python3 examples/e13_walk_vs_gossip_equal_privacy/plot.py DIR

The table needs only the standard library; the figure needs matplotlib (apt-get install python3-matplotlib).
"""
import csv
import json
import sys
from pathlib import Path

GRAPHS = {"complete": "Complete", "hypercube": "Exponential", "rgg": "Geometric", "grid": "Grid"}


def table(out):
    """Rows (eps_bar, graph, protocol, sigma, accuracy mean, accuracy std) from every unit's summary.json."""
    rows = []
    for protocol, experiment in (("gossip", "gossip"), ("random walk", "walk")):
        for path in sorted(Path(out).glob(f"{experiment}/*/rep-*/summary.json")):
            s = json.loads(path.read_text())
            acc = s["final"]["accuracy"]
            rows.append((s["calibration"]["target_mean_loss"], GRAPHS[s["graph"].split(":")[0]], protocol,
                         s["sigma"], acc["mean"], acc["std"]))
    order = list(GRAPHS.values())
    rows.sort(key=lambda r: (r[0], order.index(r[1]), r[2]))
    return rows


def main(out):
    rows = table(out)
    with open(Path(out) / "table_7_1.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["eps_bar", "graph", "protocol", "sigma", "accuracy_mean", "accuracy_std"])
        w.writerows(rows)
    for r in rows:
        print(f"{r[0]:g}  {r[1]:<12} {r[2]:<12} sigma {r[3]:8.4g}  accuracy {r[4]:.3f} +- {r[5]:.3f}")
    try:
        sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # examples/, for plot_common
        from plot_common import legend_with_band, netdp_plot, plt, save
    except ImportError:
        print("matplotlib or netdp not found: table only")
        return
    fig, axes = plt.subplots(1, 4, figsize=(14, 3.8), sharey=True)
    for k, (ax, (family, graph)) in enumerate(zip(axes, GRAPHS.items())):
        for experiment, protocol, color in (("gossip", "gossip", "tab:orange"), ("walk", "random walk", "tab:blue")):
            netdp_plot.study_by_axis(out, ax, "final.accuracy.mean", experiment=experiment, x="target-mean-loss",
                                     lines=lambda row: protocol, where=lambda row: row["graph"].startswith(family),
                                     spread="final.accuracy.std", band_label="", color=color)
        ax.set_xscale("log")
        netdp_plot.finish(ax, "target mean privacy loss eps_bar", "test accuracy (fraction)" if k == 0 else "",
                          f"{graph}: band +- one std over the runs", legend=False)
        if k == 0:
            legend_with_band(ax, "shaded: +- one std over the runs", fontsize=7)
    save(fig, out, "e13_walk_vs_gossip.png")

if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
