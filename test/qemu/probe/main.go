//go:build linux

// Command probe measures a loop of known length with perf_event_open directly, without pmc.
// It runs inside the QEMU ARM guests and is the harness's ground truth: under `-icount
// shift=0` the emulated PMU counts retired instructions exactly, so
// count(N) - count(0) == body * N, where body is the loop's instructions per iteration (2 on
// arm64 and armv7, see spin_*.s).
//
// Usage: probe [-e TYPE:CONFIG,...] N...
//
// The events (default 0:1,0:0: generic instructions and cycles, user space only) are opened as
// one group on the calling thread; for each N the group is reset, enabled, the loop runs N
// iterations, and the group is disabled. One line per N:
//
//	probe n=N body=B ev0=V0 ev1=V1 ... enabled=NS running=NS
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
	evs := flag.String("e", "0:1,0:0", "events as TYPE:CONFIG (hex with 0x), comma separated")
	kernel := flag.Bool("k", false, "count kernel mode too")
	flag.Parse()
	if err := run(*evs, *kernel, flag.Args()); err != nil {
		fmt.Fprintf(os.Stderr, "probe: %v\n", err)
		os.Exit(1)
	}
}

func run(evs string, kernel bool, args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("usage: probe [-e TYPE:CONFIG,...] N...")
	}
	var fds []int
	for i, ev := range strings.Split(evs, ",") {
		typ, cfg, ok := strings.Cut(ev, ":")
		if !ok {
			return fmt.Errorf("event %q: want TYPE:CONFIG", ev)
		}
		t, err := strconv.ParseUint(typ, 0, 32)
		if err != nil {
			return fmt.Errorf("event %q: %w", ev, err)
		}
		c, err := strconv.ParseUint(cfg, 0, 64)
		if err != nil {
			return fmt.Errorf("event %q: %w", ev, err)
		}
		attr := unix.PerfEventAttr{
			Type:        uint32(t),
			Config:      c,
			Size:        uint32(unsafe.Sizeof(unix.PerfEventAttr{})),
			Read_format: unix.PERF_FORMAT_GROUP | unix.PERF_FORMAT_TOTAL_TIME_ENABLED | unix.PERF_FORMAT_TOTAL_TIME_RUNNING,
			Bits:        unix.PerfBitExcludeHv,
		}
		if !kernel {
			attr.Bits |= unix.PerfBitExcludeKernel
		}
		group := -1
		if i == 0 {
			attr.Bits |= unix.PerfBitDisabled
		} else {
			group = fds[0]
		}
		fd, err := unix.PerfEventOpen(&attr, 0, -1, group, unix.PERF_FLAG_FD_CLOEXEC)
		if err != nil {
			return fmt.Errorf("perf_event_open %s: %w", ev, err)
		}
		fds = append(fds, fd)
	}
	buf := make([]byte, 8*(3+len(fds)))
	for _, a := range args {
		n, err := strconv.ParseUint(a, 0, 32)
		if err != nil {
			return fmt.Errorf("N %q: %w", a, err)
		}
		if err := unix.IoctlSetInt(fds[0], unix.PERF_EVENT_IOC_RESET, unix.PERF_IOC_FLAG_GROUP); err != nil {
			return fmt.Errorf("reset: %w", err)
		}
		if err := unix.IoctlSetInt(fds[0], unix.PERF_EVENT_IOC_ENABLE, unix.PERF_IOC_FLAG_GROUP); err != nil {
			return fmt.Errorf("enable: %w", err)
		}
		spin(uint32(n))
		if err := unix.IoctlSetInt(fds[0], unix.PERF_EVENT_IOC_DISABLE, unix.PERF_IOC_FLAG_GROUP); err != nil {
			return fmt.Errorf("disable: %w", err)
		}
		if _, err := unix.Read(fds[0], buf); err != nil {
			return fmt.Errorf("read: %w", err)
		}
		w := func(i int) uint64 { return binary.NativeEndian.Uint64(buf[8*i:]) }
		var b strings.Builder
		fmt.Fprintf(&b, "probe n=%d body=%d", n, spinBody)
		for i := range fds {
			fmt.Fprintf(&b, " ev%d=%d", i, w(3+i))
		}
		fmt.Fprintf(&b, " enabled=%d running=%d", w(1), w(2))
		fmt.Println(b.String())
	}
	return nil
}
