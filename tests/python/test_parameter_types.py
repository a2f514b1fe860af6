"""NaN, infinities and wrong types given as parameters (docs/python.md "Errors"): netdp.InvalidParameter (a
ValueError, .parameter the registry name) with the netdp program's message for the same value, raised before any
work (a networkx graph given with them is not copied); echoed values are cut at 200 characters."""

import math

import numpy as np
import pytest

import netdp
from conftest import cli_arguments, run_cli


def cli_message(tmp_path, model, **kwargs):
    _, _, stderr = run_cli(cli_arguments(model, **kwargs, out=str(tmp_path / "cli")), expect=2)
    line = stderr.strip().splitlines()[-1]
    assert line.startswith("netdp: error: --")
    return line[len("netdp: error: --"):]


@pytest.mark.parametrize("value, text", [(math.nan, "nan"), (math.inf, "inf"), (-math.inf, "-inf"),
                                         (np.float64("nan"), "nan")])
def test_non_finite_values_get_the_programs_message(tmp_path, value, text):
    expected = cli_message(tmp_path, "gossip-loss", graph="ring:n=4", steps=2, alpha=text)
    with pytest.raises(netdp.InvalidParameter) as caught:
        netdp.gossip_loss("ring:n=4", steps=2, alpha=value)
    assert str(caught.value) == expected and caught.value.parameter == "alpha"


def test_non_finite_item_of_a_list(tmp_path):
    expected = cli_message(tmp_path, "bound ring-sum", n="100,nan")
    with pytest.raises(ValueError) as caught:
        netdp.bound_ring_sum(n=[100, math.nan])
    assert str(caught.value) == expected


class Unconvertible:
    def __repr__(self):
        return "U" * 1000


@pytest.mark.parametrize("value", [object(), {"a": 1}, 1 + 2j, {1, 2}, Unconvertible()])
def test_wrong_types_are_invalid_parameters_before_any_work(value):
    class Graph:  # looks like a networkx graph; converting it would fail loudly
        def is_directed(self):
            raise AssertionError("the graph was converted before the bad value was refused")
        nodes = edges = None

    with pytest.raises(netdp.InvalidParameter) as caught:
        netdp.gossip_loss(Graph(), sigma=value)
    assert caught.value.parameter == "sigma" and isinstance(caught.value, ValueError)
    assert str(caught.value).startswith(f"sigma must be a string, a number or a list, not a {type(value).__name__}")
    assert len(str(caught.value)) <= 200 + len("sigma must be a string, a number or a list, not a ") + \
        len(type(value).__name__) + len(": ...")


def test_long_values_in_engine_messages_are_cut():
    with pytest.raises(ValueError) as caught:
        netdp.gossip_loss("bogus:" + "x" * 5000, steps=2)
    message = str(caught.value)
    assert "x" * 200 in message and "x" * 201 not in message
    assert len(message) < 500
