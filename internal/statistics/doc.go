// Package statistics is the arithmetic of pmc compare: mean and sample standard deviation,
// quantiles (linear interpolation, as numpy's and R's default), Tukey's outlier fences,
// Student's t distribution (CDF and quantile, computed from the regularized incomplete beta
// function) and Welch's unequal-variance t interval for a difference of two means. It
// imports nothing of pmc; its tests compare against numbers scipy computed.
package statistics
