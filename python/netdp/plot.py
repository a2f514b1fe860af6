"""A standard figure for every netdp results directory (docs/plot.md).

``plot_result(directory, out=None, ax=None)`` reads a directory written by any model command, ``netdp demo`` or a
study (``netdp run`` / ``netdp merge``), finds the model in its manifest.json (``command``, or ``tool`` for a
study) and draws that model's figure with matplotlib; ``python3 -m netdp.plot DIR --out FILE`` (what
``netdp plot`` runs) does the same from the command line. The files are read with csv, json and NumPy only, so
pandas is not needed; matplotlib is imported when a figure is drawn, and no pyplot state is touched (the figure is
a plain ``matplotlib.figure.Figure``), so it works headless and inside notebooks alike.

Single panels of those figures, for scripts that compose figures of their own (examples/*/plot.py): ``curve``
(a learning curve with its band), ``study_by_distance`` and ``by_distance`` (loss by distance with its min-max
band), ``study_by_axis`` (a study's statistic against a grid axis) and ``finish`` (labels, title, grid, legend).

The drawings themselves are in ``_draw.py`` (one function per model), ``_draw_panels.py`` (the single panels) and
``_draw_common.py`` (shared pieces).
"""

import argparse
import json
import os
import sys

__all__ = ["plot_result", "NotResultsDirectory", "model_of", "main", "curve", "study_by_distance", "by_distance",
           "study_by_axis", "finish"]


class NotResultsDirectory(ValueError):
    """The directory holds no netdp results (no manifest.json naming a command, no study results.csv)."""


