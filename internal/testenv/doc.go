// Package testenv is test support shared by pmc's packages: the built-in workload binaries
// (workloads/), found where `make workloads` put them or built once per test binary into a
// temporary directory, never into the source tree; fd-leak checks; every kind of output
// path a recording may be given (PathKinds) and what a user could notice of one
// (PathState); and the rule for a missing prerequisite (Missing, Tool): a skip that says
// what was not tested, or a failure under CI=true, where `make test` installed everything
// first. Only _test.go files import it.
package testenv
