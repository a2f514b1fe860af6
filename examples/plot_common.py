"""What the examples' plot.py scripts share: the rows of a study's results.csv, its by-distance statistics,
saving the figure, and the command line `python3 examples/FOLDER/plot.py DIR`.

Needs matplotlib (apt-get install python3-matplotlib).
"""
import csv
import re
import sys
from collections import defaultdict

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (the scripts draw with this pyplot)

BY_DISTANCE = re.compile(r"by_distance\[distance=(\d+)\]\.(mean|min|max)$")


def results(out):
    """The rows of DIR/results.csv as dicts keyed by its header."""
    with open(f"{out}/results.csv", newline="") as f:
        yield from csv.DictReader(f)


def by_distance(out, key):
    """curves[key(row)][distance] = {"mean", "min", "max"} from the by_distance[distance=d] statistics of
    results.csv (mean: averaged over replicates; min / max: extremes over pairs and replicates); rows whose
    key is None are left out."""
    curves = defaultdict(lambda: defaultdict(dict))
    for row in results(out):
        m = BY_DISTANCE.match(row["statistic"])
        k = key(row) if m else None
        if k is not None:
            d, what = int(m.group(1)), m.group(2)
            curves[k][d][what] = float(row[what])
    return curves


def save(fig, out, name):
    """Writes the figure to DIR/name."""
    fig.tight_layout()
    fig.savefig(f"{out}/{name}", dpi=150)
    print(f"wrote {out}/{name}")


def command_line(main, doc):
    """main(DIR) with the one argument DIR, else the usage (the script's docstring)."""
    if len(sys.argv) != 2:
        sys.exit(doc)
    main(sys.argv[1])
