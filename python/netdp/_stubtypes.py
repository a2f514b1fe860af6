"""The runtime objects that _stubtypes.pyi declares (the aliases and exceptions of the package's type stub), so
that mypy's stubtest checks those declarations against them. Nothing else imports this module."""

from ._netdp import DeviceUnavailable, InvalidParameter
from ._signatures import GraphLike, Node, OutDir, Progress, WeightsLike
