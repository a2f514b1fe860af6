"""The pairwise accountant (docs/python.md "Pairwise accountant", docs/dp_toolbox.md "Pairwise accountant").

Events in the idiom of dp_accounting; ``PairwiseAccountant(n).compose(event, count)`` then
``get_epsilon(delta)`` (an n x n array) or ``get_delta(epsilon)``, one pair with ``pair=(u, v)``, the largest
pair with ``max_epsilon``, the mean by hop distance with ``epsilon_by_distance``. The accounting is the C++
PairwiseAccountant's (src/dp/pairwise_accountant.cpp); this module only carries events and arrays.
"""

from dataclasses import dataclass, field

import numpy as np

from . import _netdp

#: Codes of the ``method`` array of a report: the diagonal, exact GDP, RDP on the order grid.
METHODS = ("none", "gdp", "rdp")


@dataclass(frozen=True)
class GaussianEvent:
    """Gaussian mechanism, noise N(0, (noise_multiplier * sensitivity)^2): (1/sigma)-GDP, every pair."""
    noise_multiplier: float
    kind = "gaussian"


@dataclass(frozen=True)
class LaplaceEvent:
    """Laplace mechanism, noise Lap(0, noise_multiplier * sensitivity): exact RDP (netdp.laplace_rdp)."""
    noise_multiplier: float
    kind = "laplace"


@dataclass(frozen=True)
class PoissonSampledGaussianEvent:
    """Subsampled Gaussian at rate q by an SS3 closed form (RDP; "mironov_talwar_zhang" or "thm_3_10")."""
    sampling_probability: float
    noise_multiplier: float
    bound: str = "mironov_talwar_zhang"
    kind = "poisson_sampled_gaussian"


@dataclass(frozen=True)
class SelfComposedEvent:
    """``count`` adaptive repetitions of a pair-independent event."""
    event: object
    count: int
    kind = "self_composed"


@dataclass(frozen=True)
class ComposedEvent:
    """Adaptive composition of pair-independent events."""
    events: list = field(default_factory=list)
    kind = "composed"


@dataclass(frozen=True)
class GaussianViewEvent:
    """A Gaussian-linear view: the pair (u -> v) is exactly mu[u, v]-GDP (inf: no privacy; 0: none seen)."""
    mu: np.ndarray
    kind = "gaussian_view"


@dataclass(frozen=True)
class WalkViewEvent:
    """A random-walk view: RDP alpha * coefficient[u, v] for 1 < alpha <= max_order (walk-loss loss/alpha)."""
    coefficient: np.ndarray
    max_order: float = float("inf")
    kind = "walk_view"


def _distance_matrix(graph_or_distance, n):
    """Hop distances as an n x n int64 array (-1: unreachable) from a distance array or a networkx graph."""
    if hasattr(graph_or_distance, "nodes"):
        import networkx as nx
        distance = np.full((n, n), -1, dtype=np.int64)
        index = {node: i for i, node in enumerate(graph_or_distance.nodes())}
        for source, lengths in nx.all_pairs_shortest_path_length(graph_or_distance):
            for target, d in lengths.items():
                distance[index[source], index[target]] = d
        return distance
    distance = np.asarray(graph_or_distance)
    distance = np.where(np.isfinite(distance), distance, -1).astype(np.int64)
    if distance.shape != (n, n):
        raise ValueError(f"the distance matrix must be {n} x {n} (got shape {distance.shape})")
    return distance


