package cli

import (
	"fmt"
	"os"

	"github.com/pmc-tools/pmc/internal/outfile"
	"github.com/pmc-tools/pmc/internal/perfdata"
	"github.com/pmc-tools/pmc/internal/profile"
	"github.com/pmc-tools/pmc/internal/profile/fromperf"
	"github.com/pmc-tools/pmc/internal/symbol"
)

// openArchiveOutput opens FILE.pmcsym for --embed-symbols before anything is recorded, so
// a path that cannot be written fails first.
func openArchiveOutput(perfData string) (*outfile.File, error) {
	return outfile.Create(symbol.ArchivePath(perfData), outfile.Replace)
}

// embedSymbols reads the finished recording back and writes the symbol tables of the DSOs
// that got samples into out (FILE.pmcsym), so pmc report names them where the binaries are
// missing or changed. The kernel's table keeps only the symbols samples hit.
func embedSymbols(e *env, perfData string, out *outfile.File) error {
	pf, err := perfdata.Open(perfData)
	if err != nil {
		out.Abort()
		return fmt.Errorf("--embed-symbols: reading %s back: %w", perfData, err)
	}
	defer pf.Close()
	res := symbol.NewResolver(os.DirFS("/"))
	var kernelErr error
	res.LoadKernel = func() (*symbol.Table, error) {
		t, err := readKernel(e.machine(), "")
		kernelErr = err
		return t, err
	}
	p, err := fromperf.Build(pf, res)
	if err != nil {
		out.Abort()
		return fmt.Errorf("--embed-symbols: reading %s back: %w", perfData, err)
	}
	symbolWarnings(e.stderr, "report", p, kernelErr)
	tables := keepCode(p, sampledTables(p, false), "/")
	if err := symbol.WriteArchive(out, tables); err != nil {
		out.Abort()
		return fmt.Errorf("writing %s: %w", out.Name(), err)
	}
	if err := out.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", out.Name(), err)
	}
	fmt.Fprintf(e.stderr, "[ pmc record: symbols of %d objects in %s ]\n", len(tables), out.Name())
	return nil
}

// sampledTables are the tables the archive keeps: every sampled DSO's whole table, and of
// the kernel's (all of /proc/kallsyms) the symbols that samples hit, under the kernel's
// name and build-id as the recording gives them. trimAll keeps only the hit symbols of
// every table (and no line tables): the least that reproduces the report.
func sampledTables(p *profile.Profile, trimAll bool) []*symbol.Table {
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
