"""A study's tables as typed frames (docs/study.md "Outputs", docs/python.md "Studies"): results.csv and the
tidy results_long.csv, whose curves are one pivot. Expected values counted by hand on a ring of 5 nodes: 10
ordered pairs at distance 1 and 10 at distance 2."""

import numpy as np
import pytest

import netdp
from netdp import _frames

try:
    import pandas
except ImportError:
    pandas = None

STUDY = {
    "study": {"name": "tiny", "seed": 3},
    "experiment": [
        {"name": "ring", "model": "gossip-loss", "replicates": 2,
         "params": {"graph": "ring:n=5", "no-matrix": True, "steps": 3},
         "grid": {"sigma": [1.0, 2.0]}},
        {"name": "theory", "model": "bound complete-sum", "grid": {"n": [100]}},
    ],
}


@pytest.fixture(scope="module")
def done(tmp_path_factory):
    return netdp.run_study(STUDY, out=tmp_path_factory.mktemp("study") / "out")


@pytest.mark.skipif(pandas is None, reason="pandas is not installed (python3-pandas)")
def test_long_table_pivots_into_curves(done):
    df = done.frame()
    assert isinstance(df, pandas.DataFrame)
    assert df["sigma"].dtype == np.float64 and df["mean"].dtype == np.float64
    assert df["replicates"].dtype == np.int64 and df["n"].dtype == np.float64  # n: empty for the gossip rows
    # text columns: object in pandas < 3, its string dtype from pandas 3 on (the frame does not choose)
    assert all(pandas.api.types.is_string_dtype(df[c]) for c in ("experiment", "statistic"))
    assert not df["statistic"].str.contains("=").any()  # no by_distance[distance=3] names; n[0] stays
    pairs = df[df.statistic == "by_distance.pairs"].pivot(index="distance", columns="sigma", values="mean")
    assert list(pairs.index) == [1.0, 2.0] and list(pairs.columns) == [1.0, 2.0]
    assert (pairs.to_numpy() == 10.0).all()
    # The mean loss by distance is the units' own by_distance.csv, read separately.
    means = df[df.statistic == "by_distance.mean"].pivot(index="distance", columns="sigma", values="mean")
    unit = pandas.read_csv(f"{done.path}/ring/p0001/rep-0/by_distance.csv")
    assert list(means[2.0]) == list(unit["mean"])
    # The pandas of the file alone types it the same way: the runner writes floats as floats.
    plain = pandas.read_csv(f"{done.path}/results_long.csv")
    assert plain["sigma"].dtype == np.float64 and plain["mean"].dtype == np.float64
    assert plain["replicates"].dtype == np.int64


@pytest.mark.skipif(pandas is None, reason="pandas is not installed (python3-pandas)")
def test_results_table_is_typed(done):
    results = done.results
    assert results["replicates"].dtype == np.int64 and results["stderr"].dtype == np.float64
    theory = results[results.experiment == "theory"]
    assert theory["stderr"].isna().all()  # one replicate: no standard error, an empty cell
    ring = results[results.experiment == "ring"]
    assert (ring["stderr"] == 0.0).all()  # two identical replicates of a deterministic model
    assert set(results["steps"].dropna()) == {3.0}


def test_long_table_without_pandas(done, monkeypatch):
    monkeypatch.setattr(_frames, "pandas", None)
    table = done.frame()
    assert isinstance(table, np.ndarray) and table.dtype.names[:3] == ("experiment", "point", "model")
    assert table["mean"].dtype == np.float64 and table["replicates"].dtype == np.int64
    rows = table[table["statistic"] == "by_distance.pairs"]
    assert sorted(zip(rows["sigma"].tolist(), rows["distance"].tolist())) == [(1.0, 1.0), (1.0, 2.0),
                                                                              (2.0, 1.0), (2.0, 2.0)]
    assert (rows["mean"] == 10.0).all()
