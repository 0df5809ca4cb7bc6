//go:build linux

package main

import (
	"encoding/base64"
	"io"
	"net/http"
	"net/http/httptest"
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

func TestSplitLine(t *testing.T) {
	for _, c := range []struct {
		line string
		want []string
	}{
		{"a  b\tc", []string{"a", "b", "c"}},
		{"pmc compare -r 3 '/bin/loop 1' '/bin/loop 2'", []string{"pmc", "compare", "-r", "3", "/bin/loop 1", "/bin/loop 2"}},
		{"x '' y", []string{"x", "", "y"}},
		{"-e {a,b}", []string{"-e", "{a,b}"}},
	} {
		got, err := splitLine(c.line)
		if err != nil || strings.Join(got, "|") != strings.Join(c.want, "|") || len(got) != len(c.want) {
			t.Errorf("splitLine(%q) = %q, %v; want %q", c.line, got, err, c.want)
		}
	}
	if _, err := splitLine("a 'b"); err == nil {
		t.Error("an unbalanced quote must be an error")
	}
}

func TestBuiltins(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "bin")
	data := make([]byte, 200)
	for i := range data {
		data[i] = byte(i)
	}
	os.WriteFile(f, data, 0o644)
	out, st := run([]string{"b64", f})
	dec, err := base64.StdEncoding.DecodeString(strings.ReplaceAll(string(out), "\n", ""))
	if st != 0 || err != nil || string(dec) != string(data) {
		t.Errorf("b64: status %d, %v, decoded %d bytes", st, err, len(dec))
	}
	if _, st := run([]string{"mkdir", filepath.Join(dir, "a", "b")}); st != 0 {
		t.Errorf("mkdir: status %d", st)
	}
	w := filepath.Join(dir, "a", "w")
	if _, st := run([]string{"write", w, "+pids", "+cpu"}); st != 0 {
		t.Errorf("write: status %d", st)
	} else if b, _ := os.ReadFile(w); string(b) != "+pids +cpu\n" {
		t.Errorf("write wrote %q", b)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/metrics" {
			http.NotFound(w, r)
			return
		}
		io.WriteString(w, "x_total 3\n")
	}))
	defer srv.Close()
	addr := strings.TrimPrefix(srv.URL, "http://")
	if out, st := run([]string{"httpget", addr, "/metrics"}); st != 0 || string(out) != "x_total 3\n" {
		t.Errorf("httpget: status %d, body %q", st, out)
	}
	if _, st := run([]string{"httpget", addr, "/nothing"}); st != 1 {
		t.Errorf("httpget of a 404: status %d, want 1", st)
	}
	if out, st := run([]string{"spawn", "/bin/sleep", "30"}); st != 0 || !strings.Contains(string(out), "spawned pid") {
		t.Fatalf("spawn: %d %q", st, out)
	}
	if out, st := run([]string{"stop"}); st != 130 || !strings.Contains(string(out), "exited 130") {
		t.Errorf("stop: status %d, output %q; want the SIGINT status 130", st, out)
	}
}
