"""Thesis Fig. 4.6: the relative error of the D-GD attack against the distance to the attacker on a line of 31
nodes (attacker at one end, T = 31). Left: least squares, the data x recovered from the estimated gradient
(x = g_w / g_b), median and quartiles over 30 data sets, OLS and GLS. Right: Assumption 4.7 with noise sigma = 1e-3,
the gradient's relative error (mean over 30 runs) and the estimators' theoretical standard deviations, with one
and two gossip rounds per gradient step (Remark 4.11).

    build/netdp run examples/fig4_6_dgd_line_attack/study.toml --out DIR
    python3 examples/fig4_6_dgd_line_attack/plot.py DIR      # writes DIR/fig4_6.png, prints the table

Needs matplotlib and numpy.
"""
import csv
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # examples/, for plot_common
from plot_common import command_line, plt, save  # noqa: E402
# Paper-specific, drawn here rather than with netdp.plot: quartiles of the D-GD data error by distance.


def node_rows(unit):
    with open(Path(unit) / "nodes.csv", newline="") as f:
        return [r for r in csv.DictReader(f) if r["role"] != "attacker"]


def main(out):
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.5))
    by_distance = {"ols": defaultdict(list), "gls": defaultdict(list)}
    for unit in sorted(Path(out, "least_squares", "p0000").glob("rep-*")):
        for r in node_rows(unit):
            for e in by_distance:
                if r[f"{e}_data_error"]:
                    by_distance[e][int(r["distance"])].append(float(r[f"{e}_data_error"]))
    print("least squares, data error by distance (OLS mean, median over 30 data sets):")
    for e, curves in by_distance.items():
        d = sorted(curves)
        q25, median, q75 = (np.array([np.percentile(curves[x], q) for x in d]) for q in (25, 50, 75))
        left.errorbar(d, median, yerr=[median - q25, q75 - median], marker="o", capsize=2, label=e.upper())
        if e == "ols":
            for x in d:
                print(f"  distance {x:2d}: {np.mean(curves[x]):.3g} (median {np.median(curves[x]):.3g})")
    left.set_yscale("log")
    left.set_xlabel("distance to the attacker")
    left.set_ylabel("relative error of the recovered data (median, quartiles)")
    left.set_title("least squares, eta = 1e-4, no noise")
    left.legend()
    for point, rounds in enumerate([1, 2]):
        rows = node_rows(Path(out, "noisy", f"p{point:04d}", "rep-0"))
        d = [int(r["distance"]) for r in rows]
        for e, style in (("ols", "o-"), ("gls", "s--")):
            right.plot(d, [float(r[f"{e}_error"]) for r in rows], style, label=f"{e.upper()}, K = {rounds}")
    right.set_yscale("log")
    right.set_xlabel("distance to the attacker")
    right.set_ylabel("relative error of the gradient")
    right.set_title("Assumption 4.7, sigma = 1e-3 (30 runs)")
    right.legend()
    save(fig, out, "fig4_6.png")


if __name__ == "__main__":
    command_line(main, __doc__)
