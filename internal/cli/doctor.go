package cli

import (
	"github.com/spf13/cobra"

	"github.com/pmc-tools/pmc/internal/doctor"
)

func newDoctorCmd(e *env) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "doctor [--json]",
		Short: "say whether hardware counting works here and, if not, why and how to fix it",
		Long: `Check everything hardware counting needs, one check per line with a verdict (ok, warning,
problem) and the fix for every problem: perf_event_open and the kernel configuration, the
cpu PMU (its counters, measured, and which generic events open), virtual machines (the
hypervisor and how to give its guests a PMU), the device tree's or ACPI's PMU description
on ARM boards, perf_event_paranoid, capabilities, lockdown and seccomp, and counters taken
by others. Exit status 0 when a hardware event opens, 1 when none does. --json writes the
schema pmc.doctor/v1 (docs/json-schema.md).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			r := doctor.Diagnose(e.machine(), e.platform(), doctor.ProbeKernel())
			if err := r.Write(e.stdout, asJSON); err != nil || !r.HardwareCounting {
				return &exitError{code: 1, err: err} // no message when the report says it
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "JSON output (schema pmc.doctor/v1)")
	return cmd
}
