"""Tables 2.2 and 6.1 as measured scaling exponents. For each family (complete, random 4-regular expander, 2-D
torus, ring, line) and each n of the study: lambda_W, T_stop, the degree d and eps_bar(sigma = 1), the largest mean
loss. Table 6.1 calibrates sigma so that eps_bar = eps; eps_bar scales as 1/sigma^2 at fixed T, so
sigma^2 = eps_bar(1)/eps and the error at T_stop, 3 sigma^2/n (Theorem 6.2), is proportional to U = eps_bar(1)/n
(T_stop depends on sigma only through a logarithm). The tables are orders up to logarithms (O-tilde), and T_stop =
ln(n)/sqrt(lambda_W) carries a ln n, so U/ln n is the quantity whose slope should match Table 6.1. The slopes of
log lambda_W, log U and log(U/ln n) against log n are set next to the stated orders; the formula of Table 6.1's
"arbitrary" column, d/(n^2 sqrt lambda_W), is fitted the same way from the measured d and lambda_W.

    build/netdp run examples/e26_scaling_exponents/study.toml --out DIR
    python3 examples/e26_scaling_exponents/plot.py DIR     # writes DIR/e26.png and DIR/e26_exponents.csv

Needs matplotlib and numpy.
"""
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # examples/, for plot_common
from plot_common import command_line, plt, results, save  # noqa: E402
# Paper-specific, drawn here rather than with netdp.plot: fitted slopes against n beside Tables 2.2 and 6.1.

# Stated exponents of n (docs/math.md §2.6 Table 2.2 for lambda_W; §6.2 Table 6.1, Alg 6.1, for the error under
# eps_bar <= eps, times n^0 for alpha Delta^2 / eps). None: not in the table.
STATED = {
    "complete": {"gap": 0.0, "utility": -1.0},
    "expander": {"gap": 0.0, "utility": -2.0},
    "torus": {"gap": -1.0, "utility": -1.5},  # C = 2: lambda_W = 1/n^{2/C}, error C/n^{2 - 1/C}
    "ring": {"gap": -2.0, "utility": -1.0},
    "line": {"gap": -2.0, "utility": None},
}
KEYS = {"n": "n", "spectral_gap": "gap", "steps": "T", "degree.max": "d", "max_mean_observer_loss": "eps_bar"}


def slope(x, y):
    return float(np.polyfit(np.log(x), np.log(y), 1)[0])


def main(out):
    points = defaultdict(dict)  # (family, point) -> {n, gap, T, d, eps_bar}
    for row in results(out):
        if row["statistic"] in KEYS:
            points[(row["experiment"], row["point"])][KEYS[row["statistic"]]] = float(row["mean"])
    data = defaultdict(lambda: defaultdict(list))
    for (family, _), p in sorted(points.items(), key=lambda kv: (kv[0][0], kv[1]["n"])):
        for key, value in p.items():
            data[family][key].append(value)
        data[family]["U"].append(p["eps_bar"] / p["n"])
        data[family]["U_log"].append(p["eps_bar"] / (p["n"] * np.log(p["n"])))
        data[family]["formula"].append(p["d"] / (p["n"] ** 2 * np.sqrt(p["gap"])))

    lines = ["family,sizes,n_min,n_max,gap_slope,gap_stated,T_slope,eps_bar_slope,utility_slope,"
             "utility_over_log_n_slope,utility_stated,formula_slope"]
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.4))
    for i, family in enumerate(STATED):
        d = {k: np.array(v) for k, v in data[family].items()}
        if len(d.get("n", [])) < 2:
            continue
        measured = {k: slope(d["n"], d[k]) for k in ("gap", "T", "eps_bar", "U", "U_log", "formula")}
        stated = STATED[family]
        lines.append(",".join(str(x) for x in (
            family, len(d["n"]), int(d["n"][0]), int(d["n"][-1]), f"{measured['gap']:.3f}", stated["gap"],
            f"{measured['T']:.3f}", f"{measured['eps_bar']:.3f}", f"{measured['U']:.3f}", f"{measured['U_log']:.3f}",
            "" if stated["utility"] is None else stated["utility"], f"{measured['formula']:.3f}")))
        colour = f"C{i}"
        left.loglog(d["n"], d["gap"], "o-", color=colour,
                    label=f"{family}: slope {measured['gap']:.2f} (stated {stated['gap']:g})")
        if stated["utility"] is not None:
            right.loglog(d["n"], d["U_log"], "o-", color=colour,
                         label=f"{family}: slope {measured['U_log']:.2f} (stated {stated['utility']:g})")
    left.set_xlabel("n")
    left.set_ylabel("spectral gap lambda_W (Metropolis W)")
    left.set_title("Table 2.2: spectral gap")
    right.set_xlabel("n")
    right.set_ylabel("eps_bar(sigma = 1) / (n ln n)")
    right.set_title("Table 6.1, Alg 6.1: error under eps_bar <= eps")
    for ax in (left, right):
        ax.legend(fontsize=7)
        ax.grid(True, which="major", alpha=0.3)
    save(fig, out, "e26.png")
    with open(Path(out) / "e26_exponents.csv", "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


command_line(main, __doc__)
