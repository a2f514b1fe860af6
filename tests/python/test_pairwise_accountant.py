"""netdp.PairwiseAccountant (docs/python.md "Pairwise accountant"): closed forms computed here with mpmath
(the Gaussian profile and its inverse, the Laplace Renyi divergence by quadrature), mu^2 adding over views,
walk views linear in the order, the per-pair, maximum and by-distance views against the full matrix."""

import math

import mpmath
import networkx as nx
import numpy as np
import pytest

import netdp

mpmath.mp.dps = 50


def mp_epsilon(mu, delta):
    """The root of ln(Phi(mu/2 - e/mu) - e^e Phi(-mu/2 - e/mu)) = ln delta with mpmath (G4), by bisection
    to 2^-110 of the bracket."""
    mu, target = mpmath.mpf(mu), mpmath.log(mpmath.mpf(delta))

    def f(e):
        profile = mpmath.ncdf(mu / 2 - e / mu) - mpmath.exp(e) * mpmath.ncdf(-mu / 2 - e / mu)
        return mpmath.log(profile) - target

    lo, hi = mpmath.mpf(0), mpmath.mpf(1)
    while f(hi) > 0:
        lo, hi = hi, 2 * hi
    for _ in range(110):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if f(mid) > 0 else (lo, mid)
    return float(hi)


def mp_laplace_rdp(alpha, b):
    """D_alpha(Lap(0, b) || Lap(1, b)) by mpmath quadrature, split at the kinks 0 and 1."""
    alpha, b = mpmath.mpf(alpha), mpmath.mpf(b)
    f = lambda x: mpmath.exp(-(alpha * abs(x) + (1 - alpha) * abs(x - 1)) / b) / (2 * b)
    return float(mpmath.log(mpmath.quad(f, [-mpmath.inf, 0, 1, mpmath.inf])) / (alpha - 1))


def test_one_gaussian_event_every_pair_is_gdp_with_mu_one_over_sigma():
    acc = netdp.PairwiseAccountant(5).compose(netdp.GaussianEvent(2.0))
    eps = acc.get_epsilon(1e-5)
    assert eps.shape == (5, 5)
    expected = mp_epsilon(0.5, 1e-5)
    off = ~np.eye(5, dtype=bool)
    assert np.allclose(eps[off], expected, rtol=1e-12, atol=0)
    assert np.all(np.diag(eps) == 0)
    assert eps[off].min() == eps[off].max()  # one solve, the same for every pair
    assert acc.get_epsilon(1e-5, pair=(3, 1)) == eps[3, 1] == netdp.gdp_epsilon(0.5, 1e-5)
    report = acc.epsilon_report(1e-5)
    assert np.all(report["method"][off] == netdp._accountant.METHODS.index("gdp"))
    assert np.all(report["lower"][off] < report["upper"][off])
    assert np.all(report["upper"] == report["value"])


@pytest.mark.parametrize("mu,delta", [(1e-3, 1e-300), (0.05, 1e-9), (1.0, 1e-5), (7.0, 1e-100), (50.0, 0.1)])
def test_gdp_epsilon_against_mpmath(mu, delta):
    assert netdp.gdp_epsilon(mu, delta) == pytest.approx(mp_epsilon(mu, delta), rel=1e-12)
    assert netdp.gdp_epsilon(mu, delta) >= 0


def test_composed_gaussian_views_add_mu_squared():
    rng = np.random.default_rng(3)
    n, k = 6, 4
    mu = rng.uniform(0.05, 0.6, size=(n, n))
    np.fill_diagonal(mu, 0)
    acc = netdp.PairwiseAccountant(n)
    for _ in range(k - 1):
        acc.compose(netdp.GaussianViewEvent(mu))
    acc.compose(netdp.GaussianViewEvent(mu), count=1)
    eps = acc.get_epsilon(1e-6)
    for u, v in [(0, 1), (2, 5), (4, 3)]:
        assert acc.method(u, v) == "gdp"
        assert acc.mu(u, v) == pytest.approx(math.sqrt(k) * mu[u, v], rel=1e-14)
        assert eps[u, v] == pytest.approx(mp_epsilon(math.sqrt(k) * mu[u, v], 1e-6), rel=1e-12)
    # The same as one view with count k, entry by entry.
    once = netdp.PairwiseAccountant(n).compose(netdp.GaussianViewEvent(mu), count=k).get_epsilon(1e-6)
    assert np.allclose(once, eps, rtol=1e-14, atol=0)


