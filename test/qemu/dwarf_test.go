package qemu

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pmc-tools/pmc/internal/cli"
)

// dwarfN is callchain's iteration count in the guests: with -c 100000 on cycles:u (exact
// under -icount shift=0) about 100 samples, nearly all in leaf.
const dwarfN = 2000000

// dwarfBatch records callchain (built -O2 -g -fomit-frame-pointer: no frame pointers)
// with --call-graph dwarf (issue 27) and reports it in the guest; the recording and its
// archive come back to the host.
func dwarfBatch(g Guest) []Cmd {
	return []Cmd{
		{"dwarf-record", fmt.Sprintf("/bin/pmc record -e cycles:u -c %d --call-graph dwarf --embed-symbols -o /tmp/dwarf.data -- /bin/callchain %d", recordPeriod, dwarfN)},
		{"dwarf-report", "/bin/pmc report --stdio --no-children -i /tmp/dwarf.data"},
		{"dwarf-script", "/bin/pmc script -F comm,ip,sym -i /tmp/dwarf.data"},
		{"dwarf-file", "b64 /tmp/dwarf.data"},
		{"dwarf-archive", "b64 /tmp/dwarf.data.pmcsym"},
	}
}

// TestDwarfCallGraph (issue 27): in the arm64 and armv7 guests, every sample in leaf of a
// frame-pointer-less program recorded with --call-graph dwarf has the callers mid, top,
// main (from .eh_frame on arm64; .debug_frame and the ARM exception tables on armv7), in
// pmc script's chains and in pmc report's graph; the host reports the guest's file from
// its archive alone (a board's recording on a laptop) exactly as the guest did.
func TestDwarfCallGraph(t *testing.T) {
	for _, g := range Guests {
		t.Run(g.Name, func(t *testing.T) {
			needPMC(t, g)
			rec := section(t, g, "dwarf-record")
			if rec.Status != 0 {
				t.Fatalf("%s: pmc record --call-graph dwarf exited %d:\n%s", g.Name, rec.Status, rec.Output)
			}
			script := ok(t, g, "dwarf-script")
			chains := scriptChains(script)
			var inLeaf, whole int
			for _, c := range chains {
				if len(c) == 0 || c[0] != "leaf" {
					continue
				}
				inLeaf++
				if len(c) >= 4 && strings.Join(c[:4], " ") == "leaf mid top main" {
					whole++
				} else {
					t.Errorf("%s: a sample in leaf with the chain %v", g.Name, c)
				}
			}
			t.Logf("%s: %d samples, %d in leaf, %d of them leaf <- mid <- top <- main", g.Name, len(chains), inLeaf, whole)
			if inLeaf < len(chains)*9/10 || inLeaf < 50 {
				t.Errorf("%s: %d of %d samples in leaf: want nearly all (the loop is in leaf)", g.Name, inLeaf, len(chains))
			}
			report := ok(t, g, "dwarf-report")
			if !strings.Contains(report, "---leaf\n               mid\n               top\n               main\n") {
				t.Errorf("%s: pmc report's graph lacks leaf <- mid <- top <- main:\n%s", g.Name, report)
			}
			if strings.Contains(report, "end before their outermost frame") {
				t.Logf("%s: %s", g.Name, report)
			}
			// The host, without the guest's binaries, from the archive alone.
			dir := t.TempDir()
			for name, file := range map[string]string{"dwarf-file": "dwarf.data", "dwarf-archive": "dwarf.data.pmcsym"} {
				b, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(ok(t, g, name)), ""))
				if err != nil {
					t.Fatalf("%s: %s from the console: %v", g.Name, file, err)
				}
				if err := os.WriteFile(filepath.Join(dir, file), b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if keep := os.Getenv("PMC_QEMU_KEEP"); keep != "" {
				keepDwarf(t, g, dir, keep, report)
			}
			var out, errb bytes.Buffer
			empty := t.TempDir()
			if code := cli.Run([]string{"report", "--stdio", "--no-children", "-i", filepath.Join(dir, "dwarf.data"),
				"--symfs", empty, "--kallsyms", os.DevNull}, &out, &errb); code != 0 {
				t.Fatalf("%s: pmc report on the host: exit %d: %s", g.Name, code, errb.String())
			}
			if graphOf(out.String()) != graphOf(report) {
				t.Errorf("%s: the host's report of the guest's file differs from the guest's:\nhost:\n%s\nguest:\n%s", g.Name, out.String(), report)
			}
		})
	}
}

// scriptChains reads pmc script's output (-F comm,ip,sym): each sample's chain of symbols.
func scriptChains(out string) [][]string {
	var chains [][]string
	for _, block := range strings.Split(out, "\n\n") {
		var c []string
		for _, l := range strings.Split(block, "\n") {
			if !strings.HasPrefix(l, "\t") {
				continue
			}
			f := strings.Fields(l)
			if len(f) >= 2 {
				c = append(c, f[1])
			}
		}
		if len(c) > 0 {
			chains = append(chains, c)
		}
	}
	return chains
}

// graphOf is a report's first entry and its call graph: what the host must reproduce (the
// kernel's entries depend on the guest's kernel symbols, which the host has not).
func graphOf(report string) string {
	i := strings.Index(report, "[.] leaf")
	if i < 0 {
		return ""
	}
	rest := report[i:]
	if j := strings.Index(rest, "\n\n"); j >= 0 {
		rest = rest[:j]
	}
	return rest
}

// keepDwarf copies the guest's recording, its archive and its report to keep (as
// test/dwarfcorpus keeps them: guest.NAME.data.gz, .pmcsym, .report.txt).
func keepDwarf(t *testing.T, g Guest, dir, keep, report string) {
	base := filepath.Join(keep, "guest."+g.Name+".data")
	data, err := os.ReadFile(filepath.Join(dir, "dwarf.data"))
	if err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(data)
	zw.Close()
	archive, err := os.ReadFile(filepath.Join(dir, "dwarf.data.pmcsym"))
	if err != nil {
		t.Fatal(err)
	}
	for name, b := range map[string][]byte{base + ".gz": gz.Bytes(), base + ".pmcsym": archive,
		base + ".report.txt": []byte(tipLine.ReplaceAllString(report, ""))} {
		if err := os.WriteFile(name, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

var tipLine = regexp.MustCompile(`(?m)^# \(Tip: .*\)\n`)
