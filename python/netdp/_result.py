"""A model's results as Python objects (docs/python.md "Results").

A run writes the CLI's results directory (docs/outputs.md); a Result holds its files by name: ``result.loss`` is
loss.npy as a NumPy array, ``result.by_distance`` is by_distance.csv as a dict of columns, ``result.summary`` is
summary.json as a dict. The arrays are the .npy files the engine wrote, mapped into memory (no copy), so they are
the CLI's to the bit.
"""

import csv
import json
import os

import numpy as np


def _column(values):
    """A CSV column as a float64 array when every cell is a number ("inf" included), else as a list of str."""
    try:
        return np.array([float(v) for v in values], dtype=np.float64)
    except ValueError:
        return list(values)


def _read_table(path):
    """A whitespace-separated table with '#' comments (edges.txt) as an int64 array, or float64 if needed."""
    try:
        return np.loadtxt(path, dtype=np.int64, comments="#", ndmin=2)
    except ValueError:
        return np.loadtxt(path, dtype=np.float64, comments="#", ndmin=2)


def map_npy(path):
    """A .npy file as a plain float64 array backed by the file's pages, without copying it: copy-on-write (writing
    to the array changes neither the file nor another result), and usable after the file is deleted (Linux keeps a
    mapped file's pages). An empty array, which cannot be mapped, is read."""
    try:
        mapped = np.load(path, mmap_mode="c")
    except ValueError:  # mmap of a zero-length data block
        return np.load(path)
    return np.asarray(mapped)  # an ndarray view of the map, not the np.memmap subclass


def read_csv(path):
    """A CSV file written by netdp (one header line, no quoting except study results) as {column: values}."""
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    if not rows:
        return {}
    header, body = rows[0], rows[1:]
    return {name: _column([row[i] for row in body]) for i, name in enumerate(header)}


class Result:
    """The files of one run, by name without extension.

    - ``.npy`` files: NumPy arrays (float64, C order) mapped from the files, e.g. ``result.loss``;
    - ``.csv`` files: dicts of columns (float64 arrays, or lists of str), e.g. ``result.by_distance["mean"]``;
    - ``.txt`` files: arrays (``result.edges``: edges.txt of ``graph``, m x 2 node ids);
    - ``.json`` files: dicts, e.g. ``result.summary`` (``manifest.json`` too);
    - names that are not identifiers (``privacy_quantile_0.5``): ``result["privacy_quantile_0.5"]``.

    A file whose stem is one of the attributes below is only an item (``result["report"]``); none is today.
    ``result.files`` lists the file names, ``result.out`` is the directory when one was given (None for a
    temporary one, deleted after loading), ``result.node_labels`` the node labels by index (networkx input, else None)
    and ``result.report`` the line the CLI prints at the end of the run.
    """

    def __init__(self, model, directory, out, nodes, report):
        self.model = model
        self.out = out
        self.node_labels = nodes
        self.report = report
        self._data = {}
        self.files = sorted(os.listdir(directory))
        for name in self.files:
            stem, ext = os.path.splitext(name)
            path = os.path.join(directory, name)
            if ext == ".npy":
                self._data[stem] = map_npy(path)
            elif ext == ".csv":
                self._data[stem] = read_csv(path)
            elif ext == ".txt":
                self._data[stem] = _read_table(path)
            elif ext == ".json":
                with open(path, encoding="utf-8") as f:
                    self._data[stem] = json.load(f)

    def __getitem__(self, name):
        return self._data[name]

    def __getattr__(self, name):
        data = self.__dict__.get("_data", {})
        if name in data:
            return data[name]
        raise AttributeError(f"{self.__dict__.get('model', 'netdp')} result has no '{name}' "
                             f"(files: {', '.join(self.__dict__.get('files', []))})")

    def __contains__(self, name):
        return name in self._data

    def __dir__(self):
        return sorted(set(super().__dir__()) | {k for k in self._data if k.isidentifier()})

    def __repr__(self):
        return f"<netdp.Result {self.model}: {', '.join(sorted(self._data))}>"

    @property
    def node_index(self):
        """{label: index} (networkx input), or None."""
        return None if self.node_labels is None else {label: i for i, label in enumerate(self.node_labels)}

    def labelled(self, name="loss"):
        """A per-node matrix (rows sources u, columns observers v) as {u_label: {v_label: value}}, using the
        networkx labels when the graph came from networkx (else the indices). A matrix of one source row
        (``source=U``) gives {U_label: {...}}."""
        matrix = np.asarray(self[name])
        n = matrix.shape[1]
        labels = self.node_labels if self.node_labels is not None else list(range(n))
        if matrix.shape[0] == n:
            rows = range(n)
        else:
            source = self.summary.get("source") if "summary" in self._data else None
            if matrix.shape[0] != 1 or source is None:
                raise ValueError(f"{name}: not a per-node matrix of this graph (shape {matrix.shape})")
            rows = [int(source)]
        return {labels[u]: dict(zip(labels, map(float, matrix[k]))) for k, u in enumerate(rows)}
