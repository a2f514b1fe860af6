"""netdp's CSV files as typed tables (docs/python.md "Results").

A table is a pandas DataFrame when pandas can be imported, else a NumPy structured array; either way
``table["mean"]`` is a column. Column types follow the writers' declarations, which manifest.json records
under "tables" ({file: {column: "int64" | "float64" | "text"}}, docs/outputs.md "Column types"). Without that
entry (a study's tables, an older run) a column is typed by the look of its cells: every cell an integer
literal is int64, numbers with '.', 'e', inf or nan (the writers spell every double so: "1.0", never "1") are
float64. An int64 column with an empty or non-integer cell ("inf": an unreachable distance) is float64 with
NaN / inf, an empty cell in a float column NaN, a column holding any other text a column of str.

Node-index columns (``NODE_COLUMNS``) get a label column beside them when the run's graph came with labels
(networkx): ``label`` for a table with one such column, ``<column>_label`` for each when it has more.
"""

import csv
import json
import os

import numpy as np

# Columns whose values are node indices of the run's graph; nodes.csv's `attacker` is a 0/1 flag instead.
NODE_COLUMNS = frozenset({"node", "attacker", "u", "v"})
NOT_NODES_IN_FILE = {"nodes": {"attacker"}}

try:  # pandas is optional: without it tables are NumPy structured arrays
    import pandas
except ImportError:  # pragma: no cover - depends on the environment
    pandas = None


def _numbers(cells, integer):
    """A column of cells as int64 (integer and every cell an integer), else float64 (empty -> NaN), or None
    when a cell is text."""
    if integer:
        try:
            return np.array([int(c) for c in cells], dtype=np.int64)
        except ValueError:
            pass
    try:
        return np.array([float(c) if c != "" else np.nan for c in cells], dtype=np.float64)
    except ValueError:
        return None


def declared_types(path):
    """{column: "int64" | "float64" | "text"} of a CSV file from manifest.json's "tables" entry in its
    directory, or None when the manifest or the entry is absent."""
    manifest = os.path.join(os.path.dirname(os.fspath(path)), "manifest.json")
    try:
        with open(manifest, encoding="utf-8") as f:
            tables = json.load(f).get("tables")
    except (OSError, ValueError, AttributeError):
        return None
    types = tables.get(os.path.basename(os.fspath(path))) if isinstance(tables, dict) else None
    return types if isinstance(types, dict) else None


def typed_columns(header, body, types=None, float_columns=()):
    """{column: array} for a table's header and rows: int64, float64 or str (object) arrays. `types` holds the
    declared type of each column (declared_types); a column without one is typed by its cells, one of
    `float_columns` float64 whatever it holds."""
    types = types or {}
    columns = {}
    for i, column in enumerate(header):
        cells = [row[i] if i < len(row) else "" for row in body]
        declared = types.get(column)
        values = None
        if declared != "text":
            integer = declared == "int64" or (declared is None and column not in float_columns)
            values = _numbers(cells, integer)
        columns[column] = values if values is not None else np.array(cells, dtype=object)
    return columns


def _objects(items):
    """A 1-d object array of `items`, tuples kept whole (np.array would make (row, col) labels a 2-d array)."""
    array = np.empty(len(items), dtype=object)
    for i, item in enumerate(items):
        array[i] = item
    return array


def with_labels(columns, labels, name=""):
    """The columns with a label column after each node-index column (labels[i] is node i's label); unchanged
    without labels. `name` is the file's stem, for the per-file exceptions."""
    if labels is None:
        return columns
    exceptions = NOT_NODES_IN_FILE.get(name, set())
    nodes = [c for c in columns if c in NODE_COLUMNS and c not in exceptions and columns[c].dtype.kind in "iu"]
    out = {}
    for column, values in columns.items():
        out[column] = values
        if column in nodes:
            name = "label" if len(nodes) == 1 else f"{column}_label"
            out[name] = _objects([labels[i] if 0 <= i < len(labels) else None for i in values.tolist()])
    return out


def frame(columns):
    """A DataFrame (pandas) or a structured array (NumPy) of {column: array}."""
    if pandas is not None:
        return pandas.DataFrame(columns)
    if not columns:
        return np.zeros(0, dtype=[])
    length = len(next(iter(columns.values())))
    table = np.empty(length, dtype=[(name, values.dtype) for name, values in columns.items()])
    for name, values in columns.items():
        table[name] = values
    return table


def read_rows(path):
    """(header, rows) of a CSV file written by netdp (RFC 4180 quoting where a cell needs it)."""
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    return (rows[0], rows[1:]) if rows else ([], [])


def read_frame(path, name="", labels=None):
    """A netdp CSV file as a typed table (module docstring); `name` is the file's stem, for the per-file
    exceptions of the labels; `labels` the run's node labels by index (or None)."""
    header, body = read_rows(path)
    return frame(with_labels(typed_columns(header, body, declared_types(path)), labels, name))
