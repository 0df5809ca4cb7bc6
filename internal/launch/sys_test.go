package launch

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"testing"
	"time"

	"github.com/pmc-tools/pmc/internal/unix"
)

// This test binary also serves as launch's shim (its init runs first when re-executed).

func TestPipeFlags(t *testing.T) {
	r, w, err := pipe()
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
	if err := setBlocking(r, false); err != nil {
		t.Fatal(err)
	}
	if fl, _ := unix.FcntlInt(uintptr(r), unix.F_GETFL, 0); fl&unix.O_NONBLOCK == 0 {
		t.Error("SetBlocking(false) left the fd blocking")
	}
}

// forkSh starts /bin/sh -c script with no pidfd of Go's own, and opens ours.
func forkSh(t *testing.T, script string) (pid, pidfd int) {
	t.Helper()
	pid, err := unix.ForkExec("/bin/sh", []string{"sh", "-c", script},
		&unix.ProcAttr{Files: []uintptr{0, 1, 2}})
	if err != nil {
		t.Fatal(err)
	}
	pidfd, err = pidfdOpen(pid)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(pidfd) })
	return pid, pidfd
}

func TestWaitPidfd(t *testing.T) {
	pid, fd := forkSh(t, "sleep 0.2; exit 5")
	if _, done, err := waitPidfd(fd, false); err != nil || done {
		t.Fatalf("WaitPidfd(no block) on a running child: done %v, %v", done, err)
	}
	info, done, err := waitPidfd(fd, true)
	if err != nil || !done || info.Pid != pid || !info.Exited || info.Code != 5 {
		t.Fatalf("WaitPidfd = %+v, %v, %v; want pid %d exited 5", info, done, err, pid)
	}
	if info.VolCtxSw == 0 && info.User+info.Sys == 0 {
		t.Errorf("no rusage: %+v", info)
	}

	pid, fd = forkSh(t, "sleep 5")
	if err := pidfdSignal(fd, unix.SIGUSR1); err != nil {
		t.Fatal(err)
	}
	info, done, err = waitPidfd(fd, true)
	if err != nil || !done || info.Exited || info.Signal != unix.SIGUSR1 || info.Pid != pid {
		t.Fatalf("WaitPidfd = %+v, %v, %v; want killed by SIGUSR1", info, done, err)
	}

	pid, _ = forkSh(t, "kill -SEGV $$")
	info, err = wait4(pid)
	if err != nil || info.Exited || info.Signal != unix.SIGSEGV {
		t.Fatalf("Wait4 = %+v, %v; want killed by SIGSEGV", info, err)
	}
}

func TestExecutable(t *testing.T) {
	dir := t.TempDir()
	f := dir + "/f"
	if err := os.WriteFile(f, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := executable(f); err != unix.EACCES {
		t.Errorf("Executable(mode 0644) = %v, want EACCES even for root", err)
	}
	os.Chmod(f, 0o700)
	if err := executable(f); err != nil {
		t.Errorf("Executable(mode 0700) = %v", err)
	}
	if err := executable(dir + "/none"); err != unix.ENOENT {
		t.Errorf("Executable(missing) = %v, want ENOENT", err)
	}
}

// TestGone: the channel closes once the process has exited (and been reaped), and not
// before. A child is used as the simplest process to end on cue; a pidfd polls readable at
// the exit of any process, child or not.
func TestGone(t *testing.T) {
	cmd := exec.Command("sleep", "60") // ended by the test, however slow the machine
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done, err := Gone(cmd.Process.Pid)
	if err != nil {
		cmd.Process.Kill()
		t.Fatal(err)
	}
	select {
	case <-done:
		t.Fatal("closed while the process runs")
	case <-time.After(50 * time.Millisecond):
	}
	cmd.Process.Kill()
	go cmd.Wait()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("not closed 30 s after the process was killed")
	}
	if _, err := Gone(1 << 30); err == nil {
		t.Error("no error for a pid that does not exist")
	}
}

// TestGoneAfterExit: Gone of a process that has already exited (a zombie, not yet reaped)
// closes its channel: the exit's readiness edge may come before the wait begins and must
// not be lost (pmc record -p then waited forever). Repeated, as the loss depended on when
// Go's poller saw the edge.
func TestGoneAfterExit(t *testing.T) {
	for i := 0; i < 100; i++ {
		cmd := exec.Command("true")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		for { // until it is a zombie: exited, not reaped
			b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", cmd.Process.Pid))
			if i := bytes.LastIndexByte(b, ')'); i > 0 && i+2 < len(b) && b[i+2] == 'Z' {
				break
			}
			time.Sleep(time.Millisecond)
		}
		if i%2 == 1 {
			runtime.Gosched()
		}
		done, err := Gone(cmd.Process.Pid)
		if err != nil {
			t.Fatal(err)
		}
		select {
		case <-done:
		case <-time.After(time.Minute): // a hang detector, not a speed limit
			t.Fatalf("round %d: Gone of an exited process never closed", i)
		}
		cmd.Wait()
	}
}
