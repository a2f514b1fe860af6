"""Thesis Fig. 7.1 (and D.1): private summation by a random walk on the complete graph, network DP vs local DP.

(a) Theorem 7.1 (experiment sum_bound): eps against n for network DP and local DP, N_v from the Chernoff bound
    (solid) or fixed to T/n (dashed).
(b) Simulated walks (experiment walks), one panel per mechanism (Gaussian = Fig. 7.1b, histogram = Fig. D.1):
    network loss mean over pairs and walks, with a min-max band, and the local loss, per eps0 (netdp.plot's
    study_by_axis).

    build/netdp run examples/fig7_1_complete_graph_summation/study.toml --out DIR
    python3 examples/fig7_1_complete_graph_summation/plot.py DIR        # writes DIR/fig7_1.png

Needs matplotlib (apt-get install python3-matplotlib).
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # examples/, for plot_common
from plot_common import command_line, netdp_plot, plt, results, save  # noqa: E402


def main(out):
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.5))
    for contributions, ls in (("chernoff", "-"), ("fixed", "--")):
        for stat, color, label in (("last_row.eps", "tab:blue", "network DP"), ("last_row.eps_ldp", "tab:red", "LDP")):
            netdp_plot.study_by_axis(out, axes[0], stat, experiment="sum_bound", x="n",
                                     where=lambda row: row["contributions"] == contributions,
                                     lines=lambda row: f"{label}, N_v {contributions}", band_label="", marker=None,
                                     color=color, ls=ls)
    eps0s = sorted({row["eps0"] for row in results(out) if row["experiment"] == "walks"})
    n_of = lambda row: float(row["graph"].split("n=")[1])  # noqa: E731  (graph = complete:n=N)
    for ax, mechanism in ((axes[1], "gaussian"), (axes[2], "histogram")):
        for i, eps0 in enumerate(eps0s):
            where = lambda row: row["mechanism"] == mechanism and row["eps0"] == eps0  # noqa: E731
            netdp_plot.study_by_axis(out, ax, "network_loss.mean", experiment="walks", x=n_of, where=where,
                                     lines=lambda row: f"network DP, eps0 = {eps0}", color=f"C{i}",
                                     spread=("network_loss.min", "network_loss.max"),
                                     band_label=f"network DP, eps0 = {eps0}: min to max over pairs and walks")
            netdp_plot.study_by_axis(out, ax, "local_loss.mean", experiment="walks", x=n_of, where=where,
                                     lines=lambda row: f"LDP, eps0 = {eps0}", band_label="", ls="--",
                                     color=f"C{i}")
    titles = ("(a) Thm 7.1, eps0 = 0.1, T = 100 n", "(b) Fig. 7.1b: simulated walks, gaussian mechanism",
              "Fig. D.1: simulated walks, histogram mechanism")
    for ax, title in zip(axes, titles):
        ax.set(xscale="log", yscale="log")
        netdp_plot.finish(ax, "number of users n", "eps of (eps, 1e-7)-DP", title)
    fig.suptitle("Fig. 7.1: summation on the complete graph, network DP versus local DP")
    save(fig, out, "fig7_1.png")


if __name__ == "__main__":
    command_line(main, __doc__)
