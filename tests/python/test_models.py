"""Every registry model from Python equals the netdp program on the same inputs (docs/python.md "Models").

Each case runs the model twice, `netdp.<model>(..., out=A)` and `netdp <model> ... --out B`, and compares the
directories: every .npy and .csv byte for byte (so loss matrices to the bit), summary.json without its timings.
"""

import inspect
import json
import warnings

import numpy as np
import pytest

import netdp
from conftest import cli_arguments, run_cli, same_files, without_timings

# One small run per model of the registry (a model added to the registry should get a case here).
CASES = {
    "graph": dict(graph="hypercube:dim=3", eigenvalues=True),
    "gossip_loss": dict(graph="hypercube:dim=4", steps=5, t_start=1, accounting="theorem", cap="none", alpha=2.5,
                        sigma=0.7),
    "walk_loss": dict(graph="grid:rows=3,cols=4", steps=6, noise_multiplier=1.3),
    "bound_complete_sum": dict(n=[10, 100, 1000]),
    "bound_complete_histogram": dict(n=[10, 100, 1000]),
    "bound_ring_sum": dict(n=[10, 100]),
    "bound_ring_histogram": dict(n=[2000, 5000]),
    "bound_sgd_rdp": dict(n=[10, 100]),
    "bound_sgd_closed_form": dict(n=[10, 100]),
    "bound_sgd_sigma": dict(n=[10, 100]),
    "gossip_sim": dict(graph="ring:n=8", steps=5, runs=3, seed=7, privacy=True, quantiles=[0.5]),
    "muffliato_gd": dict(graph="ring:n=8", steps=5, gossip_rounds=2, dim=2, samples=4, gradient_noise=0.1, seed=3),
    "walk_sim": dict(graph="complete:n=8", steps=20, runs=10, seed=1),
    "attack_gossip": dict(graph="florentine", attackers="all", steps=4),
    "mf_loss": dict(graph="florentine", weights="average", steps=10, correlation="ldp", participation="every",
                    trust="pndp", attackers="0,3", alpha=2),
    "mf_factorize": dict(graph="ring:n=6", correlation="mafalda", steps=12, participation="every"),
    "walk_sgd": dict(graph="complete:n=20", variant="network", epsilon=1, steps=400, runs=2, seed=3),
    "attack_dgd": dict(graph="florentine", weights="max-degree", attackers="0", steps=5, objective="least-squares",
                       dim=3, sigma=0.01, runs=2),
    "mf_sgd": dict(graph="er:n=10,p=0.4,seed=1", steps=8, participation="cyclic:b=2,k=4", correlation="antipgd",
                   noise_multiplier=2, runs=3, synthetic_rows=400, eval_every=4),
    "admm": dict(setting="walk", epsilon=2, users=40, runs=3, steps=60, synthetic_rows=600, eval_every=20, seed=4),
    "muffliato_sgd": dict(graph="ring:n=20", target_mean_loss=0.5, steps=4, gossip_steps=3, runs=3,
                          synthetic_rows=400),
    "gossip_er_bound": dict(graph="ring:n=20", steps=1, q=0.1),
}


def test_every_model_is_a_function_with_the_registry_parameters():
    names = [d["name"] for d in netdp.MODELS]
    assert netdp.models == [netdp.python_name(n) for n in names]
    assert "gossip_loss" in netdp.models and "bound_complete_sum" in netdp.models
    for description in netdp.MODELS:
        function = getattr(netdp, netdp.python_name(description["name"]))
        keywords = set(inspect.signature(function).parameters)
        for p in description["parameters"]:
            if p["role"] in ("out_dir", "quiet"):
                continue
            assert p["name"].replace("-", "_") in keywords
        assert {"out", "progress"} <= keywords
        assert description["help"] in function.__doc__


def test_cases_name_registry_models():
    assert set(CASES) <= set(netdp.models)
    missing = sorted(set(netdp.models) - set(CASES))
    if missing:
        warnings.warn(f"models without a case in tests/python/test_models.py (only the generic checks): {missing}")


