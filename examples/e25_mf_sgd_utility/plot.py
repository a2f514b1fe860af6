"""E25: final test loss of MF-D-SGD against epsilon (delta = 1e-6), one curve per noise correlation, with the
unnoised run as a horizontal line; mean over the runs with a band of one standard deviation
(netdp.plot.study_by_axis).

    build/netdp run examples/e25_mf_sgd_utility/study.toml --out DIR      # or paper.toml (T = 320)
    python3 examples/e25_mf_sgd_utility/plot.py DIR        # writes DIR/e25.png

Needs matplotlib (apt-get install python3-matplotlib).
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # examples/, for plot_common
from plot_common import command_line, legend_with_band, netdp_plot, plt, save, summaries  # noqa: E402


# The poster's display names of the correlations (docs/math.md §9.5).
NAMES = {"ldp": "DP-D-SGD (C = I)", "antipgd": "ANTIPGD (C = tri(T))", "mafalda": "MAFALDA-SGD"}


def main(out):
    fig, ax = plt.subplots(figsize=(6.5, 4.5))
    netdp_plot.study_by_axis(out, ax, "final.test_loss.mean", experiment="noisy", x="privacy.epsilon",
                             lines=lambda row: NAMES.get(row["correlation"], row["correlation"]), spread="final.test_loss.std", band_label="")
    steps = "?"
    for _, s in summaries(out, "unnoised"):
        ax.axhline(s["final"]["test_loss"]["mean"], color="black", linestyle=":", label=s["correlation_name"])
        steps = s.get("steps", steps)  # study.toml: T = 80; paper.toml: the poster's T = 320
    ax.set_xscale("log")
    ax.set_yscale("log")
    netdp_plot.finish(ax, "epsilon (delta = 1e-6) of every node's release under LDP",
                      "final test loss (mean squared error / 2)",
                      f"E25: MF-D-SGD on ego 414, T = {steps}, synthetic regression; band +- one std over the runs")
    legend_with_band(ax, "shaded: +- one std over the runs", fontsize=8)
    save(fig, out, "e25.png")


if __name__ == "__main__":
    command_line(main, __doc__)
