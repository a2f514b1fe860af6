"""Thesis Fig. C.5 / Table C.2: private gossip with dropout. Left: node 0's loss averaged over observers, per
dropout level (mean and min-max over runs). Right: convergence, mean squared distance to the runs' noisy average
(`noisy_mean` of mse.csv) against the round, one line per dropout level.

    build/netdp run examples/figC5_dropout_gossip/study.toml --out DIR
    python3 examples/figC5_dropout_gossip/plot.py DIR        # writes DIR/figC5.png

Needs matplotlib.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # examples/, for plot_common
from plot_common import command_line, plt, results, rows, save  # noqa: E402


def main(out):
    points = sorted({(float(r["dropout"]), r["point"]) for r in results(out) if r["experiment"] == "dropout"})
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2))
    for q, point in points:
        unit = f"{out}/dropout/{point}/rep-0"
        losses = [float(r["mean_loss"]) for r in rows(f"{unit}/privacy_runs.csv")]
        mean = sum(losses) / len(losses)
        left.errorbar([q], [mean], yerr=[[mean - min(losses)], [max(losses) - mean]], marker="o", capsize=4,
                      label=f"q = {q}: {mean:.3g}")
        mse = rows(f"{unit}/mse.csv")
        right.plot([int(r["t"]) for r in mse], [float(r["noisy_mean"]) for r in mse], label=f"dropout {q}")
    left.set_xlabel("dropout probability q")
    left.set_ylabel("mean over observers v of eps(0 -> v)")
    left.set_title("privacy of node 0 (Table C.2)")
    left.legend(fontsize=8)
    right.set_yscale("log")
    right.set_xlabel("round t")
    right.set_ylabel("mean squared distance to the noisy average")
    right.set_title("convergence (Fig. C.5b)")
    right.legend(fontsize=8)
    fig.suptitle("Fig. C.5: gossip with dropout on G(n, ln n / n), sigma = 1, alpha = 2")
    save(fig, out, "figC5.png")


if __name__ == "__main__":
    command_line(main, __doc__)
