"""The hand-written part of the package's type stub (docs/python.md "Signatures and stubs"): the aliases and
exception classes that __init__.pyi re-exports. A stub-only module, like typeshed's _typeshed: nothing imports it
at run time (the runtime objects are python/netdp/_signatures.py's aliases and the native module's exceptions),
so mypy's stubtest checks these declarations through netdp's re-exports."""

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
