"""One Python function per model of the registry (docs/python.md "Models"; docs/design_models.md).

Nothing here names a model: the functions are generated from the registry's descriptions
(``_netdp.describe_models()``), so a model added to the registry is a function of this package at the next build.
Names: ``gossip-loss`` -> ``gossip_loss``, ``bound complete-sum`` -> ``bound_complete_sum``; keywords are the
parameters with ``-`` turned into ``_`` (``t_start``, ``no_matrix``).
"""

import inspect
import json
import numbers
import os
import shutil
import tempfile

import numpy as np

from . import _netdp
from ._graphs import Handover, graph_spec, weights_spec
from ._progress import progress_watcher
from ._result import Result

MODELS = json.loads(_netdp.describe_models())


def python_name(name):
    """The Python spelling of a registry name: words joined by '_', '-' -> '_'."""
    return name.replace(" ", "_").replace("-", "_")


def _json_value(name, value):
    """A Python value as the JSON the registry converts (Values::from_json_object): numbers, strings, bools,
    lists of them. NumPy scalars and arrays and paths are accepted."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        return float(value)
    if isinstance(value, str):
        return value
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    if isinstance(value, np.ndarray):
        value = value.tolist()
    if isinstance(value, (list, tuple)):
        return [_json_value(name, v) for v in value]
    raise ValueError(f"{name}: cannot pass a {type(value).__name__} (expected a number, a string, a bool or a list)")


def _describe_parameter(p):
    text = f"{python_name(p['name'])} ({p['type'].replace('_', ' ')}"
    if p["choices"]:
        text += ": " + " | ".join(p["choices"])
    if p["required"]:
        text += ", required"
    elif p["default"] is not None:
        text += f", default {p['default']}"
    if p["unit"]:
        text += f", {p['unit']}"
    return text + "): " + p["help"]


class _Model:
    """Calls one registry model: converts the keywords, runs into a directory, loads the Result."""

    def __init__(self, description):
        self.description = description
        self.name = description["name"]
        self.parameters = {python_name(p["name"]): p for p in description["parameters"]}
        self.out_name = next((p["name"] for p in description["parameters"] if p["role"] == "out_dir"), None)
        self.quiet_name = next((p["name"] for p in description["parameters"] if p["role"] == "quiet"), None)

    def values(self, kwargs, handover):
        """(JSON values by registry name, node labels or None); Python graphs and matrices are registered with
        `handover` (python/netdp/_graphs.py), which the caller closes after the run."""
        values, nodes = {}, None
        for key, value in kwargs.items():
            if key not in self.parameters:
                raise TypeError(f"{python_name(self.name)}() got an unexpected keyword argument '{key}'")
            if value is None:
                continue
            p = self.parameters[key]
            if p["name"] == "graph":
                value, nodes = graph_spec(value, handover)
            elif p["name"] == "weights":
                value = weights_spec(value, handover)
            values[p["name"]] = _json_value(key, value)
        if nodes is not None and "source" in values:  # a networkx graph's source is a label
            index = {label: i for i, label in enumerate(nodes)}
            label = kwargs["source"]
            if label not in index:
                raise ValueError(f"source: {label!r} is not a node of the graph")
            values["source"] = index[label]
        return values, nodes

    def keywords(self, args, kwargs):
        """The keywords of a call, with the graph given as the first positional argument."""
        positional = [k for k in ("graph",) if k in self.parameters]
        if len(args) > len(positional):
            raise TypeError(f"{python_name(self.name)}() takes {len(positional)} positional argument(s) "
                            f"({', '.join(positional) or 'none'}); give the others by keyword")
        for key, value in zip(positional, args):
            if key in kwargs:
                raise TypeError(f"{python_name(self.name)}() got multiple values for argument '{key}'")
            kwargs[key] = value
        return kwargs

    def __call__(self, *args, out=None, progress=False, **kwargs):
        kwargs = self.keywords(args, kwargs)
        lines, callback, close = progress_watcher(progress)
        quiet = kwargs.pop(python_name(self.quiet_name), None) if self.quiet_name else None
        quiet = (not lines) if quiet is None else bool(quiet)
        scratch = tempfile.mkdtemp(prefix="netdp-") if out is None else None
        try:
            with Handover() as handover:
                values, nodes = self.values(kwargs, handover)
                directory = os.fspath(out) if out is not None else os.path.join(scratch, "out")
                if self.out_name:
                    values[self.out_name] = directory  # as the CLI's --out
                invocation = {"runner": "python", "model": self.name, "arguments": values}
                if handover.described:  # what memory:id=K was (docs/python.md "Graphs and weights")
                    invocation["objects"] = handover.described
                try:  # Ctrl-C: KeyboardInterrupt within about a second, the run's loops stopped (docs/python.md)
                    summary = _netdp.run_model(self.name, json.dumps(values), directory, quiet,
                                               json.dumps(invocation), callback)
                finally:
                    close()
            report = _netdp.report_model(self.name, summary, directory)
            return Result(self.name, directory, None if out is None else directory, nodes, report)
        finally:
            if scratch is not None:
                shutil.rmtree(scratch, ignore_errors=True)

    def check(self, *args, **kwargs):
        """Checks the values as a run would (ranges, exclusions, the model's own checks) without running."""
        with Handover() as handover:
            values, _ = self.values(self.keywords(args, kwargs), handover)
            _netdp.check_model(self.name, json.dumps(values))

    def estimate(self, *args, **kwargs):
        """(bytes, seconds): the registry's rough estimate of a run (0 = unknown)."""
        with Handover() as handover:
            values, _ = self.values(self.keywords(args, kwargs), handover)
            return _netdp.estimate_model(self.name, json.dumps(values))


def make_function(description):
    """A Python function for one registry model, with a signature and a docstring built from its parameters."""
    model = _Model(description)
    name = python_name(model.name)

    def function(*args, **kwargs):
        return model(*args, **kwargs)

    shown = []
    for key, p in model.parameters.items():
        if p["role"] in ("out_dir", "quiet"):
            continue
        kind = inspect.Parameter.POSITIONAL_OR_KEYWORD if key == "graph" else inspect.Parameter.KEYWORD_ONLY
        shown.append(inspect.Parameter(key, kind, default=None))
    shown.append(inspect.Parameter("out", inspect.Parameter.KEYWORD_ONLY, default=None))
    shown.append(inspect.Parameter("progress", inspect.Parameter.KEYWORD_ONLY, default=False))
    shown.sort(key=lambda p: p.kind)
    function.__signature__ = inspect.Signature(shown)
    function.__name__ = function.__qualname__ = name
    lines = [description["help"], "",
             f"The registry model `{model.name}` (netdp {model.name} on the command line); a keyword left as None",
             "takes the registry's default. Returns a netdp.Result whose attributes are the output files",
             "(docs/outputs.md). Raises netdp.InvalidParameter (a ValueError) for bad input.", "", "Parameters:"]
    lines += ["  " + _describe_parameter(p) for p in model.parameters.values() if p["role"] not in ("out_dir", "quiet")]
    lines += ["  out: the results directory (default: a temporary one, deleted once the files are loaded)",
              "  progress: True for a tqdm bar per stage (the engine's lines on stderr without tqdm), or a",
              "    callable(stage, fraction) called on this thread as the run goes (default False: quiet)",
              "", "Ctrl-C stops the run within about a second and raises KeyboardInterrupt; the GIL is released",
              "while it runs."]
    if description["footer"]:
        lines += ["", description["footer"]]
    function.__doc__ = "\n".join(lines)
    function.check = model.check
    function.estimate = model.estimate
    function.model = model.name
    function.parameters = [p["name"] for p in description["parameters"]]
    return function


def model_functions():
    """{python name: function} for every model of the registry, in the order of `netdp --help`."""
    return {python_name(d["name"]): make_function(d) for d in MODELS}
