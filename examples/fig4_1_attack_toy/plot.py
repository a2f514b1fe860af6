"""Thesis Fig. 4.1: the toy graph, attackers {0, 1}, the nodes they reconstruct after T rounds and the others
(netdp.plot's attack drawing); one panel per T of the study (metropolis weights).

    build/netdp run examples/fig4_1_attack_toy/study.toml --out DIR
    python3 examples/fig4_1_attack_toy/plot.py DIR        # writes DIR/fig4_1.png

Needs matplotlib and networkx.
"""
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # examples/, for plot_common
from plot_common import command_line, netdp_plot, plt, results, save  # noqa: E402


def main(out):
    points = sorted({(row["point"], row["steps"]) for row in results(out)
                     if row.get("weights", "metropolis") == "metropolis"}, key=lambda p: int(p[1]))
    fig, axes = plt.subplots(1, len(points), figsize=(4.5 * len(points), 6))
    for ax, (point, steps) in zip(axes, points):
        unit = Path(out, "toy", point, "rep-0")
        s = json.loads((unit / "summary.json").read_text())
        # netdp.plot's attack drawing: the graph rebuilt from the unit's spec, each node marked by its role
        netdp_plot.plot_result(unit, ax=ax, node_labels=True)
        ax.set_title(f"T = {steps}: rank of K_T {s['rank']}, {len(s['reconstructible'])} of {s['n']} values known",
                     fontsize=10)
        ax.set_xlabel("")
        ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, 0.0))  # below the drawing, hiding no node
    fig.suptitle("Fig. 4.1: which private values two curious nodes compute from T rounds of gossip "
                 "(Metropolis W, exact decision; node labels are node ids)")
    save(fig, out, "fig4_1.png")


if __name__ == "__main__":
    command_line(main, __doc__)
