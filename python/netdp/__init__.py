"""netdp: privacy in decentralized learning, from Python (docs/python.md).

Every model of netdp's model registry is a function of this package, generated from the registry
(docs/design_models.md): ``gossip_loss``, ``walk_loss``, ``walk_sim``, ``gossip_sim``, ``muffliato_gd``,
``graph`` and the bounds ``bound_complete_sum``, ``bound_ring_sum``, ... Keywords are the CLI's options with
``-`` turned into ``_``; graphs may be spec strings, networkx graphs, scipy.sparse matrices or edge arrays; a
result's attributes are the CLI's output files (``.loss`` for loss.npy, ``.summary`` for summary.json).

    import networkx as nx, netdp
    r = netdp.gossip_loss(nx.cycle_graph(8), alpha=2, sigma=1, steps=10, t_start=1, device="cpu")
    r.loss            # ndarray (8, 8), equal to the CLI's loss.npy to the bit
    r.summary["by_distance"]

The pairwise accountant (``PairwiseAccountant`` and its events, docs/python.md "Pairwise accountant") accounts
the views of a protocol per pair (u -> v): exact GDP where every event is Gaussian-linear, RDP otherwise.

Errors: ``InvalidParameter`` (a ValueError; ``.parameter`` names the keyword; NaN, inf and wrong types
included) and ``DeviceUnavailable`` (an InvalidParameter of ``device``) carry the CLI's one-line message; other
bad input is a ValueError, a runtime failure a RuntimeError. A result's validity warnings (``summary["warnings"]``)
are issued as ``NetdpWarning`` (a UserWarning). Signatures are typed; ``__init__.pyi`` is their stub. Runs release the GIL, show a tqdm bar with ``progress=True`` (or call
``progress(stage, fraction)``), and stop within about a second on Ctrl-C, raising KeyboardInterrupt.
"""

from . import _netdp
from ._accountant import (ComposedEvent, GaussianEvent, GaussianViewEvent, LaplaceEvent, PairwiseAccountant,
                          PoissonSampledGaussianEvent, SelfComposedEvent, WalkViewEvent, gdp_delta, gdp_epsilon,
                          gdp_log_delta, laplace_rdp)
from ._models import MODELS, NetdpWarning, model_functions, python_name
from ._result import Result, read_csv
from ._signatures import GraphLike, Node, OutDir, Progress, WeightsLike
from ._study import StudyResult, run_study, study_toml

InvalidParameter = _netdp.InvalidParameter
DeviceUnavailable = _netdp.DeviceUnavailable
InvalidParameter.__module__ = DeviceUnavailable.__module__ = "netdp"  # shown as netdp.InvalidParameter
#: The project's one version number (CMakeLists.txt), as `pip show netdp` and importlib.metadata give it;
#: ``_netdp.version()`` adds the git commit the module was built from.
__version__ = _netdp.version().split(" ")[0]

_functions = model_functions()
globals().update(_functions)

#: The Python names of the registry's models, in the order of `netdp --help`.
models = list(_functions)

__all__ = ["models", "Result", "StudyResult", "run_study", "study_toml", "read_csv", "InvalidParameter",
           "DeviceUnavailable", "NetdpWarning", "GraphLike", "WeightsLike", "Node", "Progress", "OutDir", "python_name", "MODELS", "PairwiseAccountant", "GaussianEvent", "LaplaceEvent",
           "PoissonSampledGaussianEvent", "SelfComposedEvent", "ComposedEvent", "GaussianViewEvent",
           "WalkViewEvent", "gdp_epsilon", "gdp_delta", "gdp_log_delta", "laplace_rdp"] + models
