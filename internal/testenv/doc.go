// Package testenv is test support shared by pmc's packages: the built-in workload binaries
// (workloads/), found where `make workloads` put them or built once per test binary into a
// temporary directory, never into the source tree. Only _test.go files import it.
package testenv
