package exporter

import (
	"errors"
	"io/fs"
	"runtime"
	"strconv"
	"strings"

	"github.com/pmc-tools/pmc/internal/unix"
)

// userHZ is the unit of /proc's clock fields: USER_HZ, 100 on every architecture pmc ships.
const userHZ = 100

// Process is the exporter's own process metrics, read from root's /proc/self at each scrape
// (the names Prometheus' client libraries use, so dashboards for any exporter work): CPU
// time, resident and virtual memory, open and maximum file descriptors (a leak shows here),
// start time, and the Go runtime's goroutines and heap. A file that cannot be read leaves its
// metrics out.
func Process(root fs.FS) Source {
	return func() []Family {
		var out []Family
		if st, err := readSelfStat(root); err == nil {
			out = append(out,
				One("process_cpu_seconds_total", "CPU time of pmc exporter (user + system), in seconds.", Counter,
					float64(st.utime+st.stime)/userHZ),
				One("process_resident_memory_bytes", "pmc exporter's memory in RAM (RSS), in bytes.", Gauge,
					float64(st.rssPages)*float64(unix.PageSize())),
				One("process_virtual_memory_bytes", "pmc exporter's address space (VSZ), in bytes.", Gauge, float64(st.vsize)))
			if boot, err := bootTime(root); err == nil {
				out = append(out, One("process_start_time_seconds", "When pmc exporter started, in seconds since 1970 (UTC).", Gauge,
					float64(boot)+float64(st.start)/userHZ))
			}
		}
		if fds, err := fs.ReadDir(root, "proc/self/fd"); err == nil {
			out = append(out, One("process_open_fds", "File descriptors pmc exporter holds open (events x CPUs per counted target, and its sockets).", Gauge, float64(len(fds))))
		}
		var lim unix.Rlimit
		if unix.Getrlimit(unix.RLIMIT_NOFILE, &lim) == nil {
			out = append(out, One("process_max_fds", "pmc exporter's limit of open file descriptors (RLIMIT_NOFILE).", Gauge, float64(lim.Cur)))
		}
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		out = append(out,
			One("go_goroutines", "Goroutines in pmc exporter now.", Gauge, float64(runtime.NumGoroutine())),
			One("go_memstats_heap_alloc_bytes", "Bytes of pmc exporter's Go heap in use.", Gauge, float64(ms.HeapAlloc)),
			One("go_memstats_sys_bytes", "Bytes the Go runtime holds from the kernel, for pmc exporter.", Gauge, float64(ms.Sys)),
			Family{Name: "go_info", Help: "The Go version pmc was built with; always 1.", Type: Gauge,
				Series: []Series{{Labels: []Label{{"version", runtime.Version()}}, Value: 1}}})
		return out
	}
}

// selfStat holds the fields of /proc/self/stat the metrics use (clock fields in USER_HZ ticks).
type selfStat struct {
	utime, stime, start uint64
	vsize, rssPages     uint64
}

// readSelfStat parses /proc/self/stat: "pid (comm) state ppid ...", comm may hold spaces
// and parentheses, so fields are counted after the last ")".
func readSelfStat(root fs.FS) (selfStat, error) {
	b, err := fs.ReadFile(root, "proc/self/stat")
	if err != nil {
		return selfStat{}, err
	}
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return selfStat{}, errors.New("/proc/self/stat: no command name")
	}
	f := strings.Fields(string(b[i+1:])) // f[0] is field 3 (state)
	if len(f) < 22 {
		return selfStat{}, errors.New("/proc/self/stat: too few fields")
	}
	var st selfStat
	for _, x := range []struct {
		field int
		to    *uint64
	}{{14, &st.utime}, {15, &st.stime}, {22, &st.start}, {23, &st.vsize}, {24, &st.rssPages}} {
		if *x.to, err = strconv.ParseUint(f[x.field-3], 10, 64); err != nil {
			return selfStat{}, errors.New("/proc/self/stat: field " + strconv.Itoa(x.field) + ": " + err.Error())
		}
	}
	return st, nil
}

// bootTime is /proc/stat's btime: when the machine booted, in seconds since the epoch.
func bootTime(root fs.FS) (uint64, error) {
	b, err := fs.ReadFile(root, "proc/stat")
	if err != nil {
		return 0, err
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "btime "); ok {
			return strconv.ParseUint(strings.TrimSpace(v), 10, 64)
		}
	}
	return 0, errors.New("/proc/stat: no btime")
}
