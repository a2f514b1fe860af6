"""The hand-written part of the package's type stub (docs/python.md "Signatures and stubs"): the aliases and
exception classes that __init__.pyi re-exports. _stubtypes.py holds the same runtime objects, so that mypy's
stubtest checks these declarations."""

import os
from typing import Callable, Hashable, Optional, Union

import networkx
import numpy
import scipy.sparse

GraphLike = Union[str, os.PathLike[str], networkx.Graph, scipy.sparse.spmatrix, numpy.ndarray]
WeightsLike = Union[str, os.PathLike[str], scipy.sparse.spmatrix, numpy.ndarray]
Node = Hashable
Progress = Union[bool, Callable[[str, float], object]]
OutDir = Optional[Union[str, os.PathLike[str]]]

class InvalidParameter(ValueError):
    parameter: str

class DeviceUnavailable(InvalidParameter): ...
