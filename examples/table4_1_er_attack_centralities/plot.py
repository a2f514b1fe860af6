"""Thesis Table 4.1 / A.1, Erdos-Renyi column: across 500 connected G(50, 0.08) with attacker node 0 (T = 10),
Spearman's rho between the attacker's degree, eigenvector and betweenness centrality and the fraction of nodes
it reconstructs, and the mean +- std of Kendall's tau between the reconstructible indicator and the hop distance
or the communicability from the attacker. Writes DIR/table4_1_er.png (reconstructed fraction against degree).

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


def main(out):
    rows = []
    for unit in sorted(Path(out, "er", "p0000").glob("rep-*")):
        with open(unit / "centralities.csv", newline="") as f:
            rows.append(next(csv.DictReader(f)))  # attacker 0
    column = {k: np.array([float(r[k]) if r[k] not in ("", "nan") else np.nan for r in rows]) for k in rows[0]}
    fraction = column["reconstructed_fraction"]
    print(f"{len(rows)} graphs, mean reconstructed fraction {fraction.mean():.3f}")
    for name in ("degree", "eigenvector", "betweenness"):
        print(f"Spearman {name:12s} {spearman(column[name], fraction):.2f}")
    for name in ("kendall_distance", "kendall_communicability"):
        print(f"{name:24s} {np.nanmean(column[name]):.2f} +- {np.nanstd(column[name]):.2f} "
              f"({np.sum(~np.isnan(column[name]))} defined)")
    fig, ax = plt.subplots(figsize=(5, 4))
    ax.scatter(column["degree"] * 49, fraction, alpha=0.3)
    ax.set_xlabel("degree of the attacker")
    ax.set_ylabel("fraction of nodes reconstructed")
    save(fig, out, "table4_1_er.png")


if __name__ == "__main__":
    command_line(main, __doc__)
