package perfevent_test

import (
	"context"
	"encoding/binary"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/pmc-tools/pmc/internal/launch"
	"github.com/pmc-tools/pmc/internal/perfevent"
)

// This test binary also serves as launch's shim (its init runs first when re-executed).

func TestPipeFlags(t *testing.T) {
	r, w, err := perfevent.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(r)
	defer unix.Close(w)
	for _, fd := range []int{r, w} {
		fdFlags, _ := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0)
		flFlags, _ := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
		if fdFlags&unix.FD_CLOEXEC == 0 || flFlags&unix.O_NONBLOCK != 0 {
			t.Errorf("fd %d: FD flags %#x, status flags %#x; want close-on-exec and blocking", fd, fdFlags, flFlags)
		}
	}
	if err := perfevent.SetBlocking(r, false); err != nil {
		t.Fatal(err)
	}
	if fl, _ := unix.FcntlInt(uintptr(r), unix.F_GETFL, 0); fl&unix.O_NONBLOCK == 0 {
		t.Error("SetBlocking(false) left the fd blocking")
	}
}

// forkSh starts /bin/sh -c script with no pidfd of Go's own, and opens ours.
func forkSh(t *testing.T, script string) (pid, pidfd int) {
	t.Helper()
	pid, err := syscall.ForkExec("/bin/sh", []string{"sh", "-c", script},
		&syscall.ProcAttr{Files: []uintptr{0, 1, 2}})
	if err != nil {
		t.Fatal(err)
	}
	pidfd, err = perfevent.PidfdOpen(pid)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(pidfd) })
	return pid, pidfd
}

func TestWaitPidfd(t *testing.T) {
	pid, fd := forkSh(t, "sleep 0.2; exit 5")
	if _, done, err := perfevent.WaitPidfd(fd, false); err != nil || done {
		t.Fatalf("WaitPidfd(no block) on a running child: done %v, %v", done, err)
	}
	info, done, err := perfevent.WaitPidfd(fd, true)
	if err != nil || !done || info.Pid != pid || !info.Exited || info.Code != 5 {
		t.Fatalf("WaitPidfd = %+v, %v, %v; want pid %d exited 5", info, done, err, pid)
	}
	if info.VolCtxSw == 0 && info.User+info.Sys == 0 {
		t.Errorf("no rusage: %+v", info)
	}

	pid, fd = forkSh(t, "sleep 5")
	if err := perfevent.PidfdSignal(fd, syscall.SIGUSR1); err != nil {
		t.Fatal(err)
	}
	info, done, err = perfevent.WaitPidfd(fd, true)
	if err != nil || !done || info.Exited || info.Signal != syscall.SIGUSR1 || info.Pid != pid {
		t.Fatalf("WaitPidfd = %+v, %v, %v; want killed by SIGUSR1", info, done, err)
	}

	pid, _ = forkSh(t, "kill -SEGV $$")
	info, err = perfevent.Wait4(pid)
	if err != nil || info.Exited || info.Signal != syscall.SIGSEGV {
		t.Fatalf("Wait4 = %+v, %v; want killed by SIGSEGV", info, err)
	}
}

