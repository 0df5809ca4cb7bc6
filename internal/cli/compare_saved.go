package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/pmc-tools/pmc/internal/compare"
	"github.com/pmc-tools/pmc/internal/host"
	"github.com/pmc-tools/pmc/internal/result"
	"github.com/pmc-tools/pmc/internal/sim"
)

// readSaved reads saved results: each pmc.stat/v1 document (pmc stat --json, include/pmc.h)
// is one command, each command of a pmc.compare/v1 document one more. Metrics are computed
// per run from the counts, with the metric flags, as for measured runs (the machine's facts
// are not known: the generic definitions apply).
func readSaved(e *env, f *compareFlags, args []string) (*compare.Comparison, error) {
	s := &f.stat
	if s.changed("event") || s.changed("runs") || s.changed("warmup") || s.changed("duration") || s.changed("shell") || len(f.fakes) > 0 {
		return nil, usageErr(errors.New("-e, -r, --warmup, --duration and --shell are for running commands: saved results are compared as they are (-M computes metrics from their counts)"))
	}
	empty := host.Empty()
	facts := empty
	if s.metric.fakeMachine != "" {
		var err error
		if facts, _, err = statMachines(e, s); err != nil {
			return nil, usageErr(err)
		}
	}
	plan, err := newMetricPlan(&s.metric, facts, empty)
	if err != nil {
		return nil, usageErr(err)
	}
	c := &compare.Comparison{Source: "saved"}
	for _, path := range args {
		data, err := readInput(path, nil, limitResult, "pmc compare")
		if err != nil {
			return nil, usageErr(err)
		}
		name := filepath.Base(path)
		var head struct {
			Schema string `json:"schema"`
		}
		if err := json.NewDecoder(bytes.NewReader(data)).Decode(&head); err != nil {
			return nil, usageErr(fmt.Errorf("%s: not pmc JSON (%v): give pmc stat --json or pmc compare --json output", name, err))
		}
		switch head.Schema {
		case compare.Schema:
			prev, err := compare.Decode(data)
			if err != nil {
				return nil, usageErr(fmt.Errorf("%s: %w", name, err))
			}
			for _, cmd := range prev.Commands {
				cmd.File = name + ": " + cmd.Label
				cmd.Label = f.label(len(c.Commands))
				c.Commands = append(c.Commands, cmd)
			}
		case result.SchemaVersion, result.IntervalSchema:
			err := result.Decode(bytes.NewReader(data), func(doc *result.Stat, _ json.RawMessage) error {
				if len(doc.Runs) == 0 {
					return errors.New("no runs: save it with pmc stat --json")
				}
				doc.Sanitize() // names from a file must not drive the terminal (as pmc show)
				cmd := compare.Command{Label: f.label(len(c.Commands)), Command: doc.Command, File: name, Machine: doc.Machine, Backend: doc.Backend,
					Simulation: simulationOf(doc.Backend, doc.Notes)}
				for _, r := range doc.Runs {
					run := toCompareRun(r, plan)
					if run.Failed() {
						cmd.Failed++
					}
					cmd.Runs = append(cmd.Runs, run)
				}
				c.Commands = append(c.Commands, cmd)
				return nil
			})
			if err != nil {
				return nil, usageErr(fmt.Errorf("%s: %w", name, err))
			}
		default:
			return nil, usageErr(fmt.Errorf("%s: schema %q: want %s (pmc stat --json) or %s (pmc compare --json)", name, head.Schema, result.SchemaVersion, compare.Schema))
		}
	}
	if len(f.names) > len(c.Commands) {
		return nil, usageErr(fmt.Errorf("-n: %d names for %d results", len(f.names), len(c.Commands)))
	}
	return c, nil
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
