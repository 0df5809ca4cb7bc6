package stat

import (
	"fmt"
	"os"
	"sort"
	"strconv"

	"github.com/pmc-tools/pmc/internal/pmu"
	"github.com/pmc-tools/pmc/internal/unix"
)

// procThreads lists the thread ids of pid from /proc/PID/task.
func procThreads(pid int) ([]int, error) {
	ents, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil {
		if os.IsNotExist(err) {
			return nil, fmt.Errorf("no such process")
		}
		return nil, err
	}
	var tids []int
	for _, e := range ents {
		if tid, err := strconv.Atoi(e.Name()); err == nil {
			tids = append(tids, tid)
		}
	}
	sort.Ints(tids)
	return tids, nil
}

func onlineCPUs() ([]int, error) {
	b, err := os.ReadFile("/sys/devices/system/cpu/online")
	if err != nil {
		return nil, err
	}
	return pmu.ParseCPUList(string(b))
}

// signalName is the kernel's name of sig ("SIGINT"), or "signal N".
func signalName(sig unix.Signal) string {
	if n := unix.SignalName(sig); n != "" {
		return n
	}
	return fmt.Sprintf("signal %d", int(sig))
}
