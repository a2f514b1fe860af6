"""Thesis Fig. A.1: four small graphs, attacker 0, the reconstructible nodes and the others (netdp.plot's attack
drawing).

    build/netdp run examples/figA_1_attack_counter_examples/study.toml --out DIR   # from the repository root
    python3 examples/figA_1_attack_counter_examples/plot.py DIR                    # writes DIR/figA_1.png

Needs matplotlib and networkx.
"""
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # examples/, for plot_common
from plot_common import command_line, netdp_plot, plt, save  # noqa: E402

NAMES = ["G1", "G2", "G3", "G4"]


def main(out):
    fig, axes = plt.subplots(1, 4, figsize=(15, 5))
    for point, (ax, name) in enumerate(zip(axes, NAMES)):
        unit = Path(out, "counter", f"p{point:04d}", "rep-0")
        s = json.loads((unit / "summary.json").read_text())
        # netdp.plot's attack drawing: the graph rebuilt from the unit's spec (gN.edges), each node by its role
        netdp_plot.plot_result(unit, ax=ax, node_labels=True)
        ax.set_title(f"{name}: {s['reconstructed']} of {s['n']} reconstructible", fontsize=10)
        ax.set_xlabel("")
        ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, 0.0))  # below the drawing
        print(f"{name}: reconstructible {s['reconstructible']} of {s['n']} nodes, rank {s['rank']}")
    fig.suptitle("Fig. A.1: attacker 0 on four small graphs, T = n rounds of gossip (node labels are node ids)")
    save(fig, out, "figA_1.png")


if __name__ == "__main__":
    command_line(main, __doc__)
