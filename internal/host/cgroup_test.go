package host

import (
	"errors"
	"slices"
	"testing"
	"testing/fstest"
)

func TestCgroup2Mount(t *testing.T) {
	hybrid := "sysfs /sys sysfs rw 0 0\ntmpfs /sys/fs/cgroup tmpfs ro 0 0\ncgroup2 /sys/fs/cgroup/unified cgroup2 rw,nsdelegate 0 0\ncgroup /sys/fs/cgroup/cpu cgroup rw,cpu 0 0\n"
	if got, err := Cgroup2Mount([]byte(hybrid)); err != nil || got != "/sys/fs/cgroup/unified" {
		t.Errorf("hybrid: %q %v", got, err)
	}
	if got, _ := Cgroup2Mount([]byte(`cgroup2 /mnt/my\040cg cgroup2 rw 0 0`)); got != "/mnt/my cg" {
		t.Errorf("escaped: %q", got)
	}
	if _, err := Cgroup2Mount([]byte("cgroup /sys/fs/cgroup/cpu cgroup rw,cpu 0 0\n")); !errors.Is(err, ErrNoCgroup2) {
		t.Errorf("v1 only: %v", err)
	}
}

func TestMatchCgroups(t *testing.T) {
	fsys := fstest.MapFS{
		"cgroup.procs":                                    {},
		"system.slice/ssh.service/cgroup.procs":           {},
		"system.slice/cron.service/cgroup.procs":          {},
		"system.slice/docker-ab.scope/cgroup.procs":       {},
		"system.slice/docker-ab.scope/inner/cgroup.procs": {},
		"user.slice/user-1000.slice/cgroup.procs":         {},
	}
	got, more, err := MatchCgroups(fsys, []string{"system.slice/*.service"}, 0)
	if want := []string{"system.slice/cron.service", "system.slice/ssh.service"}; err != nil || more != 0 || !slices.Equal(got, want) {
		t.Errorf("services: %q %d %v, want %q", got, more, err, want)
	}
	got, more, _ = MatchCgroups(fsys, []string{"*", "system.slice/*"}, 3)
	if want := []string{"system.slice", "system.slice/cron.service", "system.slice/docker-ab.scope"}; !slices.Equal(got, want) || more != 2 {
		t.Errorf("limit 3: %q, %d more; want %q, 2 more", got, more, want)
	}
	if _, _, err := MatchCgroups(fsys, []string{"system.slice/["}, 0); err == nil {
		t.Error("a bad pattern was accepted")
	}
}
