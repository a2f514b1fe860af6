"""A model's results as Python objects (docs/python.md "Results").

A run writes the CLI's results directory (docs/outputs.md); a Result holds its files by name: ``result.loss`` is
loss.npy as a NumPy array, ``result.by_distance`` is by_distance.csv as a typed table (a pandas DataFrame, or a
NumPy structured array without pandas: python/netdp/_frames.py), ``result.summary`` is summary.json as a dict.
The arrays are the .npy files the engine wrote, mapped into memory (no copy), so they are the CLI's to the bit.
"""

import json
import os
import tempfile

import numpy as np

from . import _frames


TEMPORARY = "(temporary directory, deleted)"


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


def read_csv(path, labels=None):
    """A CSV file written by netdp as a typed table (a pandas DataFrame, or a NumPy structured array without
    pandas): columns int64, float64 or str as the writers declare them, empty cells NaN, and a label column
    beside each node-index column when `labels` (node labels by index) is given (python/netdp/_frames.py)."""
    name = os.path.splitext(os.path.basename(os.fspath(path)))[0]
    return _frames.read_frame(path, name, labels)


class Result:
    """The files of one run, by name without extension.

    - ``.npy`` files: NumPy arrays (float64, C order) mapped from the files, e.g. ``result.loss``;
    - ``.csv`` files: typed tables (pandas DataFrames, else NumPy structured arrays; ints, floats, NaN for empty
      cells, a ``label`` column beside node indices for a labelled graph), e.g. ``result.by_distance["mean"]``;
    - ``.txt`` files: arrays (``result.edges``: edges.txt of ``graph``, m x 2 node ids);
    - ``.json`` files: dicts, e.g. ``result.summary`` (``manifest.json`` too);
    - names that are not identifiers (``privacy_quantile_0.5``): ``result["privacy_quantile_0.5"]``.

    A file whose stem is one of the attributes below is only an item (``result["report"]``); none is today.
    ``result.files`` lists the file names, ``result.out`` (and ``result.path``) is the directory when one was given
    (None for a temporary one, deleted after loading), ``result.node_labels`` the node labels by index (networkx
    input, else None), ``result.report`` the line the CLI prints at the end of the run (a temporary directory
    shown as "(temporary directory, deleted)") and ``result.plot()`` draws the run's standard figure.
    """

    def __init__(self, model, directory, out, nodes, report):
        self.model = model
        self.out = out
        self.node_labels = nodes
        # The report names the directory; a temporary one is deleted once loaded, so it is not named.
        self.report = report if out is not None else report.replace(os.fspath(directory), TEMPORARY)
        self._data, self._text = {}, {}
        self.files = sorted(os.listdir(directory))
        for name in self.files:
            stem, ext = os.path.splitext(name)
            path = os.path.join(directory, name)
            if out is None and ext in (".csv", ".json", ".txt"):  # kept to write a temporary run again: plot()
                with open(path, "rb") as f:
                    self._text[name] = f.read()
            if ext == ".npy":
                self._data[stem] = map_npy(path)
            elif ext == ".csv":
                self._data[stem] = read_csv(path, nodes)
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
    def path(self):
        """The results directory (the `out` given, which exists), or None for a temporary one."""
        return self.out

    def plot(self, out=None, **kwargs):
        """The model's standard figure of this run: netdp.plot.plot_result(directory, out=out, **kwargs), a
        matplotlib Figure (also written to `out`, a .png, .svg or .pdf path, when given). A temporary run's files
        are written again into a scratch directory for the call (the arrays from memory, the rest as read)."""
        from .plot import plot_result  # matplotlib is imported only when a figure is drawn
        if self.out is not None:
            return plot_result(self.out, out=out, **kwargs)
        with tempfile.TemporaryDirectory(prefix="netdp-plot-") as scratch:
            self.write_files(scratch)
            return plot_result(scratch, out=out, **kwargs)

    def write_files(self, directory):
        """Writes the run's files into `directory` again: .npy from the arrays, the others byte for byte."""
        for name in self.files:
            stem, ext = os.path.splitext(name)
            if ext == ".npy":
                np.save(os.path.join(directory, name), self._data[stem])
            elif name in self._text:
                with open(os.path.join(directory, name), "wb") as f:
                    f.write(self._text[name])

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
