package launch

import (
	"os"
	"os/signal"
	"sync"
	"time"

	"github.com/pmc-tools/pmc/internal/unix"
)

// Grace is how long pmc waits, after passing on SIGTERM, SIGHUP or SIGQUIT, for the
// workload to end before it gives up waiting (perf stat exits at once; a workload that
// ignores the signal must not keep pmc alive).
var Grace = time.Second

// ForwardSignals keeps pmc alive through SIGINT, SIGTERM, SIGHUP and SIGQUIT while the
// workload runs, and passes each to the workload, so that Wait returns the workload's status
// and the caller can still print its counts. Call it before Exec and call stop after Wait;
// stop restores the default actions.
//
// giveUp delivers the signal that ends pmc's wait although the workload still runs: a second
// signal, or Grace after a forwarded SIGTERM, SIGHUP or SIGQUIT. The caller then reports the
// counts so far and leaves the workload to itself.
//
// The signals are caught with signal.Notify, never ignored: an ignored signal would stay
// ignored in the workload across exec.
//
// A ^C or ^\ typed at the terminal already reaches the workload, which is in pmc's process
// group. Forwarding it too would deliver it twice, and a workload that handles the first
// (an interpreter cleaning up) would be interrupted again. So SIGINT and SIGQUIT are not
// forwarded while pmc's process group is the terminal's foreground group; in that state a
// `kill -INT` aimed at pmc alone is not passed on either (use SIGTERM for that). SIGTERM and
// SIGHUP are always forwarded.
func ForwardSignals(ch *Child) (stop func(), giveUp <-chan os.Signal) {
	c := make(chan os.Signal, 8)
	signal.Notify(c, unix.SIGINT, unix.SIGTERM, unix.SIGHUP, unix.SIGQUIT)
	quit := make(chan struct{})
	finished := make(chan struct{})
	up := make(chan os.Signal, 1)
	go func() {
		defer close(finished)
		var grace <-chan time.Time
		var last os.Signal
		seen := 0
		for {
			select {
			case sig := <-c:
				seen++
				last = sig
				if seen > 1 {
					up <- sig
					return
				}
				if sig != unix.SIGINT && grace == nil {
					t := time.NewTimer(Grace)
					defer t.Stop()
					grace = t.C
				}
				if fromTerminal(sig) {
					continue
				}
				ch.Signal(sig) // ErrProcessDone after exit: nothing left to tell
			case <-grace:
				up <- last
				return
			case <-quit:
				return
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			signal.Stop(c)
			close(quit)
			<-finished
		})
	}, up
}

// fromTerminal reports whether sig is one the terminal sends to its whole foreground process
// group and pmc is in that group, so the workload got it already.
func fromTerminal(sig os.Signal) bool {
	if sig != unix.SIGINT && sig != unix.SIGQUIT {
		return false
	}
	fg, err := foregroundOfTTY()
	return err == nil && fg
}
