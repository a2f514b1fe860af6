"""What the figures of netdp.plot share: reading a results directory with csv/json/NumPy, the graph a run was
on, hop distances, a layout, a mean curve with its band, and the finish of a panel (labels, title, legend)."""

import csv
import json
import math
import os
import tempfile
import textwrap
from collections import deque

import numpy as np
from matplotlib.figure import Figure

# Graphs up to this size are drawn node by node (larger ones: degree histogram only), and loss matrices up
# to this size are drawn as heat maps (a 2000 x 2000 image is already finer than the figure's pixels).
MAX_DRAWN_NODES = 600
MAX_HEATMAP = 2000


def number(text):
    """A CSV cell as a float: '' -> nan, 'inf' -> inf; None when the cell is not a number."""
    if text == "":
        return math.nan
    try:
        return float(text)
    except ValueError:
        return None


class Table:
    """A CSV file of netdp as columns: numeric columns as float64 arrays (empty cells NaN), others as lists of
    str. `rows` keeps the cells as written."""

    def __init__(self, path):
        with open(path, newline="", encoding="utf-8") as f:
            reader = csv.reader(f)
            self.header = next(reader, [])
            self.rows = [dict(zip(self.header, row)) for row in reader]
        self.columns = {}
        for name in self.header:
            cells = [row.get(name, "") for row in self.rows]
            values = [number(c) for c in cells]
            self.columns[name] = cells if any(v is None for v in values) else np.array(values, dtype=float)

    def __contains__(self, name):
        return name in self.columns

    def __getitem__(self, name):
        return self.columns[name]

    def __len__(self):
        return len(self.rows)

    def finite(self, name):
        """Whether column `name` exists, is numeric and has at least one finite value."""
        column = self.columns.get(name)
        return isinstance(column, np.ndarray) and bool(np.isfinite(column).any())


class Run:
    """One results directory: its files by name, read on first use."""

    def __init__(self, directory, model):
        self.directory = directory
        self.model = model
        self._cache = {}

    def path(self, name):
        return os.path.join(self.directory, name)

    def has(self, name):
        return os.path.isfile(self.path(name))

    def json(self, name):
        if name not in self._cache:
            with open(self.path(name), encoding="utf-8") as f:
                self._cache[name] = json.load(f)
        return self._cache[name]

    def table(self, name):
        if name not in self._cache:
            self._cache[name] = Table(self.path(name))
        return self._cache[name]

    def array(self, name):
        return np.load(self.path(name), mmap_mode="r")

    @property
    def summary(self):
        return self.json("summary.json") if self.has("summary.json") else {}

    @property
    def parameters(self):
        return self.json("manifest.json").get("parameters", {}) if self.has("manifest.json") else {}

    def graph(self):
        """(n, edges as an (m, 2) int array, where they came from) of the run's graph, or None: edges.txt when
        the run wrote one (netdp graph), else the graph spec of manifest.json rebuilt with netdp.graph (the
        same builder and seed, so the same graph)."""
        if "graph" in self._cache:
            return self._cache["graph"]
        found = None
        if self.has("edges.txt"):
            found = read_edges(self.path("edges.txt")) + ("edges.txt",)
        else:
            spec = self.parameters.get("graph") or self.summary.get("graph")
            if isinstance(spec, str) and spec:
                found = rebuild_graph(spec, self.directory)
        self._cache["graph"] = found
        return found


def read_edges(path):
    """edges.txt of netdp graph: '# n m' then 'u v' lines -> (n, (m, 2) int array)."""
    with open(path, encoding="utf-8") as f:
        first = f.readline().split()
    n = int(first[1]) if len(first) >= 2 and first[0] == "#" else None
    edges = np.loadtxt(path, dtype=np.int64, comments="#", ndmin=2).reshape(-1, 2)
    if n is None:
        n = int(edges.max()) + 1 if edges.size else 0
    return n, edges


def rebuild_graph(spec, directory):
    """The graph of a spec string through the package's own `graph` model, or None when that fails (a file
    graph whose relative path no longer resolves, a package built without the module...)."""
    try:
        from . import graph as build  # the registry's graph model (netdp/__init__.py)
    except ImportError:
        return None
    for base in (os.getcwd(), directory):
        if spec.startswith("file:") and not os.path.isabs(spec[5:].split(",")[0]):
            spec_here = "file:" + os.path.join(base, spec[5:])
        else:
            spec_here = spec
        try:
            with tempfile.TemporaryDirectory(prefix="netdp-plot-") as scratch:
                build(graph=spec_here, out=os.path.join(scratch, "g"))
                n, edges = read_edges(os.path.join(scratch, "g", "edges.txt"))
            return n, edges, f"graph rebuilt from its spec {spec}"
        except Exception:  # noqa: BLE001  (any failure means: no graph to draw, said in the figure)
            continue
    return None


