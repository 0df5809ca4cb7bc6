// Command mkarchive writes FILE.pmcsym beside each recording FILE given, from this
// machine's binaries, their debug files and /proc/kallsyms: the symbols the samples hit
// (no line tables), the unwind tables of the sampled objects and the DWARF scopes of the
// functions the call chains pass through. test/dwarfcorpus/regen.sh runs it on the machine
// that made the recordings; the test then reports them from the archives alone.
package main

import (
	"bytes"
	"fmt"
	"os"

	"github.com/pmc-tools/pmc/internal/perfdata"
	"github.com/pmc-tools/pmc/internal/profile/fromperf"
	"github.com/pmc-tools/pmc/internal/record"
	"github.com/pmc-tools/pmc/internal/symbol"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: mkarchive FILE...")
		os.Exit(2)
	}
	for _, file := range os.Args[1:] {
		if err := archive(file); err != nil {
			fmt.Fprintf(os.Stderr, "mkarchive: %s: %v\n", file, err)
			os.Exit(1)
		}
	}
}

func archive(file string) error {
	pf, err := perfdata.Open(file)
	if err != nil {
		return err
	}
	defer pf.Close()
	res := symbol.NewResolver(os.DirFS("/"))
	p, err := fromperf.Build(pf, res)
	if err != nil {
		return err
	}
	tables := record.KeepCallGraphs(pf, p, res, record.ArchiveTables(p, true))
	var buf bytes.Buffer
	if err := symbol.WriteArchive(&buf, tables); err != nil {
		return err
	}
	return os.WriteFile(symbol.ArchivePath(file), buf.Bytes(), 0o644)
}
