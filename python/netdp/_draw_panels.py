"""Single panels of the standard figures, for scripts that compose figures of their own (the examples' plot.py):
what netdp.plot's curve, by_distance, study_by_distance and study_by_axis draw (docs/plot.md "Panels")."""

import math
import os
import re

import numpy as np

from ._draw_common import Run, Table, band, number

BY_DISTANCE = re.compile(r"^(.*?)by_distance\[distance=(\d+)\]\.(mean|min|max)$")


def spread(t, stem):
    """The band of curves.csv's `stem`: (low, high, words): min-max over runs where written, else mean +- std,
    else mean +- standard error, else no band (NaN, words None)."""
    mean = t[f"{stem}_mean"]
    if f"{stem}_min" in t:
        return t[f"{stem}_min"], t[f"{stem}_max"], "min to max over runs"
    if f"{stem}_std" in t:
        return mean - t[f"{stem}_std"], mean + t[f"{stem}_std"], "mean +- std over runs"
    if f"{stem}_stderr" in t:
        return mean - t[f"{stem}_stderr"], mean + t[f"{stem}_stderr"], "mean +- standard error"
    return np.full_like(mean, np.nan), np.full_like(mean, np.nan), None


def curve(directory, stem, ax, label=None, band_label=None, **style):
    """One learning curve of a results directory (curves.csv's `stem`_mean against the step) with its band."""
    run = Run(os.fspath(directory), None)
    t = run.table("curves.csv")
    low, high, words = spread(t, stem)
    label = label or f"{stem.replace('_', ' ')}: mean over {run.summary.get('runs', '?')} run(s)"
    if band_label is None and words:
        band_label = f"{label}: {words}"
    return band(ax, t["t" if "t" in t else "step"], t[f"{stem}_mean"], low, high, label, band_label,
                **{"marker": None, **style})


def by_distance_rows(rows, key, family=""):
    """curves[key(row)][distance] = {"mean", "min", "max"} from the `family`by_distance[distance=d] statistics of
    results.csv rows (mean: over replicates; min / max: extremes over pairs and replicates); key None: left out."""
    curves = {}
    for r in rows:
        m = BY_DISTANCE.match(r["statistic"])
        if not m or m.group(1) != family:
            continue
        k = key(r)
        if k is not None:
            what = m.group(3)
            curves.setdefault(k, {}).setdefault(int(m.group(2)), {})[what] = float(r[what])
    return curves


def study_by_distance(directory, key=None, family=""):
    """The loss-by-distance curves of a study directory, keyed by key(row) (default: the experiment)."""
    rows = Table(os.path.join(os.fspath(directory), "results.csv")).rows
    return by_distance_rows(rows, key or (lambda r: r["experiment"]), family)


def by_distance(ax, points, label, band_label=None, skip_zero=False, with_band=True, **style):
    """One {distance: {"mean", "min", "max"}} curve: the mean with its min-max band. Returns the line."""
    d = sorted(k for k in points if k > 0 or not skip_zero)
    get = lambda what: [points[k].get(what, np.nan) for k in d]  # noqa: E731
    low, high = (get("min"), get("max")) if with_band else ([np.nan] * len(d), [np.nan] * len(d))
    return band(ax, d, get("mean"), low, high, label,
                f"{label}: min to max over pairs" if band_label is None else band_label, **style)


def _value(stats, statistic, x):
    """x of a grid point: a function of its row, a column of results.csv, or another statistic's mean."""
    row = stats[statistic]
    if callable(x):
        return x(row)
    return number(row[x]) if x in row else number(stats[x]["mean"]) if x in stats else np.nan


def axis_lines(ax, rows, statistic, x, lines, label="", spread=None, band_label=None, **style):
    """`statistic` (mean over replicates) against x (a grid axis, another statistic or a function of the row),
    one line per lines(row); band: min-max over replicates, or mean +- `spread` (a statistic, or "std" over
    replicates), or between a (low, high) pair of statistics. Returns the lines drawn."""
    by_point = {}
    for r in rows:
        by_point.setdefault((r["experiment"], r["point"]), {})[r["statistic"]] = r
    drawn, groups = [], {}
    for stats in by_point.values():
        if statistic in stats:
            groups.setdefault(lines(stats[statistic]), []).append(stats)
    for name, points in groups.items():
        points.sort(key=lambda s: _value(s, statistic, x))
        xs = np.array([_value(s, statistic, x) for s in points], dtype=float)
        mean = np.array([float(s[statistic]["mean"]) for s in points])
        if spread is None:
            low = [number(s[statistic]["min"]) for s in points]
            high = [number(s[statistic]["max"]) for s in points]
            words = "min to max over replicates"
        elif spread == "std":
            std = np.array([(number(s[statistic]["stderr"]) or 0) * math.sqrt(float(s[statistic]["replicates"]))
                            for s in points])
            low, high, words = mean - std, mean + std, "mean +- std over replicates"
        elif isinstance(spread, str):
            half = np.array([float(s[spread]["mean"]) if spread in s else np.nan for s in points])
            low, high, words = mean - half, mean + half, f"mean +- {spread}"
        else:
            low = [float(s[spread[0]]["mean"]) if spread[0] in s else np.nan for s in points]
            high = [float(s[spread[1]]["mean"]) if spread[1] in s else np.nan for s in points]
            words = f"{spread[0]} to {spread[1]}"
        text = ", ".join(t for t in (label, name) if t) or "mean over replicates"
        drawn.append(band(ax, xs, mean, low, high, text, f"{text}: {words}" if band_label is None else band_label,
                          **style))
    return drawn


def study_by_axis(directory, ax, statistic, experiment=None, x=None, lines=None, where=None, **options):
    """A study's statistic against a grid axis, one line per value of the other varying axes (axis_lines)."""
    t = Table(os.path.join(os.fspath(directory), "results.csv"))
    header = t.header
    params = header[header.index("model") + 1:header.index("statistic")]
    rows = [r for r in t.rows if (experiment is None or r["experiment"] == experiment) and (where is None or where(r))]
    varying = [p for p in params if len({r[p] for r in rows}) > 1]
    x = x or (varying[0] if varying else "point")
    others = [p for p in varying if p != x]
    lines = lines or (lambda r: ", ".join(f"{p} = {r[p]}" for p in others))
    return axis_lines(ax, rows, statistic, x, lines, **options)
