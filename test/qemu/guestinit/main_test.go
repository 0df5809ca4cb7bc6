//go:build linux

package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestMain lets the test binary stand in for a guest command: GUESTINIT_TEST_EXIT=N exits
// with N, GUESTINIT_TEST_KILL=1 kills itself with SIGKILL.
func TestMain(m *testing.M) {
	if s := os.Getenv("GUESTINIT_TEST_EXIT"); s != "" {
		n, _ := strconv.Atoi(s)
		os.Stdout.WriteString("exiting")
		os.Exit(n)
	}
	if os.Getenv("GUESTINIT_TEST_KILL") == "1" {
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
	}
	os.Exit(m.Run())
}

func TestRun(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "x.json")
	os.WriteFile(f, []byte(`{"a":1}`), 0o644)
	for _, c := range []struct {
		line   string
		out    string
		status int
	}{
		{"cat " + f, `{"a":1}`, 0},
		{"cat " + f + " /nonexistent", `{"a":1}cat: open /nonexistent: no such file or directory`, 1},
		{"GUESTINIT_TEST_EXIT=3 " + os.Args[0], "exiting", 3},
		{"GUESTINIT_TEST_KILL=1 " + os.Args[0], "", 137},
		{"FOO=bar /usr/bin/env", "FOO=bar", 0},
		{"/nonexistent/cmd", "guestinit: fork/exec /nonexistent/cmd: no such file or directory", 127},
		{"FOO=bar", "guestinit: empty command", 127},
		{"write " + f + " 1", "", 0},
		{"write " + f, "write: want FILE WORD", 2},
		{"write /nonexistent/x 1", "write: open /nonexistent/x", 1},
	} {
		out, st := run(strings.Fields(c.line))
		if st != c.status {
			t.Errorf("%q: status %d, want %d (output %q)", c.line, st, c.status, out)
		}
		if !strings.Contains(string(out), c.out) {
			t.Errorf("%q: output %q does not contain %q", c.line, out, c.out)
		}
	}
	if out, _ := run([]string{"/usr/bin/env"}); !strings.Contains(string(out), "GODEBUG=asyncpreemptoff=1") {
		t.Errorf("guest commands must run with GODEBUG=asyncpreemptoff=1: %q", out)
	}
}

func TestSnapshot(t *testing.T) {
	root := t.TempDir()
	put := func(p, s string) {
		full := filepath.Join(root, p)
		os.MkdirAll(filepath.Dir(full), 0o755)
		if err := os.WriteFile(full, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	put("sys/bus/event_source/devices/armv8_pmuv3/type", "8\n")
	put("sys/bus/event_source/devices/armv8_pmuv3/events/inst_retired", "event=0x0008\n")
	put("sys/bus/event_source/devices/armv8_pmuv3/format/event", "config:0-15\n")
	put("sys/bus/event_source/devices/armv8_pmuv3/uevent", "not wanted\n")
	put("sys/devices/system/cpu/online", "0\n")
	put("sys/devices/system/cpu/cpu0/regs/identification/midr_el1", "0x00000000411fd070\n")
	put("proc/cpuinfo", "processor\t: 0\n")
	want := "@@ /proc/cpuinfo 14\nprocessor\t: 0\n\n" +
		"@@ /sys/bus/event_source/devices/armv8_pmuv3/events/inst_retired 13\nevent=0x0008\n\n" +
		"@@ /sys/bus/event_source/devices/armv8_pmuv3/format/event 12\nconfig:0-15\n\n" +
		"@@ /sys/bus/event_source/devices/armv8_pmuv3/type 2\n8\n\n" +
		"@@ /sys/devices/system/cpu/cpu0/regs/identification/midr_el1 19\n0x00000000411fd070\n\n" +
		"@@ /sys/devices/system/cpu/online 2\n0\n\n"
	if got := string(snapshot(root)); got != want {
		t.Errorf("snapshot:\n%s\nwant:\n%s", got, want)
	}
}
