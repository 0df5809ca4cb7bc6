package shim

import "testing"

func TestParseSpec(t *testing.T) {
	f, err := ParseSpec("2:3:4:5:/usr/bin/a:b c")
	if err != nil || f != (Spec{3, 4, 5, "/usr/bin/a:b c"}) {
		t.Errorf("ParseSpec = %+v %v", f, err)
	}
	for _, bad := range []string{"", "stale", "1:3:4:/x", "2:3:4:5:", "2:3:3:5:/x", "2:3:4:3:/x", "2:3:4:4:/x",
		"2:0:4:5:/x", "2:x:4:5:/x", "2:3:-1:5:/x", "2:+3:4:5:/x", "2:03:4:5:/x", "2:3:4:/x"} {
		if _, err := ParseSpec(bad); err == nil {
			t.Errorf("ParseSpec(%q) accepted", bad)
		}
	}
}

// The spec parser never panics, and what the parent writes reads back the same.
func FuzzParseSpec(f *testing.F) {
	for _, s := range []string{"2:3:4:5:/bin/true", "2:3:4:5:a:b", "2:4:3:5:x", "0:::", "2:99999999999999999999:4:5:/x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		fds, err := ParseSpec(spec)
		if err != nil {
			return
		}
		if fds.GoFD < 3 || fds.ErrFD < 3 || fds.ReadyFD < 3 || fds.GoFD == fds.ErrFD ||
			fds.ReadyFD == fds.GoFD || fds.ReadyFD == fds.ErrFD || fds.Path == "" {
			t.Errorf("ParseSpec(%q) = %+v", spec, fds)
		}
		if back := fds.String(); back != spec {
			t.Errorf("round trip %q -> %q", spec, back)
		}
	})
}
