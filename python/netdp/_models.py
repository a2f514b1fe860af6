"""One Python function per model of the registry (docs/python.md "Models"; docs/design_models.md).

Nothing here names a model: the functions are generated from the registry's descriptions
(``_netdp.describe_models()``), so a model added to the registry is a function of this package at the next build.
Names: ``gossip-loss`` -> ``gossip_loss``, ``bound complete-sum`` -> ``bound_complete_sum``; keywords are the
parameters with ``-`` turned into ``_`` (``t_start``, ``no_matrix``).
"""

import inspect
import json
import math
import numbers
import os
import shutil
import tempfile
import warnings

import numpy as np

from . import _netdp, _signatures
from ._graphs import NODE_PARAMETERS, Handover, graph_spec, node_value, weights_spec
from ._progress import progress_watcher
from ._result import Result

MODELS = json.loads(_netdp.describe_models())


class NetdpWarning(UserWarning):
    """A result that holds with a caveat: a theorem's condition not met, a horizon cut, a clip applied (the
    run's summary.json `warnings`, docs/python.md "Warnings")."""

    __module__ = "netdp"


def python_name(name):
    """The Python spelling of a registry name: words joined by '_', '-' -> '_'."""
    return name.replace(" ", "_").replace("-", "_")


def _invalid(parameter, message):
    """netdp.InvalidParameter (a ValueError) raised from Python, as the engine raises it: .parameter is the
    registry name."""
    error = _netdp.InvalidParameter(message)
    error.parameter = parameter
    return error


def echo(value, limit=200):
    """repr(value) for a message, cut at `limit` characters (a value may be a whole array)."""
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."


def _json_value(p, value):
    """A Python value as the JSON the registry converts (Values::from_json_object): numbers, strings, bools,
    lists of them. NumPy scalars and arrays and paths are accepted. NaN and infinities go as the CLI's text
    ("nan", "inf", "-inf"; JSON has no such numbers), so the engine refuses them with the CLI's message; any other
    type is refused here, before any work."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        value = float(value)
        return value if math.isfinite(value) else repr(value)
    if isinstance(value, str):
        return value
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    if isinstance(value, np.ndarray):
        value = value.tolist()
    if isinstance(value, (list, tuple)):
        return [_json_value(p, v) for v in value]
    raise _invalid(p["name"], f"{p['name']} must be a string, a number or a list, not a {type(value).__name__}: "
                              f"{echo(value)}")


def _warn(summary):
    """Each of a run's validity warnings (summary.json `warnings`) as a NetdpWarning, from the caller's line."""
    for text in summary.get("warnings", []) if isinstance(summary, dict) else []:
        warnings.warn(text if isinstance(text, str) else json.dumps(text), NetdpWarning, stacklevel=4)


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
        `handover` (python/netdp/_graphs.py), which the caller closes after the run. The plain values are
        converted first, so that a wrong one is refused before a graph is copied."""
        values, nodes, later = {}, None, []
        for key, value in kwargs.items():
            if key not in self.parameters:
                raise TypeError(f"{python_name(self.name)}() got an unexpected keyword argument '{key}'")
            if value is None:
                continue
            p = self.parameters[key]
            if p["name"] in ("graph", "weights") or p["name"] in NODE_PARAMETERS:
                later.append((key, p, value))
            else:
                values[p["name"]] = _json_value(p, value)
        # The graph first: node-valued parameters may be given with its labels (networkx input).
        for key, p, value in sorted(later, key=lambda item: item[1]["name"] in NODE_PARAMETERS):
            if p["name"] == "graph":
                value, nodes = graph_spec(value, handover)
            elif p["name"] == "weights":
                value = weights_spec(value, handover)
            elif nodes is not None:
                value = node_value(p["name"], value, nodes)
            values[p["name"]] = _json_value(p, value)
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
            _warn(json.loads(summary))
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
    """A Python function for one registry model, with a typed signature and a docstring built from its
    parameters (python/netdp/_signatures.py)."""
    model = _Model(description)
    name = python_name(model.name)

    def function(*args, **kwargs):
        return model(*args, **kwargs)

    function.__signature__ = inspect.Signature(_signatures.parameters(description, python_name),
                                               return_annotation=Result)
    function.__name__ = function.__qualname__ = name
    function.__module__ = "netdp"
    function.__doc__ = _signatures.docstring(description, python_name)
    function.check = model.check
    function.estimate = model.estimate
    function.model = model.name
    function.parameters = [p["name"] for p in description["parameters"]]
    return function


def model_functions():
    """{python name: function} for every model of the registry, in the order of `netdp --help`."""
    return {python_name(d["name"]): make_function(d) for d in MODELS}
