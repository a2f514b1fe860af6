"""Progress and Ctrl-C (docs/python.md "Threads, progress and Ctrl-C").

Progress: a run's loops report the fraction done of each stage to the engine's sink (src/core/progress.hpp); the
calling thread passes it to a callable, or to one tqdm bar per stage. Ctrl-C: SIGINT (here sent by another
thread) sets the engine's stop request; the run's loops stop, KeyboardInterrupt is raised, and the next run is
unaffected. No test times anything: a stopped run is recognised by the fraction it had reached (below 1) and by
its missing files, not by a clock.
"""

import _thread
import signal
import sys
import threading
import types

import pytest

import netdp
from conftest import CLI, cli_arguments, run_cli, same_files

# A walk-sim run that takes several seconds on one core: stop checks come between runs (src/simulation/walk_sim.cpp)
LONG = dict(graph="hypercube:dim=8", steps=20000, runs=4000, seed=5, device="cpu")
# gossip-sim with its privacy pass: two stages.
GOSSIP = dict(graph="ring:n=32", steps=200, runs=200, seed=2, privacy=True, device="cpu")
# A short run that reports progress: the same model, for the runs after an interruption.
SHORT = dict(graph="hypercube:dim=4", steps=500, runs=200, seed=9, device="cpu")


def stages_of(calls):
    """{stage: [fractions in call order]}."""
    stages = {}
    for stage, fraction in calls:
        stages.setdefault(stage, []).append(fraction)
    return stages


def test_progress_reaches_a_callback_with_monotone_fractions(tmp_path):
    calls = []
    netdp.gossip_sim(**GOSSIP, out=tmp_path / "watched", progress=lambda stage, fraction: calls.append((stage, fraction)))
    stages = stages_of(calls)
    # gossip-sim reports its runs, then the privacy pass (docs/gossip_sim.md), each up to 1.
    assert list(stages) == ["gossip-sim", "gossip-sim privacy"]
    for fractions in stages.values():
        assert all(0 <= f <= 1 for f in fractions)
        assert fractions == sorted(fractions)
        assert fractions[-1] == 1.0
    # Watching changes nothing in the results: the program's files, byte for byte.
    run_cli(cli_arguments("gossip-sim", **GOSSIP, out=str(tmp_path / "cli")))
    assert "mse.csv" in same_files(tmp_path / "watched", tmp_path / "cli")


class FakeTqdm:
    """Records what netdp does with a tqdm bar: total, description, each update, close."""

    bars = []

    def __init__(self, total=None, desc=None, unit=None):
        self.total, self.desc, self.unit, self.updates, self.closed = total, desc, unit, [], False
        FakeTqdm.bars.append(self)

    def update(self, n):
        self.updates.append(n)

    def close(self):
        self.closed = True


def test_progress_true_draws_a_tqdm_bar_per_stage(monkeypatch):
    module = types.ModuleType("tqdm")
    module.tqdm = FakeTqdm
    monkeypatch.setitem(sys.modules, "tqdm", module)
    FakeTqdm.bars = []
    netdp.walk_sim(**SHORT, progress=True)
    assert [bar.desc for bar in FakeTqdm.bars] == ["walk-sim"]
    bar = FakeTqdm.bars[0]
    assert bar.total == 100 and bar.unit == "%" and bar.closed
    assert bar.updates and all(n > 0 for n in bar.updates)  # counts only go up
    assert sum(bar.updates) == 100


def test_progress_must_be_a_flag_or_a_callable():
    with pytest.raises(TypeError, match="progress: expected True, False or a callable"):
        netdp.walk_sim(**SHORT, progress="yes")


def test_an_error_in_the_callback_stops_the_run_and_is_raised(tmp_path):
    def fail(stage, fraction):
        raise ZeroDivisionError("from the callback")

    with pytest.raises(ZeroDivisionError, match="from the callback"):
        netdp.walk_sim(**LONG, progress=fail, out=tmp_path / "stopped")
    assert not (tmp_path / "stopped" / "summary.json").exists()
    assert netdp.walk_sim(**SHORT).summary["runs"] == SHORT["runs"]


