#!/usr/bin/env python3
"""Writes tests/data/gdp_reference.csv: the exact Gaussian privacy profile (docs/math.md §1.2, G3/G4) at high
precision with mpmath, for tests/unit/test_dp_gdp_profile.cpp (which needs no mpmath).

    delta(eps) = Phi(mu/2 - eps/mu) - e^eps Phi(-mu/2 - eps/mu)

evaluated literally with 150 significant digits (the difference cancels at most about 20 digits where delta is
small; it cancels 137 digits at mu = 50 and small eps, where delta is within 1e-137 of 1 and ln delta keeps
about 13 digits, far more than a double's 1 - delta can show), and its inverse eps(delta) by a bracketed
Newton iteration on ln delta(eps) to 1e-40 relative. Inputs are written as the shortest decimal of a double
and read by mpmath from that double, so the C++ test evaluates at the same points. Rows:

    kind,mu,x,value
    log_delta,MU,EPS,ln delta(EPS)     for eps in 0 .. 1e4, either side of where the C++ switches formula,
                                       and at each root below (delta from 1e-300 to 0.1)
    epsilon,MU,DELTA,eps(DELTA)        for delta in 1e-300 .. 0.1 (0 when delta >= delta(0))

Run: python3 tests/data/gdp_reference.py > tests/data/gdp_reference.csv (Debian package python3-mpmath).
"""
import sys

import mpmath

mpmath.mp.dps = 150

MUS = [1e-3, 2e-3, 5e-3, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0]
EPSILONS = [0.0, 1e-6, 1e-3, 0.01, 0.1, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 100.0, 300.0, 1e3, 3e3, 1e4]
DELTAS = [1e-300, 1e-250, 1e-200, 1e-150, 1e-100, 1e-50, 1e-30, 1e-20, 1e-15, 1e-12, 1e-9, 1e-6, 1e-5,
          1e-4, 1e-3, 1e-2, 0.05, 0.1]


def log_delta(mu, eps):
    return mpmath.log(mpmath.ncdf(mu / 2 - eps / mu) - mpmath.exp(eps) * mpmath.ncdf(-mu / 2 - eps / mu))


def epsilon(mu, delta):
    """The root of ln delta(eps) = ln delta: Newton (slope -e^eps Phi(-mu/2 - eps/mu)/delta(eps)) kept inside
    a bracket that a sign change proves, bisecting when a step leaves it."""
    target = mpmath.log(delta)
    if log_delta(mu, mpmath.mpf(0)) <= target:
        return mpmath.mpf(0)
    lo, hi = mpmath.mpf(0), mpmath.mpf(1)
    while log_delta(mu, hi) > target:
        lo, hi = hi, 2 * hi
    eps = (lo + hi) / 2
    for _ in range(500):
        value = log_delta(mu, eps)
        if value > target:
            lo = eps
        else:
            hi = eps
        slope = -mpmath.exp(eps) * mpmath.ncdf(-mu / 2 - eps / mu) / mpmath.exp(value)
        step = (value - target) / slope
        if abs(step) < mpmath.mpf(10) ** -45 * eps:
            break
        eps = eps - step
        if not lo < eps < hi:
            eps = (lo + hi) / 2
    assert abs(log_delta(mu, eps) - target) < mpmath.mpf(10) ** -30, (mu, delta)
    return eps


def switch_epsilons(mu):
    """The epsilons where src/dp/gdp_profile.cpp changes formula, each 1e-9 relative either side: x = -1, and
    c(x + mu) = 2 c(x) with c(t) = (t + sqrt(t^2 + 4))/2 (its estimate of R(x + mu) = R(x)/2)."""
    c = lambda t: (t + mpmath.sqrt(t * t + 4)) / 2
    g = lambda x: c(x + mu) - 2 * c(x)  # decreasing in x
    xs = [mpmath.mpf(-1)] if mu > 2 else []
    if g(mpmath.mpf(-1)) > 0:
        lo, hi = mpmath.mpf(-1), mpmath.mpf(1)
        while g(hi) > 0:
            hi *= 2
        for _ in range(200):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if g(mid) > 0 else (lo, mid)
        xs.append(lo)
    out = []
    for x in xs:
        eps = mu * (x + mu / 2)
        out += [float(eps * (1 - mpmath.mpf(10) ** -9)), float(eps * (1 + mpmath.mpf(10) ** -9))]
    return out


def main():
    out = sys.stdout
    out.write("kind,mu,x,value\n")
    for mu in MUS:
        m = mpmath.mpf(mu)
        roots = [epsilon(m, mpmath.mpf(delta)) for delta in DELTAS]
        # The profile at the grid's epsilons, either side of the formula switches, and at the roots (rounded to
        # doubles), which puts a point at every delta of the grid.
        for eps in EPSILONS + switch_epsilons(m) + [float(r) for r in roots if r > 0]:
            out.write(f"log_delta,{mu!r},{eps!r},{mpmath.nstr(log_delta(m, mpmath.mpf(eps)), 25)}\n")
        for delta, root in zip(DELTAS, roots):
            out.write(f"epsilon,{mu!r},{delta!r},{mpmath.nstr(root, 25)}\n")


if __name__ == "__main__":
    main()
