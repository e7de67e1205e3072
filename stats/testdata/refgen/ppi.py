#!/usr/bin/python3
"""Reference values for stats/ppi_test.go (run-only, not published).

    /usr/bin/python3 stats/testdata/refgen/ppi.py

ppi_py (pip install ppi_python) cannot be installed here (PyPI is not
reachable), so this script restates, line for line and on explicit 0/1
arrays, what ppi_py/ppi.py does for the mean (github.com/aangelopoulos/
ppi_py: ppi_mean_pointestimate, ppi_mean_ci with lam=1 and lam=None, and
utils/statistics_utils.py _calc_lam_glm with the identity Hessian), and
uses statsmodels' own _zconfint_generic (the function ppi_mean_ci calls)
for the interval. It is written from arrays, not from the 2x2 counts the
Go code uses, so the two are independent derivations of the same formula.

Prints Go table rows: name, the four labelled cells (judge,human) =
(1,1),(1,0),(0,1),(0,0), the unlabelled judge-retained count and size,
alpha, tuned, then estimate, lower, upper, lambda with %.17g.
"""

import numpy as np
from statsmodels.stats.weightstats import _zconfint_generic


def arrays(a, b, c, d, ku, m):
    Y = np.array([1] * a + [0] * b + [1] * c + [0] * d, dtype=float)
    Yhat = np.array([1] * a + [1] * b + [0] * c + [0] * d, dtype=float)
    Yhat_unlabeled = np.array([1] * ku + [0] * (m - ku), dtype=float)
    return Y, Yhat, Yhat_unlabeled


def calc_lam(Y, Yhat, Yhat_unlabeled, pointest):
    # _calc_lam_glm, d = 1, inv_hessian = I, clip=True, optim_mode overall
    grads = Y - pointest
    grads_hat = Yhat - pointest
    grads_hat_unlabeled = Yhat_unlabeled - pointest
    n, N = len(grads), len(grads_hat_unlabeled)
    gc = grads - grads.mean()
    ghc = grads_hat - grads_hat.mean()
    cov_grads = (1 / n) * (gc @ ghc + ghc @ gc)
    var_grads_hat = np.cov(np.concatenate([grads_hat, grads_hat_unlabeled]))
    lam = cov_grads / (2 * (1 + n / N) * var_grads_hat)
    return float(np.clip(lam, 0, 1))


def ppi_mean(Y, Yhat, Yhat_unlabeled, alpha, lam):
    n, N = len(Y), len(Yhat_unlabeled)
    if lam is None:
        p1 = (lam_one := 1) * Yhat_unlabeled.mean() + (Y - lam_one * Yhat).mean()
        lam = calc_lam(Y, Yhat, Yhat_unlabeled, p1)
    est = (lam * Yhat_unlabeled).mean() + (Y - lam * Yhat).mean()
    imputed_std = (lam * Yhat_unlabeled).std() / np.sqrt(N)
    rectifier_std = (Y - lam * Yhat).std() / np.sqrt(n)
    lo, hi = _zconfint_generic(est, np.sqrt(imputed_std**2 + rectifier_std**2), alpha, "two-sided")
    return est, lo, hi, lam


CASES = [
    # name, a, b, c, d, unlabelled judge-retained, unlabelled size, alpha
    ("judge over-retains, n=40 of 500", 24, 6, 3, 7, 330, 460, 0.05),
    ("judge under-retains, n=150 of 2000", 100, 5, 20, 25, 1080, 1850, 0.05),
    ("90% interval, n=20 of 120", 10, 2, 2, 6, 55, 100, 0.10),
    ("all labelled agree, n=30 of 300", 20, 0, 0, 10, 180, 270, 0.05),
    ("uninformative judge, n=60 of 260", 15, 15, 15, 15, 90, 200, 0.05),
    ("anti-correlated judge, lambda clipped to 0", 5, 15, 15, 5, 100, 200, 0.05),
    ("labelled judge split evenly, lambda clipped to 1", 10, 0, 0, 10, 190, 200, 0.05),
]

if __name__ == "__main__":
    for name, a, b, c, d, ku, m, alpha in CASES:
        Y, Yhat, Yu = arrays(a, b, c, d, ku, m)
        for tuned in (False, True):
            est, lo, hi, lam = ppi_mean(Y, Yhat, Yu, alpha, None if tuned else 1.0)
            print('{"%s", %d, %d, %d, %d, %d, %d, %.2f, %s, %.17g, %.17g, %.17g, %.17g},'
                  % (name, a, b, c, d, ku, m, 1 - alpha, str(tuned).lower(), est, lo, hi, lam))
