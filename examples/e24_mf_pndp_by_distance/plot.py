"""E24: PNDP Renyi loss of MF-D-SGD by hop distance from the attacker, one line per graph and correlation.

Draws the mean loss over the victims at each shortest-path distance from attacker 0 with a band from the smallest
to the largest, solid for C = I (DP-D-SGD, the poster's "Ours") and dashed for MAFALDA.

    build/netdp run examples/e24_mf_pndp_by_distance/study.toml --out DIR
    python3 examples/e24_mf_pndp_by_distance/plot.py DIR        # writes DIR/e24.png

Needs matplotlib (apt-get install python3-matplotlib).
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # examples/, for plot_common
from plot_common import by_distance, command_line, plt, save  # noqa: E402

LABELS = {"florentine": "Florentine (15)", "er": "Erdos-Renyi (100)", "hypercube": "hypercube (128)",
          "file": "ego 414 (148)"}


def main(out):
    curves = by_distance(out, lambda row: (row["experiment"], row["graph"].split(":")[0]))
    fig, ax = plt.subplots(figsize=(7, 4.5))
    colors = {}
    for (experiment, family) in sorted(curves):
        ds = sorted(d for d in curves[(experiment, family)] if d > 0)
        pts = [curves[(experiment, family)][d] for d in ds]
        style = "-" if experiment == "ldp_noise" else "--"
        label = LABELS.get(family, family) + (", C = I" if experiment == "ldp_noise" else ", MAFALDA")
        line, = ax.plot(ds, [p["mean"] for p in pts], style, marker="o", ms=3, label=label,
                        color=colors.get(family))
        colors[family] = line.get_color()
        ax.fill_between(ds, [p["min"] for p in pts], [p["max"] for p in pts], color=line.get_color(), alpha=0.1,
                        linewidth=0)
    ax.set_yscale("log")
    ax.set_xlabel("shortest-path distance from the attacker (node 0)")
    ax.set_ylabel("Renyi loss of the victim towards the attacker (alpha = 2)")
    ax.set_title("E24: MF-D-SGD under PNDP, T = 10, every round")
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize=7)
    save(fig, out, "e24.png")


if __name__ == "__main__":
    command_line(main, __doc__)
