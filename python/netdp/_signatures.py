"""Typed signatures and docstrings of the model functions, from the registry's descriptions (docs/python.md
"Signatures and stubs").

A registry parameter has a type (flag, integer, natural, real, text, choice, count_or_auto, reals), a default
written as the CLI's text, a unit and a help line (``_netdp.describe_models()``). Here each becomes an
``inspect.Parameter`` with a Python annotation and the default converted to a value of that type, so that
``inspect.signature``, ``help()`` and editors show what a call takes; ``_stubgen`` writes the same signatures
into ``__init__.pyi``. The signatures only describe: a call still hands the engine the keywords it was given,
and a keyword left out takes the registry's default there.
"""

import inspect
import os
from typing import TYPE_CHECKING, Callable, Hashable, Literal, Optional, Union

import numpy as np

if TYPE_CHECKING:  # the names the string annotations below use, for type checkers only
    import networkx  # noqa: F401
    import scipy.sparse  # noqa: F401

#: What a ``graph`` keyword accepts (docs/python.md "Graphs and weights"): a spec string (docs/graphs.md), a path
#: to a graph file, a networkx graph, a scipy.sparse adjacency matrix or an m x 2 integer array of edges. The
#: optional libraries are named, not imported (importing networkx or scipy takes a noticeable time).
GraphLike = Union[str, os.PathLike, "networkx.Graph", "scipy.sparse.spmatrix", np.ndarray]
#: What a ``weights`` keyword accepts: a scheme name or ``file:PATH``, a path, or the matrix W itself.
WeightsLike = Union[str, os.PathLike, "scipy.sparse.spmatrix", np.ndarray]
#: A node: its index, or the caller's label when the graph came from networkx.
Node = Hashable
#: The ``progress`` keyword: off, tqdm bars, or a callable(stage, fraction).
Progress = Union[bool, Callable[[str, float], object]]
#: The ``out`` keyword: the results directory, or None for a temporary one.
OutDir = Optional[Union[str, os.PathLike]]

# Parameters whose Python type is not their registry type's: the graph and W may be Python objects
# (python/netdp/_graphs.py), a source node may be a networkx label.
_SPECIAL = {"graph": GraphLike, "weights": WeightsLike, "source": Node}

GRAPH_INPUTS = ("graph: a spec string FAMILY:key=value,... (docs/graphs.md, e.g. 'hypercube:dim=8' or "
                "'file:edges.txt'), a path to a graph file, a networkx graph (undirected; its node labels are "
                "kept, result.node_labels), a scipy.sparse adjacency matrix (its off-diagonal pattern), or an "
                "m x 2 integer NumPy array of edges (nodes 0..max id)")


def _registry_annotation(p):
    """The Python type of a registry parameter (without None)."""
    kind = p["type"]
    if kind == "flag":
        return bool
    if kind in ("integer", "natural"):
        return int
    if kind == "real":
        return float
    if kind == "reals":
        return list[float]
    if kind == "count_or_auto":
        return Union[int, Literal["auto"]]
    if kind == "choice":
        return Literal[tuple(p["choices"])]
    return str


def annotation(p):
    """The annotation of a registry parameter: Optional[...] when it has neither a default nor a requirement
    (left out, the engine does without it)."""
    base = _SPECIAL.get(p["name"], _registry_annotation(p))
    if default(p) is None and not p["required"]:
        return Optional[base]
    return base


def default(p):
    """The registry's default as a Python value of the parameter's type: False for a flag, an int, a float, a
    list of floats, "auto", a string; None when the registry has none."""
    kind, text = p["type"], p["default"]
    if kind == "flag":
        return text == "true"
    if text is None:
        return None
    if kind in ("integer", "natural"):
        return int(text)
    if kind == "real":
        return float(text)
    if kind == "reals":
        return [float(item) for item in text.split(",")]
    if kind == "count_or_auto":
        return text if text == "auto" else int(text)
    return text


def parameters(description, python_name):
    """The inspect.Parameters of a model's function: graph first (positional or keyword), then the registry's
    other parameters as keywords in its order, then out and progress. Required parameters have no default."""
    shown = []
    for p in description["parameters"]:
        if p["role"] in ("out_dir", "quiet"):  # `out=` and `progress=` stand for them
            continue
        key = python_name(p["name"])
        kind = inspect.Parameter.POSITIONAL_OR_KEYWORD if key == "graph" else inspect.Parameter.KEYWORD_ONLY
        value = inspect.Parameter.empty if p["required"] else default(p)
        shown.append(inspect.Parameter(key, kind, default=value, annotation=annotation(p)))
    shown.append(inspect.Parameter("out", inspect.Parameter.KEYWORD_ONLY, default=None, annotation=OutDir))
    shown.append(inspect.Parameter("progress", inspect.Parameter.KEYWORD_ONLY, default=False, annotation=Progress))
    shown.sort(key=lambda q: q.kind)  # stable: the registry's order within each kind
    return shown


def _unit(p):
    if p["unit"]:
        return p["unit"]
    return "no unit" if p["type"] in ("integer", "natural", "real", "reals", "count_or_auto") else ""


def describe_parameter(p, python_name):
    """One docstring line: name (type, default, unit): help."""
    kind = p["type"].replace("_", " ")
    if p["choices"]:
        kind += ": " + " | ".join(p["choices"])
    facts = [kind]
    if p["required"]:
        facts.append("required")
    elif p["type"] != "flag" and default(p) is not None:
        facts.append(f"default {default(p)!r}")
    if p["unit"]:
        facts.append("unit: " + p["unit"])
    elif _unit(p):
        facts.append(_unit(p))
    return f"{python_name(p['name'])} ({', '.join(facts)}): {p['help']}"


def docstring(description, python_name):
    """The function's docstring: what the model does, the graph inputs, each parameter with its unit, what the
    result holds, the errors and warnings."""
    name = description["name"]
    lines = [description["help"], "",
             f"The registry model `{name}` (`netdp {name}` on the command line, docs/outputs.md for its files).",
             "A keyword left out takes the registry's default (the one shown).", "", "Parameters:"]
    for p in description["parameters"]:
        if p["role"] in ("out_dir", "quiet"):
            continue
        lines.append("  " + (GRAPH_INPUTS if p["name"] == "graph" else describe_parameter(p, python_name)))
    lines += ["  out: the results directory (default: a temporary one, deleted once the files are loaded)",
              "  progress: True for a tqdm bar per stage (the engine's lines on stderr without tqdm), or a",
              "    callable(stage, fraction) called on this thread as the run goes (default False: quiet)",
              "",
              "Returns a netdp.Result holding the run's output files by name (docs/outputs.md): each .npy file",
              "as a NumPy array (result.loss), each .csv file as a table (result.by_distance), summary.json",
              "and manifest.json as dicts (result.summary), result.files their names.",
              "",
              "Raises netdp.InvalidParameter (a ValueError, .parameter the registry name) for a bad value, NaN,",
              "inf or a wrong type included, before the run; ValueError for other bad input. Each of the",
              "summary's 'warnings' (a theorem's condition not met, ...) is also issued as a netdp.NetdpWarning.",
              "Ctrl-C stops the run within about a second (KeyboardInterrupt); the GIL is released while it runs."]
    if description["footer"]:
        lines += ["", description["footer"]]
    return "\n".join(lines)