def hop_distances(n, edges, source):
    """BFS hop distances from `source` (inf where unreachable)."""
    neighbours = [[] for _ in range(n)]
    for u, v in edges:
        neighbours[u].append(v)
        neighbours[v].append(u)
    distance = np.full(n, np.inf)
    distance[source] = 0
    queue = deque([source])
    while queue:
        u = queue.popleft()
        for v in neighbours[u]:
            if distance[v] == np.inf:
                distance[v] = distance[u] + 1
                queue.append(v)
    return distance


def layout(n, edges, positions=None):
    """Node coordinates (n, 2): positions.csv's when given, else networkx's spring layout (seeded), else a
    circle (networkx missing)."""
    if positions is not None:
        return positions
    try:
        import networkx as nx
        g = nx.Graph()
        g.add_nodes_from(range(n))
        g.add_edges_from(map(tuple, edges))
        pos = nx.spring_layout(g, seed=1)
        return np.array([pos[v] for v in range(n)])
    except ImportError:
        angle = 2 * np.pi * np.arange(n) / max(n, 1)
        return np.column_stack([np.cos(angle), np.sin(angle)])


def draw_edges(ax, xy, edges, label="graph edge"):
    """The edges as light grey segments (one legend entry)."""
    from matplotlib.collections import LineCollection
    segments = xy[edges] if len(edges) else np.zeros((0, 2, 2))
    ax.add_collection(LineCollection(segments, colors="0.75", linewidths=0.8, zorder=1, label=label))
    ax.set_aspect("equal")
    ax.set_xticks([])
    ax.set_yticks([])


def panels(ax, count, width=5.2, height=4.0):
    """`count` side-by-side axes of a new Figure, or [ax] when the caller gave one (the main panel only)."""
    if ax is not None:
        return ax.figure, [ax]
    rows = 1 if count <= 3 else 2
    cols = math.ceil(count / rows)
    figure = Figure(figsize=(width * cols, height * rows))
    return figure, [figure.add_subplot(rows, cols, k + 1) for k in range(count)]


def band(ax, x, mean, low, high, label, band_label=None, **style):
    """A mean curve with a light band from `low` to `high` (min-max, or mean +- stderr); both have a legend
    entry (band_label "": none for the band). Returns the line."""
    line, = ax.plot(x, mean, label=label, **{"marker": "o", "ms": 3, **style})
    low, high = np.asarray(low, dtype=float), np.asarray(high, dtype=float)
    if np.isfinite(low).any() and np.isfinite(high).any():
        ax.fill_between(x, low, high, color=line.get_color(), alpha=0.18, linewidth=0,
                        label=f"{label}: min to max" if band_label is None else band_label)
    return line


def log_if_wide(ax, *series, axis="y"):
    """A log scale when every value is positive and they span more than two decades."""
    values = np.concatenate([np.asarray(s, dtype=float).ravel() for s in series])
    values = values[np.isfinite(values)]
    if values.size and (values > 0).all() and values.max() / values.min() > 100:
        (ax.set_yscale if axis == "y" else ax.set_xscale)("log")


def finish(ax, xlabel, ylabel, title, legend=True):
    """Axis labels (with units), the title, a light grid and the legend of every labelled artist."""
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    from matplotlib.ticker import FixedLocator, MaxNLocator
    if ("distance" in xlabel or "step" in xlabel) and not isinstance(ax.xaxis.get_major_locator(), FixedLocator):
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))  # counts: no tick at 1.25 hops
    ax.set_title("\n".join(textwrap.fill(line, 64) for line in title.split("\n")), fontsize=10)  # panel width
    ax.grid(True, alpha=0.3)
    if legend and ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=7)


def message(ax, text, title):
    """A panel that says why it has nothing to draw (instead of a blank one)."""
    ax.text(0.5, 0.5, text, ha="center", va="center", wrap=True, fontsize=9, transform=ax.transAxes)
    ax.set_xticks([])
    ax.set_yticks([])
    ax.set_title(title, fontsize=10)
