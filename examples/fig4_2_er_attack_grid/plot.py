"""Thesis Fig. 4.2: the mean (+- std over 20 graphs) fraction of nodes reconstructed on connected G(n, q),
q = 20 p / n, against n, one curve per expected degree, one panel per number of attackers; top row exact (two
primes), bottom row the reference code's floating-point elimination on the same graphs (the thesis' method). Each
unit decides exactly and also runs the float elimination on the same knowledge matrix (summary.json `float`, the
same reduction as `method = "float"` alone; docs/attack.md "Floating-point mode").

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
# Paper-specific, drawn here rather than with netdp.plot: a grid of (graph, T) cases; float counts divided by n.

GRAPH = re.compile(r"er:n=(\d+),p=([0-9.e-]+),")
# The statistic of each method and what turns it into a fraction of n: exact writes the fraction, float the count.
METHODS = {"exact": ("reconstructed_fraction", False), "float": ("float.reconstructed", True)}


def main(out):
    cells = {m: defaultdict(dict) for m in METHODS}  # cells[method][attackers][(degree, n)] = (mean, std)
    for row in results(out):
        for method, (statistic, is_count) in METHODS.items():
            if row["statistic"] != statistic:
                continue
            m = GRAPH.match(row["graph"])
            n, q = int(m.group(1)), float(m.group(2))
            scale = n if is_count else 1
            attackers = int(row["experiment"][-1])
            std = float(row["stderr"] or 0) * math.sqrt(int(row["replicates"]))
            cells[method][attackers][(round(q * n), n)] = (float(row["mean"]) / scale, std / scale)
    fig, axes = plt.subplots(2, 3, figsize=(14, 8), sharey=True, sharex=True)
    colours = {3: "tab:blue", 4: "tab:orange", 5: "tab:green", 6: "tab:red"}
    for row_axes, method in zip(axes, METHODS):
        for ax, attackers in zip(row_axes, sorted(cells[method])):
            cell = cells[method][attackers]
            for degree in sorted({d for d, _ in cell}):
                ns = sorted(n for d, n in cell if d == degree)
                ax.errorbar(ns, [cell[(degree, n)][0] for n in ns], yerr=[cell[(degree, n)][1] for n in ns],
                            marker="o", capsize=3, color=colours.get(degree), label=f"{degree}")
            name = "exact (two primes)" if method == "exact" else "float elimination (the thesis' method)"
            ax.set_title(f"{attackers} attacker{'s' if attackers > 1 else ''}, {name}", fontsize=10)
            ax.set_ylim(0, 1.05)
            ax.grid(True, alpha=0.3)
        row_axes[0].set_ylabel("fraction of nodes reconstructed\n(mean +- std over the graphs)")
    for ax in axes[1]:
        ax.set_xlabel("number of nodes n")
    axes[0][-1].legend(title="expected degree n q", fontsize=8)
    fig.suptitle("Fig. 4.2: reconstruction by 1-3 gossip attackers on Erdos-Renyi graphs G(n, q), T = n q / |A| "
                 "(at most n / 2), Metropolis W")
    save(fig, out, "fig4_2.png")
    for method in METHODS:
        for attackers in sorted(cells[method]):
            print(f"{method}, {attackers} attacker(s): " + ", ".join(
                f"deg {d} n {n}: {m:.2f}+-{s:.2f}" for (d, n), (m, s) in sorted(cells[method][attackers].items())))


if __name__ == "__main__":
    command_line(main, __doc__)
