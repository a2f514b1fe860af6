#!/usr/bin/python3
"""NumPy reference path of the walk-loss benchmark (benchmarks/bench_walk_loss_scaling.cpp): the Thm 7.7 closed
form (docs/math.md §5.3, E3) as the reference code computes it, eigh(W), drop the largest eigenpair, then
G = V diag(-ln(1 - lambda)) V^T by one GEMM and eps = scale (ln(T)/n + G) with a zero diagonal.
Usage: walk_loss_numpy.py TRIPLETS_FILE N STEPS. The file holds "row column value" lines of W.
Prints "numpy_seconds,checksum" (seconds for eigh + GEMM + the loss matrix; loading W is not timed)."""
import sys
import time

import numpy as np

path, n, steps = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
triplets = np.loadtxt(path).reshape(-1, 3)
w = np.zeros((n, n))
w[triplets[:, 0].astype(int), triplets[:, 1].astype(int)] = triplets[:, 2]
start = time.perf_counter()
values, vectors = np.linalg.eigh(w)
g = -np.log1p(-values[:-1])
graph = (vectors[:, :-1] * g) @ vectors[:, :-1].T
scale = (steps / n) * 2.0  # N_u alpha / sigma^2 with alpha = 2, sigma = 1
eps = scale * (np.log(steps) / n + graph)
np.fill_diagonal(eps, 0.0)
seconds = time.perf_counter() - start
print(f"{seconds:.4f},{eps.sum():.10g}")
