package testenv

import (
	"fmt"
	"os"
	"os/exec"
	"testing"
)

// InCI reports whether the tests run under CI (CI set, and not "false" or "0"), where
// `make test` has installed every prerequisite first (scripts/deps.sh).
func InCI() bool {
	v := os.Getenv("CI")
	return v != "" && v != "false" && v != "0"
}

// Missing reports a missing prerequisite that scripts/deps.sh installs: the test is skipped
// with the reason, or fails under CI, where its absence means `make test` is broken.
func Missing(t testing.TB, format string, args ...any) {
	t.Helper()
	if msg, ok := outsideCI(t, format, args...); ok {
		t.Skip(msg)
	}
}

// MissingPart is Missing for a prerequisite of part of a test: outside CI the test goes on
// and the log names what was not checked.
func MissingPart(t testing.TB, format string, args ...any) {
	t.Helper()
	if msg, ok := outsideCI(t, format, args...); ok {
		t.Log("NOT TESTED: " + msg)
	}
}

// outsideCI fails t under CI with the message, else returns it.
func outsideCI(t testing.TB, format string, args ...any) (string, bool) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	if InCI() {
		t.Fatalf("%s (CI=%s: a missing prerequisite is a failure)", msg, os.Getenv("CI"))
		return msg, false
	}
	return msg, true
}

// Tool returns the path of a program that scripts/deps.sh installs (perf, valgrind,
// prometheus, cc...); when it is not on PATH, see Missing.
func Tool(t testing.TB, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		Missing(t, "%s is not installed (scripts/deps.sh installs it)", name)
	}
	return p
}

// HaveTool is Tool for a program only part of a test needs: it returns "" after MissingPart
// when the program is not installed, naming what was not checked without it.
func HaveTool(t testing.TB, name, unchecked string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		MissingPart(t, "%s is not installed (scripts/deps.sh installs it): %s", name, unchecked)
	}
	return p
}
