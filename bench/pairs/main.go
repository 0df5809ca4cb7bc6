// Command pairs times two commands in interleaved pairs (A B A B ...) and prints, for CPU
// time, wall time and peak RSS, each command's median and the median of the per-pair ratios
// A/B with their range. Interleaving makes load from other jobs and the CPU's speed swings
// hit both alike; the per-pair ratio cancels what a pair shares. CPU time is user + system
// of the command and every descendant it waited for (wait4's rusage), peak RSS the largest
// of those processes. Run by hand, through bench/launch.sh:
//
//	go run ./bench/pairs -n 30 -label stat -a 'bin/pmc stat -e task-clock -- /bin/true' -b 'perf stat -e task-clock -- /bin/true'
//
// Commands are split on spaces (no shell: a shell would add its own start-up to the
// figures); their output goes to /dev/null.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"time"
)

type sample struct {
	cpu, wall time.Duration
	rssKB     int64
}

func run(argv []string) (sample, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return sample{}, err
	}
	defer null.Close()
	cmd.Stdin, cmd.Stdout, cmd.Stderr = null, null, null
	start := time.Now()
	err = cmd.Run()
	wall := time.Since(start)
	if cmd.ProcessState == nil {
		return sample{}, err
	}
	ru, _ := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	s := sample{cpu: cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(), wall: wall}
	if ru != nil {
		s.rssKB = int64(ru.Maxrss)
	}
	if err != nil {
		return s, fmt.Errorf("%s: %v", strings.Join(argv, " "), err)
	}
	return s, nil
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

func main() {
	n := flag.Int("n", 20, "counted pairs")
	warmup := flag.Int("warmup", 2, "pairs run first and not counted")
	a := flag.String("a", "", "command A (pmc)")
	b := flag.String("b", "", "command B (the peer tool)")
	label := flag.String("label", "", "name of the comparison")
	okFail := flag.Bool("allow-fail", false, "count runs that exit non-zero (a workload's own status)")
	tsv := flag.Bool("tsv", false, "one tab-separated line: label, then per figure (cpu ms, wall ms, peak RSS MiB) A's median, B's median and the median ratio A/B")
	flag.Parse()
	if *a == "" || *b == "" || *n < 1 {
		fmt.Fprintln(os.Stderr, "usage: pairs [-n RUNS] [-warmup N] -label NAME -a 'CMD A' -b 'CMD B'")
		os.Exit(2)
	}
	argvA, argvB := strings.Fields(*a), strings.Fields(*b)
	var sa, sb []sample
	for i := 0; i < *warmup+*n; i++ {
		x, errA := run(argvA)
		y, errB := run(argvB)
		for _, err := range []error{errA, errB} {
			if err != nil && !*okFail {
				fmt.Fprintf(os.Stderr, "pairs: %v\n", err)
				os.Exit(1)
			}
		}
		if i >= *warmup {
			sa, sb = append(sa, x), append(sb, y)
		}
	}
	type metric struct {
		name, unit string
		of         func(sample) float64
	}
	var row []string
	for _, m := range []metric{
		{"cpu", "ms", func(s sample) float64 { return float64(s.cpu) / 1e6 }},
		{"wall", "ms", func(s sample) float64 { return float64(s.wall) / 1e6 }},
		{"peak RSS", "MiB", func(s sample) float64 { return float64(s.rssKB) / 1024 }},
	} {
		var xa, xb, ratio []float64
		for i := range sa {
			va, vb := m.of(sa[i]), m.of(sb[i])
			xa, xb = append(xa, va), append(xb, vb)
			if vb > 0 {
				ratio = append(ratio, va/vb)
			}
		}
		if *tsv {
			r := 0.0
			if len(ratio) > 0 {
				r = median(ratio)
			}
			row = append(row, fmt.Sprintf("%.2f\t%.2f\t%.3f", median(xa), median(xb), r))
			continue
		}
		if len(ratio) == 0 {
			continue
		}
		fmt.Printf("%-22s %-8s A %8.2f %-3s  B %8.2f %-3s  A/B median %.2f (%.2f..%.2f, %d pairs)\n",
			*label, m.name, median(xa), m.unit, median(xb), m.unit, median(ratio), slices.Min(ratio), slices.Max(ratio), len(ratio))
	}
	if *tsv {
		fmt.Printf("%s\t%s\n", *label, strings.Join(row, "\t"))
	}
}
