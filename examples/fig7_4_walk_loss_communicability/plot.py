"""Thesis Fig. 7.4 / D.3 / D.4: for each graph of the study (ego 414, Davis Southern Women, the stochastic block
model of Fig. D.3) the walk privacy-loss matrix next to the communicability exp(W), and each node's mean loss
against its Katz and eigenvector centralities.

Each experiment's loss matrix is its loss.npy; its graph is rebuilt by `netdp graph` from the unit's own spec
(the program is $NETDP, else build/netdp), so the numbering is netdp's. W (Metropolis-Hastings, docs/math.md
§2.1), exp(W) and the centralities of the adjacency A are computed here for the comparison: Katz as netdp defines
it, x = (I - a A)^-1 1 at a = 0.5 / lambda_max(A) (docs/attack.md "Katz centrality"), and eigenvector
centrality, the one the reference code draws under the name "Katz".

    build/netdp run examples/fig7_4_walk_loss_communicability/study.toml --out DIR   # from the repository root
    python3 examples/fig7_4_walk_loss_communicability/plot.py DIR                    # writes DIR/fig7_4.png

Needs matplotlib and numpy. Prints one line per graph with the correlations drawn.
"""
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # examples/, for plot_common
from plot_common import plt, save  # noqa: E402
# Paper-specific, drawn here rather than with netdp.plot: loss matrix beside exp(W), loss by centrality.

NETDP = os.environ.get("NETDP", str(Path(__file__).resolve().parents[2] / "build/netdp"))
TITLES = {"ego": "Facebook ego 414 (Fig. 7.4a)", "davis": "Davis Southern Women (Fig. 7.4b)",
          "sbm": "stochastic block model 75/75/50 (Fig. D.3)"}


def adjacency(out, spec):
    """The graph of `spec` as netdp builds it: `netdp graph` writes edges.txt (`# n m`, then u v) into `out`."""
    subprocess.run([NETDP, "graph", "--graph", spec, "--out", str(out)], check=True, stdout=subprocess.DEVNULL)
    lines = (out / "edges.txt").read_text().splitlines()
    n = int(lines[0].split()[1])
    a = np.zeros((n, n))
    for line in lines[1:]:
        if line and not line.startswith("#"):
            u, v = map(int, line.split()[:2])
            a[u, v] = a[v, u] = 1.0
    return a


def metropolis(a):
    d = a.sum(axis=1)
    w = np.where(a > 0, 1.0 / (1 + np.maximum.outer(d, d)), 0.0)
    w[np.diag_indices(len(a))] = 1.0 - w.sum(axis=1)
    return w


def centralities(a):
    """Katz (netdp's definition and alpha) and eigenvector centrality (unit norm, positive) of A."""
    lam, vec = np.linalg.eigh(a)
    katz = np.linalg.solve(np.eye(len(a)) - 0.5 / lam[-1] * a, np.ones(len(a)))
    return katz, np.abs(vec[:, -1])


def ranks(x):
    return np.argsort(np.argsort(x))


def graph_row(axes, unit):
    info = json.loads((unit / "unit.json").read_text())
    spec = dict(info["arguments"])["graph"]
    loss = np.load(unit / "loss.npy")
    name = unit.parts[-3]
    a = adjacency(unit.parents[2] / "graphs" / name, spec)
    n = len(a)
    if a.shape[0] != loss.shape[0]:
        sys.exit(f"{spec}: {n} nodes, loss.npy has {loss.shape[0]}")
    lam, vec = np.linalg.eigh(metropolis(a))
    comm = (vec * np.exp(lam)) @ vec.T
    off = ~np.eye(n, dtype=bool)
    with np.errstate(divide="ignore"):
        left = axes[0].imshow(np.where(off, np.log(loss), np.nan), cmap="viridis")
        middle = axes[1].imshow(np.where(off, np.log2(comm), np.nan), cmap="viridis")
    plt.colorbar(left, ax=axes[0], label="ln eps(u -> v)")
    plt.colorbar(middle, ax=axes[1], label="log2 exp(W)[u, v]")
    # Pearson over the ordered pairs u != v, of the values and of their logarithms (the panels' scales).
    pearson = np.corrcoef(loss[off], comm[off])[0, 1]
    pearson_log = np.corrcoef(np.log(loss[off]), np.log(comm[off]))[0, 1]
    axes[0].set_title(f"{TITLES.get(name, name)}: walk loss\n(Thm 7.7, T = {info['summary']['steps']}, n = {n})",
                      fontsize=9)
    axes[1].set_title(f"communicability exp(W), diagonal blank\nPearson with the loss {pearson:.2f} "
                      f"(of the logs {pearson_log:.2f})", fontsize=9)
    for ax in axes[:2]:
        ax.set_xlabel("observer v (node id)")
        ax.set_ylabel("source u (node id)")
    mean_loss = loss.sum(axis=1) / (n - 1)
    katz, eigen = centralities(a)
    rho_katz = np.corrcoef(ranks(katz), ranks(mean_loss))[0, 1]
    rho_eigen = np.corrcoef(ranks(eigen), ranks(mean_loss))[0, 1]
    axes[2].scatter(katz / katz.max(), mean_loss, s=10, color="tab:blue",
                    label=f"Katz, a = 0.5/lambda_max (Spearman {rho_katz:.2f})")
    axes[2].scatter(eigen / eigen.max(), mean_loss, s=10, marker="x", color="tab:orange",
                    label=f"eigenvector (Spearman {rho_eigen:.2f})")
    axes[2].set_xlabel("centrality of u / its largest value")
    axes[2].set_ylabel("mean loss of u over observers (nats)")
    axes[2].set_title("mean walk loss against centrality", fontsize=9)
    axes[2].grid(True, alpha=0.3)
    axes[2].legend(fontsize=7)
    print(f"{name}: n = {n}, Pearson loss/comm {pearson:.3f}, of the logs {pearson_log:.3f}; Spearman mean loss/"
          f"Katz {rho_katz:.3f}, /eigenvector {rho_eigen:.3f}")


def main(out):
    units = [Path(out) / name / "p0000" / "rep-0" for name in TITLES if (Path(out) / name).is_dir()]
    if not units:
        sys.exit(f"{out}: no ego, davis or sbm experiment")
    fig, axes = plt.subplots(len(units), 3, figsize=(15, 4.4 * len(units)), squeeze=False)
    for row, unit in zip(axes, units):
        graph_row(row, unit)
    fig.suptitle("Fig. 7.4 / D.3: random-walk privacy loss against communicability and centrality "
                 "(Metropolis W, alpha = 2, sigma = 10, T = T_RW, closed form)")
    save(fig, out, "fig7_4.png")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
