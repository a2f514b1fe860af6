"""Typed signatures and docstrings of the generated functions (docs/python.md "Signatures and stubs"). The
expected defaults are the CLI's, as README.md's gossip-loss table and `netdp walk-sim --help` state them, not
read back from the registry's JSON."""

import inspect
import typing

import pytest

import netdp

P = inspect.Parameter


def test_gossip_loss_signature_as_the_readme_states_it():
    s = inspect.signature(netdp.gossip_loss)
    graph = s.parameters["graph"]
    assert graph.kind is P.POSITIONAL_OR_KEYWORD and graph.default is P.empty
    assert graph.annotation == netdp.GraphLike
    assert list(s.parameters)[0] == "graph"
    expected = {"alpha": (2.0, float), "sigma": (1.0, float), "sensitivity": (1.0, float), "steps": ("auto", None),
                "weights": ("metropolis", None), "accounting": ("exact", None), "cap": ("ldp", None),
                "t_start": (0, int), "tile_sources": (0, int), "no_matrix": (False, bool), "delta": (None, None),
                "source": (None, None), "out": (None, None), "progress": (False, None)}
    for name, (default, kind) in expected.items():
        p = s.parameters[name]
        assert p.kind is P.KEYWORD_ONLY, name
        assert p.default == default and type(p.default) is type(default), (name, p.default)
        if kind is not None:
            assert p.annotation is kind, name
    assert s.parameters["accounting"].annotation == typing.Literal["exact", "theorem"]
    assert s.parameters["steps"].annotation == typing.Union[int, typing.Literal["auto"]]
    assert s.parameters["delta"].annotation == typing.Optional[float]
    assert s.return_annotation is netdp.Result


def test_list_defaults_are_lists_of_floats():
    quantiles = inspect.signature(netdp.walk_sim).parameters["quantiles"]
    assert quantiles.default == [0.01, 0.05, 0.25, 0.5, 0.75, 0.95, 0.99]
    assert quantiles.annotation == list[float]


def _is_instance(value, annotation):
    """isinstance for the annotations the package uses (Union, Optional, Literal, list[float], classes)."""
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is typing.Union:
        return any(_is_instance(value, a) for a in args)
    if origin is typing.Literal:
        return value in args
    if origin is list:
        return isinstance(value, list) and all(_is_instance(v, args[0]) for v in value)
    if annotation is type(None):
        return value is None
    if isinstance(annotation, typing.ForwardRef):
        return False
    if annotation is float:
        return isinstance(value, float)
    if annotation is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, annotation)


@pytest.mark.parametrize("name", netdp.models)
def test_every_default_has_its_annotated_type(name):
    function = getattr(netdp, name)
    s = inspect.signature(function)
    registry = {netdp.python_name(p["name"]): p for p in next(m for m in netdp.MODELS
                                                             if netdp.python_name(m["name"]) == name)["parameters"]}
    for key, p in s.parameters.items():
        if key in ("out", "progress"):
            continue
        assert key in registry
        if registry[key]["required"]:
            assert p.default is P.empty, key
        else:
            assert p.default is not P.empty, key
            assert _is_instance(p.default, p.annotation), (key, p.default, p.annotation)
    hidden = {k for k, p in registry.items() if p["role"] in ("out_dir", "quiet")}
    assert set(s.parameters) | hidden == set(registry) | {"out", "progress"}


@pytest.mark.parametrize("name", netdp.models)
def test_docstring_lists_graph_inputs_units_and_result(name):
    function = getattr(netdp, name)
    doc = function.__doc__
    model = next(m for m in netdp.MODELS if netdp.python_name(m["name"]) == name)
    if any(p["name"] == "graph" for p in model["parameters"]):
        for words in ("spec string", "networkx graph", "scipy.sparse", "array of edges"):
            assert words in doc, words
    for p in model["parameters"]:
        if p["unit"]:
            assert f"unit: {p['unit']}" in doc, p["name"]
    assert "Returns a netdp.Result" in doc and "NetdpWarning" in doc


def test_walk_loss_noise_multiplier_unit_is_stated():
    line = next(l for l in netdp.walk_loss.__doc__.splitlines() if l.strip().startswith("noise_multiplier "))
    assert "unit:" in line
