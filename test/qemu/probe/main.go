//go:build linux

// Command probe measures a loop of known length with perf_event_open directly, without pmc.
// It runs inside the QEMU ARM guests and is the harness's ground truth: under `-icount
// shift=0` the emulated PMU counts retired instructions exactly, so
// count(N) - count(0) == body * N, where body is the loop's instructions per iteration (2 on
// arm64 and armv7, see spin_*.s).
//
// Usage: probe [-k] [-s [-i]] [-e TYPE:CONFIG,...] N...
//
// The events (default 0:1,0:0: generic instructions and cycles, user space only) are opened as
// one group on the calling thread; for each N the group is reset, then an assembly routine
// enables it, runs the loop N iterations and disables it (no Go code in between: Go's
// scheduler answers a preemption request after 10 ms with ~1200 instructions of its own,
// measured). One line per N:
//
//	probe n=N body=B ev0=V0 ev1=V1 ... enabled=NS running=NS
//
// With -s the events are opened separately (so more events than counters multiplex), enabled
// and disabled together with prctl(PR_TASK_PERF_EVENTS_ENABLE/DISABLE), and each is printed
// as evI=VALUE/ENABLED/RUNNING (times of this N only: the probe subtracts the previous ones,
// as RESET clears the value but not the times).
//
// Not part of pmc: this program is the only place outside internal/perfevent that calls the
// kernel directly, on purpose, so that pmc is checked against an independent reading.
package main

import (
	"encoding/binary"
	"flag"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"
)

func init() { runtime.LockOSThread() } // pid 0 counts the calling thread only

func main() {
	if os.Getenv(shimEnv) == "1" {
		shim(os.Args[1:])
		return
	}
	evs := flag.String("e", "0:1,0:0", "events as TYPE:CONFIG (hex with 0x), comma separated")
	kernel := flag.Bool("k", false, "count kernel mode too")
	sep := flag.Bool("s", false, "open the events separately (not as a group), so that more events than counters multiplex")
	inherit := flag.Bool("i", false, "set inherit (with -s or -x): threads and children are counted too")
	launchCmd := flag.Bool("x", false, "count a command (the arguments) launched with enable_on_exec, like perf stat")
	flag.Parse()
	if *launchCmd {
		attrs, err := parseEvents(*evs, *kernel)
		if err == nil {
			err = launch(attrs, *inherit, flag.Args())
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "probe: %v\n", err)
			os.Exit(1)
		}
		return
	}
	if err := run(*evs, *kernel, *sep, *inherit, flag.Args()); err != nil {
		fmt.Fprintf(os.Stderr, "probe: %v\n", err)
		os.Exit(1)
	}
}

func run(evs string, kernel, separate, inherit bool, args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("usage: probe [-e TYPE:CONFIG,...] N...")
	}
	attrs, err := parseEvents(evs, kernel)
	if err != nil {
		return err
	}
	var fds []int
	for i, attr := range attrs {
		attr.Read_format = unix.PERF_FORMAT_GROUP | unix.PERF_FORMAT_TOTAL_TIME_ENABLED | unix.PERF_FORMAT_TOTAL_TIME_RUNNING
		if inherit {
			attr.Bits |= unix.PerfBitInherit
		}
		group := -1
		if separate {
			attr.Bits |= unix.PerfBitDisabled
			attr.Read_format &^= unix.PERF_FORMAT_GROUP
		} else if i == 0 {
			attr.Bits |= unix.PerfBitDisabled
		} else {
			group = fds[0]
		}
		fd, err := unix.PerfEventOpen(&attr, 0, -1, group, unix.PERF_FLAG_FD_CLOEXEC)
		if err != nil {
			return fmt.Errorf("perf_event_open event %d: %w", i, err)
		}
		fds = append(fds, fd)
	}
	buf := make([]byte, 8*(3+len(fds)))
	one := make([]byte, 8*3)
	prevEn, prevRun := make([]uint64, len(fds)), make([]uint64, len(fds))
	for _, a := range args {
		n, err := strconv.ParseUint(a, 0, 32)
		if err != nil {
			return fmt.Errorf("N %q: %w", a, err)
		}
		for _, fd := range fds {
			if err := unix.IoctlSetInt(fd, unix.PERF_EVENT_IOC_RESET, unix.PERF_IOC_FLAG_GROUP); err != nil {
				return fmt.Errorf("reset: %w", err)
			}
			if !separate {
				break
			}
		}
		if separate {
			region(unix.SYS_PRCTL, unix.PR_TASK_PERF_EVENTS_ENABLE, 0, unix.PR_TASK_PERF_EVENTS_DISABLE, 0, uintptr(n))
		} else {
			fd := uintptr(fds[0])
			region(unix.SYS_IOCTL, fd, unix.PERF_EVENT_IOC_ENABLE, fd, unix.PERF_EVENT_IOC_DISABLE, uintptr(n))
		}
		var b strings.Builder
		fmt.Fprintf(&b, "probe n=%d body=%d", n, spinBody)
		if separate {
			// One read per event: value, time_enabled, time_running.
			for i, fd := range fds {
				if _, err := unix.Read(fd, one); err != nil {
					return fmt.Errorf("read: %w", err)
				}
				w := func(i int) uint64 { return binary.NativeEndian.Uint64(one[8*i:]) }
				fmt.Fprintf(&b, " ev%d=%d/%d/%d", i, w(0), w(1)-prevEn[i], w(2)-prevRun[i])
				prevEn[i], prevRun[i] = w(1), w(2)
			}
		} else {
			if _, err := unix.Read(fds[0], buf); err != nil {
				return fmt.Errorf("read: %w", err)
			}
			w := func(i int) uint64 { return binary.NativeEndian.Uint64(buf[8*i:]) }
			for i := range fds {
				fmt.Fprintf(&b, " ev%d=%d", i, w(3+i))
			}
			fmt.Fprintf(&b, " enabled=%d running=%d", w(1), w(2))
		}
		fmt.Println(b.String())
	}
	return nil
}

// parseEvents turns "TYPE:CONFIG,..." into attributes counting user space (and the kernel
// with kernel set).
func parseEvents(evs string, kernel bool) ([]unix.PerfEventAttr, error) {
	var attrs []unix.PerfEventAttr
	for _, ev := range strings.Split(evs, ",") {
		typ, cfg, ok := strings.Cut(ev, ":")
		if !ok {
			return nil, fmt.Errorf("event %q: want TYPE:CONFIG", ev)
		}
		t, err := strconv.ParseUint(typ, 0, 32)
		if err != nil {
			return nil, fmt.Errorf("event %q: %w", ev, err)
		}
		c, err := strconv.ParseUint(cfg, 0, 64)
		if err != nil {
			return nil, fmt.Errorf("event %q: %w", ev, err)
		}
		attr := unix.PerfEventAttr{
			Type:   uint32(t),
			Config: c,
			Size:   uint32(unsafe.Sizeof(unix.PerfEventAttr{})),
			Bits:   unix.PerfBitExcludeHv,
		}
		if !kernel {
			attr.Bits |= unix.PerfBitExcludeKernel
		}
		attrs = append(attrs, attr)
	}
	return attrs, nil
}
