#!/usr/bin/python3
"""Reference values for stats/reference_test.go computed with statsmodels.

    /usr/bin/python3 stats/testdata/refgen/reference.py

(Debian's python3 with statsmodels 0.13.5 and scipy 1.10.1) prints Go
table rows (floats with %.17g) for

  - refSingleRate: wald, agresti-coull and jeffreys from
    statsmodels.stats.proportion.proportion_confint;
  - refCompare: confint_proportions_2indep (newcomb, wald, agresti-caffo;
    compare="diff") and proportions_ztest.

Paste them into the corresponding tables.
"""

import math
import warnings

import numpy as np
import scipy
import statsmodels
from scipy import stats
from statsmodels.stats.proportion import (
    confint_proportions_2indep,
    proportion_confint,
    proportions_ztest,
)


def g(x):
    return "%.17g" % float(x)


def conf_s(c):
    return repr(float(c))


# The single-rate cases; keep in step with reference.R.
CASES = [
    (0, 1, 0.90), (1, 1, 0.99), (0, 10, 0.95), (10, 10, 0.95),
    (0, 50, 0.99), (50, 50, 0.90), (3, 20, 0.90), (7, 13, 0.99),
    (17, 60, 0.95), (1, 3, 0.95), (2, 7, 0.80), (5, 10, 0.95),
    (166, 200, 0.95), (3, 1000, 0.95), (9999, 10000, 0.99),
    (1, 10000, 0.90),
]

# Two-sample cases: k1, n1, k2, n2, confidence.
PAIRS = [
    (168, 200, 166, 200, 0.95),
    (166, 200, 150, 200, 0.95),
    (45, 50, 30, 60, 0.90),
    (12, 30, 18, 30, 0.90),
    (3, 1000, 9, 1000, 0.99),
    (500, 1000, 480, 1000, 0.95),
    (9999, 10000, 9990, 10000, 0.95),
    (0, 20, 5, 25, 0.95),
    (20, 20, 15, 20, 0.95),
    (7, 9, 2, 11, 0.99),
    (1, 1, 0, 1, 0.90),
    (10, 10, 0, 10, 0.99),  # agresti-caffo upper clipped to 1
    (0, 10, 0, 20, 0.95),   # pooled rate 0: z-test undefined
    (30, 30, 25, 25, 0.95),  # pooled rate 1: z-test undefined
]


def single_rows():
    print("\t// statsmodels %s (scipy %s) proportion_confint" % (statsmodels.__version__, scipy.__version__))
    for label, method in (("Wald", "normal"), ("AgrestiCoull", "agresti_coull"), ("Jeffreys", "jeffreys")):
        print("\t// %s: proportion_confint(method=%r)" % (label, method))
        for k, n, c in CASES:
            alpha = 1 - c
            lo, hi = proportion_confint(k, n, alpha=alpha, method=method)
            src = "statsmodels proportion_confint(%d, %d, alpha=1-%s, method=%r)" % (k, n, conf_s(c), method)
            extra = ""
            if method == "jeffreys" and k == 0:
                # statsmodels' lower bound is the Beta quantile, not 0.
                lo = 0.0
                extra = ", loConv: true"
                src += "[1]; lower 0 by convention"
            elif method == "jeffreys" and k == n:
                hi = 1.0
                extra = ", hiConv: true"
                src += "[0]; upper 1 by convention"
            assert 0 <= lo <= hi <= 1, (method, k, n, c, lo, hi)
            print('\t{m: %s, k: %d, n: %d, conf: %s, lo: %s, hi: %s%s, src: "%s"},'
                  % (label, k, n, conf_s(c), g(lo), g(hi), extra, src.replace('"', '\\"')))


def clip_diff(x):
    return float(np.clip(x, -1, 1))


def pair_rows():
    print("\t// statsmodels %s confint_proportions_2indep(compare=\"diff\") and proportions_ztest;" % statsmodels.__version__)
    print("\t// (intervals clipped to [-1, 1] here: statsmodels does not clip); diff and se")
    print("\t// from the definitions in Python, se checked against statsmodels' wald half-width")
    for k1, n1, k2, n2, c in PAIRS:
        alpha = 1 - c
        p1, p2 = k1 / n1, k2 / n2
        diff = p1 - p2
        se = math.sqrt(p1 * (1 - p1) / n1 + p2 * (1 - p2) / n2)
        ivs = {}
        raw = {}
        for name, method in (("newcombe", "newcomb"), ("wald", "wald"), ("ac", "agresti-caffo")):
            lo, hi = confint_proportions_2indep(k1, n1, k2, n2, method=method, compare="diff", alpha=alpha)
            raw[name] = (float(lo), float(hi))
            ivs[name] = (clip_diff(lo), clip_diff(hi))
        # statsmodels' wald for the difference must be the unpooled one:
        # its half-width is z times the unpooled standard error.
        z = stats.norm.isf(alpha / 2)
        wlo, whi = raw["wald"]
        assert abs((whi - wlo) / 2 - z * se) < 1e-12, (k1, n1, k2, n2, (whi - wlo) / 2, z * se)
        assert abs((whi + wlo) / 2 - diff) < 1e-12
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            zstat, pval = proportions_ztest([k1, k2], [n1, n2])
        pooled = (k1 + k2) / (n1 + n2)
        zdef = 0 < pooled < 1
        if zdef:
            assert np.isfinite(zstat) and np.isfinite(pval)
            zs = "zDefined: true, z: %s, p: %s" % (g(zstat), g(pval))
        else:
            # statsmodels divides by a zero pooled variance: nan or inf.
            assert not (np.isfinite(zstat) and np.isfinite(pval)), (zstat, pval)
            zs = "zDefined: false"
        clipped = [n for n in raw if raw[n] != ivs[n]]
        note = ""
        if clipped:
            note = "; clipped: " + ", ".join(
                "%s %s..%s" % (n, g(raw[n][0]), g(raw[n][1])) for n in clipped)
        src = ("statsmodels confint_proportions_2indep(%d, %d, %d, %d, method='newcomb'|'wald'|'agresti-caffo', compare='diff', alpha=1-%s), "
               "proportions_ztest([%d, %d], [%d, %d])%s" % (k1, n1, k2, n2, conf_s(c), k1, k2, n1, n2, note))
        print("\t{k1: %d, n1: %d, k2: %d, n2: %d, conf: %s," % (k1, n1, k2, n2, conf_s(c)))
        print("\t\tdiff: %s, se: %s, %s," % (g(diff), g(se), zs))
        print("\t\tnewcombe: [2]float64{%s, %s}, wald: [2]float64{%s, %s}, agrestiCaffo: [2]float64{%s, %s}," % (
            g(ivs["newcombe"][0]), g(ivs["newcombe"][1]), g(ivs["wald"][0]), g(ivs["wald"][1]),
            g(ivs["ac"][0]), g(ivs["ac"][1])))
        print('\t\tsrc: "%s"},' % src)


if __name__ == "__main__":
    single_rows()
    print()
    pair_rows()
