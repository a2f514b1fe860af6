"""The example that draws Fig. 6.1a through the Python API runs (small graphs) and gives the study's numbers."""

import os
import subprocess
import sys

import numpy as np
import networkx as nx

import netdp
from conftest import SOURCE_DIR

SCRIPT = os.path.join(SOURCE_DIR, "examples", "fig6_1a_gossip_by_distance", "figure_from_python.py")


def test_example_draws_the_figure(tmp_path):
    png = tmp_path / "fig.png"
    done = subprocess.run([sys.executable, SCRIPT, str(png), "--small"], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert done.returncode == 0, done.stderr
    assert png.stat().st_size > 10000


def test_networkx_grid_is_the_engines_grid():
    # The example's grid is a networkx graph; its row-major node order is the engine's grid numbering
    # (docs/graphs.md), so both give the same losses.
    setting = dict(steps=6, t_start=1, device="cpu")
    a = netdp.gossip_loss(nx.grid_2d_graph(5, 6), **setting)
    b = netdp.gossip_loss("grid:rows=5,cols=6", **setting)
    assert a.node_labels[:2] == [(0, 0), (0, 1)]
    assert np.array_equal(a.loss, b.loss)