def interrupt_after(seconds):
    """SIGINT from another thread after `seconds`, as Ctrl-C delivers it (Python's C handler, then
    KeyboardInterrupt on the main thread)."""
    timer = threading.Timer(seconds, signal.raise_signal, args=(signal.SIGINT,))
    timer.start()
    return timer


def test_sigint_stops_a_long_run_and_the_next_run_is_unaffected(tmp_path):
    before = netdp.walk_sim(**SHORT)
    calls = []
    timer = interrupt_after(0.5)
    try:
        with pytest.raises(KeyboardInterrupt):
            netdp.walk_sim(**LONG, out=tmp_path / "stopped",
                           progress=lambda stage, fraction: calls.append((stage, fraction)))
    finally:
        timer.join()
    # Stopped in the middle: the runs reported so far are a part of them, and nothing looks finished.
    fractions = stages_of(calls).get("walk-sim", [0.0])
    assert fractions[-1] < 1.0
    assert not (tmp_path / "stopped" / "summary.json").exists()
    assert not (tmp_path / "stopped" / "manifest.json").exists()
    # The interpreter and the engine go on: the same run as before the interruption, to the bit.
    after = netdp.walk_sim(**SHORT)
    assert after.summary["network_loss"] == before.summary["network_loss"]
    for name in before.files:
        if name.endswith(".npy") or name.endswith(".csv"):
            stem = name.rsplit(".", 1)[0]
            assert repr(after[stem]) == repr(before[stem]), name


def test_interrupt_main_stops_a_gossip_sim_run():
    calls = []
    timer = threading.Timer(0.5, _thread.interrupt_main)
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            netdp.gossip_sim("ring:n=256", steps=3000, runs=2000, seed=1, device="cpu",
                             progress=lambda stage, fraction: calls.append((stage, fraction)))
    finally:
        timer.join()
    assert stages_of(calls).get("gossip-sim", [0.0])[-1] < 1.0
    assert netdp.gossip_sim("ring:n=8", steps=5, runs=3, seed=7).summary["runs"] == 3


def test_interrupted_study_stops_between_units_and_resumes(tmp_path):
    """run_study stops as `netdp run` does (docs/reliability.md §4): the running unit finishes, no new one starts;
    the same call then resumes, and results.csv equals an uninterrupted `netdp run`."""
    study = {"study": {"name": "stopped-study", "seed": 4},
             "experiment": [{"name": "walks", "model": "walk-sim",
                             "params": {"graph": "hypercube:dim=6", "steps": 1000, "runs": 200, "device": "cpu"},
                             "grid": {"seed": [1, 2, 3, 4, 5, 6]}}]}
    timer = threading.Timer(0.2, _thread.interrupt_main)
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            netdp.run_study(study, out=tmp_path / "py")
    finally:
        timer.join()
    assert not (tmp_path / "py" / "results.csv").exists()
    netdp.run_study(study, out=tmp_path / "py")  # resumes
    path = tmp_path / "study.toml"
    path.write_text(netdp.study_toml(study))
    run_cli([CLI, "run", str(path), "--out", str(tmp_path / "cli"), "--quiet"])
    assert (tmp_path / "py" / "results.csv").read_bytes() == (tmp_path / "cli" / "results.csv").read_bytes()


