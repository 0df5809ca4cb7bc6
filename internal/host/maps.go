package host

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"sort"
	"strconv"
	"strings"
)

// Mapping is one line of /proc/PID/maps.
type Mapping struct {
	Start, End, Offset uint64
	Perms              string // "r-xp"
	Maj, Min           uint32
	Inode              uint64
	Path               string // "" for anonymous memory, "[vdso]", "[stack]"...
}

// ParseMaps parses the text of /proc/PID/maps; lines it cannot read are skipped.
func ParseMaps(b []byte) []Mapping {
	var out []Mapping
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 5 {
			continue
		}
		lo, hi, ok := strings.Cut(f[0], "-")
		maj, min, ok2 := strings.Cut(f[3], ":")
		if !ok || !ok2 {
			continue
		}
		var m Mapping
		var errs [6]error
		m.Start, errs[0] = strconv.ParseUint(lo, 16, 64)
		m.End, errs[1] = strconv.ParseUint(hi, 16, 64)
		m.Offset, errs[2] = strconv.ParseUint(f[2], 16, 64)
		var mj, mn uint64
		mj, errs[3] = strconv.ParseUint(maj, 16, 32)
		mn, errs[4] = strconv.ParseUint(min, 16, 32)
		m.Inode, errs[5] = strconv.ParseUint(f[4], 10, 64)
		if errors.Join(errs[:]...) != nil {
			continue
		}
		m.Maj, m.Min, m.Perms = uint32(mj), uint32(mn), f[1]
		if len(f) > 5 {
			// The path is the rest of the line after the inode (it may hold spaces).
			rest := line
			for k := 0; k < 5; k++ {
				rest = strings.TrimLeft(rest, " ")
				rest = rest[strings.IndexByte(rest, ' ')+1:]
			}
			m.Path = strings.TrimSpace(rest)
		}
		out = append(out, m)
	}
	return out
}

// Maps reads the memory mappings of process pid.
func (m *Machine) Maps(pid int) ([]Mapping, error) {
	b, err := m.procFile(pid, "maps")
	if err != nil {
		return nil, err
	}
	return ParseMaps(b), nil
}

// Comm reads a process's (or thread's) command name and its parent's pid (/proc/PID/stat).
func (m *Machine) Comm(pid int) (comm string, ppid int, err error) {
	b, err := m.procFile(pid, "stat")
	if err != nil {
		return "", 0, err
	}
	s := string(b)
	i, j := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if i < 0 || j < i {
		return "", 0, fmt.Errorf("/proc/%d/stat: no command name", pid)
	}
	f := strings.Fields(s[j+1:])
	if len(f) >= 2 {
		ppid, _ = strconv.Atoi(f[1])
	}
	return s[i+1 : j], ppid, nil
}

// Pids lists every process id, sorted.
func (m *Machine) Pids() ([]int, error) {
	if m.root == nil {
		return nil, ErrNoProcess
	}
	ents, err := fs.ReadDir(m.root, "proc")
	if err != nil {
		return nil, err
	}
	var pids []int
	for _, e := range ents {
		if pid, err := strconv.Atoi(e.Name()); err == nil && pid > 0 {
			pids = append(pids, pid)
		}
	}
	sort.Ints(pids)
	return pids, nil
}

func (m *Machine) procFile(pid int, name string) ([]byte, error) {
	if m.root == nil {
		return nil, ErrNoProcess
	}
	b, err := fs.ReadFile(m.root, fmt.Sprintf("proc/%d/%s", pid, name))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, ErrNoProcess
	}
	return b, err
}

// KernelText finds the kernel's text start (_text) and end (_etext) in /proc/kallsyms
// (zero when the addresses are hidden: kptr_restrict). It reads the file line by line and
// stops at the two symbols: the whole table is 5-10 MB, which pmc record used to hold (and
// grow through) in memory for these two addresses.
func (m *Machine) KernelText() (start, end uint64) {
	f, err := m.openKallsyms()
	if err != nil {
		return 0, 0
	}
	defer f.Close()
	return parseKernelText(f)
}

// parseKernelText finds _text and _etext in kallsyms text. It looks at each line's bytes
// where the scanner holds them: the file is about 200,000 lines, and a string per line was
// most of pmc record's garbage (13 MB for two addresses).
func parseKernelText(r io.Reader) (start, end uint64) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 64<<10)
	for sc.Scan() && (start == 0 || end == 0) {
		line := sc.Bytes()
		text, etext := bytes.HasSuffix(line, []byte(" _text")), bytes.HasSuffix(line, []byte(" _etext"))
		if !text && !etext {
			continue
		}
		f := bytes.Fields(line)
		if len(f) != 3 {
			continue
		}
		addr, err := strconv.ParseUint(string(f[0]), 16, 64)
		if err != nil {
			continue
		}
		if text {
			start = addr
		} else {
			end = addr
		}
	}
	if end <= start {
		return 0, 0
	}
	return start, end
}
