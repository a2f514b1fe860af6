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
        from plot_common import plt, save
    except ImportError:
        print("matplotlib not found: table only")
        return
    fig, axes = plt.subplots(1, 4, figsize=(14, 3.5), sharey=True)
    for ax, graph in zip(axes, GRAPHS.values()):
        for protocol, color in (("gossip", "tab:orange"), ("random walk", "tab:blue")):
            pts = [(r[0], r[4], r[5]) for r in rows if r[1] == graph and r[2] == protocol]
            if pts:
                ax.errorbar([p[0] for p in pts], [p[1] for p in pts], yerr=[p[2] for p in pts], color=color,
                            marker="o", capsize=3, label=protocol)
        ax.set(xscale="log", title=graph, xlabel="mean privacy loss")
    axes[0].set(ylabel="test accuracy")
    axes[0].legend()
    save(fig, out, "e13_walk_vs_gossip.png")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
