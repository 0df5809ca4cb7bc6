package host

import (
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"

	"github.com/pmc-tools/pmc/internal/result"
)

// CPUTopology is where one CPU sits: socket (physical package), die, core and NUMA node.
type CPUTopology struct {
	Socket, Die, Core int
	Node              int // from the cpuN/nodeM link; 0 on a kernel without NUMA
}

// Topology reads the socket, die and core of each CPU from sysfs
// (devices/system/cpu/cpuN/topology). A CPU without die_id (older kernels) is on die 0.
func (m *Machine) Topology(cpus []int) (map[int]CPUTopology, error) {
	if m.Sys == nil {
		return nil, fs.ErrNotExist
	}
	read := func(cpu int, name string) (int, error) {
		b, err := fs.ReadFile(m.Sys, fmt.Sprintf("devices/system/cpu/cpu%d/topology/%s", cpu, name))
		if err != nil {
			return 0, err
		}
		return strconv.Atoi(strings.TrimSpace(string(b)))
	}
	out := map[int]CPUTopology{}
	for _, c := range cpus {
		var t CPUTopology
		var err error
		if t.Socket, err = read(c, "physical_package_id"); err != nil {
			return nil, fmt.Errorf("CPU %d topology: %w", c, err)
		}
		if t.Core, err = read(c, "core_id"); err != nil {
			return nil, fmt.Errorf("CPU %d topology: %w", c, err)
		}
		t.Die, _ = read(c, "die_id")
		t.Node = cpuNode(m.Sys, c)
		out[c] = t
	}
	return out, nil
}

// cpuNode is the NUMA node of cpu: the M of its devices/system/cpu/cpuN/nodeM link, 0 when
// there is none (a kernel without CONFIG_NUMA has one node).
func cpuNode(sys fs.FS, cpu int) int {
	ents, _ := fs.ReadDir(sys, fmt.Sprintf("devices/system/cpu/cpu%d", cpu))
	for _, e := range ents {
		if n, err := strconv.Atoi(strings.TrimPrefix(e.Name(), "node")); err == nil && strings.HasPrefix(e.Name(), "node") {
			return n
		}
	}
	return 0
}

// Aggregate groups cpus by socket ("socket": ids S0, S1), die ("die": S0-D1), core ("core":
// S0-D0-C3) or NUMA node ("node": N0), as perf stat --per-socket, --per-die, --per-core and
// --per-node name them; groups and their CPUs are sorted.
func Aggregate(by string, topo map[int]CPUTopology, cpus []int) (*result.Aggregation, error) {
	ids := map[string][]int{}
	for _, c := range cpus {
		t, ok := topo[c]
		if !ok {
			return nil, fmt.Errorf("CPU %d: no topology", c)
		}
		var id string
		switch by {
		case "socket":
			id = fmt.Sprintf("S%d", t.Socket)
		case "die":
			id = fmt.Sprintf("S%d-D%d", t.Socket, t.Die)
		case "core":
			id = fmt.Sprintf("S%d-D%d-C%d", t.Socket, t.Die, t.Core)
		case "node":
			id = fmt.Sprintf("N%d", t.Node)
		default:
			return nil, fmt.Errorf("aggregation %q: want socket, die, core or node", by)
		}
		ids[id] = append(ids[id], c)
	}
	agg := &result.Aggregation{By: by}
	for id, cs := range ids {
		sort.Ints(cs)
		agg.Groups = append(agg.Groups, result.AggrGroup{ID: id, CPUs: cs})
	}
	sort.Slice(agg.Groups, func(i, j int) bool { return agg.Groups[i].CPUs[0] < agg.Groups[j].CPUs[0] })
	return agg, nil
}
