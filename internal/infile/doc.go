// Package infile reads the files pmc is given (saved results, metric files, recorded
// machine facts, fake counts) whole, up to a limit: a file past its limit is refused with
// the limit named rather than read until memory runs out, and a directory is refused by
// name. "-" is standard input; FIFOs and devices are read like files, up to the limit.
package infile
