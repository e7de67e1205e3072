"""Time SciPy's beta.ppf computing Clopper–Pearson intervals, for the
comparison with BenchmarkClopperPearsonGrid and BenchmarkInterval.

Run with Debian's python3 (python3-scipy):  /usr/bin/python3 scipy_bench.py
"""
import timeit

import numpy as np
from scipy.stats import beta

ALPHA = 0.05

def cp(k, n):
    lo = beta.ppf(ALPHA / 2, k, n - k + 1) if k > 0 else 0.0
    hi = beta.ppf(1 - ALPHA / 2, k + 1, n - k) if k < n else 1.0
    return lo, hi

# Scalar: one interval per call, as a user calls it.
t = min(timeit.repeat(lambda: cp(166, 200), number=2000, repeat=5)) / 2000
print(f"scalar 166/200: {t * 1e9:.0f} ns/interval")

# Vectorised: every k of n = 1..100 in one call per bound (5150 intervals),
# the same workload as BenchmarkClopperPearsonGrid.
ks = np.concatenate([np.arange(n + 1) for n in range(1, 101)])
ns = np.concatenate([np.full(n + 1, n) for n in range(1, 101)])

def grid():
    lo = np.where(ks > 0, beta.ppf(ALPHA / 2, np.maximum(ks, 1), ns - ks + 1), 0.0)
    hi = np.where(ks < ns, beta.ppf(1 - ALPHA / 2, ks + 1, np.maximum(ns - ks, 1)), 1.0)
    return lo, hi

reps = 20
t = min(timeit.repeat(grid, number=reps, repeat=5)) / reps
print(f"vectorised grid n=1..100: {t / len(ks) * 1e9:.0f} ns/interval ({len(ks)} intervals)")
