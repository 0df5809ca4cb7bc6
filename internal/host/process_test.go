package host

import (
	"os"
	"os/exec"
	"testing"
	"time"
)

func TestProcess(t *testing.T) {
	m := Live()
	tids, err := m.Threads(os.Getpid())
	if err != nil || len(tids) < 2 || tids[0] != os.Getpid() {
		t.Errorf("threads of this Go process: %v %v", tids, err)
	}
	state, uid, err := m.Process(os.Getpid())
	if err != nil || state != 'R' && state != 'S' || uid != os.Getuid() {
		t.Errorf("this process: state %q uid %d %v", state, uid, err)
	}
	// A child that exited and was not reaped is a zombie.
	cmd := exec.Command("true")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if state, _, _ = m.Process(cmd.Process.Pid); state == 'Z' {
			break
		}
	}
	if state != 'Z' {
		t.Errorf("unreaped child: state %q, want Z", state)
	}
	if _, _, err := m.Process(1 << 30); err != ErrNoProcess {
		t.Errorf("no such pid: %v", err)
	}
}
