package launch

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/pmc-tools/pmc/internal/unix"
)

// Status is how the workload ended.
type Status struct {
	Code       int  // exit code when !Signaled
	Signaled   bool // killed by Signal
	Signal     unix.Signal
	CoreDumped bool
	// ExecErr is an *ExecError when the shim could not exec the workload; Code is then 127
	// (ENOENT) or 126 (EACCES, ENOEXEC...).
	ExecErr error
	// User and Sys are the CPU times of the workload and the descendants it waited for
	// (wait's rusage), without the shim's own start-up before the exec.
	User, Sys time.Duration
	// Elapsed is wall-clock time from Exec to the moment the exit was seen.
	Elapsed time.Duration
	// MaxRSSKB is the workload's peak resident set size in KiB, as GNU time reports it: its
	// own and that of the descendants it waited for (wait's rusage); 0 when it cannot be
	// told apart from the launcher's. The kernel keeps a process's high-water mark across
	// exec, so wait's peak is the larger of the workload's and the launcher's (the exec shim
	// and pmc itself, whose memory the shim's vfork shared: about 18 MiB); it is the
	// workload's only when it is above the launcher's, which the shim records before exec.
	MaxRSSKB int64
	// MaxRSSBelowKB: when MaxRSSKB is 0, the workload's peak is at most this (the launcher's
	// own, plus the slack of rssSlackKB); 0 when MaxRSSKB is known or nothing was recorded.
	MaxRSSBelowKB int64
	// Terminated: Wait sent SIGTERM because its context was done.
	Terminated bool
}

// ExitCode is the status in the shell's convention: the exit code, 128+N when killed by
// signal N, 127/126 when the command could not be run.
func (s Status) ExitCode() int {
	if s.Signaled {
		return 128 + int(s.Signal)
	}
	return s.Code
}

// Wait blocks until the workload exits and returns its status. It parks on the child's pidfd
// in Go's poller, so pmc's threads sleep while the workload runs (os.Process.Wait would keep
// a thread in waitid and the runtime's sysmon waking, which shows up in the counts on small
// machines). When ctx is done first, Wait sends SIGTERM once (what perf stat's --timeout
// does) and keeps waiting for the exit; Status.Terminated records it. A workload that
// ignores SIGTERM still ends Wait when it gets SIGKILL or the forwarded SIGINT. Calling Wait
// again returns the same result. Wait without Exec makes the shim exit with
// StatusShimAborted, the workload never run.
func (ch *Child) Wait(ctx context.Context) (Status, error) {
	ch.mu.Lock()
	done := ch.done
	ch.mu.Unlock()
	if done {
		return ch.status, ch.err
	}
	stop := context.AfterFunc(ctx, func() {
		ch.mu.Lock()
		defer ch.mu.Unlock()
		if !ch.done && ch.signalLocked(unix.SIGTERM) == nil {
			ch.terminated = true
		}
	})
	ch.reap()
	stop()
	ch.mu.Lock()
	ch.status.Terminated = ch.terminated // final: reap set done, so no SIGTERM comes later
	ch.mu.Unlock()
	return ch.status, ch.err
}

// reap waits for the exit, then fills status and err and releases the fds.
func (ch *Child) reap() {
	if ch.goW >= 0 { // Wait without Exec: let the shim exit (125) instead of waiting forever
		unix.Close(ch.goW)
		ch.goW = -1
	}
	info, end, err := ch.waitExit()
	st := Status{}
	if err == nil {
		st.Code, st.Signaled, st.Signal, st.CoreDumped = info.Code, !info.Exited, info.Signal, info.CoreDumped
		st.User, st.Sys, st.MaxRSSKB = info.User, info.Sys, info.MaxRSSKB
		if !ch.start.IsZero() {
			st.Elapsed = end.Sub(ch.start)
		}
		ch.applyRecords(&st)
	} else {
		err = fmt.Errorf("launch: waiting for %s: %w", ch.name, err)
	}
	if ch.errR >= 0 {
		unix.Close(ch.errR)
		ch.errR = -1
	}
	ch.mu.Lock()
	ch.done, ch.status, ch.err = true, st, err
	ch.mu.Unlock()
	if ch.pidfd != nil { // after done: Signal holds mu while it uses the pidfd
		ch.pidfd.Close()
	}
}

// waitExit returns the exit and the time it was seen.
func (ch *Child) waitExit() (exitInfo, time.Time, error) {
	if ch.pidfd == nil {
		info, err := wait4(ch.pid)
		ch.endMono = monotonic()
		return info, time.Now(), err
	}
	rc, err := ch.pidfd.SyscallConn()
	if err != nil {
		return exitInfo{}, time.Time{}, err
	}
	var info exitInfo
	var end time.Time
	var werr error
	// Read calls the function, and while it returns false parks the goroutine until the
	// pidfd polls readable, which it does once the child has exited.
	err = rc.Read(func(fd uintptr) bool {
		var done bool
		info, done, werr = waitPidfd(int(fd), false)
		if done {
			end, ch.endMono = time.Now(), monotonic()
		}
		return done || werr != nil
	})
	if werr != nil && errors.Is(werr, errNoPidfd) {
		// A kernel with pidfd_open but no waitid(P_PIDFD) (5.3).
		info, werr = wait4(ch.pid)
		end, ch.endMono = time.Now(), monotonic()
	}
	if err == nil {
		err = werr
	}
	return info, end, err
}

