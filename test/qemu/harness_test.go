package qemu

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pmc-tools/pmc/internal/testenv"
)

// bootTimeout bounds one guest run (boot + every command of its batch); PMC_QEMU_TIMEOUT
// (seconds) raises it on a loaded machine (2 shared cores and other QEMU runs: batches took
// over 3 minutes before the 100 runs of the error-bound test, which take about 4 minutes of
// emulation on their own, and 20 at a load of 30).
var bootTimeout = func() time.Duration {
	if s, err := strconv.Atoi(os.Getenv("PMC_QEMU_TIMEOUT")); err == nil && s > 0 {
		return time.Duration(s) * time.Second
	}
	return 900 * time.Second
}()

// Cmd is one command of a guest's batch.
type Cmd struct {
	Name string // how tests find it
	Line string // the /cmds line
}

// guestRun is the outcome of one guest's boot.
type guestRun struct {
	g       Guest
	cmds    []Cmd
	console Console
	log     []byte
	err     error // setup, boot or parse failure: every test of the guest fails with it
	pmcErr  error // pmc did not build for this guest: every pmc test fails with it
	skip    string
}

// builds are the guest files, built once per architecture (guests that are Like another
// share its binaries).
type builds struct {
	once   sync.Once
	files  []File
	pmcErr error
	err    error
}

var (
	bootOnce sync.Once
	runs     = map[string]*guestRun{}
	wlErr    error // `make -C workloads cross` failed or does not exist yet
)

// needPMC fails the test when pmc or the workloads did not build for guest g.
func needPMC(t *testing.T, g Guest) {
	t.Helper()
	enabled(t)
	bootOnce.Do(bootAll)
	if err := runs[g.Name].pmcErr; err != nil {
		t.Fatalf("pmc did not build for %s: %v", g.Name, err)
	}
	if wlErr != nil {
		t.Fatalf("workloads did not build for the guests: %v", wlErr)
	}
}

// enabled reports whether guest tests should run; otherwise the test is skipped.
func enabled(t *testing.T) {
	t.Helper()
	if os.Getenv("PMC_QEMU") != "1" {
		t.Skip("guest tests boot QEMU only with PMC_QEMU=1 (make test-qemu)")
	}
}

// section returns the output of the named command on guest g, booting all guests on first use.
func section(t *testing.T, g Guest, name string) Section {
	t.Helper()
	enabled(t)
	bootOnce.Do(bootAll)
	r := runs[g.Name]
	if r.skip != "" {
		testenv.Missing(t, "%s: %s", g.Name, r.skip)
	}
	if r.err != nil {
		t.Fatalf("%v", r.err)
	}
	n := -1
	for i, c := range r.cmds {
		if c.Name == name {
			n = i
		}
	}
	if n < 0 {
		t.Fatalf("%s: no command %q in the batch", g.Name, name)
	}
	s, ok := r.console.Sections[n]
	if !ok || !s.Ended {
		t.Fatalf("%s: command %q (%s) did not finish; console tail:\n%s", g.Name, name, r.cmds[n].Line, Tail(r.log, 40))
	}
	return s
}

// ok returns the output of a command that must exit 0.
func ok(t *testing.T, g Guest, name string) string {
	t.Helper()
	s := section(t, g, name)
	if s.Status != 0 {
		t.Fatalf("%s: %q exited %d:\n%s", g.Name, name, s.Status, s.Output)
	}
	return s.Output
}

func logf(format string, a ...any) { fmt.Fprintf(os.Stderr, "qemu: "+format+"\n", a...) }

