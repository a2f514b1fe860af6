"""Thesis Fig. 6.1c / Table C.1: Muffliato-GD on time-varying Erdos-Renyi graphs. Left: node 0's loss towards the
others by hop distance in the first graph (mean, min-max band) for the per-round Theorem 6.6 bound summed over the
steps (`er-round-sum`) and for Theorem C.9 on the actual graphs (`thm-C.9`), with the LDP composition T x LDP level.
Right: test accuracy of the averaged model against the gradient step (mean over runs), beside the trusted-aggregator
(federated) baseline that averages the same noisy updates exactly.

    build/netdp run examples/fig6_1c_muffliato_gd_time_varying_er/study.toml --out DIR
    python3 examples/fig6_1c_muffliato_gd_time_varying_er/plot.py DIR        # writes DIR/fig6_1c.png

Needs matplotlib.
"""
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # examples/, for plot_common
from plot_common import command_line, plt, rows, save  # noqa: E402


def main(out):
    unit = f"{out}/er/p0000/rep-0"
    privacy = rows(f"{unit}/privacy.csv")
    summary = json.load(open(f"{unit}/summary.json"))
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2))
    for accountant, label in (("er-round-sum", "Thm 6.6 per round, summed"), ("thm-C.9", "Thm C.9 on the graphs")):
        pts = [r for r in privacy if r["accountant"] == accountant and r["distance"] != "all"]
        d = [int(r["distance"]) for r in pts]
        line, = left.plot(d, [float(r["mean"]) for r in pts], marker="o", ms=3, label=label)
        left.fill_between(d, [float(r["min"]) for r in pts], [float(r["max"]) for r in pts], color=line.get_color(),
                          alpha=0.2, linewidth=0)
    left.axhline(summary["privacy"]["ldp_total"], color="black", ls="--", lw=1, label="T x LDP level")
    left.set_xlabel("hop distance from node 0 (first graph)")
    left.set_ylabel("Renyi loss of node 0 towards v (alpha = 2)")
    left.set_title("privacy of node 0")
    left.legend(fontsize=8)
    curve = rows(f"{unit}/curves.csv")
    right.plot([int(r["t"]) for r in curve], [float(r["accuracy_mean"]) for r in curve], marker="o", ms=3,
               label="Muffliato-GD (K gossip steps)")
    federated = Path(f"{out}/federated/p0000/rep-0/curves.csv")
    if federated.exists():  # the trusted aggregator: the noisy updates averaged exactly
        base = rows(str(federated))
        right.plot([int(r["t"]) for r in base], [float(r["accuracy_mean"]) for r in base], marker="s", ms=3,
                   ls="--", color="black", label="trusted aggregator (exact average)")
    right.legend(fontsize=8)
    right.set_xlabel("gradient step t")
    right.set_ylabel("accuracy of the averaged model")
    right.set_title("utility")
    fig.suptitle(f"Fig. 6.1c: Muffliato-GD on a fresh G(n, ln n / n) per step, n = {summary.get('n', '?')}")
    save(fig, out, "fig6_1c.png")


if __name__ == "__main__":
    command_line(main, __doc__)