def _json(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def model_of(directory):
    """The name of what wrote `directory`: a model command (``gossip-loss``, ``bound complete-sum``,
    ``attack gossip``...), ``demo`` or ``study``. Raises NotResultsDirectory otherwise."""
    directory = os.fspath(directory)
    if not os.path.isdir(directory):
        raise NotResultsDirectory(f"{directory}: not a directory")
    manifest_path = os.path.join(directory, "manifest.json")
    if os.path.isfile(os.path.join(directory, "results.csv")) and (
            os.path.isfile(os.path.join(directory, "study.toml"))):
        return "study"
    if os.path.isfile(os.path.join(directory, "study.toml")) and not os.path.isfile(manifest_path):
        raise NotResultsDirectory(f"{directory}: a study without results.csv: some units are not finished (run it "
                                  "again, or netdp merge its shards, docs/study.md)")
    if not os.path.isfile(manifest_path):
        raise NotResultsDirectory(f"{directory}: not a netdp results directory (no manifest.json; a run that "
                                  "failed or is still running has none, docs/outputs.md §1.1)")
    try:
        manifest = _json(manifest_path)
    except (OSError, ValueError) as error:
        raise NotResultsDirectory(f"{manifest_path}: unreadable ({error})") from None
    if manifest.get("tool") == "netdp run":
        raise NotResultsDirectory(f"{directory}: a study without results.csv (not every unit is finished)")
    command = manifest.get("command") if isinstance(manifest, dict) else None
    if not isinstance(command, str) or not command:
        raise NotResultsDirectory(f"{manifest_path}: names no netdp command")
    return command


def plot_result(directory, out=None, ax=None, **options):
    """Draws the standard figure of the results in `directory` and returns the matplotlib Figure.

    directory: a results directory of any model command, ``netdp demo`` or a study (docs/outputs.md).
    out: a file name; the figure is saved there, in the format of its extension (.png, .svg, .pdf).
    ax: an existing matplotlib Axes: only the figure's main panel is drawn, into it (its Figure is returned).
    options: ``source`` (the row of the loss heat map, default the run's source or node 0),
    ``statistic`` (a study's statistic to draw by axis, default the first headline statistic found),
    ``node_labels`` (attack figures: each node's id written on the drawing, default False).

    Raises NotResultsDirectory (a ValueError) for a directory netdp did not write, KeyError for a command that
    has no figure, and ImportError when matplotlib is missing.
    """
    from . import _draw  # imports matplotlib: only when a figure is drawn

    directory = os.fspath(directory)
    model = model_of(directory)
    drawer = _draw.DRAWERS.get(model) or _draw.DRAWERS.get(model.split(" ")[0])
    if drawer is None:
        raise KeyError(f"{directory}: no figure for the command '{model}' (known: {', '.join(sorted(_draw.DRAWERS))})")
    figure = drawer(_draw.Run(directory, model), ax, **options)
    if out is not None:
        out = os.fspath(out)
        if os.path.splitext(out)[1].lower() not in (".png", ".svg", ".pdf"):
            raise ValueError(f"{out}: the figure's file name must end in .png, .svg or .pdf")
        if ax is None:
            figure.tight_layout()
        figure.savefig(out, dpi=150)
    return figure


def curve(directory, stem, ax, label=None, band_label=None, **style):
    """Draws one learning curve of a results directory (walk-sgd, muffliato-sgd, muffliato-gd, mf-sgd, admm)
    into `ax`: curves.csv's ``{stem}_mean`` (``objective``, ``accuracy``, ``test_loss``...) against the step, with
    the band the figure draws (min-max over runs, else +- std, else +- standard error). label: the line's legend
    entry; band_label: the band's ("" for none); style: matplotlib line options (color, ls...). Returns the line."""
    from . import _draw_panels
    return _draw_panels.curve(directory, stem, ax, label, band_label, **style)


def study_by_distance(directory, key=None, family=""):
    """The loss-by-distance statistics of a study directory (results.csv's ``by_distance[distance=d]`` rows):
    ``{key(row): {d: {"mean", "min", "max"}}}``, mean over replicates, min / max over pairs and replicates. key:
    a function of the results.csv row (default its experiment; None leaves the row out); family: the prefix of
    the statistic (``"baseline."`` for mf-loss's Muffliato baseline)."""
    from . import _draw_panels
    return _draw_panels.study_by_distance(directory, key, family)


def by_distance(ax, points, label, band_label=None, skip_zero=False, with_band=True, **style):
    """Draws one curve of study_by_distance (``{d: {"mean", "min", "max"}}``) into `ax`: the mean with its min-max
    band, as the loss-by-distance figures do. skip_zero: leave out distance 0 (the source itself); with_band
    False: the mean only. Returns the line."""
    from . import _draw_panels
    return _draw_panels.by_distance(ax, points, label, band_label, skip_zero, with_band, **style)


def study_by_axis(directory, ax, statistic, experiment=None, x=None, lines=None, where=None, label="",
                  spread=None, band_label=None, **style):
    """Draws a study's `statistic` (mean over replicates) against a grid axis into `ax`, as a study's figure does.
    experiment: that experiment only; x: the grid axis (default the first that varies), another statistic of the
    same grid point (its mean) or a function of the results.csv row; lines: a function of the row naming its line
    (default the other varying axes); where: a filter on the rows; label: a prefix of the legend entries; spread:
    the band, min-max over replicates (None), mean +- std over replicates ("std"), mean +- another statistic (its
    name) or between two (a pair of names); band_label: the bands' legend entry ("" for none). Returns the lines
    drawn."""
    from . import _draw_panels
    return _draw_panels.study_by_axis(directory, ax, statistic, experiment, x, lines, where, label=label,
                                      spread=spread, band_label=band_label, **style)


def finish(ax, xlabel, ylabel, title, legend=True):
    """The finish of every panel of netdp.plot: axis labels, the title (wrapped), a light grid, the legend."""
    from . import _draw_common
    _draw_common.finish(ax, xlabel, ylabel, title, legend)


def main(argv=None):
    """``python3 -m netdp.plot DIR [--out FILE]``: exit 0 with the file written, 2 with one line on stderr when
    DIR holds no results or the file name is wrong, 3 when matplotlib is missing."""
    parser = argparse.ArgumentParser(prog="netdp plot", description="draw the standard figure of a netdp results "
                                     "directory (docs/plot.md)")
    parser.add_argument("directory", help="results directory of a model command, netdp demo or a study")
    parser.add_argument("--out", help="figure file, .png, .svg or .pdf (default DIR/figure.png)")
    args = parser.parse_args(argv)
    out = args.out or os.path.join(args.directory, "figure.png")
    try:
        import matplotlib  # noqa: F401  (say so before reading anything)
    except ImportError:
        print(f"netdp plot: error: matplotlib is not installed for {sys.executable} "
              "(pip install matplotlib, or apt-get install python3-matplotlib)", file=sys.stderr)
        return 3
    try:
        figure = plot_result(args.directory, out=out)
    except (ValueError, KeyError) as error:
        message = error.args[0] if isinstance(error, KeyError) and error.args else error
        print(f"netdp plot: error: {message}", file=sys.stderr)
        return 2
    panels = len([a for a in figure.axes if a.get_label() != "<colorbar>"])
    print(f"netdp plot: {model_of(args.directory)}: {panels} panel(s) -> {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