def test_laplace_event_rdp_against_its_closed_form_and_switches_to_rdp():
    for alpha in (1.5, 2.0, 10.0):
        for b in (0.5, 2.0):
            assert netdp.laplace_rdp(alpha, b) == pytest.approx(mp_laplace_rdp(alpha, b), rel=1e-12)
    orders = [1.5, 2.0, 10.0]
    acc = netdp.PairwiseAccountant(3, orders=orders)
    acc.compose(netdp.GaussianViewEvent(np.full((3, 3), 0.3))).compose(netdp.LaplaceEvent(2.0), count=3)
    assert acc.method(0, 1) == "rdp"
    expected = [a * 0.09 / 2 + 3 * mp_laplace_rdp(a, 2.0) for a in orders]
    assert np.allclose(acc.curve(0, 1), expected, rtol=1e-12, atol=0)
    # The epsilon is the improved conversion's minimum over the orders, written out here.
    delta = 1e-5
    by_order = [max(0.0, r + math.log1p(-1 / a) - (math.log(delta) + math.log(a)) / (a - 1))
                for r, a in zip(expected, orders)]
    report = acc.epsilon_report(delta, pair=(0, 1))
    assert report["method"] == "rdp"
    assert report["value"] == pytest.approx(min(by_order), rel=1e-12)
    assert report["order"] == orders[int(np.argmin(by_order))]


def test_walk_view_is_linear_in_the_order_up_to_max_order():
    c = np.array([[0, 0.02, 0], [0.01, 0, 0.03], [0.02, 0.02, 0]])
    acc = netdp.PairwiseAccountant(3).compose(netdp.WalkViewEvent(c, max_order=8.0), count=2)
    orders = np.array(acc.orders)
    curve = acc.curve(1, 2)
    assert np.allclose(curve[orders <= 8], 2 * 0.03 * orders[orders <= 8], rtol=1e-15, atol=0)
    assert np.all(np.isinf(curve[orders > 8]))
    assert acc.method(0, 2) == "gdp" and acc.get_epsilon(1e-5, pair=(0, 2)) == 0  # no walk loss there
    assert acc.method(1, 2) == "rdp"


def test_subsampled_and_composed_events_apply_to_every_pair():
    acc = netdp.PairwiseAccountant(4)
    three = netdp.SelfComposedEvent(netdp.GaussianEvent(1.0), 3)
    acc.compose(netdp.ComposedEvent([netdp.GaussianEvent(2.0), three]))
    assert acc.method(0, 3) == "gdp" and acc.mu(0, 3) == pytest.approx(math.sqrt(0.25 + 3), rel=1e-15)
    acc.compose(netdp.PoissonSampledGaussianEvent(0.01, 5.0), count=100)
    eps = acc.get_epsilon(1e-5)
    off = ~np.eye(4, dtype=bool)
    assert np.all(acc.epsilon_report(1e-5)["method"][off] == netdp._accountant.METHODS.index("rdp"))
    assert np.all(np.isfinite(eps[off])) and np.all(eps[off] > 0)
    assert np.all(eps[off] >= mp_epsilon(math.sqrt(3.25), 1e-5))  # more events never cost less


def test_pair_maximum_and_by_distance_agree_with_the_matrix():
    g = nx.path_graph(5)
    d = dict(nx.all_pairs_shortest_path_length(g))
    mu = np.array([[0 if u == v else 1 / (1 + d[u][v]) for v in range(5)] for u in range(5)])
    acc = netdp.PairwiseAccountant(5).compose(netdp.GaussianViewEvent(mu))
    eps = acc.get_epsilon(1e-5)
    for u in range(5):
        for v in range(5):
            assert acc.get_epsilon(1e-5, pair=(u, v)) == eps[u, v]
    value, u, v = acc.max_epsilon(1e-5)
    assert value == eps.max() and (u, v) == (0, 1)
    rows = acc.epsilon_by_distance(1e-5, g)
    assert list(rows["distance"]) == [1, 2, 3, 4]
    assert list(rows["pairs"]) == [8, 6, 4, 2]
    for dist, mean in zip(rows["distance"], rows["mean"]):
        assert mean == pytest.approx(mp_epsilon(1 / (1 + dist), 1e-5), rel=1e-12)
    same = acc.epsilon_by_distance(1e-5, np.array([[d[u][v] for v in range(5)] for u in range(5)]))
    assert np.array_equal(same["mean"], rows["mean"])
    deltas = acc.get_delta(2.0)
    assert deltas[0, 1] == pytest.approx(netdp.gdp_delta(0.5, 2.0), rel=1e-15)
    assert acc.max_delta(2.0)[0] == deltas.max()


def test_infinite_mu_and_bad_input():
    mu = np.array([[0, np.inf], [0.5, 0]])
    acc = netdp.PairwiseAccountant(2).compose(netdp.GaussianViewEvent(mu))
    assert acc.get_epsilon(1e-5, pair=(0, 1)) == math.inf
    assert acc.get_delta(10.0, pair=(0, 1)) == 1.0
    with pytest.raises(ValueError, match="2 x 2"):
        acc.compose(netdp.GaussianViewEvent(np.zeros((3, 3))))
    with pytest.raises(ValueError, match="delta must be in"):
        acc.get_epsilon(0.0)
    with pytest.raises(ValueError, match="count must be >= 0"):
        acc.compose(netdp.GaussianEvent(1.0), count=-1)
    with pytest.raises(ValueError, match="unknown subsampled bound"):
        acc.compose(netdp.PoissonSampledGaussianEvent(0.01, 5.0, bound="nope"))
