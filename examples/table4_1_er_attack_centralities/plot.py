"""Thesis Table 4.1 / A.1, Erdos-Renyi column: across 500 connected G(50, 0.08) with attacker node 0 (T = 10),
Spearman's rho between the attacker's degree, eigenvector and betweenness centrality and the fraction of nodes
it reconstructs, and the mean +- std of Kendall's tau between the reconstructible indicator and the hop distance
or the communicability from the attacker, for the exact decision (experiment er) and the reference code's float
elimination (er_float), next to the thesis' values. Writes DIR/table4_1_er.png (reconstructed fraction against
degree, both methods).

    build/netdp run examples/table4_1_er_attack_centralities/study.toml --out DIR
    python3 examples/table4_1_er_attack_centralities/plot.py DIR

Needs matplotlib and numpy.
"""
import csv
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # examples/, for plot_common
from plot_common import command_line, plt, save  # noqa: E402
# Paper-specific, drawn here rather than with netdp.plot: attacker degree against reconstructed fraction.


def ranks(x):
    """Ranks with ties averaged (as scipy.stats.rankdata)."""
    order = np.argsort(x, kind="mergesort")
    r = np.empty(len(x))
    r[order] = np.arange(1, len(x) + 1)
    for value in np.unique(x):
        tie = x == value
        r[tie] = r[tie].mean()
    return r


def spearman(a, b):
    return float(np.corrcoef(ranks(np.asarray(a)), ranks(np.asarray(b)))[0, 1])


# Table 4.1 / A.1, Erdos-Renyi column, as the thesis prints it.
THESIS = {"degree": 0.94, "eigenvector": 0.81, "betweenness": 0.84, "kendall_distance": (-0.44, 0.09),
          "kendall_communicability": (0.35, 0.05)}


def node0_columns(out, experiment):
    """Attacker 0's row of centralities.csv in every unit of the experiment, as arrays by column."""
    rows = []
    for unit in sorted(Path(out, experiment, "p0000").glob("rep-*")):
        with open(unit / "centralities.csv", newline="") as f:
            rows.append(next(csv.DictReader(f)))  # attacker 0
    return {k: np.array([float(r[k]) if r[k] not in ("", "nan") else np.nan for r in rows]) for k in rows[0]}


def main(out):
    methods = {"exact": node0_columns(out, "er"), "float": node0_columns(out, "er_float")}
    print(f"{'':26s} {'exact':>15s} {'float':>15s} {'thesis':>15s}")
    for name in ("degree", "eigenvector", "betweenness"):
        values = [spearman(c[name], c["reconstructed_fraction"]) for c in methods.values()]
        print(f"Spearman {name:17s} {values[0]:15.2f} {values[1]:15.2f} {THESIS[name]:15.2f}")
    for name in ("kendall_distance", "kendall_communicability"):
        cells = [f"{np.nanmean(c[name]):.2f} +- {np.nanstd(c[name]):.2f}" for c in methods.values()]
        print(f"{name:26s} {cells[0]:>15s} {cells[1]:>15s} {'%.2f +- %.2f' % THESIS[name]:>15s}")
    for method, c in methods.items():
        print(f"{method}: {len(c['degree'])} graphs, mean reconstructed fraction "
              f"{c['reconstructed_fraction'].mean():.3f}, tau defined for {np.sum(~np.isnan(c['kendall_distance']))}")
    fig, ax = plt.subplots(figsize=(6.5, 4.5))
    # Degrees are integers: a small horizontal offset keeps the two methods' points apart.
    for (method, c), colour, shift in zip(methods.items(), ("tab:purple", "tab:orange"), (-0.12, 0.12)):
        rho = spearman(c["degree"], c["reconstructed_fraction"])
        ax.scatter(c["degree"] * 49 + shift, c["reconstructed_fraction"], alpha=0.25, s=14, color=colour,
                   label=f"{method} ({len(c['degree'])} graphs, Spearman {rho:.2f})")
    ax.set_xlabel("degree of the attacker (node 0)")
    ax.set_ylabel("fraction of the 50 nodes reconstructed")
    ax.set_title("Table 4.1, G(50, 0.08), T = 10: reconstruction against degree,\nexact and float elimination",
                 fontsize=10)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    save(fig, out, "table4_1_er.png")


if __name__ == "__main__":
    command_line(main, __doc__)
