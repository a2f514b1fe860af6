"""Private consensus ADMM (docs/admm.md): final test accuracy (top) and training objective (bottom) against
epsilon for the centralized, federated and random-walk settings, mean over the runs with a band of one standard
deviation; dashed: the same setting without noise.

    build/netdp run examples/ch8_admm_utility_vs_eps/study.toml --out DIR
    python3 examples/ch8_admm_utility_vs_eps/plot.py DIR        # writes DIR/ch8_admm_utility_vs_eps.png

Needs matplotlib (apt-get install python3-matplotlib).
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # examples/, for plot_common
from plot_common import command_line, legend_with_band, netdp_plot, plt, save, summaries  # noqa: E402

SETTINGS = {"centralized": ("tab:green", "Thm 8.7"), "federated": ("tab:orange", "Thm E.9"),
            "walk": ("tab:blue", "Thm 8.12 (network)")}


def main(out):
    fig, axes = plt.subplots(2, 1, figsize=(7, 7), sharex=True)
    for setting, (color, guarantee) in SETTINGS.items():
        for ax, key in zip(axes, ("accuracy", "objective")):
            netdp_plot.study_by_axis(out, ax, f"final.{key}.mean", experiment=setting, x="epsilon",
                                     label=f"{setting} ({guarantee})", spread=f"final.{key}.std", band_label="",
                                     color=color)
            exact = [s for _, s in summaries(out, f"{setting}_exact")]
            if exact:  # the same setting without noise
                ax.axhline(exact[0]["final"][key]["mean"], color=color, linestyle="--", linewidth=1,
                           label=f"{setting}, no noise")
    axes[0].set_xscale("log")
    axes[1].set_yscale("log")
    netdp_plot.finish(axes[0], "", "test accuracy (fraction)",
                      "private consensus ADMM, delta = 1e-6: final accuracy, band +- one std over the runs")
    netdp_plot.finish(axes[1], "epsilon (privacy budget, delta = 1e-6)", "training objective (logistic loss)",
                      "final training objective")
    for ax in axes:
        legend_with_band(ax, "shaded: +- one std over the runs", fontsize=7)
    save(fig, out, "ch8_admm_utility_vs_eps.png")


if __name__ == "__main__":
    command_line(main, __doc__)