// applyRecords reads what the shim left in the record pipe: its CPU time before the exec
// ("r USER_NS SYS_NS") and, if the exec failed, the errno ("e ERRNO"). Called after the
// exit only: the pipe never wakes pmc while the workload runs.
func (ch *Child) applyRecords(st *Status) {
	var buf [512]byte
	var data []byte
	for ch.errR >= 0 {
		n, err := unix.Read(ch.errR, buf[:])
		if err == unix.EINTR {
			continue
		}
		if n <= 0 {
			break
		}
		data = append(data, buf[:n]...)
	}
	if ch.tiny {
		ch.applyTinyRecords(st, data)
		return
	}
	r := parseRecords(data)
	st.MaxRSSKB, st.MaxRSSBelowKB = workloadRSS(st.MaxRSSKB, r.launcherRSSKB)
	if r.haveCPU {
		st.User = max(st.User-r.user, 0)
		st.Sys = max(st.Sys-r.sys, 0)
	}
	// Wall time from the exec itself (the shim's record) when it is there and sane.
	if r.execAt > 0 && ch.endMono >= r.execAt && !ch.start.IsZero() {
		st.Elapsed = ch.endMono - r.execAt
	}
	st.ExecErr = ch.execError(r.errno)
}

// applyTinyRecords reads the tiny shim's record: the exec's errno (4 bytes) if it failed.
// Nothing of the shim's own is in wait's times: its clone started with none. Its peak RSS
// is the workload's own unless the shim could not clone (it then ran the workload in the
// process that pmc's vfork started, whose high-water mark is pmc's).
func (ch *Child) applyTinyRecords(st *Status, data []byte) {
	if !ch.ownRSS {
		st.MaxRSSKB, st.MaxRSSBelowKB = 0, st.MaxRSSKB
	}
	if len(data) == 4 {
		st.ExecErr = ch.execError(unix.Errno(binary.NativeEndian.Uint32(data)))
	}
}

// execError is the *ExecError of an exec that failed with errno, nil for 0.
func (ch *Child) execError(errno unix.Errno) error {
	if errno == 0 {
		return nil
	}
	e := &ExecError{Name: ch.name, Path: ch.path, Err: errno}
	if errno == unix.ENOENT {
		// The file was there when LookPath checked it: the missing one is its interpreter.
		e.Interpreter = interpreter(ch.path)
	}
	return e
}

// rssSlackKB is how much the launcher may still grow between recording its peak and the
// exec (the record writes, the exec's argument arrays): a peak from wait within it of the
// launcher's could be the launcher's.
const rssSlackKB = 256

// workloadRSS is the workload's peak RSS from wait's (waited) and the launcher's recorded peak
// (launcher, 0 when the shim left none): waited when it is above the launcher's, else unknown
// and at most the larger of the two.
func workloadRSS(waited, launcher int64) (peak, below int64) {
	switch {
	case launcher <= 0:
		return 0, 0 // no record (an exec that failed, an old shim): nothing pmc can vouch for
	case waited > launcher+rssSlackKB:
		return waited, 0
	}
	return 0, max(waited, launcher+rssSlackKB)
}

// records is what the shim reported: its CPU time before the exec, the time of the exec,
// and the exec's errno.
type records struct {
	haveCPU       bool
	launcherRSSKB int64 // the shim's peak RSS just before the exec (KiB), 0 when absent
	user, sys     time.Duration
	errno         unix.Errno    // 0: no exec error
	execAt        time.Duration // CLOCK_MONOTONIC just before the exec; 0 when absent
}

// parseRecords reads the record pipe's bytes; malformed lines are ignored.
func parseRecords(b []byte) records {
	var r records
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) == 3 && f[0] == "r":
			u, err1 := strconv.ParseInt(f[1], 10, 64)
			s, err2 := strconv.ParseInt(f[2], 10, 64)
			if err1 == nil && err2 == nil && u >= 0 && s >= 0 {
				r.haveCPU, r.user, r.sys = true, time.Duration(u), time.Duration(s)
			}
		case len(f) == 2 && f[0] == "m":
			if n, err := strconv.ParseInt(f[1], 10, 64); err == nil && n > 0 {
				r.launcherRSSKB = n
			}
		case len(f) == 2 && f[0] == "t":
			if n, err := strconv.ParseInt(f[1], 10, 64); err == nil && n > 0 {
				r.execAt = time.Duration(n)
			}
		case len(f) == 2 && f[0] == "e":
			if n, err := strconv.ParseUint(f[1], 10, 16); err == nil && n > 0 {
				r.errno = unix.Errno(n)
			}
		}
	}
	return r
}
