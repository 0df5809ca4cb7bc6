package proffmt

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/pmc-tools/pmc/internal/perfdata"
)

// HeaderInfo is what perf report --header prints of a file beside its contents.
type HeaderInfo struct {
	Captured time.Time // the file's modification time
	Events   []string  // the events' names, as the report names them
}

// Header writes what perf report --header-only prints: the file's layout, then each
// feature it has in the order of their bits (those perf shows only with -I said to be
// there), then the features it lacks. A pipe has no layout (perf prints zeroes) and its
// features, in records, follow the header's end.
func Header(w io.Writer, f *perfdata.File, info HeaderInfo) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "# ========\n# captured on    : %s\n", info.Captured.Local().Format("Mon Jan _2 15:04:05 2006"))
	if f.Pipe {
		fmt.Fprintf(bw, "# header version : 1\n# data offset    : 0\n# data size      : 0\n# feat offset    : 0\n# ========\n#\n")
		for bit := 1; bit < len(featureNames); bit++ {
			if f.Features.Has(bit) {
				writeFeature(bw, f, bit, info)
			}
		}
		return bw.Flush()
	}
	fmt.Fprintf(bw, "# header version : 1\n# data offset    : %d\n# data size      : %d\n# feat offset    : %d\n",
		f.Data.Offset, f.Data.Size, f.Data.Offset+f.Data.Size)
	fs := &f.Features
	var missing []string
	for bit := 1; bit < len(featureNames); bit++ {
		if !fs.Has(bit) {
			missing = append(missing, featureNames[bit])
			continue
		}
		writeFeature(bw, f, bit, info)
	}
	fmt.Fprintf(bw, "# missing features: %s \n# ========\n#\n", strings.Join(missing, " "))
	return bw.Flush()
}

// featureNames are perf 6.1's names of the feature bits (HEADER_*), from bit 1.
var featureNames = [...]string{"", "TRACING_DATA", "BUILD_ID", "HOSTNAME", "OSRELEASE", "VERSION",
	"ARCH", "NRCPUS", "CPUDESC", "CPUID", "TOTAL_MEM", "CMDLINE", "EVENT_DESC", "CPU_TOPOLOGY",
	"NUMA_TOPOLOGY", "BRANCH_STACK", "PMU_MAPPINGS", "GROUP_DESC", "AUXTRACE", "STAT", "CACHE",
	"SAMPLE_TIME", "MEM_TOPOLOGY", "CLOCKID", "DIR_FORMAT", "BPF_PROG_INFO", "BPF_BTF",
	"COMPRESSED", "CPU_PMU_CAPS", "CLOCK_DATA", "HYBRID_TOPOLOGY", "PMU_CAPS"}

// writeFeature writes feature bit's lines as perf prints them without -I.
func writeFeature(w *bufio.Writer, f *perfdata.File, bit int, info HeaderInfo) {
	fs := &f.Features
	switch bit {
	case perfdata.FeatHostname:
		fmt.Fprintf(w, "# hostname : %s\n", fs.Hostname)
	case perfdata.FeatOSRelease:
		fmt.Fprintf(w, "# os release : %s\n", fs.OSRelease)
	case perfdata.FeatVersion:
		fmt.Fprintf(w, "# perf version : %s\n", fs.Version)
	case perfdata.FeatArch:
		fmt.Fprintf(w, "# arch : %s\n", fs.Arch)
	case perfdata.FeatNrCPUs:
		fmt.Fprintf(w, "# nrcpus online : %d\n# nrcpus avail : %d\n", fs.NrCPUsOnline, fs.NrCPUsAvailable)
	case perfdata.FeatCPUDesc:
		fmt.Fprintf(w, "# cpudesc : %s\n", fs.CPUDesc)
	case perfdata.FeatCPUID:
		fmt.Fprintf(w, "# cpuid : %s\n", fs.CPUID)
	case perfdata.FeatTotalMem:
		fmt.Fprintf(w, "# total memory : %d kB\n", fs.TotalMemKB)
	case perfdata.FeatCmdline:
		fmt.Fprintf(w, "# cmdline : ")
		for _, a := range fs.Cmdline {
			fmt.Fprintf(w, "%s ", a)
		}
		fmt.Fprintln(w)
	case perfdata.FeatEventDesc:
		for _, ev := range fs.EventDescs {
			fmt.Fprintf(w, "# event : name = %s, ", ev.Name)
			if len(ev.IDs) > 0 {
				fmt.Fprintf(w, ", id = {")
				for j, id := range ev.IDs {
					if j > 0 {
						w.WriteByte(',')
					}
					fmt.Fprintf(w, " %d", id)
				}
				fmt.Fprintf(w, " }")
			}
			writeAttr(w, ev.Attr)
			fmt.Fprintln(w)
		}
	case perfdata.FeatBranchStack:
		fmt.Fprintf(w, "# contains samples with branch stack\n")
	case perfdata.FeatPMUMappings:
		if len(fs.PMUMappings) == 0 {
			fmt.Fprintf(w, "# pmu mappings: not available\n")
			break
		}
		fmt.Fprintf(w, "# pmu mappings: ")
		for i, m := range fs.PMUMappings {
			if i > 0 {
				fmt.Fprintf(w, ", ")
			}
			fmt.Fprintf(w, "%s = %d", m.Name, m.Type)
		}
		fmt.Fprintln(w)
	case perfdata.FeatGroupDesc:
		for _, g := range fs.Groups {
			if g.Members < 2 || g.Leader+g.Members > len(info.Events) {
				continue
			}
			fmt.Fprintf(w, "# group: %s{%s}\n", g.Name, strings.Join(info.Events[g.Leader:g.Leader+g.Members], ","))
		}
	case perfdata.FeatAuxtrace:
		fmt.Fprintf(w, "# contains AUX area data (e.g. instruction trace)\n")
	case perfdata.FeatStat:
		fmt.Fprintf(w, "# contains stat data\n")
	case perfdata.FeatSampleTime:
		first, last := fs.SampleTime[0], fs.SampleTime[1]
		fmt.Fprintf(w, "# time of first sample : %d.%06d\n# time of last sample : %d.%06d\n# sample duration : %10.3f ms\n",
			first/1e9, first%1e9/1e3, last/1e9, last%1e9/1e3, float64(last-first)/1e6)
	case perfdata.FeatClockID:
		fmt.Fprintf(w, "# clockid frequency: %d MHz\n", fs.ClockRes)
	case perfdata.FeatDirFormat:
		fmt.Fprintf(w, "# directory data version : %d\n", fs.DirFormat)
	case perfdata.FeatCompressed:
		if c := fs.Compressed; c != nil {
			typ := "Unknown"
			if c.Type == perfdata.CompressZstd {
				typ = "Zstd"
			}
			fmt.Fprintf(w, "# compressed : %s, level = %d, ratio = %d\n", typ, c.Level, c.Ratio)
		}
	case perfdata.FeatCPUPMUCaps, perfdata.FeatPMUCaps:
		for _, p := range fs.PMUCaps {
			if len(p.Caps) == 0 {
				fmt.Fprintf(w, "# %s pmu capabilities: not available\n", p.PMU)
				continue
			}
			fmt.Fprintf(w, "# %s pmu capabilities: %s\n", p.PMU, strings.Join(p.Caps, ", "))
		}
	case 13, 14, 20, 22, 30: // CPU_TOPOLOGY, NUMA_TOPOLOGY, CACHE, MEM_TOPOLOGY, HYBRID_TOPOLOGY
		fmt.Fprintf(w, "# %s info available, use -I to display\n", featureNames[bit])
	}
}
