package mem

import (
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"
)

// TestReadCachesZen3VM reads the snapshot of the development VM's cpu0 caches (copied from
// /sys/devices/system/cpu/cpu0/cache on the AMD EPYC Zen 3 KVM guest).
func TestReadCachesZen3VM(t *testing.T) {
	got, err := ReadCaches(os.DirFS("testdata/sysfs/zen3-vm"), 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []Cache{
		{Level: 1, Type: "Data", SizeBytes: 32 << 10, LineBytes: 64, Ways: 8, SharedCPUs: "0"},
		{Level: 1, Type: "Instruction", SizeBytes: 32 << 10, LineBytes: 64, Ways: 8, SharedCPUs: "0"},
		{Level: 2, Type: "Unified", SizeBytes: 512 << 10, LineBytes: 64, Ways: 8, SharedCPUs: "0"},
		{Level: 3, Type: "Unified", SizeBytes: 32 << 20, LineBytes: 64, Ways: 16, SharedCPUs: "0-1"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
	var names []string
	for _, c := range got {
		names = append(names, c.Name())
	}
	if s := strings.Join(names, " "); s != "L1d L1i L2 L3" {
		t.Errorf("names %q", s)
	}
}

func cacheFS(files map[string]string) fstest.MapFS {
	m := fstest.MapFS{}
	for k, v := range files {
		m["devices/system/cpu/cpu0/cache/"+k] = &fstest.MapFile{Data: []byte(v)}
	}
	return m
}

// TestReadCachesOptionalFiles: only level, type and size are required; index order in the
// directory does not matter (index10 sorts before index2 by name).
func TestReadCachesOptionalFiles(t *testing.T) {
	fsys := cacheFS(map[string]string{
		"index10/level": "2\n", "index10/type": "Unified\n", "index10/size": "1024K\n",
		"index2/level": "1\n", "index2/type": "Data\n", "index2/size": "32K\n",
		"uevent": "",
	})
	got, err := ReadCaches(fsys, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []Cache{{Level: 1, Type: "Data", SizeBytes: 32 << 10}, {Level: 2, Type: "Unified", SizeBytes: 1 << 20}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
}

func TestReadCachesErrors(t *testing.T) {
	cases := map[string]struct {
		fsys fstest.MapFS
		want string
	}{
		"no dir":     {fstest.MapFS{}, "no cache descriptions"},
		"no index":   {cacheFS(map[string]string{"uevent": ""}), "no index directories"},
		"no size":    {cacheFS(map[string]string{"index0/level": "1", "index0/type": "Data"}), "size"},
		"bad level":  {cacheFS(map[string]string{"index0/level": "one", "index0/type": "Data", "index0/size": "1K"}), `bad level "one"`},
		"bad type":   {cacheFS(map[string]string{"index0/level": "1", "index0/type": "Trace", "index0/size": "1K"}), `unknown type "Trace"`},
		"bad size":   {cacheFS(map[string]string{"index0/level": "1", "index0/type": "Data", "index0/size": "32Q"}), `bad size "32Q"`},
		"zero level": {cacheFS(map[string]string{"index0/level": "0", "index0/type": "Data", "index0/size": "1K"}), "bad level"},
	}
	for name, c := range cases {
		_, err := ReadCaches(c.fsys, 0)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", name, err, c.want)
		}
	}
	if _, err := ReadCaches(fstest.MapFS{}, 0); !errors.Is(err, ErrNoCaches) {
		t.Errorf("a missing directory is not ErrNoCaches: %v", err)
	}
}

func TestParseSize(t *testing.T) {
	good := map[string]int64{"4096": 4096, "32K": 32 << 10, "32768K": 32 << 20, "1M": 1 << 20, "256MiB": 256 << 20,
		"4KiB": 4096, "2G": 2 << 30, " 16k\n": 16 << 10, "64B": 64, "0": 0}
	for in, want := range good {
		if got, err := ParseSize(in); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "K", "-1K", "1.5M", "12X", "99999999999G", "1KK"} {
		if _, err := ParseSize(in); err == nil {
			t.Errorf("ParseSize(%q) accepted", in)
		}
	}
}

func TestFormatSize(t *testing.T) {
	for in, want := range map[int64]string{64: "64 B", 4096: "4 KiB", 46336: "45.2 KiB", 32 << 20: "32 MiB",
		3 << 30: "3 GiB", 1536 << 10: "1536 KiB", 1448<<10 + 64: "1.4 MiB"} {
		if got := FormatSize(in); got != want {
			t.Errorf("FormatSize(%d) = %q, want %q", in, got, want)
		}
	}
}

// FuzzParseSize: no panic, and every accepted size prints and parses back to itself when it
// is a whole number of its unit.
func FuzzParseSize(f *testing.F) {
	for _, s := range []string{"32K", "32768K", "1M", "256MiB", "4096", "", "K", "-1", "9223372036854775807", "1G"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseSize(s)
		if err != nil {
			return
		}
		if v < 0 {
			t.Fatalf("ParseSize(%q) = %d, negative", s, v)
		}
		out := FormatSize(v)
		if strings.Contains(out, ".") {
			return
		}
		back, err := ParseSize(strings.ReplaceAll(out, " ", ""))
		if err != nil || back != v {
			t.Fatalf("%q -> %d -> %q -> %d, %v", s, v, out, back, err)
		}
	})
}
