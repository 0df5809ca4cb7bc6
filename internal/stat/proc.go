package stat

import (
	"fmt"

	"github.com/pmc-tools/pmc/internal/unix"
)

// signalName is the kernel's name of sig ("SIGINT"), or "signal N".
func signalName(sig unix.Signal) string {
	if n := unix.SignalName(sig); n != "" {
		return n
	}
	return fmt.Sprintf("signal %d", int(sig))
}
