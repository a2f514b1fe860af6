"""netdp.plot and `netdp plot` (docs/plot.md): every command's results directory, written by the netdp program on
a tiny graph, drawn headless; the file checked (signature, size) and the Figure (panels, titles, labels, one
legend entry per labelled artist, the data drawn)."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib")

from conftest import CLI, run_cli  # noqa: E402
from netdp.plot import NotResultsDirectory, main, model_of, plot_result  # noqa: E402

RING = "ring:n=8"
# name -> (command line after `netdp`, panels of its figure)
COMMANDS = {
    "graph": (["graph", "--graph", "rgg:n=20,r=0.4,seed=1"], 2),
    "gossip-loss": (["gossip-loss", "--graph", RING, "--steps", "10"], 2),
    "gossip-er-bound": (["gossip-er-bound", "--graph", RING, "--steps", "5"], 2),
    "walk-loss": (["walk-loss", "--graph", "complete:n=8"], 2),
    "bound": (["bound", "complete-sum", "--n", "100,200,400", "--steps-per-node", "10"], 1),
    "gossip-sim": (["gossip-sim", "--graph", RING, "--steps", "10", "--runs", "3", "--privacy"], 2),
    "walk-sim": (["walk-sim", "--graph", "complete:n=8", "--steps", "50", "--runs", "5"], 4),
    "muffliato-gd": (["muffliato-gd", "--graph", RING, "--steps", "5", "--gossip-rounds", "2", "--dim", "2",
                      "--runs", "2", "--gradient-noise", "1"], 3),  # gap, consensus, privacy by distance
    "walk-sgd": (["walk-sgd", "--graph", "complete:n=8", "--steps", "40", "--runs", "2"], 2),
    "muffliato-sgd": (["muffliato-sgd", "--graph", RING, "--runs", "2", "--target-mean-loss", "1"], 3),
    "mf-loss": (["mf-loss", "--graph", RING, "--steps", "4"], 3),
    "mf-factorize": (["mf-factorize", "--steps", "4"], 1),
    "mf-sgd": (["mf-sgd", "--graph", RING, "--steps", "4", "--runs", "2"], 3),
    "admm": (["admm", "--users", "10", "--steps", "20", "--runs", "2", "--synthetic-rows", "400"], 3),
    "attack-gossip": (["attack", "gossip", "--graph", "grid:rows=4,cols=4", "--attackers", "0", "--steps", "2",
                       "--sigma", "1"], 2),
    "attack-gossip-all": (["attack", "gossip", "--graph", "grid:rows=3,cols=3", "--attackers", "all",
                           "--steps", "2"], 1),
    "attack-dgd": (["attack", "dgd", "--graph", RING, "--attackers", "0", "--steps", "5"], 2),
}

STUDY = """
[study]
name = "plot_test"
seed = 3

[[experiment]]
name = "gossip"
model = "gossip-loss"
replicates = 2
[experiment.params]
steps = 6
no-matrix = true
[experiment.grid]
graph = ["er:n=12,c=2", "rgg:n=12,r=0.5"]
sigma = [0.5, 1.0]

