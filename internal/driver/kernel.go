package driver

import (
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/pmc-tools/pmc/internal/perfdata"
	"github.com/pmc-tools/pmc/internal/symbol"
)

// kernel chooses and reads the kernel's symbols for one recording, in perf report's order
// (dso__load_kernel_sym in tools/perf/util/symbol.c):
//  1. --kallsyms FILE: that file, whatever kernel it is;
//  2. --vmlinux FILE: that image, refused when its build-id is not the recording's kernel's;
//  3. the symbol archive's table for the recording's kernel build-id (perf's build-id cache);
//  4. with --symfs, nothing more: perf looks at no local file then;
//  5. the running kernel's /proc/kallsyms when its build-id (/sys/kernel/notes) is the one
//     the recording names, or the recording names none (perf's last resort);
//  6. otherwise none: a recording of another kernel keeps its kernel addresses.
type kernel struct {
	kallsyms, vmlinux string
	symfs             bool // a --symfs other than "/"
	archive           *symbol.Archive
	machine           func() Machine
	recorded          string // the build-id the recording's BUILD_ID feature gives the kernel

	running     string // the running kernel's build-id
	runningErr  error
	runningRead bool
	loads       map[source]*kernelLoad
}

// source is where the kernel's table is read from.
type source int

const (
	fromNone source = iota
	fromKallsymsFile
	fromVmlinux
	fromArchive
	fromRunning
)

// kernelLoad is one table being read (in the background when prefetched).
type kernelLoad struct {
	done chan struct{}
	t    *symbol.Table
	err  error
}

func newKernel(o Options, a *symbol.Archive, recorded string) *kernel {
	return &kernel{kallsyms: o.Kallsyms, vmlinux: o.Vmlinux, symfs: o.Symfs != "" && filepath.Clean(o.Symfs) != "/",
		archive: a, machine: o.Machine, recorded: recorded, loads: map[source]*kernelLoad{}}
}

// recordedKernel is the kernel build-id the recording's BUILD_ID feature names ("" none).
func recordedKernel(f *perfdata.File) string {
	for _, id := range f.Features.BuildIDs {
		if id.Filename == symbol.KernelName && id.Misc&7 == perfdata.MiscKernel && len(id.ID) > 0 {
			return hex.EncodeToString(id.ID)
		}
	}
	return ""
}

// mayNeedKernel says whether the recording probably has kernel samples: an event that does
// not exclude the kernel and, when the file lists the build-ids of the objects its samples
// hit (perf's BUILD_ID feature), the kernel among them. It only decides whether the
// kernel's symbols are read ahead; they are read when a kernel address needs them anyway.
func mayNeedKernel(f *perfdata.File) bool {
	kernel := false
	for _, ev := range f.Events {
		kernel = kernel || ev.Attr.Flags&perfdata.FlagExcludeKernel == 0
	}
	if !kernel || !f.Features.Has(perfdata.FeatBuildID) {
		return kernel
	}
	return recordedKernel(f) != ""
}

// choose says where the table of the kernel with build-id id comes from: a source to read,
// or the archive's table, or why there is none.
func (k *kernel) choose(id string) (source, *symbol.Table, error) {
	switch {
	case k.kallsyms != "":
		return fromKallsymsFile, nil, nil
	case k.vmlinux != "":
		return fromVmlinux, nil, nil
	}
	if t, ok := k.archive.Table(id, symbol.KernelName); ok {
		return fromArchive, t, nil
	}
	if k.symfs {
		return fromNone, nil, errors.New("with --symfs the running kernel's symbols are not used (as perf does not); give the recorded kernel's with --kallsyms FILE or --vmlinux FILE")
	}
	if id == "" {
		return fromRunning, nil, nil // perf's last resort: the file names no kernel
	}
	if !k.runningRead {
		k.runningRead = true
		k.running, k.runningErr = "", errors.New("no machine to compare it with")
		if k.machine != nil {
			k.running, k.runningErr = k.machine().KernelBuildID()
		}
	}
	switch {
	case k.runningErr != nil:
		return fromNone, nil, fmt.Errorf("the recorded kernel has build-id %s and the running kernel's is unknown (%v); give the recorded kernel's symbols with --kallsyms FILE or --vmlinux FILE", id, k.runningErr)
	case !strings.EqualFold(id, k.running):
		return fromNone, nil, fmt.Errorf("the recorded kernel (build-id %s) is not the running one (%s); give its symbols with --kallsyms FILE or --vmlinux FILE", id, k.running)
	}
	return fromRunning, nil, nil
}

// table is the Resolver's KernelTable: the kernel's table for build-id id ("" the one the
// recording's BUILD_ID feature names, if any), or why there is none.
func (k *kernel) table(id string) (*symbol.Table, error) {
	if id == "" {
		id = k.recorded
	}
	src, t, err := k.choose(id)
	if src == fromNone || src == fromArchive {
		return t, err
	}
	l := k.start(src)
	<-l.done
	if l.err != nil {
		return nil, l.err
	}
	if src == fromVmlinux && id != "" && l.t.BuildID != "" && !strings.EqualFold(id, l.t.BuildID) {
		return nil, fmt.Errorf("%s has build-id %s, the recording's kernel %s", k.vmlinux, l.t.BuildID, id)
	}
	return l.t, nil
}

// prefetch starts reading the table of the recording's kernel when it is to be read.
func (k *kernel) prefetch() {
	if src, _, err := k.choose(k.recorded); err == nil && src != fromArchive {
		k.start(src)
	}
}

// start reads the table of src in the background, once.
func (k *kernel) start(src source) *kernelLoad {
	if l, ok := k.loads[src]; ok {
		return l
	}
	l := &kernelLoad{done: make(chan struct{})}
	k.loads[src] = l
	var m Machine
	if src == fromRunning {
		if k.machine == nil {
			l.err = errors.New("no machine to read /proc/kallsyms of")
			close(l.done)
			return l
		}
		m = k.machine()
	}
	go func() {
		defer close(l.done)
		l.t, l.err = k.read(src, m)
	}()
	return l
}

func (k *kernel) read(src source, m Machine) (*symbol.Table, error) {
	switch src {
	case fromKallsymsFile:
		f, err := os.Open(k.kallsyms)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		t, err := symbol.ReadKallsyms(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", k.kallsyms, err)
		}
		return t, nil
	case fromVmlinux:
		return symbol.OpenVmlinux(k.vmlinux)
	}
	// The compact table, read as the text comes: a report keeps no copy of the text.
	if o, ok := m.(kallsymsOpener); ok {
		f, err := o.OpenKallsyms()
		if err != nil {
			return nil, err
		}
		defer f.Close()
		return symbol.ReadKallsyms(f)
	}
	text, err := m.KallsymsText()
	if err != nil {
		return nil, err
	}
	return symbol.ReadKallsyms(strings.NewReader(text))
}

// kallsymsOpener is a Machine that reads /proc/kallsyms as a stream (*host.Machine).
type kallsymsOpener interface {
	OpenKallsyms() (io.ReadCloser, error)
}

// RunningKernel reads the running kernel's symbols from m's /proc/kallsyms, every one in
// the Table's Syms.
func RunningKernel(m Machine) (*symbol.Table, error) {
	text, err := m.KallsymsText()
	if err != nil {
		return nil, err
	}
	return symbol.ParseKallsymsText(text)
}

// wait waits for the tables being read.
func (k *kernel) wait() {
	for _, l := range k.loads {
		<-l.done
	}
}
