"""Thesis Fig. C.5 / Table C.2: private gossip with dropout, compared at equal accuracy. Left: node 0's loss
averaged over observers at each run's stop (the thesis' rule ||x^t - xbar_noisy||^2/n < 3 (xbar_noisy - xbar)^2),
mean and standard deviation over runs per dropout level, next to the thesis' Table C.2 when the study ran at its
scale (n = 1000). Right: convergence, the mean squared distance to the runs' noisy average (`noisy_mean` of
mse.csv) against the round, one line per dropout level, with the mean stop round marked.

    build/netdp run examples/figC5_dropout_gossip/study.toml --out DIR
    python3 examples/figC5_dropout_gossip/plot.py DIR        # writes DIR/figC5.png

Needs matplotlib.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # examples/, for plot_common
from plot_common import command_line, plt, rows, save, summaries  # noqa: E402
# Paper-specific, drawn here rather than with netdp.plot: loss at each run's stop beside Table C.2, per dropout level.

THESIS = {0.0: (1.7e-2, 0.6e-2), 0.1: (1.8e-2, 0.6e-2), 0.5: (1.5e-2, 0.7e-2), 0.9: (1.4e-2, 0.6e-2)}


def main(out):
    units = sorted(((s["dropout"], unit, s) for unit, s in summaries(out)), key=lambda u: u[0])
    fig, (left, right) = plt.subplots(1, 2, figsize=(11.5, 4.4))
    n = units[0][2]["n"]
    for i, (q, unit, s) in enumerate(units):
        stop = s["stop"]
        loss = stop["mean_loss"]
        colour = f"C{i}"
        left.errorbar([q], [loss["mean"]], yerr=[loss["std"] or 0], marker="o", capsize=4, color=colour,
                      label=f"netdp, q = {q}: {loss['mean']:.3g} ± {loss['std'] or 0:.2g} "
                            f"({stop['runs_met']}/{stop['runs']} runs stopped)")
        mse = rows(f"{unit}/mse.csv")
        right.plot([int(r["t"]) for r in mse], [float(r["noisy_mean"]) for r in mse], color=colour,
                   label=f"q = {q}, mean stop t = {stop['stop_t']['mean']:.0f}")
        if stop["stop_t"]["mean"] is not None:
            right.axvline(stop["stop_t"]["mean"], color=colour, linestyle=":", linewidth=1)
    if n == 1000:
        qs = sorted(THESIS)
        left.errorbar([q + 0.015 for q in qs], [THESIS[q][0] for q in qs], yerr=[THESIS[q][1] for q in qs],
                      marker="s", linestyle="none", capsize=4, color="black", label="thesis, Table C.2")
    left.set_xlabel("dropout probability q")
    left.set_ylabel("mean over observers v of the loss of node 0\nsummed up to the run's stop")
    left.set_title("privacy at equal accuracy (each run stopped at the thesis' rule)")
    left.set_ylim(bottom=0)
    left.legend(fontsize=7)
    right.set_yscale("log")
    right.set_xscale("symlog", linthresh=10)
    right.set_xlim(left=0)
    right.set_xlabel("round t")
    right.set_ylabel("mean over runs of ||x^t - xbar_noisy||^2 / n")
    right.set_title("convergence (Fig. C.5b); dotted: mean stop round")
    right.legend(fontsize=7)
    fig.suptitle(f"Fig. C.5 / Table C.2: gossip with dropout on a fresh G(n = {n}, p = {units[0][2]['er_p']:g}) "
                 f"per round, sigma = 1, alpha = 2, Theorem 6.1's sum")
    save(fig, out, "figC5.png")


if __name__ == "__main__":
    command_line(main, __doc__)
