# Reference values for statistics_test.go: /usr/bin/python3 internal/statistics/testdata/reference.py
# (Debian 12: python3-scipy 1.10, numpy 1.24). The test pastes its output as constants.
import numpy as np
from scipy import stats, special

print("# t quantiles: stats.t.ppf(p, df)")
for p, df in [(0.975, 1), (0.975, 2), (0.975, 3), (0.975, 5.5), (0.975, 10), (0.975, 30), (0.975, 1000), (0.995, 4), (0.05, 7)]:
    print(f"{{{p!r}, {df!r}, {stats.t.ppf(p, df)!r}}},")
print("# t CDF: stats.t.cdf(t, df)")
for t, df in [(2.0, 3.7), (-1.3, 12), (0.4, 1), (25.0, 2.2)]:
    print(f"{{{t!r}, {df!r}, {stats.t.cdf(t, df)!r}}},")
print("# special.betainc(a, b, x)")
for a, b, x in [(2.5, 0.5, 0.3), (0.5, 7, 0.9), (30, 40, 0.45)]:
    print(f"{{{a!r}, {b!r}, {x!r}, {special.betainc(a, b, x)!r}}},")

def welch(a, b):
    r = stats.ttest_ind(b, a, equal_var=False)
    va, vb = np.var(a, ddof=1) / len(a), np.var(b, ddof=1) / len(b)
    df = (va + vb) ** 2 / (va ** 2 / (len(a) - 1) + vb ** 2 / (len(b) - 1))
    diff = np.mean(b) - np.mean(a)
    q = stats.t.ppf(0.975, df)
    se = np.sqrt(va + vb)
    print(f"diff={diff!r} low={diff - q * se!r} high={diff + q * se!r} df={df!r} t={r.statistic!r} p={r.pvalue!r}")

print("# Welch B - A, 95%")
welch([1.234, 1.251, 1.229, 1.262, 1.240], [0.834, 0.851, 0.829, 0.862, 0.841, 0.845])
welch([10, 12, 9, 11, 13], [11, 12, 10, 12, 14])
xs = [10, 11, 12, 11, 10, 30, 11, 12]
print("# mean, stdev, numpy quantiles 0.25 0.5 0.75 of", xs)
print(repr(np.mean(xs)), repr(np.std(xs, ddof=1)), [repr(q) for q in np.quantile(xs, [0.25, 0.5, 0.75])])