class PairwiseAccountant:
    """One privacy account per ordered pair (u -> v) of n nodes (u protected, v observing).

    ``orders``: the RDP order grid (None: the default 73 orders); ``conversion``: "improved" or "classic".
    The diagonal is not a pair: 0 with method "none".
    """

    def __init__(self, n, orders=None, conversion="improved"):
        self._native = _netdp.PairwiseAccountant(int(n), [] if orders is None else list(orders), conversion)

    @property
    def n(self):
        return self._native.n

    @property
    def orders(self):
        return list(self._native.orders)

    def compose(self, event, count=1):
        """Adds ``count`` adaptive repetitions of the event; returns the accountant."""
        if event.kind == "gaussian_view":
            self._native.compose_gaussian_view(np.asarray(event.mu, dtype=np.float64), int(count))
        elif event.kind == "walk_view":
            self._native.compose_walk_view(np.asarray(event.coefficient, dtype=np.float64),
                                           float(event.max_order), int(count))
        else:
            self._native.compose_event(event, int(count))
        return self

    def method(self, u, v):
        """The entry's method: "gdp", "rdp" or "none" (the diagonal)."""
        return self._native.method(u, v)

    def mu(self, u, v):
        """The entry's summed Gaussian part, sqrt(sum mu^2)."""
        return self._native.mu(u, v)

    def curve(self, u, v):
        """The entry's RDP values on ``orders``."""
        return np.array(self._native.curve(u, v))

    def get_epsilon(self, delta, pair=None):
        """Epsilon at ``delta`` of every pair (n x n array), or of ``pair=(u, v)`` (a float)."""
        if pair is not None:
            return self._native.epsilon(pair[0], pair[1], delta)["value"]
        return self._native.get(delta, True)["value"]

    def get_delta(self, epsilon, pair=None):
        """Delta at ``epsilon`` of every pair (n x n array), or of ``pair=(u, v)`` (a float)."""
        if pair is not None:
            return self._native.delta(pair[0], pair[1], epsilon)["value"]
        return self._native.get(epsilon, False)["value"]

    def epsilon_report(self, delta, pair=None):
        """A dict: value, lower, upper, order, method (codes of METHODS, or a name for one pair),
        at_grid_edge; [lower, upper] is GDP's root bracket, value = upper."""
        if pair is not None:
            return self._native.epsilon(pair[0], pair[1], delta)
        return self._native.get(delta, True)

    def delta_report(self, epsilon, pair=None):
        """As epsilon_report, for delta at ``epsilon``."""
        if pair is not None:
            return self._native.delta(pair[0], pair[1], epsilon)
        return self._native.get(epsilon, False)

    def max_epsilon(self, delta):
        """(value, u, v): the largest epsilon over the pairs and the first pair attaining it."""
        return self._native.maximum(delta, True)

    def max_delta(self, epsilon):
        """(value, u, v): the largest delta over the pairs."""
        return self._native.maximum(epsilon, False)

    def epsilon_by_distance(self, delta, graph):
        """Columns distance, pairs, mean, min, max over the pairs at each hop distance >= 1; ``graph`` is a
        networkx graph (node i = list(G.nodes())[i]) or an n x n distance array (negative or inf: skipped)."""
        return self._native.by_distance(delta, True, _distance_matrix(graph, self.n))

    def delta_by_distance(self, epsilon, graph):
        """As epsilon_by_distance, for delta at ``epsilon``."""
        return self._native.by_distance(epsilon, False, _distance_matrix(graph, self.n))


def gdp_epsilon(mu, delta):
    """Epsilon of a mu-GDP mechanism at delta (the exact Gaussian profile, docs/math.md §1.2 G4)."""
    return _netdp.gdp_epsilon(mu, delta)


def gdp_delta(mu, epsilon):
    """Delta of a mu-GDP mechanism at epsilon (G3/G4; 0 where it underflows: see gdp_log_delta)."""
    return _netdp.gdp_delta(mu, epsilon)


def gdp_log_delta(mu, epsilon):
    """ln delta of a mu-GDP mechanism at epsilon, finite for every finite epsilon."""
    return _netdp.gdp_log_delta(mu, epsilon)


def laplace_rdp(alpha, noise_multiplier):
    """Exact RDP of the Laplace mechanism at order alpha."""
    return _netdp.laplace_rdp(alpha, noise_multiplier)
