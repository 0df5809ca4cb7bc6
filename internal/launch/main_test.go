package launch

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"testing"
	"time"

	"github.com/pmc-tools/pmc/internal/launch/shim"
	"github.com/pmc-tools/pmc/internal/unix"
)

// The test binary plays three roles besides running tests. As the shim it needs nothing
// here: the package's init runs first. Other roles are chosen by testModeEnv:
//   - "pmc": a minimal pmc: start os.Args[1:], forward signals, wait, report on fd 3;
//   - "sigcount": a workload counting the SIGINTs it gets;
//   - "dump": a workload printing its argv, environment, cwd and stdin as JSON.
const testModeEnv = "PMC_LAUNCH_TEST_MODE"

func TestMain(m *testing.M) {
	switch mode := os.Getenv(testModeEnv); mode {
	case "":
		os.Exit(m.Run())
	case "pmc":
		os.Exit(miniPMC())
	case "sigcount":
		os.Exit(sigCount())
	case "dump":
		os.Exit(dump())
	default:
		fmt.Fprintf(os.Stderr, "unknown %s=%q\n", testModeEnv, mode)
		os.Exit(2)
	}
}

// report is what miniPMC writes to fd 3 once the workload ended.
type report struct {
	Pid      int
	Status   Status
	ExitCode int
	ExecErr  string
	Survived bool
}

func miniPMC() int {
	out := os.NewFile(3, "report")
	env := shim.WithoutVar(os.Environ(), testModeEnv)
	ch, err := Start(Cmd{Args: os.Args[1:], Env: env, Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr})
	if err != nil {
		fmt.Fprintln(os.Stderr, "pmc:", err)
		return 1
	}
	stop, _ := ForwardSignals(ch)
	if err := ch.Exec(); err != nil {
		fmt.Fprintln(os.Stderr, "pmc:", err)
		return 1
	}
	fmt.Fprintf(out, "pid %d\n", ch.Pid())
	st, err := ch.Wait(context.Background())
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "pmc:", err)
		return 1
	}
	r := report{Pid: ch.Pid(), Status: st, ExitCode: st.ExitCode(), Survived: true}
	if st.ExecErr != nil {
		r.ExecErr = st.ExecErr.Error()
	}
	b, _ := json.Marshal(r)
	fmt.Fprintf(out, "%s\n", b)
	return 0
}

// sigCount says "ready" on stdout, counts SIGINTs until 400 ms after the first one (or 20 s),
// and prints the count.
func sigCount() int {
	c := make(chan os.Signal, 16)
	signal.Notify(c, unix.SIGINT)
	fmt.Println("ready")
	n := 0
	deadline := time.After(20 * time.Second)
	for {
		select {
		case <-c:
			if n == 0 {
				deadline = time.After(400 * time.Millisecond)
			}
			n++
		case <-deadline:
			fmt.Println(n)
			return 0
		}
	}
}

type dumped struct {
	Args  []string
	Env   []string
	Cwd   string
	Stdin []byte
}

func dump() int {
	cwd, _ := os.Getwd()
	in, _ := io.ReadAll(os.Stdin)
	// os.Environ drops duplicate names: read the environment as the kernel passed it.
	raw, _ := os.ReadFile("/proc/self/environ")
	env := strings.Split(strings.TrimSuffix(string(raw), "\x00"), "\x00")
	b, _ := json.Marshal(dumped{Args: os.Args, Env: env, Cwd: cwd, Stdin: in})
	os.Stdout.Write(b)
	return 0
}
