"""A result's validity warnings reach the caller (docs/python.md "Warnings"): every entry of summary['warnings']
is issued as a netdp.NetdpWarning (a UserWarning) from the caller's line."""

import warnings

import pytest

import netdp


def test_netdp_warning_is_a_user_warning():
    assert issubclass(netdp.NetdpWarning, UserWarning)


def test_walk_loss_default_noise_multiplier_warns_about_theorem_7_7():
    # The stated weak-convexity condition of Thm 7.7 is sigma^2 >= 2 alpha (alpha - 1) (README, walk-loss
    # --condition): 4 at the default alpha = 2, so the default noise multiplier 1 fails it.
    with pytest.warns(netdp.NetdpWarning) as caught:
        r = netdp.walk_loss("hypercube:dim=4", steps=200)
    texts = [str(w.message) for w in caught if w.category is netdp.NetdpWarning]
    assert texts == r.summary["warnings"] and len(texts) == 1
    assert "Thm 7.7" in texts[0]
    assert caught[0].filename == __file__  # shown at the call, not inside the package


def test_no_warning_when_the_condition_holds():
    with warnings.catch_warnings():
        warnings.simplefilter("error", netdp.NetdpWarning)
        r = netdp.walk_loss("hypercube:dim=4", steps=200, noise_multiplier=2.0)  # 2^2 >= 4
    assert r.summary.get("warnings", []) == []


def test_a_study_raises_its_units_warnings(tmp_path):
    # Two grid points: noise multiplier 1 fails the condition (sigma^2 = 1 < 4), 3 meets it (9 >= 4), so one
    # unit warns; the warning names the count and the unit, and StudyResult.warnings lists it.
    study = {"experiment": [{"name": "w", "model": "walk-loss", "params": {"graph": "ring:n=6", "steps": 5},
                             "grid": {"noise-multiplier": [1, 3]}}]}
    with pytest.warns(netdp.NetdpWarning) as caught:
        result = netdp.run_study(study, tmp_path / "study")
    texts = [str(w.message) for w in caught if w.category is netdp.NetdpWarning]
    assert len(texts) == 1 and texts[0].startswith("1 unit(s), e.g. w/p0000/rep-0: ") and "Thm 7.7" in texts[0]
    assert caught[0].filename == __file__
    assert [units for units in result.warnings.values()] == [["w/p0000/rep-0"]]
