"""netdp.run_study: `netdp run` in-process, through the same study library (docs/study.md, docs/python.md).

A study is a TOML file's path or the same content as a dict ({"study": {...}, "experiment": [{"name": ...,
"model": ..., "params": {...}, "grid": {...}}]}); a dict is written as TOML text and read by the same parser, so
both give the CLI's results.csv. A StudyResult reads results.csv and the tidy results_long.csv as typed tables
(python/netdp/_frames.py).
"""

import glob
import json
import math
import os
import re
import warnings

from . import _frames, _netdp
from ._models import NetdpWarning

_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")


def _key(key):
    return key if _BARE_KEY.match(key) else json.dumps(key)


def _value(value):
    """A TOML value: strings as JSON strings (the same escapes), numbers, booleans, arrays, inline tables."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, os.PathLike):
        return json.dumps(os.fspath(value))
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{_key(k)} = {_value(v)}" for k, v in value.items()) + " }"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    if hasattr(value, "item"):  # NumPy scalars
        return _value(value.item())
    raise ValueError(f"study: cannot write a {type(value).__name__} as TOML")


def _table(lines, header, table):
    """[header] with its plain keys first, then its sub-tables as [header.key]."""
    lines.append(header)
    subtables = []
    for k, v in table.items():
        if isinstance(v, dict):
            subtables.append((k, v))
        else:
            lines.append(f"{_key(k)} = {_value(v)}")
    name = header.strip("[]")
    for k, v in subtables:
        _table(lines, f"[{name}.{_key(k)}]", v)


def study_toml(study):
    """The TOML text of a study given as a dict: top-level tables as [name], lists of tables as [[name]], the
    tables inside them ([experiment.params], [experiment.grid]) as sub-tables, other dicts as inline tables."""
    lines = []
    for key, value in study.items():
        if isinstance(value, dict):
            _table(lines, f"[{_key(key)}]", value)
        elif isinstance(value, (list, tuple)) and value and all(isinstance(v, dict) for v in value):
            for item in value:
                _table(lines, f"[[{_key(key)}]]", item)
        else:
            lines.append(f"{_key(key)} = {_value(value)}")
    return "\n".join(lines) + "\n"


AGGREGATES = re.compile(r"^(mean|stderr|min|max|q[0-9.e+-]+)$")


def read_study_table(path):
    """results.csv or results_long.csv as a typed table (python/netdp/_frames.py). The study runner writes every
    float with a point or an exponent ("1.0"), so a column of whole numbers is an integer column (replicates,
    distance, an integer parameter); the aggregates (mean, stderr, min, max, q<level>) are float64 whatever
    they hold, text columns (experiment, graph, statistic) str."""
    header, body = _frames.read_rows(path)
    floats = {c for c in header if AGGREGATES.match(c)}
    columns = _frames.typed_columns(header, body, float_columns=floats)  # typed by the look of the cells
    return _frames.frame(columns)


def unit_warnings(out):
    """{warning text: [unit, ...]} from the units' records (unit.json `summary.warnings`), units in path order."""
    found = {}
    for path in sorted(glob.glob(os.path.join(glob.escape(out), "**", "unit.json"), recursive=True)):
        with open(path, encoding="utf-8") as f:
            record = json.load(f)
        summary = record.get("summary") if isinstance(record, dict) else None
        unit = os.path.relpath(os.path.dirname(path), out)
        for text in (summary or {}).get("warnings", []) if isinstance(summary, dict) else []:
            found.setdefault(text if isinstance(text, str) else json.dumps(text), []).append(unit)
    return found


class StudyResult:
    """A finished study: ``out`` (its directory; also ``path``), ``results`` (results.csv as a typed table: a
    pandas DataFrame, or a NumPy structured array without pandas), ``frame()`` (results_long.csv, the tidy
    table: one row per experiment, point, statistic and distance), ``manifest`` (manifest.json as a dict) and
    ``warnings`` (the units' validity warnings: {text: [unit directory, ...]}; run_study also raises each as a
    NetdpWarning)."""

    def __init__(self, out):
        self.out = self.path = out
        self.results = read_study_table(os.path.join(out, "results.csv"))
        with open(os.path.join(out, "manifest.json"), encoding="utf-8") as f:
            self.manifest = json.load(f)
        self.warnings = unit_warnings(out)

    def frame(self):
        """results_long.csv as a typed table (docs/study.md "Outputs"): columns experiment, point, model, one per
        parameter, statistic, the record labels (distance, t, n), replicates, mean, stderr, min, max, q<level>.
        A curve is one pivot: ``df[df.statistic == "by_distance.mean"].pivot(index="distance",
        columns="sigma", values="mean")``."""
        return read_study_table(os.path.join(self.out, "results_long.csv"))

    def __repr__(self):
        return f"<netdp.StudyResult {self.out}>"


def run_study(study, out=None, *, workers=0, devices="auto", update=False, dry_run=False, quiet=True):
    """Runs a study as `netdp run STUDY --out OUT` does (docs/study.md): resumable, the same units, files and
    results.csv. `study` is a TOML file's path or a dict of the same content. Returns a StudyResult (None for
    dry_run, which prints the plan on stdout). Bad studies raise ValueError with the CLI's FILE:LINE message; a
    study whose units did not all finish raises RuntimeError (run it again to retry them). Ctrl-C stops it as it
    stops `netdp run`: the running units finish, no new one starts, and KeyboardInterrupt is raised (run again to
    resume); a second Ctrl-C while units still run ends the process at once, as it does `netdp run`."""
    if isinstance(study, dict):
        text, source = study_toml(study), "study.toml"
    else:
        source = os.fspath(study)
        with open(source, encoding="utf-8") as f:
            text = f.read()
    if out is None and not dry_run:
        raise ValueError("run_study: out (the results directory) is required")
    out = "" if out is None else os.fspath(out)
    invocation = {"runner": "python", "study": source}
    code = _netdp.run_study(text, source, out, int(workers), str(devices), bool(quiet), bool(update),
                            bool(dry_run), json.dumps(invocation))
    if dry_run:
        return None
    if code > 128:  # stopped between units by a signal (SIGINT raises KeyboardInterrupt in the module)
        raise RuntimeError(f"study {source}: interrupted by signal {code - 128}; finished units are kept in {out}, "
                           "run again to resume")
    if code != 0:
        raise RuntimeError(f"study {source}: some units failed (see {out}); run again to retry them")
    result = StudyResult(out)
    for text, units in result.warnings.items():  # validity warnings reach the caller (docs/python.md "Warnings")
        warnings.warn(f"{len(units)} unit(s), e.g. {units[0]}: {text}", NetdpWarning, stacklevel=2)
    return result
