// Package buildinfo names the pmc binary that runs: its release number and, when the Go
// toolchain stamped the build with its version control state, the commit it was built from
// (pmc version, the version recorded in saved results, pmc_build_info).
package buildinfo