[[experiment]]
name = "bounds"
model = "bound complete-sum"
[experiment.params]
steps-per-node = 10
[experiment.grid]
n = [100, 200, 400]
"""


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    """Every command run once into its own directory (and a two-experiment study)."""
    base = tmp_path_factory.mktemp("plot")
    dirs = {}
    for name, (args, _) in COMMANDS.items():
        dirs[name] = str(base / name)
        run_cli([CLI] + args + ["--out", dirs[name]])
    study = base / "study.toml"
    study.write_text(STUDY)
    dirs["study"] = str(base / "study")
    run_cli([CLI, "run", str(study), "--out", dirs["study"], "--quiet"])
    return dirs


def panels(figure):
    return [a for a in figure.axes if a.get_label() != "<colorbar>"]


def check_png(path):
    with open(path, "rb") as f:
        data = f.read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", path
    assert len(data) > 10_000, f"{path}: {len(data)} bytes, too small for a drawn figure"


def check_panel(ax):
    """A title, an x label, and a legend that lists every labelled artist (image panels: a colour bar)."""
    assert ax.get_title(), "panel without a title"
    assert ax.get_xlabel(), f"{ax.get_title()}: no x label"
    handles, labels = ax.get_legend_handles_labels()
    if ax.images:
        assert any(a.get_label() == "<colorbar>" and a.get_ylabel() for a in ax.figure.axes), ax.get_title()
    elif ax.texts and not handles:
        return  # a panel that says why it has nothing to draw
    else:
        assert handles, f"{ax.get_title()}: nothing labelled"
        legend = ax.get_legend()
        assert legend is not None and [t.get_text() for t in legend.get_texts()] == labels, ax.get_title()


@pytest.mark.parametrize("name", list(COMMANDS) + ["study"])
def test_every_command_draws(results, name, tmp_path):
    out = tmp_path / f"{name}.png"
    figure = plot_result(results[name], out=out)
    check_png(out)
    expected = COMMANDS[name][1] if name in COMMANDS else 2
    assert len(panels(figure)) == expected, [a.get_title() for a in panels(figure)]
    for ax in panels(figure):
        check_panel(ax)


def test_loss_by_distance_draws_the_file(results):
    figure = plot_result(results["gossip-loss"])
    main_panel, heat = panels(figure)
    table = np.genfromtxt(os.path.join(results["gossip-loss"], "by_distance.csv"), delimiter=",", names=True)
    line = main_panel.lines[0]
    assert np.array_equal(line.get_xdata(), table["distance"])
    assert np.allclose(line.get_ydata(), table["mean"])
    # the heat map's columns by hop distance from node 0 on the ring: 0, then 1 and 7, 2 and 6, 3 and 5, 4
    assert [t.get_text() for t in heat.get_xticklabels()] == ["0", "1", "7", "2", "6", "3", "5", "4"]
    loss = np.load(os.path.join(results["gossip-loss"], "loss.npy"))
    order = [0, 1, 7, 2, 6, 3, 5, 4]
    assert np.allclose(heat.images[0].get_array(), loss[np.ix_(order, order)])


def test_one_source_row_is_named(tmp_path):
    out = str(tmp_path / "source5")
    run_cli([CLI, "gossip-loss", "--graph", RING, "--steps", "10", "--source", "5", "--out", out])
    heat = panels(plot_result(out))[1]
    assert [t.get_text() for t in heat.get_yticklabels()] == ["5"]
    assert [t.get_text() for t in heat.get_xticklabels()] == ["5", "4", "6", "3", "7", "0", "2", "1"]


def test_attack_marks_every_node(results):
    figure = plot_result(results["attack-gossip"])
    drawing = panels(figure)[0]
    summary = json.load(open(os.path.join(results["attack-gossip"], "summary.json")))
    counts = {c.get_label().rsplit(" (", 1)[0]: len(c.get_offsets()) for c in drawing.collections
              if c.get_label() != "graph edge"}
    assert counts["attacker"] == 1
    assert counts["attacker"] + counts["reconstructed by the attackers"] == len(summary["reconstructible"])
    assert sum(counts.values()) == 16
    edges = [c for c in drawing.collections if c.get_label() == "graph edge"]
    assert len(edges) == 1 and len(edges[0].get_segments()) == 24  # the 4 x 4 grid, rebuilt from its spec


def test_study_curves_by_axis(results):
    gossip, bounds = panels(plot_result(results["study"]))
    assert len(gossip.lines) == 4  # one per grid point: 2 graphs x 2 sigmas
    assert "by n" in bounds.get_title()
    assert list(bounds.lines[0].get_xdata()) == [100, 200, 400]


@pytest.mark.parametrize("suffix, magic", [(".svg", b"<?xml"), (".pdf", b"%PDF")])
def test_format_by_extension(results, tmp_path, suffix, magic):
    out = tmp_path / f"figure{suffix}"
    plot_result(results["walk-sgd"], out=out)
    assert out.read_bytes()[:len(magic)] == magic


def test_into_given_axes(results):
    from matplotlib.figure import Figure
    figure = Figure()
    ax = figure.add_subplot()
    assert plot_result(results["gossip-sim"], ax=ax) is figure
    assert panels(figure) == [ax] and ax.lines


def test_not_results(tmp_path, capsys):
    with pytest.raises(NotResultsDirectory):
        model_of(tmp_path)
    (tmp_path / "manifest.json").write_text("{}")
    with pytest.raises(NotResultsDirectory):
        plot_result(tmp_path)
    assert main([str(tmp_path)]) == 2
    assert capsys.readouterr().err.startswith("netdp plot: error:")


def cli_plot(args, **env):
    return subprocess.run([CLI, "plot"] + args, capture_output=True, text=True, env={**os.environ, **env})


def test_cli_plot_writes_figure(results):
    done = cli_plot([results["walk-loss"]], NETDP_PYTHON=sys.executable)
    assert done.returncode == 0, done.stderr
    check_png(os.path.join(results["walk-loss"], "figure.png"))


def test_cli_plot_out_and_default_interpreter(results, tmp_path):
    out = tmp_path / "gossip.svg"
    env = {k: v for k, v in os.environ.items() if k != "NETDP_PYTHON"}
    done = subprocess.run([CLI, "plot", results["gossip-loss"], "--out", str(out)], capture_output=True,
                          text=True, env=env)
    assert done.returncode == 0, done.stderr
    assert out.read_bytes()[:5] == b"<?xml"


def test_cli_plot_refusals(tmp_path, results):
    done = cli_plot([str(tmp_path)], NETDP_PYTHON=sys.executable)
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "not a netdp results directory" in done.stderr
    done = cli_plot([results["bound"], "--out", str(tmp_path / "f.jpg")], NETDP_PYTHON=sys.executable)
    assert done.returncode == 2 and ".png, .svg or .pdf" in done.stderr
    done = cli_plot([results["bound"]], NETDP_PYTHON=str(tmp_path / "no-python"))
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "NETDP_PYTHON" in done.stderr
    assert not os.path.exists(os.path.join(results["bound"], "figure.png"))


# The single panels of netdp.plot (curve, study_by_distance, by_distance, study_by_axis): what they draw is read back
# from the files with the csv module, independently of the package's reader.
def results_rows(study):
    import csv
    with open(os.path.join(study, "results.csv"), newline="") as f:
        return list(csv.DictReader(f))


def test_curve_draws_the_column_with_its_band(results):
    import csv
    from matplotlib.figure import Figure
    from netdp.plot import curve
    ax = Figure().add_subplot()
    line = curve(results["walk-sgd"], "objective", ax, label="walk", color="red")
    with open(os.path.join(results["walk-sgd"], "curves.csv"), newline="") as f:
        rows = list(csv.DictReader(f))
    assert list(line.get_xdata()) == [float(r["step"]) for r in rows]
    assert np.allclose(line.get_ydata(), [float(r["objective_mean"]) for r in rows])
    assert line.get_label() == "walk" and line.get_color() == "red"
    band = ax.collections[0]  # min to max over the runs: every mean lies inside it
    low, high = band.get_paths()[0].vertices[:, 1].min(), band.get_paths()[0].vertices[:, 1].max()
    assert low == pytest.approx(min(float(r["objective_min"]) for r in rows))
    assert high == pytest.approx(max(float(r["objective_max"]) for r in rows))
    assert band.get_label() == "walk: min to max over runs"
    curve(results["walk-sgd"], "accuracy", ax, band_label="")
    assert sorted(ax.get_legend_handles_labels()[1]) == [  # no legend entry for the second band
        "accuracy: mean over 2 run(s)", "walk", "walk: min to max over runs"]


def test_study_by_distance_and_by_distance(results):
    from matplotlib.figure import Figure
    from netdp.plot import by_distance, study_by_distance
    curves = study_by_distance(results["study"], key=lambda r: (r["graph"], r["sigma"]))
    assert set(curves) == {(g, s) for g in ("er:n=12,c=2", "rgg:n=12,r=0.5") for s in ("0.5", "1.0")}
    for row in results_rows(results["study"]):
        if row["statistic"].startswith("by_distance[distance="):
            d = int(row["statistic"].split("=")[1].split("]")[0])
            what = row["statistic"].rsplit(".", 1)[1]
            if what not in ("mean", "min", "max"):
                continue
            assert curves[(row["graph"], row["sigma"])][d][what] == float(row[what])
    assert study_by_distance(results["study"], key=lambda r: None) == {}
    ax = Figure().add_subplot()
    points = curves[("er:n=12,c=2", "1.0")]
    line = by_distance(ax, points, "er", skip_zero=True)
    assert list(line.get_xdata()) == sorted(d for d in points if d > 0)
    assert list(line.get_ydata()) == [points[d]["mean"] for d in sorted(points) if d > 0]
    assert by_distance(ax, points, "no band", with_band=False) and len(ax.collections) == 1


def test_study_by_axis_lines_and_spread(results):
    from matplotlib.figure import Figure
    from netdp.plot import study_by_axis
    rows = results_rows(results["study"])
    ax = Figure().add_subplot()
    line, = study_by_axis(results["study"], ax, "last_row.eps", experiment="bounds")
    expected = sorted((float(r["n"]), float(r["mean"])) for r in rows if r["statistic"] == "last_row.eps")
    assert list(zip(line.get_xdata(), line.get_ydata())) == expected
    # one line per sigma, against the graph (0: er, 1: rgg, a function of the row); band +- std over replicates
    ax = Figure().add_subplot()
    lines = study_by_axis(results["study"], ax, "mean_loss", experiment="gossip",
                          x=lambda r: float(r["graph"].startswith("rgg")),
                          lines=lambda r: f"sigma {r['sigma']}", spread="std")
    assert sorted(x.get_label() for x in lines) == ["sigma 0.5", "sigma 1.0"]
    for line, band in zip(lines, ax.collections):
        sigma = line.get_label().split()[1]
        picked = [r for r in rows if r["statistic"] == "mean_loss" and r["sigma"] == sigma]
        half = [float(r["stderr"]) * np.sqrt(int(r["replicates"])) for r in picked]
        top = max(float(r["mean"]) + h for r, h in zip(picked, half))
        assert band.get_paths()[0].vertices[:, 1].max() == pytest.approx(top)
        assert band.get_label().endswith("mean +- std over replicates")


def test_attack_node_labels(results):
    from matplotlib.figure import Figure
    ax = Figure().add_subplot()
    plot_result(results["attack-gossip"], ax=ax, node_labels=True)
    assert sorted(int(t.get_text()) for t in ax.texts) == list(range(16))
