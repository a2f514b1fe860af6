"""Exact gossip accounting from Python and the CLI (docs/math.md §6.9, docs/gossip_loss.md): the ring
counterexample of §6.9 by hand, the same files from the package and the program, and the pairwise accountant
giving the command's epsilon from its mu."""

import os

import numpy as np

import netdp
from conftest import cli_arguments, run_cli

SETTING = dict(steps=2, t_start=0, alpha=2.0, sigma=1.0, delta=1e-5)


def test_ring_counterexample_and_files(tmp_path):
    # v = 0 receives y1, y7, then (y0 + y1 + y2)/3 and (y0 + y6 + y7)/3 (W = 1/3 on the ring of 8 and the
    # diagonal): knowing only x_0, ||P e2||^2 = 1/2 + 1/6 = 2/3; knowing y_0 too, v computes y_2 exactly, 1.
    noise = netdp.gossip_loss("ring:n=8", **SETTING)
    known_input = netdp.gossip_loss("ring:n=8", observer_knows="input", **SETTING)
    assert abs(noise.loss[2, 0] - 1.0) < 1e-14 and abs(noise.mu[2, 0] - 1.0) < 1e-14
    assert abs(known_input.loss[2, 0] - 2.0 / 3.0) < 1e-14
    assert abs(known_input.mu[2, 0] - np.sqrt(2.0 / 3.0)) < 1e-14
    assert noise.summary["accounting"] == "exact" and "warnings" not in noise.summary
    # The program writes the same bytes.
    out = tmp_path / "cli"
    run_cli(cli_arguments("gossip-loss", graph="ring:n=8", out=str(out), quiet=True, **SETTING))
    for name in ("loss", "mu", "epsilon"):
        np.testing.assert_array_equal(np.load(out / f"{name}.npy"), noise[name])


def test_theorem_mode_warns(tmp_path):
    out = tmp_path / "theorem"
    _, _, stderr = run_cli(cli_arguments("gossip-loss", graph="ring:n=8", steps=2, accounting="theorem",
                                         out=str(out)))
    assert "not an upper bound" in stderr
    theorem = netdp.gossip_loss("ring:n=8", steps=2, accounting="theorem")
    assert abs(theorem.loss[2, 0] - 1.0 / 3.0) < 1e-14
    assert any("not an upper bound" in w for w in theorem.summary["warnings"])
    assert not os.path.exists(out / "mu.npy")


def test_pairwise_accountant_gives_the_commands_epsilon():
    run = netdp.gossip_loss("er:n=40,c=2,seed=4", steps=5, delta=1e-6, sigma=2.0)
    n = run.mu.shape[0]
    accountant = netdp.PairwiseAccountant(n)
    accountant.compose(netdp.GaussianViewEvent(np.array(run.mu)))
    epsilon = accountant.get_epsilon(1e-6)
    off = ~np.eye(n, dtype=bool)
    np.testing.assert_allclose(epsilon[off], run.epsilon[off], rtol=1e-12, atol=0)
    # Two independent runs of the protocol compose: mu^2 adds.
    accountant.compose(netdp.GaussianViewEvent(np.array(run.mu)))
    twice = netdp.PairwiseAccountant(n)
    twice.compose(netdp.GaussianViewEvent(np.sqrt(2.0) * np.array(run.mu)))
    np.testing.assert_allclose(accountant.get_epsilon(1e-6)[off], twice.get_epsilon(1e-6)[off], rtol=1e-12)
