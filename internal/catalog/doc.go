// Package catalog is pmc's event catalog: per-CPU tables of hardware performance events,
// written as JSON in the kernel's pmu-events field names (EventName, EventCode, UMask,
// BriefDescription, PublicDescription, ArchStdEvent, Unit), one folder per CPU under data/.
// go generate (gen/) parses and checks them and writes tables_gen.go, which the linker lays
// out as static data: pmc reads and parses no table when it runs, and a lookup touches only
// the table it reads. TestGeneratedTablesAreCurrent fails when data/ changed without it.
//
// Each table also records how the Linux driver for that CPU maps the generic perf names
// (cycles, cache-misses, L1-dcache-loads, ...) to raw events, including the names it leaves
// unsupported, with a caveat in words where the generic name misleads: on a Cortex-A7
// L1-dcache-loads and L1-dcache-stores are the same event (0x04), and cache-misses is an L1
// refill on Arm but a last-level miss on Intel.
//
// data/mapfile.json ties CPU identities to tables: Arm by MIDR implementer and part number
// (and, for Armv8 cores under a 32-bit kernel, the architecture cpuinfo reports), x86 by
// vendor, family and model range. Identify reads that identity from a /-rooted fs.FS
// (proc/cpuinfo, and midr_el1 from sysfs when cpuinfo lacks it).
//
// Event codes are facts taken from the Arm, Intel and AMD manuals and checked against the
// Linux drivers and pmu-events tables; the descriptions are pmc's own. LoadExtra reads more
// tables at run time (pmc --event-file) in the pmu-events array format or the Intel perfmon
// {"Header":...,"Events":[...]} format.
package catalog

//go:generate go run ./gen
