package perfevent

import (
	"testing"
	"time"

	"github.com/pmc-tools/pmc/internal/testenv"
)

// TestPollerWakeIsSticky: a Wake that comes before Wait, or between two Waits, is never
// lost: every Wait after it returns at once, woken. (The wake-up used to be drained by the
// Wait that saw it, so a loop that went back to Wait(-1) slept for good.)
func TestPollerWakeIsSticky(t *testing.T) {
	testenv.CheckFDs(t)
	p, err := NewPoller()
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if woken, err := p.Wait(0); woken || err != nil {
		t.Fatalf("Wait before any Wake: woken %v, %v", woken, err)
	}
	p.Wake()
	p.Wake() // twice is harmless
	for i := 0; i < 3; i++ {
		if woken, err := p.Wait(-1); !woken || err != nil {
			t.Fatalf("Wait %d after Wake: woken %v, %v", i, woken, err)
		}
	}
}

// TestPollerWakeDuringWait: Wake from another goroutine ends a Wait(-1) in progress, every
// time (repeated, with the Wake racing the Wait's start).
func TestPollerWakeDuringWait(t *testing.T) {
	testenv.CheckFDs(t)
	for i := 0; i < 200; i++ {
		p, err := NewPoller()
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			if i%2 == 0 {
				time.Sleep(time.Duration(i%7) * 100 * time.Microsecond)
			}
			p.Wake()
		}()
		done := make(chan bool, 1)
		go func() {
			w, _ := p.Wait(-1)
			done <- w
		}()
		select {
		case w := <-done:
			if !w {
				t.Fatalf("round %d: Wait returned without the wake-up", i)
			}
		case <-time.After(time.Minute): // a hang detector, not a speed limit
			t.Fatalf("round %d: Wait(-1) missed the wake-up", i)
		}
		p.Close()
	}
}
