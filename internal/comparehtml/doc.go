// Package comparehtml draws a pmc compare comparison as one self-contained HTML page: every
// style and script inline, charts as inline SVG, nothing fetched from the network. Each
// quantity gets a chart: a bar per command at its mean with a ±1 standard deviation error
// bar, every run's value as a point, and the change against the first command with its
// confidence interval.
package comparehtml
