"""Figures of directories that hold many runs: a study's results.csv (curves of one statistic by a grid axis, or
loss by distance per grid point) and netdp demo's stacked by_distance.csv."""

import numpy as np

from ._draw_common import band, finish, log_if_wide, message, number, panels
from ._draw_panels import BY_DISTANCE, by_distance, by_distance_rows

# The statistic a study panel draws when none is asked for: the first of these an experiment has.
HEADLINES = ("mean_loss", "network_loss.mean", "final.objective.mean", "final.objective", "final.mean",
             "privacy.mean", "last_row.eps", "mean_epsilon", "sensitivity", "rank", "identifiable_fraction")
MAX_PANELS = 6


def draw_demo(run, ax=None, **_):
    """netdp demo: loss by distance per topology, exact accounting (solid) against Theorem 6.1 (dashed)."""
    figure, axes = panels(ax, 1, width=7, height=4.5)
    t = run.table("by_distance.csv")
    colours = {}
    for topology in dict.fromkeys(t["topology"]):
        for accounting in dict.fromkeys(t["accounting"]):
            rows = [r for r in t.rows if r["topology"] == topology and r["accounting"] == accounting
                    and r["distance"] != "inf"]
            if not rows:
                continue
            style = {"ls": "-" if accounting == "exact" else "--"}
            if topology in colours:
                style["color"] = colours[topology]
            line = band(axes[0], [float(r["distance"]) for r in rows], [float(r["mean"]) for r in rows],
                        [float(r["min"]) for r in rows], [float(r["max"]) for r in rows],
                        f"{topology}, {accounting}", f"{topology}, {accounting}: min to max", **style)
            colours[topology] = line.get_color()
    log_if_wide(axes[0], t["min"], t["max"])
    finish(axes[0], "hop distance d(u, v) (edges)", "pairwise Renyi loss f(u, v) (nats)",
           "netdp demo: gossip loss by distance, exact accounting against Theorem 6.1")
    return figure


def _label(row, names):
    return ", ".join(f"{k} = {row[k]}" for k in names) or "all points"


def _is_numeric(values):
    return all(number(v) is not None and v != "" for v in values)


def draw_study(run, ax=None, statistic=None, **_):
    """A study (netdp run / merge): one panel per experiment; loss by distance per grid point when the model
    reports by_distance, else the statistic against the first grid axis, one line per value of the other
    axes, mean over replicates with its min-max band."""
    t = run.table("results.csv")
    header = t.header
    params = header[header.index("model") + 1:header.index("statistic")]
    experiments = list(dict.fromkeys(r["experiment"] for r in t.rows))
    shown = experiments[:MAX_PANELS] if ax is None else experiments[:1]
    figure, axes = panels(ax, max(1, len(shown)))
    name = run.directory.rstrip("/").split("/")[-1]
    for a, experiment in zip(axes, shown):
        rows = [r for r in t.rows if r["experiment"] == experiment]
        model = rows[0]["model"]
        points = {}
        for r in rows:
            points.setdefault(r["point"], r)
        axes_of = [p for p in params if len({r[p] for r in points.values()}) > 1]
        title = f"study {name}, {experiment} ({model})"
        if any(BY_DISTANCE.match(r["statistic"]) for r in rows) and statistic is None:
            _by_distance(a, rows, axes_of, title)
        else:
            _by_axis(a, rows, axes_of, statistic, title)
    if len(experiments) > len(shown) and ax is None:
        figure.suptitle(f"first {len(shown)} of {len(experiments)} experiments", fontsize=9)
    return figure


def _by_distance(ax, rows, axes_of, title):
    """Loss by distance, one line per grid point (the first by_distance family of the model's summary)."""
    families = list(dict.fromkeys(m.group(1) for m in map(BY_DISTANCE.match, (r["statistic"] for r in rows)) if m))
    lows, highs = [], []
    for label, by in by_distance_rows(rows, lambda r: _label(r, axes_of), families[0]).items():
        by_distance(ax, by, label, f"{label}: min to max")
        lows += [p.get("min", np.nan) for p in by.values()]
        highs += [p.get("max", np.nan) for p in by.values()]
    log_if_wide(ax, lows, highs)
    finish(ax, "hop distance d(u, v) (edges)", f"{families[0]}by_distance: loss (model units)",
           f"{title}: loss by distance per grid point")


def _by_axis(ax, rows, axes_of, statistic, title):
    """The statistic (mean over replicates, min-max band) against the first grid axis."""
    available = list(dict.fromkeys(r["statistic"] for r in rows))
    chosen = statistic or next((s for s in HEADLINES if s in available), available[0] if available else None)
    picked = [r for r in rows if r["statistic"] == chosen]
    if not picked:
        message(ax, f"no statistic {chosen!r} in results.csv", title)
        return
    if not axes_of:
        ax.bar([0], [float(picked[0]["mean"])], color="C0", label=f"{chosen}: mean over replicates")
        ax.errorbar([0], [float(picked[0]["mean"])], yerr=[[float(picked[0]["mean"]) - float(picked[0]["min"])],
                    [float(picked[0]["max"]) - float(picked[0]["mean"])]], fmt="none", ecolor="black",
                    label="min to max over replicates")
        ax.set_xticks([0], [picked[0]["point"]])
        finish(ax, "grid point (no axis varies)", f"{chosen} (statistic of summary.json)", f"{title}: {chosen}")
        return
    x_axis, others = axes_of[0], axes_of[1:]
    numeric = _is_numeric([r[x_axis] for r in picked])
    categories = list(dict.fromkeys(r[x_axis] for r in picked))
    for label in dict.fromkeys(_label(r, others) for r in picked):
        line = [r for r in picked if _label(r, others) == label]
        x = [float(r[x_axis]) if numeric else categories.index(r[x_axis]) for r in line]
        order = np.argsort(x)
        get = lambda key: np.array([number(line[i][key]) for i in order], dtype=float)  # noqa: E731
        band(ax, np.array(x)[order], get("mean"), get("min"), get("max"), label if others else "mean over replicates",
             f"{label}: min to max over replicates" if others else "min to max over replicates")
    if not numeric:
        ax.set_xticks(range(len(categories)), categories, rotation=20, fontsize=7)
    finish(ax, f"{x_axis} (grid axis, units of the parameter)", f"{chosen} (statistic of summary.json)",
           f"{title}: {chosen} by {x_axis}")
