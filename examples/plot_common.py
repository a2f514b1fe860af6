"""What the examples' plot.py scripts share: the package netdp (its standard panels, netdp.plot, docs/plot.md), the
rows of a study's results.csv and its units' summaries, saving the figure, and the command line
`python3 examples/FOLDER/plot.py DIR`.

netdp is imported from PYTHONPATH (scripts/figures.sh puts the build's python/ first) or from an installed
package, else from build/python of this repository. Needs matplotlib (apt-get install python3-matplotlib).
"""
import csv
import json
import sys
from pathlib import Path

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402,F401  (the scripts draw with this pyplot)

try:
    import netdp.plot as netdp_plot  # noqa: E402,F401  (the scripts draw with netdp.plot)
except ImportError:  # run by hand from a source tree: the package of build/
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "build" / "python"))
    import netdp.plot as netdp_plot  # noqa: E402,F401


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


def legend_with_band(ax, band, **kwargs):
    """The legend of `ax` with one more entry, a grey patch saying what the shaded bands are (`band`, e.g. "shaded:
    min to max over the pairs"): the curves draw their bands without entries of their own (one per curve would
    crowd the legend), and the bands take each curve's colour."""
    from matplotlib.patches import Patch
    handles, labels = ax.get_legend_handles_labels()
    handles.append(Patch(facecolor="grey", alpha=0.3, edgecolor="none"))
    labels.append(band)
    return ax.legend(handles, labels, **kwargs)


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
