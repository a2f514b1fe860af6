"""Writes the package's type stub, python/netdp/__init__.pyi, from the registry (docs/python.md "Signatures and
stubs"): ``python -m netdp._stubgen [PATH]`` (default: print it). The stub is committed and shipped with the
package (with ``py.typed``); tests/python/test_stubs.py fails when it differs from what this writes, so a model
or parameter added to the registry needs the stub written again:

    PYTHONPATH=build/python python3 -m netdp._stubgen python/netdp/__init__.pyi

The functions' signatures are the ones the package builds at import (python/netdp/_signatures.py), written out;
the rest of the package is re-exported from its modules, which type checkers read as they are.
"""

import ast
import inspect
import os
import sys
import typing

from . import _signatures
from ._models import MODELS, make_function, python_name
from ._result import Result

HEADER = '''"""Type stub of the netdp package, written by `python -m netdp._stubgen` from the model registry: do not edit
(docs/python.md "Signatures and stubs")."""

import os
from typing import Hashable, Literal

import numpy

from . import _netdp as _netdp
from ._accountant import ComposedEvent as ComposedEvent
from ._accountant import GaussianEvent as GaussianEvent
from ._accountant import GaussianViewEvent as GaussianViewEvent
from ._accountant import LaplaceEvent as LaplaceEvent
from ._accountant import PairwiseAccountant as PairwiseAccountant
from ._accountant import PoissonSampledGaussianEvent as PoissonSampledGaussianEvent
from ._accountant import SelfComposedEvent as SelfComposedEvent
from ._accountant import WalkViewEvent as WalkViewEvent
from ._accountant import gdp_delta as gdp_delta
from ._accountant import gdp_epsilon as gdp_epsilon
from ._accountant import gdp_log_delta as gdp_log_delta
from ._accountant import laplace_rdp as laplace_rdp
from ._models import MODELS as MODELS
from ._models import NetdpWarning as NetdpWarning
from ._models import model_functions as model_functions
from ._models import python_name as python_name
from ._result import Result as Result
from ._result import read_csv as read_csv
from ._study import StudyResult as StudyResult
from ._study import run_study as run_study
from ._study import study_toml as study_toml
'''

# The hand-written declarations (aliases, exception classes) live once, in the stub-only module _stubtypes.pyi;
# the stub re-exports each of its names.
_STUBTYPES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_stubtypes.pyi")


def stubtypes_names():
    """The names _stubtypes.pyi declares at its top level, in its order."""
    with open(_STUBTYPES, encoding="utf-8") as f:
        tree = ast.parse(f.read())
    names = []
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            names.append(node.name)
        elif isinstance(node, ast.Assign):
            names.extend(t.id for t in node.targets)
    return names


# Annotations written by their alias's name (_stubtypes.pyi defines each).
_ALIASES = {"GraphLike": _signatures.GraphLike, "WeightsLike": _signatures.WeightsLike,
            "Progress": _signatures.Progress, "OutDir": _signatures.OutDir}


def annotation_text(annotation):
    """An annotation object as stub text: int, list[float], Literal['a', 'b'], X | None, an alias's name."""
    for name, alias in _ALIASES.items():
        if annotation == alias:
            return name
    if annotation is type(None):
        return "None"
    if annotation is Result:
        return "Result"
    if annotation is typing.Hashable:
        return "Hashable"
    if annotation is os.PathLike:
        return "os.PathLike[str]"
    if isinstance(annotation, typing.ForwardRef):
        return annotation.__forward_arg__
    if isinstance(annotation, type) and annotation.__module__ == "numpy":
        return "numpy." + annotation.__name__
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is typing.Union:
        if type(None) in args and len(args) > 2:  # Optional[alias]: "alias | None"
            return annotation_text(typing.Union[tuple(a for a in args if a is not type(None))]) + " | None"
        return " | ".join(annotation_text(a) for a in args)
    if origin is typing.Literal:
        return "Literal[" + ", ".join(repr(a) for a in args) + "]"
    if origin is list:
        return "list[" + annotation_text(args[0]) + "]"
    if isinstance(annotation, type) and annotation.__module__ == "builtins":
        return annotation.__name__
    raise ValueError(f"no stub text for the annotation {annotation!r}")


def function_text(function):
    """`def name(graph: GraphLike, *, alpha: float = 2.0, ...) -> Result: ...` from a function's signature."""
    signature = inspect.signature(function)
    parts, star = [], False
    for p in signature.parameters.values():
        if p.kind is inspect.Parameter.KEYWORD_ONLY and not star:
            parts.append("*")
            star = True
        text = f"{p.name}: {annotation_text(p.annotation)}"
        if p.default is not inspect.Parameter.empty:
            text += f" = {p.default!r}"
        parts.append(text)
    returns = annotation_text(signature.return_annotation)
    doc = function.__doc__.splitlines()[0].replace("\\", "\\\\").replace('"', '\\"')
    return f'def {function.__name__}({", ".join(parts)}) -> {returns}:\n    """{doc}"""\n'


def stub_text():
    """The whole stub: the header, the re-exports of _stubtypes.pyi, then one function per registry model in the
    registry's order."""
    functions = [make_function(d) for d in MODELS]
    names = [python_name(d["name"]) for d in MODELS]
    assert names == [f.__name__ for f in functions]
    import netdp  # the package's __all__, as stubtest compares it
    reexports = "".join(f"from ._stubtypes import {n} as {n}\n" for n in stubtypes_names())
    return (HEADER + reexports + "\n__version__: str\nmodels: list[str]\n\n" +
            "__all__ = [" + ", ".join(repr(n) for n in netdp.__all__) + "]\n" +
            "".join("\n" + function_text(f) for f in functions))


def main(argv):
    text = stub_text()
    if len(argv) > 1:
        with open(argv[1], "w", encoding="utf-8") as f:
            f.write(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main(sys.argv)
