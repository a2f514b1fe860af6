"""docs/python.md's tutorial runs as written: its ```python blocks, in order, in one namespace."""

import os
import re

from conftest import SOURCE_DIR


def test_tutorial_runs(tmp_path, monkeypatch):
    with open(os.path.join(SOURCE_DIR, "docs", "python.md"), encoding="utf-8") as f:
        page = f.read()
    blocks = re.findall(r"```python\n(.*?)```", page, flags=re.S)
    assert len(blocks) >= 3
    monkeypatch.chdir(tmp_path)
    namespace = {}
    for block in blocks:
        exec(compile(block, "docs/python.md", "exec"), namespace)
    assert (tmp_path / "loss_by_distance.png").stat().st_size > 1000
    gossip = namespace["gossip"]
    assert gossip.summary["n"] == 64
    # The gossip loss decreases with the hop distance on this graph (docs/gossip_loss.md).
    means = list(gossip.by_distance["mean"])  # a pandas Series or a NumPy array: by position either way
    assert means[0] > means[-1]