func TestExecutable(t *testing.T) {
	dir := t.TempDir()
	f := dir + "/f"
	if err := os.WriteFile(f, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := perfevent.Executable(f); err != unix.EACCES {
		t.Errorf("Executable(mode 0644) = %v, want EACCES even for root", err)
	}
	os.Chmod(f, 0o700)
	if err := perfevent.Executable(f); err != nil {
		t.Errorf("Executable(mode 0700) = %v", err)
	}
	if err := perfevent.Executable(dir + "/none"); err != unix.ENOENT {
		t.Errorf("Executable(missing) = %v, want ENOENT", err)
	}
}

// countOnExec runs argv through launch with one software counter opened on the shim with
// enable_on_exec, inherit and disabled, as pmc stat does, and returns the count.
func countOnExec(t *testing.T, config uint64, argv ...string) uint64 {
	t.Helper()
	path, err := launch.LookPath(argv[0])
	if err != nil {
		t.Fatal(err)
	}
	ch, err := launch.Start(launch.Cmd{Path: path, Args: argv, Stdout: os.Stdout, Stderr: os.Stderr})
	if err != nil {
		t.Fatal(err)
	}
	attr := &unix.PerfEventAttr{
		Type:        unix.PERF_TYPE_SOFTWARE,
		Size:        uint32(unsafe.Sizeof(unix.PerfEventAttr{})),
		Config:      config,
		Read_format: unix.PERF_FORMAT_TOTAL_TIME_ENABLED | unix.PERF_FORMAT_TOTAL_TIME_RUNNING,
		Bits:        unix.PerfBitDisabled | unix.PerfBitInherit | unix.PerfBitEnableOnExec,
	}
	fd, err := unix.PerfEventOpen(attr, ch.Pid(), -1, -1, unix.PERF_FLAG_FD_CLOEXEC)
	if err != nil {
		ch.Kill()
		t.Fatalf("perf_event_open: %v", err)
	}
	defer unix.Close(fd)
	if err := ch.Exec(); err != nil {
		t.Fatal(err)
	}
	st, err := ch.Wait(context.Background())
	if err != nil || st.ExitCode() != 0 {
		t.Fatalf("%q: status %d, %v", argv, st.ExitCode(), err)
	}
	var buf [24]byte
	if n, err := unix.Read(fd, buf[:]); err != nil || n != len(buf) {
		t.Fatalf("reading the counter: %d bytes, %v", n, err)
	}
	value := binary.NativeEndian.Uint64(buf[0:])
	enabled := binary.NativeEndian.Uint64(buf[8:])
	if enabled == 0 {
		t.Fatalf("%q: the counter was never enabled: enable_on_exec did not fire", argv)
	}
	return value
}

// perfStat returns `perf stat -x, -e EVENT argv...`'s count.
func perfStat(t *testing.T, event string, argv ...string) float64 {
	t.Helper()
	out, err := exec.Command("perf", append([]string{"stat", "-x,", "-e", event, "--"}, argv...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("perf stat: %v\n%s", err, out)
	}
	for _, l := range strings.Split(string(out), "\n") {
		f := strings.Split(l, ",")
		if len(f) > 2 && f[2] == event {
			v, err := strconv.ParseFloat(f[0], 64)
			if err != nil {
				t.Fatalf("perf stat line %q", l)
			}
			return v
		}
	}
	t.Fatalf("no %s in perf stat output:\n%s", event, out)
	return 0
}

// The shim execs the workload on the thread the counter is attached to: page faults of
// /bin/true are counted from its exec on, and agree with perf stat's (which forks and
// execs the same way) within 1% on the mean of 80 runs (single runs vary from 47 to 51).
func TestEnableOnExecPageFaults(t *testing.T) {
	if _, err := exec.LookPath("perf"); err != nil {
		t.Skip("perf not installed")
	}
	const runs = 80
	var ours, theirs float64
	for i := 0; i < runs; i++ {
		n := countOnExec(t, unix.PERF_COUNT_SW_PAGE_FAULTS, "true")
		if n == 0 {
			t.Fatal("0 page faults: the exec did not happen on the counted thread")
		}
		ours += float64(n)
		theirs += perfStat(t, "page-faults", "true")
	}
	ours, theirs = ours/runs, theirs/runs
	if d := (ours - theirs) / theirs; d > 0.01 || d < -0.01 {
		t.Errorf("page-faults of true: pmc mean %.1f, perf stat mean %.1f (%+.2f%%)", ours, theirs, 100*d)
	} else {
		t.Logf("page-faults of true: pmc mean %.1f, perf stat mean %.1f", ours, theirs)
	}
}

// Counting starts at exec, not at Start: a shim kept waiting 50 ms before Exec adds no
// task-clock, and a workload that burns CPU is counted in full (including its children,
// through inherit).
func TestEnableOnExecTaskClock(t *testing.T) {
	ns := countOnExec(t, unix.PERF_COUNT_SW_TASK_CLOCK, "sh", "-c", "i=0; while [ $i -lt 100000 ]; do i=$((i+1)); done; /bin/true")
	if ns < uint64(20*time.Millisecond) {
		t.Errorf("task-clock %v for a busy shell loop", time.Duration(ns))
	}
	path, _ := launch.LookPath("true")
	ch, err := launch.Start(launch.Cmd{Path: path, Args: []string{"true"}})
	if err != nil {
		t.Fatal(err)
	}
	attr := &unix.PerfEventAttr{
		Type: unix.PERF_TYPE_SOFTWARE, Size: uint32(unsafe.Sizeof(unix.PerfEventAttr{})),
		Config: unix.PERF_COUNT_SW_TASK_CLOCK,
		Bits:   unix.PerfBitDisabled | unix.PerfBitInherit | unix.PerfBitEnableOnExec,
	}
	fd, err := unix.PerfEventOpen(attr, ch.Pid(), -1, -1, unix.PERF_FLAG_FD_CLOEXEC)
	if err != nil {
		ch.Kill()
		t.Fatal(err)
	}
	defer unix.Close(fd)
	time.Sleep(50 * time.Millisecond)
	ch.Exec()
	st, _ := ch.Wait(context.Background())
	var buf [8]byte
	unix.Read(fd, buf[:])
	tc := time.Duration(binary.NativeEndian.Uint64(buf[:]))
	if tc == 0 || tc > 5*time.Millisecond || tc > st.Elapsed {
		t.Errorf("task-clock of true after a 50 ms wait: %v (elapsed %v)", tc, st.Elapsed)
	}
}

// TestGone: the channel closes once the process has exited (and been reaped), and not
// before. A child is used as the simplest process to end on cue; a pidfd polls readable at
// the exit of any process, child or not.
func TestGone(t *testing.T) {
	cmd := exec.Command("sleep", "0.2")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done, err := perfevent.Gone(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
		t.Fatal("closed while the process runs")
	case <-time.After(50 * time.Millisecond):
	}
	go cmd.Wait()
	select {
	case <-done:
	case <-time.After(3 * time.Second):
		t.Fatal("not closed 3 s after the process ended")
	}
	if _, err := perfevent.Gone(1 << 30); err == nil {
		t.Error("no error for a pid that does not exist")
	}
}