// bootAll prepares the shared builds, then boots every guest concurrently (one QEMU each).
func bootAll() {
	start := time.Now()
	root, err := Root()
	if err != nil {
		for _, g := range booted() {
			runs[g.Name] = &guestRun{g: g, err: err}
		}
		return
	}
	cache := filepath.Join(root, ".cache", "qemu")
	work, err := os.MkdirTemp("", "pmc-qemu-")
	if err == nil {
		defer os.RemoveAll(work)
	}
	wlErr = buildWorkloads(root, filepath.Join(cache, "workloads"))
	logf("workloads built in %.1fs: %v", time.Since(start).Seconds(), errStr(wlErr))
	var wg sync.WaitGroup
	var mu sync.Mutex
	shared := map[string]*builds{}
	for _, g := range booted() {
		if shared[g.wlDir()] == nil {
			shared[g.wlDir()] = &builds{}
		}
	}
	for _, g := range booted() {
		r := &guestRun{g: g}
		runs[g.Name] = r
		if err != nil {
			r.err = err
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.prepareAndBoot(root, cache, work, shared[g.wlDir()], &mu)
		}()
	}
	wg.Wait()
	logf("all guests done in %.1fs", time.Since(start).Seconds())
}

func errStr(err error) string {
	if err == nil {
		return "ok"
	}
	return err.Error()
}

func (r *guestRun) prepareAndBoot(root, cache, workRoot string, b *builds, mu *sync.Mutex) {
	g := r.g
	t0 := time.Now()
	kernels := cache // test/qemu/kernels.sh puts them there, or in $PMC_QEMU_CACHE
	if d := os.Getenv("PMC_QEMU_CACHE"); d != "" {
		kernels = d
	}
	kernel := filepath.Join(kernels, g.Kernel)
	if _, err := os.Stat(kernel); err != nil {
		r.skip = fmt.Sprintf("kernel %s missing: run test/qemu/kernels.sh (make test-qemu does)", kernel)
		return
	}
	for _, tool := range []string{g.QEMU, "dtc", g.CC} {
		if _, err := exec.LookPath(tool); err != nil {
			r.skip = fmt.Sprintf("%s not installed: run scripts/deps.sh", tool)
			return
		}
	}
	work := filepath.Join(workRoot, g.Name)
	if err := os.MkdirAll(work, 0o755); err != nil {
		r.err = err
		return
	}
	b.once.Do(func() {
		b.pmcErr = buildPMC(root, g, filepath.Join(work, "pmc"))
		b.files, b.err = guestFiles(root, work, filepath.Join(cache, "workloads"), g, b.pmcErr, wlErr)
	})
	r.pmcErr = b.pmcErr
	files, err := append([]File{}, b.files...), b.err
	if err != nil {
		r.err = fmt.Errorf("%s: %w", g.Name, err)
		return
	}
	r.cmds = batch(g, files)
	var lines []string
	for _, c := range r.cmds {
		lines = append(lines, c.Line)
	}
	files = append(files, Regular("/cmds", []byte(strings.Join(lines, "\n")+"\n")))
	img, err := Initramfs(files)
	if err != nil {
		r.err = err
		return
	}
	initrd := filepath.Join(work, "initrd.cpio.gz")
	if err := os.WriteFile(initrd, img, 0o644); err != nil {
		r.err = err
		return
	}
	dtb := ""
	if g.PatchDTB {
		if dtb, err = g.MakeDTB(context.Background(), work); err != nil {
			r.err = fmt.Errorf("%s: %w", g.Name, err)
			return
		}
	}
	prep := time.Since(t0)
	logPath := filepath.Join(cache, g.Name+".console.log")
	lf, err := os.Create(logPath)
	if err != nil {
		r.err = err
		return
	}
	defer lf.Close()
	fmt.Fprintf(lf, "# %s\n", g.CommandLine(kernel, initrd, dtb))
	t1 := time.Now()
	r.log, r.err = g.Boot(context.Background(), kernel, initrd, dtb, bootTimeout, lf)
	mu.Lock()
	logf("%s: prepared in %.1fs (initramfs %d KiB), ran %d commands in %.1fs; console log %s",
		g.Name, prep.Seconds(), len(img)/1024, len(r.cmds), time.Since(t1).Seconds(), logPath)
	mu.Unlock()
	if r.err != nil {
		return
	}
	r.console, r.err = ParseConsole(r.log)
	if r.err == nil && !r.console.Done {
		r.err = fmt.Errorf("%s: guest did not finish its commands; console tail:\n%s", g.Name, Tail(r.log, 40))
	}
}
