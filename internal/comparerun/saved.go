package comparerun

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/pmc-tools/pmc/internal/compare"
	"github.com/pmc-tools/pmc/internal/result"
	"github.com/pmc-tools/pmc/internal/sim"
)

// SavedOptions say how ReadSaved reads saved results.
type SavedOptions struct {
	// Read returns a file's bytes (bounded); its error is printed as it is.
	Read func(path string) ([]byte, error)
	// Names label the commands in order (-n); the others are A, B, C ...
	Names []string
	// Region compares this region of include/pmc.h files (with whole-program results);
	// "" compares their regions region by region.
	Region string
	// Metrics computes a run's metrics over its counts lasting sec seconds.
	Metrics func(counts []result.Count, sec float64) []result.Metric
}

// ReadSaved reads saved results: each pmc.stat/v1 document (pmc stat --json, include/pmc.h)
// is one command, each command of a pmc.compare/v1 document one more. Metrics are computed
// per run from the counts, as for measured runs. The comparison is not yet built.
func ReadSaved(paths []string, o SavedOptions) (*compare.Comparison, error) {
	c := &compare.Comparison{Source: "saved"}
	for _, path := range paths {
		data, err := o.Read(path)
		if err != nil {
			return nil, err
		}
		if err := readOne(c, filepath.Base(path), data, &o); err != nil {
			return nil, err
		}
	}
	if len(o.Names) > len(c.Commands) {
		return nil, fmt.Errorf("-n: %d names for %d results", len(o.Names), len(c.Commands))
	}
	if err := regionsOrRuns(c.Commands, o.Region); err != nil {
		return nil, err
	}
	return c, nil
}

// readOne adds the commands of the file name holding data to c.
func readOne(c *compare.Comparison, name string, data []byte, o *SavedOptions) error {
	var head struct {
		Schema string `json:"schema"`
	}
	if err := json.NewDecoder(bytes.NewReader(data)).Decode(&head); err != nil {
		return fmt.Errorf("%s: not pmc JSON (%v): give pmc stat --json or pmc compare --json output", name, err)
	}
	switch head.Schema {
	case compare.Schema:
		prev, err := compare.Decode(data)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		for _, cmd := range prev.Commands {
			cmd.File = name + ": " + cmd.Label
			cmd.Label = Label(o.Names, len(c.Commands))
			c.Commands = append(c.Commands, cmd)
		}
	case result.SchemaVersion, result.SelfSchema, result.IntervalSchema:
		err := result.Decode(bytes.NewReader(data), func(doc *result.Stat, raw json.RawMessage) error {
			if len(doc.Runs) == 0 {
				return errors.New("no runs: save it with pmc stat --json")
			}
			doc.Sanitize() // names from a file must not drive the terminal (as pmc show)
			var extra struct {
				Regions []result.Region `json:"regions"` // include/pmc.h's
			}
			if err := json.Unmarshal(raw, &extra); err != nil {
				return err
			}
			saved := result.Saved{Stat: *doc, Regions: extra.Regions}
			cmd := compare.Command{Label: Label(o.Names, len(c.Commands)), Command: doc.Command, File: name, Machine: doc.Machine, Backend: doc.Backend,
				Simulation: simulationOf(doc.Backend, doc.Notes)}
			if err := savedRuns(&cmd, &saved, o.Metrics, o.Region); err != nil {
				return err
			}
			c.Commands = append(c.Commands, cmd)
			return nil
		})
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	default:
		return fmt.Errorf("%s: schema %q: want %s (pmc stat --json) or %s (pmc compare --json)", name, head.Schema, result.SchemaVersion, compare.Schema)
	}
	return nil
}

// savedRuns gives cmd the runs of a saved result. The runs of an include/pmc.h file are its
// regions: with region the one named, else each marked with its region so the comparison
// goes region by region.
func savedRuns(cmd *compare.Command, saved *result.Saved, metrics func([]result.Count, float64) []result.Metric, region string) error {
	if !saved.SelfMeasured() || len(saved.Regions) == 0 {
		for _, r := range saved.Runs {
			run := toRun(r, metrics)
			if run.Failed() {
				cmd.Failed++
			}
			cmd.Runs = append(cmd.Runs, run)
		}
		return nil
	}
	cmd.SelfMeasured = true
	var names []string
	for _, reg := range saved.Regions {
		if reg.Run < 0 || reg.Run >= len(saved.Runs) {
			return fmt.Errorf("region %q names run %d of %d", result.Printable(reg.Name), reg.Run, len(saved.Runs))
		}
		names = append(names, result.Printable(reg.Name))
		if region != "" && reg.Name != region {
			continue
		}
		run := toRun(saved.Runs[reg.Run], metrics)
		run.Index = len(cmd.Runs)
		if region == "" {
			run.Region = result.Printable(reg.Name)
		} else {
			cmd.Region = result.Printable(reg.Name)
			cmd.File += fmt.Sprintf(": region %s (%d calls)", cmd.Region, reg.Calls)
		}
		cmd.Runs = append(cmd.Runs, run)
	}
	if region != "" && len(cmd.Runs) == 0 {
		return fmt.Errorf("no region %q: it has %s", result.Printable(region), strings.Join(names, ", "))
	}
	return nil
}

// regionsOrRuns refuses to set regions beside runs: the regions of include/pmc.h files
// compare with each other region by region, and with a whole program only when a region is
// named (--region).
func regionsOrRuns(cmds []compare.Command, region string) error {
	var self, whole []string
	var names []string
	for _, c := range cmds {
		switch {
		case c.SelfMeasured:
			self = append(self, c.File)
			if names == nil {
				for _, r := range c.Runs {
					names = append(names, r.Region)
				}
			}
		default:
			whole = append(whole, c.File)
		}
	}
	switch {
	case region != "" && len(self) == 0:
		return fmt.Errorf("--region %s: no include/pmc.h file among the inputs: it names a region of one", region)
	case region == "" && len(self) > 0 && len(whole) > 0:
		return fmt.Errorf("%s holds regions (%s) and %s whole programs: name the region to compare with them, e.g. --region %s",
			strings.Join(self, ", "), strings.Join(names, ", "), strings.Join(whole, ", "), names[0])
	}
	return nil
}

// simulationOf is what a simulated result was simulated on: the caches its SIMULATED note
// names (pmc stat --sim writes it); nil for hardware counts.
func simulationOf(backend string, notes []string) *compare.Simulation {
	if !strings.HasPrefix(backend, result.SimulatedPrefix) {
		return nil
	}
	s := &compare.Simulation{Simulator: strings.TrimPrefix(backend, result.SimulatedPrefix)}
	if g, ok := sim.GeometryOf(notes); ok {
		for _, l := range g.Levels() {
			s.Caches = append(s.Caches, compare.SimCache{Level: l.Name, SizeBytes: l.Size, Ways: l.Assoc, LineBytes: l.Line})
		}
	}
	return s
}