# The learning models and attack dgd (docs/python.md "Threads, progress and Ctrl-C"): (a short run, its stages in
# order, a long run). The short runs are test_models.py's; a long run takes seconds on one core uninterrupted, in
# runs (or steps) of a few milliseconds, so a stop request set at its first report ends it long before its end.
LEARNING = {
    "walk_sgd": (dict(graph="complete:n=20", variant="network", epsilon=1, steps=400, runs=3, seed=3),
                 ["walk-sgd"],
                 dict(graph="complete:n=50", variant="network", epsilon=1, steps=20000, runs=2000, seed=3)),
    "walk_sgd_by_distance": (dict(graph="rgg:n=30,r=0.5,seed=1", weights="metropolis", variant="network",
                                  objective="quadratic", node_data="coordinates", sigma=0.3, cap=0, runs=2,
                                  steps=300, eval_every=100, step_size=0.2),
                             ["walk-sgd", "walk-sgd by distance"], None),
    "admm": (dict(setting="walk", epsilon=2, users=40, runs=3, steps=60, synthetic_rows=600, eval_every=20, seed=4),
             ["admm"],
             dict(setting="walk", epsilon=2, users=40, runs=4000, steps=2000, synthetic_rows=600, seed=4)),
    "mf_sgd": (dict(graph="er:n=10,p=0.4,seed=1", steps=8, participation="cyclic:b=2,k=4", correlation="antipgd",
                    noise_multiplier=2, runs=3, synthetic_rows=400, eval_every=4),
               ["mf-sgd"],
               dict(graph="er:n=10,p=0.4,seed=1", steps=8, participation="cyclic:b=2,k=4", correlation="antipgd",
                    noise_multiplier=2, runs=200000, synthetic_rows=400)),
    "muffliato_sgd": (dict(graph="ring:n=20", target_mean_loss=0.5, steps=4, gossip_steps=3, runs=3,
                           synthetic_rows=400),
                      ["muffliato-sgd"],
                      dict(graph="ring:n=20", target_mean_loss=0.5, steps=20, gossip_steps=3, runs=20000,
                           synthetic_rows=400)),
    "muffliato_gd": (dict(graph="ring:n=8", steps=5, gossip_rounds=2, dim=2, samples=4, gradient_noise=0.1, runs=3, seed=3),
                     ["muffliato-gd"],
                     dict(graph="ring:n=32", steps=50, gossip_rounds=2, dim=2, samples=4, gradient_noise=0.1, runs=50000,
                          seed=3)),
    "attack_dgd": (dict(graph="florentine", weights="max-degree", attackers="0", steps=5, objective="least-squares",
                        dim=3, sigma=0.01, runs=2),
                   ["attack dgd estimators", "attack dgd"],
                   dict(graph="florentine", weights="max-degree", attackers="0", steps=5,
                        objective="least-squares", dim=3, sigma=0.01, runs=200000)),
}


def learning_function(case):
    return getattr(netdp, "walk_sgd" if case == "walk_sgd_by_distance" else case)


@pytest.mark.parametrize("case", sorted(LEARNING))
def test_learning_models_report_their_stages_without_changing_their_files(case, tmp_path):
    short, expected, _ = LEARNING[case]
    calls = []
    learning_function(case)(**short, out=tmp_path / "watched",
                            progress=lambda stage, fraction: calls.append((stage, fraction)))
    stages = stages_of(calls)
    assert list(stages) == expected
    for fractions in stages.values():
        assert all(0 < f <= 1 for f in fractions)
        assert fractions == sorted(fractions)
        assert fractions[-1] == 1.0
    learning_function(case)(**short, out=tmp_path / "plain")
    assert "summary.json" in same_files(tmp_path / "watched", tmp_path / "plain")


def raise_sigint(stage, fraction):
    """A progress callable that presses Ctrl-C at the first report (signal.raise_signal: Python's own handler)."""
    signal.raise_signal(signal.SIGINT)


@pytest.mark.parametrize("case", sorted(k for k, v in LEARNING.items() if v[2] is not None))
def test_a_stop_request_ends_a_learning_run_with_keyboard_interrupt(case, tmp_path):
    with pytest.raises(KeyboardInterrupt):
        learning_function(case)(**LEARNING[case][2], out=tmp_path / "stopped", progress=raise_sigint)
    # Ended by the stop checks: a run that went on to its end would have written its summary and manifest.
    assert not (tmp_path / "stopped" / "summary.json").exists()
    assert not (tmp_path / "stopped" / "manifest.json").exists()
