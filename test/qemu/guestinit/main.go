//go:build linux

// Command guestinit is the /init of the QEMU ARM test guests. It mounts the kernel file
// systems, runs the commands listed in /cmds one by one and prints each command's combined
// output between markers on the console, then powers the machine off so QEMU exits 0.
//
// /cmds holds one command per line, split on white space (no shell: quotes, pipes and `;` are
// not special). Blank lines and lines starting with # are skipped. Leading NAME=value words
// are added to the command's environment. Built-in commands:
//
//	cat FILE...          print files (e.g. JSON written by `pmc stat --json -o FILE`)
//	snapshot [ROOT]      print the PMU-related sysfs/procfs files under ROOT (default /)
//	b64 FILE             print a file in base64 (binary files such as perf.data)
//	mkdir DIR            create a directory (e.g. a cgroup under /sys/fs/cgroup)
//	write FILE WORD...   write the words (space-separated) and a newline to FILE (a sysctl:
//	                     write /proc/sys/kernel/x 1; cgroup.subtree_control)
//	incgroup DIR CMD...  run CMD inside the cgroup v2 directory DIR from its first instruction
//	spawn CMD...         start CMD in the background (its output is kept)
//	stop                 SIGINT every spawned command, wait, print their outputs and statuses
//	httpget ADDR PATH    print the body of http://ADDR/PATH (retries until ADDR listens)
//
// Single quotes group words ('a b' is one word). The loopback interface is up and cgroup v2
// is mounted on /sys/fs/cgroup.
//
// Console protocol, for command number n (0-based, counting only commands):
//
//	=====BEGIN n=====
//	<output; a newline is added when it does not end in one>
//	=====EXIT n status=====
//	=====END n=====
//
// status is the exit code, 128+signal when killed, 124 on timeout, 127 when it could not start.
// The run starts with =====INIT ...===== and ends with =====DONE=====.
package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
	"time"
)

// cmdTimeout bounds one command; the host kills the whole VM later than this.
const cmdTimeout = 90 * time.Second

func main() {
	mountAll()
	fmt.Printf("=====INIT pmc-guestinit %s=====\n", uname())
	cmds, err := os.ReadFile("/cmds")
	if err != nil {
		fmt.Printf("guestinit: %v\n", err)
		powerOff()
	}
	n := 0
	sc := bufio.NewScanner(bytes.NewReader(cmds))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		words, err := splitLine(line)
		var out []byte
		status := 127
		if err != nil {
			out = []byte(fmt.Sprintf("guestinit: %v\n", err))
		} else {
			out, status = run(words)
		}
		if len(out) > 0 && out[len(out)-1] != '\n' {
			out = append(out, '\n')
		}
		// One write per section keeps it together on the console.
		var b bytes.Buffer
		fmt.Fprintf(&b, "=====BEGIN %d=====\n", n)
		b.Write(out)
		fmt.Fprintf(&b, "=====EXIT %d %d=====\n=====END %d=====\n", n, status, n)
		os.Stdout.Write(b.Bytes())
		n++
	}
	fmt.Printf("=====DONE=====\n")
	powerOff()
}

func mountAll() {
	for _, m := range []struct{ src, dir, fstype string }{
		{"proc", "/proc", "proc"},
		{"sysfs", "/sys", "sysfs"},
		{"devtmpfs", "/dev", "devtmpfs"},
		{"tracefs", "/sys/kernel/tracing", "tracefs"},
		{"debugfs", "/sys/kernel/debug", "debugfs"},
		{"cgroup2", "/sys/fs/cgroup", "cgroup2"},
	} {
		os.MkdirAll(m.dir, 0o755)
		if err := syscall.Mount(m.src, m.dir, m.fstype, 0, ""); err != nil && m.fstype != "tracefs" && m.fstype != "debugfs" {
			fmt.Printf("guestinit: mount %s: %v\n", m.dir, err)
		}
	}
	os.MkdirAll("/tmp", 0o1777)
	if err := upLoopback(); err != nil {
		fmt.Printf("guestinit: loopback: %v\n", err)
	}
}