@pytest.mark.parametrize("name", sorted(set(netdp.models) - set(CASES)))
def test_model_without_a_case_is_reachable(name, tmp_path):
    """A model added to the registry after these cases were written: called with no arguments it names its
    first required parameter as the registry does, or, with none required, runs as the program does."""
    function = getattr(netdp, name)
    description = next(d for d in netdp.MODELS if netdp.python_name(d["name"]) == name)
    required = [p["name"] for p in description["parameters"] if p["required"] and p["role"] != "out_dir"]
    if required:
        with pytest.raises(netdp.InvalidParameter) as caught:
            function(out=tmp_path / "py")
        assert caught.value.parameter in required and str(caught.value) == caught.value.parameter + " is required"
        return
    function(out=tmp_path / "py")
    run_cli(cli_arguments(function.model, out=str(tmp_path / "cli")))
    assert same_files(tmp_path / "py", tmp_path / "cli")


@pytest.mark.parametrize("name", sorted(CASES))
def test_model_equals_cli(name, tmp_path):
    kwargs = CASES[name]
    function = getattr(netdp, name)
    result = function(**kwargs, out=tmp_path / "py")
    run_cli(cli_arguments(function.model, **kwargs, out=str(tmp_path / "cli")))
    compared = same_files(tmp_path / "py", tmp_path / "cli")
    assert compared
    # The attributes are the files, as loaded from them.
    for file in compared:
        stem = file.rsplit(".", 1)[0]
        assert stem in result
        if stem.isidentifier():  # no file is shadowed by the Result's own attributes (walk-sim's nodes.csv)
            assert getattr(result, stem) is result[stem]
    main = "stats" if function.model == "graph" else "summary"
    with open(tmp_path / "cli" / f"{main}.json") as f:
        written = json.load(f)
    assert without_timings(result[main]) == without_timings(written)


def test_loss_matrix_to_the_bit_from_a_temporary_directory(tmp_path):
    result = netdp.gossip_loss("hypercube:dim=5", steps=7, device="cpu")
    assert result.out is None  # the temporary directory is gone, the arrays stay
    run_cli(cli_arguments("gossip-loss", graph="hypercube:dim=5", steps=7, device="cpu", out=str(tmp_path)))
    expected = np.load(tmp_path / "loss.npy")
    assert result.loss.dtype == np.float64 and result.loss.shape == (32, 32)
    assert result.loss.tobytes() == expected.tobytes()
    assert result.summary["n"] == 32


def test_arrays_are_mapped_from_the_files_copy_on_write(tmp_path):
    """Results cross without a copy (docs/python.md "Results"): each array is a view of a copy-on-write map of its
    .npy file; writing to it changes neither the file nor a second result of the same directory."""
    result = netdp.gossip_loss("hypercube:dim=4", steps=5, device="cpu", out=tmp_path / "out")
    on_disk = (tmp_path / "out" / "loss.npy").read_bytes()
    assert type(result.loss) is np.ndarray and isinstance(result.loss.base, np.memmap)
    assert not result.loss.flags.owndata and result.loss.flags.writeable
    first = float(result.loss[0, 1])
    result.loss[0, 1] = -1.0
    assert (tmp_path / "out" / "loss.npy").read_bytes() == on_disk
    again = netdp.Result("gossip-loss", str(tmp_path / "out"), None, None, "")
    assert again.loss[0, 1] == first and result.loss[0, 1] == -1.0


def test_check_and_estimate_run_nothing(tmp_path):
    netdp.gossip_loss.check("hypercube:dim=3", steps=4)
    with pytest.raises(netdp.InvalidParameter, match="steps must be >= 1, got 0"):
        netdp.gossip_loss.check("hypercube:dim=3", steps=0)
    # What the run must hold at once (576 bytes here) is checked too, against a memory-limit of 107 bytes.
    with pytest.raises(ValueError, match="needs about 576 bytes held at once, more than the 107 bytes"):
        netdp.gossip_loss.check("ring:n=8", steps=2, source=0, memory_limit=1e-7)
    small, _ = netdp.gossip_loss.estimate("hypercube:dim=5", steps=4)
    large, seconds = netdp.gossip_loss.estimate("hypercube:dim=10", steps=4)
    assert 0 < small < large and seconds >= 0


def test_unknown_keyword_is_a_type_error():
    with pytest.raises(TypeError, match="unexpected keyword argument 'stepz'"):
        netdp.gossip_loss("hypercube:dim=3", stepz=3)
