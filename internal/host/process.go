package host

import (
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"
)

// ErrNoProcess: no process has that id.
var ErrNoProcess = errors.New("no such process")

// Threads lists the thread ids of process pid, sorted (/proc/PID/task).
func (m *Machine) Threads(pid int) ([]int, error) {
	if m.root == nil {
		return nil, ErrNoProcess
	}
	ents, err := fs.ReadDir(m.root, fmt.Sprintf("proc/%d/task", pid))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, ErrNoProcess
	}
	if err != nil {
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

// Process reads a process's state letter (/proc/PID/stat: R, S, D, Z...) and the real uid
// of its owner (/proc/PID/status).
func (m *Machine) Process(pid int) (state byte, uid int, err error) {
	if m.root == nil {
		return 0, 0, ErrNoProcess
	}
	stat, err := fs.ReadFile(m.root, fmt.Sprintf("proc/%d/stat", pid))
	if errors.Is(err, fs.ErrNotExist) {
		return 0, 0, ErrNoProcess
	}
	if err != nil {
		return 0, 0, err
	}
	// "PID (comm) S ...": comm may hold spaces and parentheses, the state follows the last ")".
	if i := strings.LastIndexByte(string(stat), ')'); i >= 0 && i+2 < len(stat) {
		state = stat[i+2]
	}
	status, err := fs.ReadFile(m.root, fmt.Sprintf("proc/%d/status", pid))
	if err != nil {
		return state, -1, nil
	}
	uid = -1
	for _, line := range strings.Split(string(status), "\n") {
		if rest, ok := strings.CutPrefix(line, "Uid:"); ok {
			if f := strings.Fields(rest); len(f) > 0 {
				uid, _ = strconv.Atoi(f[0])
			}
		}
	}
	return state, uid, nil
}
