package record

import (
	"fmt"
	"io"

	"github.com/pmc-tools/pmc/internal/perfdata"
	"github.com/pmc-tools/pmc/internal/profile"
	"github.com/pmc-tools/pmc/internal/profile/fromperf"
	"github.com/pmc-tools/pmc/internal/symbol"
)

// Embed reads a finished recording back, symbolizes it with res and writes to out the
// symbol archive (FILE.pmcsym, symbol.WriteArchive) that lets pmc report name its samples
// where the binaries are missing or changed: every sampled DSO's table, and the kernel's
// symbols that samples hit. keep, when not nil, may add to the tables (machine code for
// annotate). It returns the profile (for warnings about DSOs without symbols) and the
// number of tables written.
func Embed(perfData string, out io.Writer, res *symbol.Resolver,
	keep func(*profile.Profile, []*symbol.Table) []*symbol.Table) (*profile.Profile, int, error) {
	pf, err := perfdata.Open(perfData)
	if err != nil {
		return nil, 0, fmt.Errorf("--embed-symbols: reading %s back: %w", perfData, err)
	}
	defer pf.Close()
	p, err := fromperf.Build(pf, res)
	if err != nil {
		return nil, 0, fmt.Errorf("--embed-symbols: reading %s back: %w", perfData, err)
	}
	tables := ArchiveTables(p, false)
	if keep != nil {
		tables = keep(p, tables) // before KeepCallGraphs's copies: keep knows the profile's tables
	}
	tables = KeepCallGraphs(pf, p, res, tables)
	if err := symbol.WriteArchive(out, tables); err != nil {
		return p, 0, err
	}
	return p, len(tables), nil
}

// ArchiveTables are the tables an archive keeps: every sampled DSO's whole table, and of
// the kernel's (all of /proc/kallsyms) the symbols that samples hit, under the kernel's
// name and build-id as the recording gives them. trimAll keeps only the hit symbols of
// every table (and no line tables): the least that reproduces the report.
func ArchiveTables(p *profile.Profile, trimAll bool) []*symbol.Table {
	hit := map[*symbol.Table]map[uint64]bool{}
	for i := range p.Samples {
		for _, l := range p.Samples[i].Stack {
			if t := l.DSO.Table; t != nil && l.Sym != nil && !l.Sym.Unknown {
				if hit[t] == nil {
					hit[t] = map[uint64]bool{}
				}
				hit[t][l.Sym.Start] = true
			}
		}
	}
	kernelID := ""
	for _, d := range p.DSOs {
		if d.Name == symbol.KernelName {
			kernelID = d.BuildID
		}
	}
	tables := p.SampledTables()
	for i, t := range tables {
		kernel := t.Kind == symbol.KindKernel
		if !kernel && !trimAll {
			continue
		}
		k := *t
		k.Syms = nil
		for _, s := range t.Syms {
			if hit[t][s.Addr] {
				k.Syms = append(k.Syms, s)
			}
		}
		if kernel {
			k.Path, k.BuildID = symbol.KernelName, kernelID
		}
		if trimAll {
			k.Lines = nil
		}
		tables[i] = &k
	}
	return tables
}
