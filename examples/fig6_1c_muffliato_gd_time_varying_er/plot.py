"""Thesis Fig. 6.1c / Table C.1: Muffliato-GD on time-varying Erdos-Renyi graphs. Left: node 0's loss towards the
others by hop distance in the first graph (mean, min-max band) for the per-round Theorem 6.6 bound summed over the
steps (`er-round-sum`) and for Theorem C.9 on the actual graphs (`thm-C.9`), with the LDP composition T x LDP level.
Right: test accuracy of the averaged model against the gradient step (mean over runs with its band,
netdp.plot.curve), beside the trusted-aggregator (federated) baseline that averages the same noisy updates exactly.

    build/netdp run examples/fig6_1c_muffliato_gd_time_varying_er/study.toml --out DIR
    python3 examples/fig6_1c_muffliato_gd_time_varying_er/plot.py DIR        # writes DIR/fig6_1c.png

Needs matplotlib.
"""
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # examples/, for plot_common
from plot_common import command_line, legend_with_band, netdp_plot, plt, rows, save  # noqa: E402


def main(out):
    # One grid point per graph size (study.toml: n = 500; paper.toml: n = 2000, 4000, 8000): one colour per n,
    # the line style tells the accountant (left) or the averaging (right).
    units = sorted(Path(out, "er").glob("p*/rep-0"))
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.6))
    sizes = []
    for i, unit in enumerate(units):
        privacy = rows(f"{unit}/privacy.csv")
        summary = json.load(open(f"{unit}/summary.json"))
        n = summary.get("n", "?")
        sizes.append(str(n))
        colour = colours[i % len(colours)] if len(units) > 1 else None
        tag = f", n = {n}" if len(units) > 1 else ""
        for accountant, label, ls in (("er-round-sum", "Thm 6.6 per round, summed", "-"),
                                      ("thm-C.9", "Thm C.9 on the graphs", ":")):
            points = {int(r["distance"]): {k: float(r[k]) for k in ("mean", "min", "max")} for r in privacy
                      if r["accountant"] == accountant and r["distance"] not in ("all", "inf")}
            style = {"ls": ls, **({"color": colour} if colour else {})}
            netdp_plot.by_distance(left, points, label + tag, band_label="", **style)
        style = {"color": colour} if colour else {}
        netdp_plot.curve(unit, "accuracy", right, label="Muffliato-GD (K gossip steps)" + tag, band_label="",
                         **style)
        federated = Path(out, "federated", unit.parent.name, "rep-0")
        if federated.exists():  # the trusted aggregator: the noisy updates averaged exactly
            netdp_plot.curve(federated, "accuracy", right, label="trusted aggregator (exact average)" + tag,
                             band_label="", ls="--", **({"color": colour} if colour else {"color": "black"}))
    left.axhline(summary["privacy"]["ldp_total"], color="black", ls="--", lw=1,
                 label="T x LDP level (LDP composition)")
    netdp_plot.finish(left, "hop distance from node 0 on the first graph (hops)",
                      "Renyi loss of node 0 towards v (alpha = 2)",
                      "privacy of node 0 by distance (bands: min to max over v)", legend=False)
    legend_with_band(left, "shaded: min to max over v", fontsize=7)
    netdp_plot.finish(right, "gradient step t", "test accuracy of the averaged model (fraction)",
                      "utility: Muffliato-GD against a trusted aggregator (bands: mean +- standard error over runs)",
                      legend=False)
    legend_with_band(right, "shaded: mean +- standard error over the runs", fontsize=7)
    fig.suptitle(f"Fig. 6.1c: Muffliato-GD on a fresh G(n, ln n / n) per step, n = {', '.join(sizes)}")
    save(fig, out, "fig6_1c.png")


if __name__ == "__main__":
    command_line(main, __doc__)
