"""Reference values for power/reference_test.go from statsmodels 0.13.5.

Run with Debian's Python, which has statsmodels (not the pyenv python3):

    /usr/bin/python3 power/testdata/refgen/reference.py

statsmodels.stats.contingency_tables.mcnemar takes the table
[[A, B], [C, D]]; exact=True is binom.cdf(min(B, C), B + C, 0.5) doubled
and capped at 1; exact=False, correction=True is (|B - C| - 1)^2 / (B + C)
(which differs from R and from tally at B = C, where R applies no
correction, so no such table is listed).
"""
import statsmodels
from statsmodels.stats.contingency_tables import mcnemar

tables = [
    (23, 15, 19, 31),  # statsmodels' documentation example
    (1, 1, 7, 12),     # Bentur et al. 2009
    (50, 2, 9, 39),    # exact2x2 vignette b = 2, c = 9
    (50, 40, 20, 50),
    (1000, 512, 603, 2000),
]
print("// statsmodels", statsmodels.__version__)
for a, b, c, d in tables:
    t = [[a, b], [c, d]]
    ex = mcnemar(t, exact=True)
    cc = mcnemar(t, exact=False, correction=True)
    un = mcnemar(t, exact=False, correction=False)
    print(f"{{t: Table{{{a}, {b}, {c}, {d}}}, exact: {ex.pvalue!r}, chi: {un.statistic!r}, chiP: {un.pvalue!r}, cc: {cc.statistic!r}, ccP: {cc.pvalue!r}}},")