func uname() string {
	rel, _ := os.ReadFile("/proc/sys/kernel/osrelease")
	return strings.TrimSpace(string(rel)) + " " + runtime.GOARCH
}

// run executes one command line and returns its combined output and status.
func run(words []string) ([]byte, int) {
	env := []string{"PATH=/bin:/", "HOME=/", "GODEBUG=asyncpreemptoff=1"}
	for len(words) > 0 && strings.Contains(words[0], "=") && !strings.HasPrefix(words[0], "/") {
		env = append(env, words[0])
		words = words[1:]
	}
	if len(words) == 0 {
		return []byte("guestinit: empty command\n"), 127
	}
	var out bytes.Buffer
	switch words[0] {
	case "cat":
		st := 0
		for _, f := range words[1:] {
			b, err := os.ReadFile(f)
			if err != nil {
				fmt.Fprintf(&out, "cat: %v\n", err)
				st = 1
			}
			out.Write(b)
		}
		return out.Bytes(), st
	case "write":
		if len(words) < 3 {
			return []byte("write: want FILE WORD...\n"), 2
		}
		if err := os.WriteFile(words[1], []byte(strings.Join(words[2:], " ")+"\n"), 0o644); err != nil {
			return []byte(fmt.Sprintf("write: %v\n", err)), 1
		}
		return nil, 0
	case "snapshot":
		root := "/"
		if len(words) > 1 {
			root = words[1]
		}
		return snapshot(root), 0
	case "b64", "mkdir", "httpget":
		want := map[string]int{"b64": 2, "mkdir": 2, "httpget": 3}[words[0]]
		if len(words) != want {
			return []byte(fmt.Sprintf("guestinit: %s takes %d arguments\n", words[0], want-1)), 127
		}
		switch words[0] {
		case "b64":
			return b64(words[1])
		case "mkdir":
			if err := os.MkdirAll(words[1], 0o755); err != nil {
				return []byte(fmt.Sprintf("mkdir: %v\n", err)), 1
			}
			return nil, 0
		}
		return httpGet(words[1], words[2])
	case "incgroup":
		if len(words) < 3 {
			return []byte("guestinit: incgroup DIR CMD...\n"), 127
		}
		return inCgroup(words[1], env, words[2:])
	case "spawn":
		if len(words) < 2 {
			return []byte("guestinit: spawn CMD...\n"), 127
		}
		return spawn(env, words[1:])
	case "stop":
		return stop()
	}
	return runAttr(env, words, nil)
}

// runAttr runs a command with the given environment (and process attributes, may be nil).
func runAttr(env, words []string, attr *syscall.SysProcAttr) ([]byte, int) {
	var out bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), cmdTimeout)
	defer cancel()
	c := exec.CommandContext(ctx, words[0], words[1:]...)
	c.Env = env
	c.SysProcAttr = attr
	c.Stdout, c.Stderr = &out, &out
	err := c.Run()
	if ctx.Err() != nil {
		fmt.Fprintf(&out, "guestinit: timeout after %v\n", cmdTimeout)
		return out.Bytes(), 124
	}
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		fmt.Fprintf(&out, "guestinit: %v\n", err)
	}
	return out.Bytes(), exitStatus(err)
}

// exitStatus is a finished command's status: its exit code, 128+signal when killed, 127 when
// it could not start.
func exitStatus(err error) int {
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal())
		}
		return ee.ExitCode()
	default:
		return 127
	}
}

func powerOff() {
	syscall.Sync()
	if err := syscall.Reboot(syscall.LINUX_REBOOT_CMD_POWER_OFF); err != nil {
		fmt.Printf("guestinit: power off: %v\n", err)
	}
	select {} // init must not exit: the kernel would panic
}
