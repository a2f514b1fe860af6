"""Thesis Fig. 4.2: the mean (+- std over 20 graphs) fraction of nodes reconstructed on connected G(n, q),
q = 20 p / n, against n, one curve per expected degree 20 p, one panel per number of attackers.

    build/netdp run examples/fig4_2_er_attack_grid/study.toml --out DIR
    python3 examples/fig4_2_er_attack_grid/plot.py DIR       # writes DIR/fig4_2.png, prints the table

Needs matplotlib.
"""
import math
import re
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # examples/, for plot_common
from plot_common import command_line, plt, results, save  # noqa: E402

GRAPH = re.compile(r"er:n=(\d+),p=([0-9.e-]+),")


def main(out):
    cells = defaultdict(dict)  # cells[attackers][(degree, n)] = (mean, std)
    for row in results(out):
        if row["statistic"] != "reconstructed_fraction":
            continue
        m = GRAPH.match(row["graph"])
        n, q = int(m.group(1)), float(m.group(2))
        attackers = int(row["experiment"][-1])
        std = float(row["stderr"] or 0) * math.sqrt(int(row["replicates"]))
        cells[attackers][(round(q * n), n)] = (float(row["mean"]), std)
    fig, axes = plt.subplots(1, 3, figsize=(13, 4), sharey=True)
    for ax, attackers in zip(axes, sorted(cells)):
        for degree in sorted({d for d, _ in cells[attackers]}):
            ns = sorted(n for d, n in cells[attackers] if d == degree)
            means = [cells[attackers][(degree, n)][0] for n in ns]
            stds = [cells[attackers][(degree, n)][1] for n in ns]
            ax.errorbar(ns, means, yerr=stds, marker="o", capsize=3, label=f"{degree:.2f}")
        ax.set_title(f"{attackers} attacker{'s' if attackers > 1 else ''}")
        ax.set_xlabel("n")
        ax.set_ylim(0, 1.05)
    axes[0].set_ylabel("fraction of nodes reconstructed")
    axes[-1].legend(title="n x p")
    save(fig, out, "fig4_2.png")
    for attackers in sorted(cells):
        print(f"{attackers} attacker(s): " + ", ".join(
            f"deg {d} n {n}: {m:.2f}+-{s:.2f}" for (d, n), (m, s) in sorted(cells[attackers].items())))


if __name__ == "__main__":
    command_line(main, __doc__)
