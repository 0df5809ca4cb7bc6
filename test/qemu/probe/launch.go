//go:build linux

package main

import (
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// shimEnv marks the re-executed probe that waits on fd 3 and then execs the workload.
const shimEnv = "PROBE_SHIM"

// shim is the child half of launch: it blocks until the parent has attached its counters,
// then execs the workload on this (the main, counted) thread.
func shim(args []string) {
	os.Unsetenv(shimEnv)
	var b [1]byte
	// Tell the parent that the runtime has started (its threads exist): counters opened
	// after this are not inherited by threads the runtime starts during its start-up.
	syscall.RawSyscall(syscall.SYS_WRITE, 4, uintptr(unsafe.Pointer(&b[0])), 1)
	if os.Getenv("PROBE_SHIM_GOREAD") == "1" {
		// Through Go's syscall path: the runtime may start a new thread while this one is
		// blocked, and that thread inherits the counters (see TestProbeLaunchInherit).
		os.NewFile(3, "release").Read(b[:])
	} else {
		// A raw read keeps the P: the runtime starts no thread after the parent attached.
		syscall.RawSyscall(syscall.SYS_READ, 3, uintptr(unsafe.Pointer(&b[0])), 1)
	}
	err := syscall.Exec(args[0], args, os.Environ())
	fmt.Fprintf(os.Stderr, "probe: exec %s: %v\n", args[0], err)
	os.Exit(127)
}

// launch counts a whole command the way perf stat does, independently of pmc: the child
// waits, the parent opens the events on it with enable_on_exec (and inherit when asked),
// releases it, waits for it and reads each event: one line
//
//	launch inherit=B evI=VALUE/ENABLED/RUNNING ...
func launch(attrs []unix.PerfEventAttr, inherit bool, args []string) error {
	r, w, err := os.Pipe()
	if err != nil {
		return err
	}
	rr, rw, err := os.Pipe()
	if err != nil {
		return err
	}
	c := exec.Command("/proc/self/exe", args...)
	c.Env = append(os.Environ(), shimEnv+"=1")
	c.ExtraFiles = []*os.File{r, rw}
	c.Stdout, c.Stderr = os.Stdout, os.Stderr
	if err := c.Start(); err != nil {
		return err
	}
	r.Close()
	rw.Close()
	if os.Getenv("PROBE_NOREADY") != "1" {
		var b [1]byte
		if _, err := rr.Read(b[:]); err != nil {
			return fmt.Errorf("waiting for the shim: %w", err)
		}
	}
	rr.Close()
	var fds []int
	for _, a := range attrs {
		a.Bits |= unix.PerfBitDisabled | unix.PerfBitEnableOnExec
		if inherit {
			a.Bits |= unix.PerfBitInherit
		}
		a.Read_format = unix.PERF_FORMAT_TOTAL_TIME_ENABLED | unix.PERF_FORMAT_TOTAL_TIME_RUNNING
		fd, err := unix.PerfEventOpen(&a, c.Process.Pid, -1, -1, unix.PERF_FLAG_FD_CLOEXEC)
		if err != nil {
			c.Process.Kill()
			return fmt.Errorf("perf_event_open on the child: %w", err)
		}
		fds = append(fds, fd)
	}
	w.Write([]byte{1})
	w.Close()
	werr := c.Wait()
	var b strings.Builder
	fmt.Fprintf(&b, "launch inherit=%v", inherit)
	buf := make([]byte, 24)
	for i, fd := range fds {
		if _, err := unix.Read(fd, buf); err != nil {
			return fmt.Errorf("read: %w", err)
		}
		u := func(k int) uint64 { return binary.NativeEndian.Uint64(buf[8*k:]) }
		fmt.Fprintf(&b, " ev%d=%d/%d/%d", i, u(0), u(1), u(2))
	}
	fmt.Println(b.String())
	if werr != nil {
		return fmt.Errorf("workload: %w", werr)
	}
	return nil
}
