"""E24: PNDP Renyi loss of MF-D-SGD by hop distance from the attacker, against the earlier Muffliato bound.

Draws, per graph, the mean loss over the victims at each shortest-path distance from attacker 0 with a band from
the smallest to the largest: solid for the MF accounting of C = I (DP-D-SGD, the poster's "Ours"), dashed for the
earlier Muffliato-SGD bound of the same setting (mf-loss --baseline muffliato, docs/math.md §6.5, the poster's
dashed Cyffers et al. 2022), dotted for the MF accounting of the MAFALDA correlation.

    build/netdp run examples/e24_mf_pndp_by_distance/study.toml --out DIR
    python3 examples/e24_mf_pndp_by_distance/plot.py DIR        # writes DIR/e24.png

Needs matplotlib (apt-get install python3-matplotlib).
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # examples/, for plot_common
from plot_common import command_line, legend_with_band, netdp_plot, plt, save  # noqa: E402

LABELS = {"florentine": "Florentine (15)", "er": "Erdos-Renyi (100)", "hypercube": "hypercube (128)",
          "file": "ego 414 (148)"}
STYLES = {"ldp_noise": ("-", "MF, C = I"), "baseline": ("--", "Muffliato bound"), "mafalda": (":", "MF, MAFALDA")}


def main(out):
    curves = netdp_plot.study_by_distance(out, lambda row: (row["experiment"], row["graph"].split(":")[0]))
    baseline = netdp_plot.study_by_distance(out, lambda row: ("baseline", row["graph"].split(":")[0]), "baseline.")
    curves.update(baseline)
    fig, ax = plt.subplots(figsize=(7.5, 5))
    colors = {}
    for (experiment, family) in sorted(curves, key=lambda k: (k[1], list(STYLES).index(k[0]))):
        style, what = STYLES[experiment]
        # MAFALDA without its band: it would hide the others
        line = netdp_plot.by_distance(ax, curves[(experiment, family)], f"{LABELS.get(family, family)}, {what}",
                                      band_label="", skip_zero=True, with_band=experiment != "mafalda", ls=style,
                                      color=colors.get(family))
        colors[family] = line.get_color()
    ax.set_yscale("log")
    netdp_plot.finish(ax, "shortest-path distance from the attacker, node 0 (hops)",
                      "Renyi loss of the victim towards the attacker (alpha = 2)",
                      "E24: MF accounting vs the Muffliato bound, PNDP, T = 10, every round; bands: min to max over "
                      "the victims", legend=False)
    legend_with_band(ax, "shaded: min to max over the victims", fontsize=6.5, ncol=2)
    save(fig, out, "e24.png")


if __name__ == "__main__":
    command_line(main, __doc__)
