# Reference values for TestFieller: python3 internal/statistics/testdata/fieller.py (scipy from
# PyPI, 1.17). The interval of mean(b)/mean(a) is found by inverting the test of each ratio r,
# T(r) = (mean(b) - r mean(a)) / sqrt(vb + r^2 va), with root finding (brentq) on
# T(r)^2 = t^2 rather than by the closed form the Go code uses, and t = stats.t.ppf at the
# Welch-Satterthwaite degrees of freedom of b - r a at the ratio of the means.
import numpy as np
from scipy import optimize, stats

def fieller(a, b, level=0.95):
    a, b = np.asarray(a, float), np.asarray(b, float)
    ma, mb = a.mean(), b.mean()
    va, vb = a.var(ddof=1) / len(a), b.var(ddof=1) / len(b)
    r = mb / ma
    df = (vb + r * r * va) ** 2 / (vb ** 2 / (len(b) - 1) + r ** 4 * va ** 2 / (len(a) - 1))
    t = stats.t.ppf(1 - (1 - level) / 2, df)
    f = lambda x: (mb - x * ma) ** 2 - t * t * (vb + x * x * va)
    if ma * ma - t * t * va <= 0:
        return r, None, None, df
    hi = r + 1
    while f(hi) < 0:
        hi = r + 2 * (hi - r)
    lo = r - 1
    while f(lo) < 0:
        lo = r - 2 * (r - lo)
    return r, optimize.brentq(f, lo, r, xtol=1e-15, rtol=1e-15), optimize.brentq(f, r, hi, xtol=1e-15, rtol=1e-15), df

for a, b in [
    ([1.234, 1.251, 1.229, 1.262, 1.240], [0.834, 0.851, 0.829, 0.862, 0.841, 0.845]),
    ([10, 12, 9, 11, 13], [11, 12, 10, 12, 14]),
    ([0.52, 0.61, 0.55], [1.9, 2.4, 2.1]),
    ([100.0, 101.0, 99.0], [1.0, 30.0, 2.0]), # the lower root is negative: clipped at 0 for counts
    ([100.0, 130.0], [40.0, 90.0]),          # two runs each, 18% spread: unbounded
    ([3.0, 1.0], [2.0, 2.5]),                 # A's mean not told from 0: unbounded
]:
    r, lo, hi, df = fieller(a, b)
    print(f"{{{a!r}, {b!r}, {float(r)!r}, {lo!r}, {hi!r}, {float(df)!r}}},")
