"""E27: the illustrative numbers of the seeds' slides, recomputed.

1. The census example of the lecture slides ([S4], docs/math.md §10): the l_inf error of K = 10,000 name counts
   released with the Gaussian mechanism, sensitivity sqrt(2), (1, 1e-9)-DP, failure probability beta = 0.01:
   s sqrt(ln(K / beta)) with s = Delta sqrt(2 ln(1.25 / delta)) / eps. The slide says "about 34".
2. Network DP-SGD on the complete graph ([S0] slides, "(alpha, ln^2 n / n eps)-network DP" for an
   (alpha, eps)-local RDP walk): the per-contribution network RDP slope of `netdp bound sgd-rdp` divided by the
   local one, against n.

    python3 examples/e27_illustrative_numbers/plot.py DIR   # runs $NETDP (else build/netdp) into DIR;
                                                            # writes DIR/e27.png and DIR/e27_numbers.csv
Needs matplotlib.
"""
import csv
import math
import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # examples/, for plot_common
from plot_common import command_line, plt, save  # noqa: E402
# Paper-specific, drawn here rather than with netdp.plot: a ratio of bound columns and the slides' census table.

ROOT = Path(__file__).resolve().parents[2]
N_VALUES = "100,1000,10000,100000,1000000"


def census():
    """The census numbers: the formula as meant (beta = 0.01), as printed on the slide (ln(10000/.05))."""
    K, delta, eps, sensitivity, beta = 1e4, 1e-9, 1.0, math.sqrt(2.0), 0.01
    s = sensitivity * math.sqrt(2 * math.log(1.25 / delta)) / eps  # gaussian_sigma_classic (G2)
    return {"s (absolute std)": s,
            "l_inf error, beta = 0.01": s * math.sqrt(math.log(K / beta)),  # gaussian_linf_error_s4
            "as printed, ln(10000/.05)": s * math.sqrt(math.log(K / 0.05)),
            "union bound, sqrt(2 ln(2K/beta))": s * math.sqrt(2 * math.log(2 * K / beta))}


def main(out):
    netdp = os.environ.get("NETDP", str(ROOT / "build/netdp"))
    Path(out).mkdir(parents=True, exist_ok=True)
    rdp_dir = Path(out) / "sgd_rdp"
    command = [netdp, "bound", "sgd-rdp", "--n", N_VALUES, "--steps-per-node", "100", "--alpha", "2",
               "--eps", "1", "--delta", "1e-6", "--out", str(rdp_dir)]
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    with open(rdp_dir / "bound.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    n = [float(r["n"]) for r in rows]
    ratio = [float(r["rdp_slope"]) / float(r["ldp_rdp_slope"]) for r in rows]

    numbers = census()
    with open(Path(out) / "e27_numbers.csv", "w") as f:
        f.write("quantity,value\n")
        for key, value in numbers.items():
            f.write(f"census: {key},{value!r}\n")
        for ni, r in zip(n, ratio):
            f.write(f"sgd-rdp network/local RDP slope at n = {ni:g},{r!r}\n")
            f.write(f"2 ln(n)/n at n = {ni:g},{2 * math.log(ni) / ni!r}\n")
    for key, value in numbers.items():
        print(f"census: {key}: {value:.4f}")
    for ni, r in zip(n, ratio):
        print(f"n = {ni:g}: network/local RDP = {r:.6g}, 2 ln(n)/n = {2 * math.log(ni) / ni:.6g}, "
              f"ln(n)^2/n = {math.log(ni) ** 2 / ni:.6g}")

    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2), gridspec_kw={"width_ratios": [1.3, 1]})
    left.loglog(n, ratio, "o", label="netdp bound sgd-rdp: network / local RDP")
    left.loglog(n, [2 * math.log(x) / x for x in n], "-", label="2 ln(n) / n")
    left.loglog(n, [math.log(x) ** 2 / x for x in n], "--", label="ln(n)^2 / n (the slide's order)")
    left.set_xlabel("n (complete graph, T = 100 n)")
    left.set_ylabel("network RDP / local RDP per contribution")
    left.set_title("[S0]: network DP-SGD amplification")
    left.legend(fontsize=8)
    left.grid(True, which="major", alpha=0.3)
    right.axis("off")
    right.set_title("[S4] census example: K = 10,000 names, (1, 1e-9)-DP")
    table = right.table(cellText=[[k, f"{v:.2f}"] for k, v in numbers.items()] + [["slide", "about 34"]],
                        colLabels=["quantity", "value"], loc="center", cellLoc="left")
    table.auto_set_font_size(False)
    table.set_fontsize(8)
    table.scale(1, 1.6)
    save(fig, out, "e27.png")


command_line(main, __doc__)
