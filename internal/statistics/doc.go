// Package statistics is the arithmetic of pmc compare: mean and sample standard deviation,
// quantiles (linear interpolation, as numpy's and R's default), Tukey's outlier fences (none
// when the interquartile range is 0), Student's t distribution (CDF and quantile, computed
// from the regularized incomplete beta function), Welch's unequal-variance t test for a
// difference of two means and Fieller's interval for their ratio (unbounded, and said so,
// when the runs are too few for their spread). It imports nothing of pmc; its tests compare
// against numbers scipy computed (testdata/*.py).
package statistics
