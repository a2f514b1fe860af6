"""What the examples' plot.py scripts share: the rows of a study's results.csv, its units' summaries and
curves, its by-distance statistics, a mean curve with its min-max band, the finish of a panel, saving the figure, and the command line
`python3 examples/FOLDER/plot.py DIR`.

Needs matplotlib (apt-get install python3-matplotlib).
"""
import csv
import json
import re
import sys
from collections import defaultdict
from pathlib import Path

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (the scripts draw with this pyplot)

BY_DISTANCE = re.compile(r"by_distance\[distance=(\d+)\]\.(mean|min|max)$")


def rows(path):
    """The rows of a CSV file as dicts keyed by its header."""
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def results(out):
    """The rows of DIR/results.csv as dicts keyed by its header."""
    return rows(f"{out}/results.csv")


def summaries(out, experiment="*"):
    """(unit directory, its summary.json) of every replicate of one experiment of the study in DIR (all of
    them for "*"), in path order."""
    for path in sorted(Path(out).glob(f"{experiment}/*/rep-*/summary.json")):
        yield path.parent, json.loads(path.read_text())


def columns(path):
    """The columns of a CSV file of numbers: header name -> [float]."""
    table = rows(path)
    return {k: [float(r[k]) for r in table] for k in table[0]}


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


def mean_band(ax, ds, points, **style):
    """The mean curve over the distances ds with a light band from min to max (points[i]: "mean", "min",
    "max"); style goes to the line (label, marker, colour...). Returns the line."""
    line, = ax.plot(ds, [p["mean"] for p in points], **{"marker": "o", "ms": 3, **style})
    ax.fill_between(ds, [p["min"] for p in points], [p["max"] for p in points], color=line.get_color(),
                    alpha=0.15, linewidth=0)
    return line


def finish(ax, xlabel, ylabel, title, legend_size=8, **legend):
    """Axis labels, the title, a light major grid and the legend (legend: extra options such as ncol)."""
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize=legend_size, **legend)


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
