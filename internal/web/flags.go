package web

import (
	"fmt"
	"sort"
	"strconv"
)

// flagSet is the command line pprof's driver parses: none of pmc's. It answers every flag
// pprof defines with its default, except the values set here (http, no_browser, symbolize,
// diff_base, normalize...), and hands pprof the profile names as its arguments. A value set
// for a flag pprof never defines is an error (Fetch reports it): a renamed pprof flag must
// not be ignored silently.
type flagSet struct {
	set     map[string]string
	args    []string
	defined map[string]bool
}

func newFlagSet(args []string, set map[string]string) *flagSet {
	return &flagSet{set: set, args: args, defined: map[string]bool{}}
}

func (f *flagSet) value(name string) (string, bool) {
	f.defined[name] = true
	v, ok := f.set[name]
	return v, ok
}

func (f *flagSet) Bool(name string, def bool, _ string) *bool {
	if v, ok := f.value(name); ok {
		def, _ = strconv.ParseBool(v)
	}
	return &def
}

func (f *flagSet) Int(name string, def int, _ string) *int {
	if v, ok := f.value(name); ok {
		def, _ = strconv.Atoi(v)
	}
	return &def
}

func (f *flagSet) Float64(name string, def float64, _ string) *float64 {
	if v, ok := f.value(name); ok {
		def, _ = strconv.ParseFloat(v, 64)
	}
	return &def
}

func (f *flagSet) String(name string, def string, _ string) *string {
	if v, ok := f.value(name); ok {
		def = v
	}
	return &def
}

func (f *flagSet) StringList(name string, def string, _ string) *[]*string {
	if v, ok := f.value(name); ok {
		def = v
	}
	return &[]*string{&def}
}

func (f *flagSet) ExtraUsage() string   { return "" }
func (f *flagSet) AddExtraUsage(string) {}

// Parse returns the profile names: there is nothing to parse.
func (f *flagSet) Parse(func()) []string { return f.args }

// unknown is an error naming the values set for flags pprof did not define.
func (f *flagSet) unknown() error {
	var names []string
	for n := range f.set {
		if !f.defined[n] {
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return nil
	}
	sort.Strings(names)
	return fmt.Errorf("pprof's driver has no flag %v: this pmc does not match its pprof", names)
}
