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
from plot_common import command_line, plt, save, summaries  # noqa: E402

COLORS = {"centralized": "tab:green", "federated": "tab:orange", "walk": "tab:blue"}
GUARANTEES = {"centralized": "Thm 8.7", "federated": "Thm E.9", "walk": "Thm 8.12 (network)"}


def finals(out, experiment):
    """[(epsilon, summary)] of every unit of one experiment, sorted by epsilon."""
    return sorted(((s["epsilon"], s) for _, s in summaries(out, experiment)), key=lambda item: item[0])


def main(out):
    fig, axes = plt.subplots(2, 1, figsize=(7, 7), sharex=True)
    for setting, color in COLORS.items():
        points = finals(out, setting)
        if not points:
            continue
        eps = [e for e, _ in points]
        for ax, key in zip(axes, ("accuracy", "objective")):
            mean = [s["final"][key]["mean"] for _, s in points]
            std = [s["final"][key]["std"] for _, s in points]
            ax.plot(eps, mean, "o-", color=color, label=f"{setting} ({GUARANTEES[setting]})")
            ax.fill_between(eps, [m - d for m, d in zip(mean, std)], [m + d for m, d in zip(mean, std)],
                            color=color, alpha=0.2)
            exact = finals(out, f"{setting}_exact")
            if exact:
                ax.axhline(exact[0][1]["final"][key]["mean"], color=color, linestyle="--", linewidth=1)
    axes[0].set(xscale="log", ylabel="test accuracy", title="private consensus ADMM, delta = 1e-6")
    axes[1].set(xscale="log", yscale="log", xlabel="epsilon", ylabel="training objective")
    axes[0].legend(fontsize=8)
    save(fig, out, "ch8_admm_utility_vs_eps.png")


if __name__ == "__main__":
    command_line(main, __doc__)
