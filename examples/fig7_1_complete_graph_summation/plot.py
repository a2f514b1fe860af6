"""Thesis Fig. 7.1 (and D.1): private summation by a random walk on the complete graph, network DP vs local DP.

(a) Theorem 7.1 (experiment sum_bound): eps against n for network DP and local DP, N_v from the Chernoff bound
    (solid) or fixed to T/n (dashed).
(b) Simulated walks (experiment walks), one panel per mechanism (Gaussian = Fig. 7.1b, histogram = Fig. D.1):
    network loss mean over pairs and walks, with min / max as error bars, and the local loss, per eps0.

    build/netdp run examples/fig7_1_complete_graph_summation/study.toml --out DIR
    python3 examples/fig7_1_complete_graph_summation/plot.py DIR        # writes DIR/fig7_1.png

Needs matplotlib (apt-get install python3-matplotlib).
"""
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # examples/, for plot_common
from plot_common import command_line, plt, results, save  # noqa: E402


def main(out):
    bound = defaultdict(list)                          # (contributions, statistic) -> [(n, eps)]
    walks = defaultdict(lambda: defaultdict(dict))     # (mechanism, eps0) -> n -> {statistic: value}
    for row in results(out):
        stat, value = row["statistic"], float(row["mean"])
        if row["experiment"] == "sum_bound" and stat in ("last_row.eps", "last_row.eps_ldp"):
            bound[row["contributions"], stat].append((float(row["n"]), value))
        elif row["experiment"] == "walks" and stat.startswith(("network_loss.", "local_loss.mean")):
            n = int(row["graph"].split("n=")[1])   # graph = complete:n=N
            walks[row["mechanism"], row["eps0"]][n][stat] = value

    fig, axes = plt.subplots(1, 3, figsize=(15, 4.5))
    ax = axes[0]
    for contributions, ls in (("chernoff", "-"), ("fixed", "--")):
        for stat, color, label in (("last_row.eps", "tab:blue", "network DP"), ("last_row.eps_ldp", "tab:red", "LDP")):
            ns, eps = zip(*sorted(bound[contributions, stat]))
            ax.plot(ns, eps, ls=ls, color=color, label=f"{label}, N_v {contributions}")
    ax.set(xscale="log", yscale="log", xlabel="number of users n", ylabel="eps of (eps, 1e-7)-DP",
           title="(a) Thm 7.1, eps0 = 0.1, T = 100 n")
    ax.legend(fontsize=8)

    colors = {"0.1": "tab:blue", "0.4": "tab:green"}
    for ax, mechanism, fig_name in ((axes[1], "gaussian", "(b) Fig. 7.1b"), (axes[2], "histogram", "Fig. D.1")):
        for (mech, eps0), points in sorted(walks.items()):
            if mech != mechanism:
                continue
            ns = sorted(points)
            mean = [points[n]["network_loss.mean"] for n in ns]
            err = [[m - points[n]["network_loss.min"] for n, m in zip(ns, mean)],
                   [points[n]["network_loss.max"] - m for n, m in zip(ns, mean)]]
            ax.errorbar(ns, mean, yerr=err, marker="o", ms=4, capsize=3, color=colors.get(eps0),
                        label=f"network DP, eps0 = {eps0}")
            ax.plot(ns, [points[n]["local_loss.mean"] for n in ns], ls="--", color=colors.get(eps0),
                    label=f"LDP, eps0 = {eps0}")
        ax.set(xscale="log", yscale="log", xlabel="number of users n", ylabel="eps of (eps, 1e-7)-DP",
               title=f"{fig_name}: simulated walks, {mechanism} mechanism")
        ax.legend(fontsize=8)
    for ax in axes:
        ax.grid(True, which="major", alpha=0.3)
    fig.suptitle("Fig. 7.1: summation on the complete graph, network DP versus local DP")
    save(fig, out, "fig7_1.png")


if __name__ == "__main__":
    command_line(main, __doc__)
