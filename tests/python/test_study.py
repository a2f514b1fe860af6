"""netdp.run_study equals `netdp run` (docs/python.md "Studies"): the same results.csv, byte for byte, from a
study file and from the same study as a dict."""

import tomllib

import pytest

import netdp
from conftest import CLI, run_cli

STUDY = {
    "study": {"name": "python-study", "seed": 5, "quantiles": [0.5]},
    "experiment": [
        {"name": "gossip", "model": "gossip-loss", "replicates": 2,
         "params": {"no-matrix": True, "steps": 4, "t-start": 1, "alpha": 2.0, "sigma": 1.5},
         "grid": {"graph": ["hypercube:dim=4", "er:n=20,c=2,seed={seed}"]}},
        {"name": "walks", "model": "walk-sim", "replicates": 2,
         "params": {"graph": "complete:n=10", "runs": 20},
         "grid": {"steps": {"start": 10, "stop": 30, "step": 10}}},
        {"name": "bound", "model": "bound complete-sum",
         "grid": {"cases": [{"n": "100", "eps": 0.1}, {"n": "1000", "eps": 0.2}]}},
    ],
}


def test_study_toml_round_trips():
    assert tomllib.loads(netdp.study_toml(STUDY)) == STUDY


def test_study_equals_cli(tmp_path):
    path = tmp_path / "study.toml"
    path.write_text(netdp.study_toml(STUDY))
    run_cli([CLI, "run", str(path), "--out", str(tmp_path / "cli"), "--quiet"])
    expected = (tmp_path / "cli" / "results.csv").read_bytes()

    from_dict = netdp.run_study(STUDY, out=tmp_path / "dict")
    assert (tmp_path / "dict" / "results.csv").read_bytes() == expected
    from_file = netdp.run_study(path, out=tmp_path / "file")
    assert (tmp_path / "file" / "results.csv").read_bytes() == expected

    columns = from_dict.results
    assert set(columns["experiment"]) == {"gossip", "walks", "bound"}
    assert from_file.out == str(tmp_path / "file") and "units" in str(from_dict.manifest)
    # Resuming a finished study runs nothing and leaves results.csv as it was.
    netdp.run_study(STUDY, out=tmp_path / "dict")
    assert (tmp_path / "dict" / "results.csv").read_bytes() == expected


def test_bad_study_is_a_value_error_with_the_line(tmp_path):
    bad = {"study": {"name": "bad"},
           "experiment": [{"name": "g", "model": "gossip-loss", "params": {"graph": "ring:n=5", "alpha": "two"}}]}
    with pytest.raises(ValueError, match=r"study.toml:\d+: .*'alpha' = \"two\": expected a number, got 'two'"):
        netdp.run_study(bad, out=tmp_path / "bad")
    with pytest.raises(ValueError, match="out"):
        netdp.run_study(STUDY)
