"""Errors as Python exceptions with the CLI's one-line messages (docs/python.md "Errors"): the netdp program
prints `netdp: error: --MESSAGE` for a parameter's error and `netdp: error: MESSAGE` for other bad input; Python
raises netdp.InvalidParameter(MESSAGE) (a ValueError, .parameter the registry's name), netdp.DeviceUnavailable
(an InvalidParameter of device), ValueError(MESSAGE), and RuntimeError for runtime failures."""

import os
import subprocess

import numpy as np
import pytest
import scipy.sparse as sp

import netdp
from conftest import cli_arguments, run_cli


def cli_message(tmp_path, model, **kwargs):
    """The netdp program's one-line error for the same keywords (exit 2)."""
    _, _, stderr = run_cli(cli_arguments(model, **kwargs, out=str(tmp_path / "cli")), expect=2)
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("netdp: error: ")
    return lines[0][len("netdp: error: "):]


@pytest.mark.parametrize("kwargs, parameter", [
    (dict(graph="hypercube:dim=3", t_start=2), "t-start"),
    (dict(graph="hypercube:dim=3", steps="x"), "steps"),
    (dict(graph="hypercube:dim=3", alpha=0.5), "alpha"),
    (dict(graph="hypercube:dim=3", cap="third"), "cap"),
])
def test_invalid_parameter(tmp_path, kwargs, parameter):
    expected = cli_message(tmp_path, "gossip-loss", **kwargs)
    with pytest.raises(netdp.InvalidParameter) as caught:
        netdp.gossip_loss(**kwargs)
    assert isinstance(caught.value, ValueError)
    assert caught.value.parameter == parameter
    assert "--" + str(caught.value) == expected


def test_required_parameter():
    with pytest.raises(netdp.InvalidParameter, match="^graph is required$"):
        netdp.gossip_loss(steps=3)


@pytest.mark.parametrize("kwargs", [
    dict(graph="bogus:n=3"),
    dict(graph="star:n=5", weights="lazy-uniform", steps=3),
])
def test_invalid_input(tmp_path, kwargs):
    expected = cli_message(tmp_path, "gossip-loss", **kwargs)
    with pytest.raises(ValueError) as caught:
        netdp.gossip_loss(**kwargs)
    assert not isinstance(caught.value, netdp.InvalidParameter)
    assert str(caught.value) == expected


def test_matrix_that_is_not_a_gossip_matrix():
    W = sp.identity(4, format="csr") * 0.5  # rows sum to 1/2
    with pytest.raises(ValueError, match="row 0"):
        netdp.gossip_loss("ring:n=4", weights=W, steps=2)
    with pytest.raises(ValueError, match="square"):
        netdp.gossip_loss("ring:n=4", weights=np.ones((4, 3)), steps=2)


def test_device_unavailable(tmp_path):
    """Without a CUDA device (or a CUDA build), device cuda is DeviceUnavailable with the CLI's message; where
    the program runs on a GPU, so does Python."""
    kwargs = dict(graph="hypercube:dim=3", steps=3, accounting="theorem", device="cuda")  # exact: CPU only
    args = cli_arguments("gossip-loss", **kwargs, out=str(tmp_path / "cli"))
    done = subprocess.run(args, capture_output=True, text=True)
    if done.returncode == 0:
        r = netdp.gossip_loss(**kwargs)
        assert r.loss.tobytes() == np.load(tmp_path / "cli" / "loss.npy").tobytes()
        return
    assert done.returncode == 2
    with pytest.raises(netdp.DeviceUnavailable) as caught:
        netdp.gossip_loss(**kwargs)
    assert isinstance(caught.value, netdp.InvalidParameter) and isinstance(caught.value, ValueError)
    assert caught.value.parameter == "device"
    message = "netdp: error: --" + str(caught.value)
    if ("built without CUDA" in message) == ("built without CUDA" in done.stderr):  # the same kind of build
        assert message == done.stderr.strip()
    else:  # the pip-installed package has no CUDA backend, the program has one but no device answers
        assert done.stderr.startswith("netdp: error: --device cuda") and "CUDA" in message


def test_runtime_failure_is_a_runtime_error(tmp_path):
    # The engine writes summary.json as summary.json.tmp-PID, then renames it (docs/outputs.md §1.1): a directory
    # in the way makes the write fail at run time, after every check passed.
    out = tmp_path / "out"
    (out / f"summary.json.tmp-{os.getpid()}").mkdir(parents=True)
    with pytest.raises(RuntimeError, match="cannot write"):
        netdp.gossip_loss("ring:n=4", steps=2, out=out)
