"""E24: PNDP Renyi loss of MF-D-SGD by hop distance from the attacker, against the earlier Muffliato bound.

Draws, per graph, the mean loss over the victims at each shortest-path distance from attacker 0 with a band from
the smallest to the largest: solid for the MF accounting of C = I (DP-D-SGD, the poster's "Ours"), dashed for the
earlier Muffliato-SGD bound of the same setting (mf-loss --baseline muffliato, docs/math.md §6.5, the poster's
dashed Cyffers et al. 2022), dotted for the MF accounting of the MAFALDA correlation.

    build/netdp run examples/e24_mf_pndp_by_distance/study.toml --out DIR
    python3 examples/e24_mf_pndp_by_distance/plot.py DIR        # writes DIR/e24.png

Needs matplotlib (apt-get install python3-matplotlib).
"""
import re
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # examples/, for plot_common
from plot_common import by_distance, command_line, plt, results, save  # noqa: E402

LABELS = {"florentine": "Florentine (15)", "er": "Erdos-Renyi (100)", "hypercube": "hypercube (128)",
          "file": "ego 414 (148)"}
BASELINE = re.compile(r"baseline\.by_distance\[distance=(\d+)\]\.(mean|min|max)$")
STYLES = {"ldp_noise": ("-", "MF, C = I"), "baseline": ("--", "Muffliato bound"), "mafalda": (":", "MF, MAFALDA")}


def baseline_curves(out):
    """curves[family][distance] = {"mean", "min", "max"} of the summaries' baseline.by_distance rows."""
    curves = defaultdict(lambda: defaultdict(dict))
    for row in results(out):
        m = BASELINE.match(row["statistic"])
        if m:
            curves[row["graph"].split(":")[0]][int(m.group(1))][m.group(2)] = float(row[m.group(2)])
    return curves


def main(out):
    curves = by_distance(out, lambda row: (row["experiment"], row["graph"].split(":")[0]))
    for family, points in baseline_curves(out).items():
        curves[("baseline", family)] = points
    fig, ax = plt.subplots(figsize=(7.5, 5))
    colors = {}
    for (experiment, family) in sorted(curves, key=lambda k: (k[1], list(STYLES).index(k[0]))):
        ds = sorted(d for d in curves[(experiment, family)] if d > 0)
        pts = [curves[(experiment, family)][d] for d in ds]
        style, what = STYLES[experiment]
        line, = ax.plot(ds, [p["mean"] for p in pts], style, marker="o", ms=3, label=f"{LABELS.get(family, family)}, "
                        f"{what}", color=colors.get(family))
        colors[family] = line.get_color()
        if experiment != "mafalda":
            ax.fill_between(ds, [p["min"] for p in pts], [p["max"] for p in pts], color=line.get_color(),
                            alpha=0.1, linewidth=0)
    ax.set_yscale("log")
    ax.set_xlabel("shortest-path distance from the attacker (node 0)")
    ax.set_ylabel("Renyi loss of the victim towards the attacker (alpha = 2)")
    ax.set_title("E24: MF accounting vs the Muffliato bound, PNDP, T = 10, every round")
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize=6.5, ncol=2)
    save(fig, out, "e24.png")


if __name__ == "__main__":
    command_line(main, __doc__)
