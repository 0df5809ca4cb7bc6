package perfevent

import (
	"encoding/binary"
	"errors"
	"fmt"

	"golang.org/x/sys/unix"
)

// Targets of perf_event_open(2): pid and cpu arguments.
const (
	AnyCPU        = -1 // count the task on whichever CPU it runs
	AllTasks      = -1 // with a cpu >= 0: every task on that CPU (system-wide)
	CallingThread = 0
)

// Counter is one open perf event fd. It owns the fd: Close releases it.
type Counter struct {
	fd    int
	attr  Attr
	name  string
	group bool // leader of a group read with PERF_FORMAT_GROUP
}

// Value is one reading: the count and the kernel's enabled/running times in nanoseconds.
type Value struct {
	Raw     uint64
	Enabled uint64
	Running uint64
	ID      uint64
	Lost    uint64
}

// Open calls perf_event_open(2) for attr on pid/cpu. leader is nil for a standalone event or
// a group leader, else the group's leader. name is used in errors only.
func Open(name string, attr Attr, pid, cpu int, leader *Counter) (*Counter, error) {
	k, err := Encode(attr)
	if err != nil {
		return nil, fmt.Errorf("encoding %q: %w", name, err)
	}
	groupFd := -1
	if leader != nil {
		groupFd = leader.fd
	}
	fd, err := unix.PerfEventOpen(k, pid, cpu, groupFd, unix.PERF_FLAG_FD_CLOEXEC)
	if err != nil {
		var errno unix.Errno
		if !errors.As(err, &errno) {
			return nil, fmt.Errorf("opening %q: %w", name, err)
		}
		return nil, &OpenError{Event: name, PID: pid, CPU: cpu, Errno: errno, Err: classify(errno)}
	}
	return &Counter{fd: fd, attr: attr, name: name}, nil
}

// Read reads the counter with its own read_format (PERF_FORMAT_GROUP is not used by Read).
func (c *Counter) Read() (Value, error) {
	if c.attr.ReadFormat&FormatGroup != 0 {
		vs, err := c.ReadGroup()
		if err != nil || len(vs) == 0 {
			return Value{}, err
		}
		return vs[0], nil
	}
	buf := make([]byte, 8*5)
	n, err := unix.Read(c.fd, buf)
	if err != nil {
		return Value{}, fmt.Errorf("reading %q: %w", c.name, err)
	}
	return ParseRead(buf[:n], c.attr.ReadFormat)
}

// ReadGroup reads a leader opened with PERF_FORMAT_GROUP: one Value per member, leader first.
func (c *Counter) ReadGroup() ([]Value, error) {
	buf := make([]byte, 8*(3+64*3))
	n, err := unix.Read(c.fd, buf)
	if err != nil {
		return nil, fmt.Errorf("reading group %q: %w", c.name, err)
	}
	return ParseGroupRead(buf[:n], c.attr.ReadFormat)
}

// ParseRead decodes the read(2) layout of a single counter (struct read_format without GROUP).
func ParseRead(b []byte, format uint64) (Value, error) {
	var v Value
	words := func() ([]uint64, error) {
		if len(b)%8 != 0 {
			return nil, fmt.Errorf("short read: %d bytes", len(b))
		}
		w := make([]uint64, len(b)/8)
		for i := range w {
			w[i] = binary.NativeEndian.Uint64(b[8*i:])
		}
		return w, nil
	}
	w, err := words()
	if err != nil {
		return v, err
	}
	next := func() (uint64, error) {
		if len(w) == 0 {
			return 0, errors.New("short read")
		}
		x := w[0]
		w = w[1:]
		return x, nil
	}
	fields := []struct {
		on  bool
		dst *uint64
	}{
		{true, &v.Raw},
		{format&FormatTotalTimeEnabled != 0, &v.Enabled},
		{format&FormatTotalTimeRunning != 0, &v.Running},
		{format&FormatID != 0, &v.ID},
		{format&FormatLost != 0, &v.Lost},
	}
	for _, f := range fields {
		if f.on {
			if *f.dst, err = next(); err != nil {
				return Value{}, err
			}
		}
	}
	return v, nil
}

// ParseGroupRead decodes the PERF_FORMAT_GROUP layout: nr, [enabled], [running], then nr x
// {value, [id], [lost]}. Every member shares the group's enabled and running times.
func ParseGroupRead(b []byte, format uint64) ([]Value, error) {
	if len(b) < 8 || len(b)%8 != 0 {
		return nil, fmt.Errorf("short group read: %d bytes", len(b))
	}
	w := make([]uint64, len(b)/8)
	for i := range w {
		w[i] = binary.NativeEndian.Uint64(b[8*i:])
	}
	nr := w[0]
	w = w[1:]
	var enabled, running uint64
	if format&FormatTotalTimeEnabled != 0 {
		if len(w) == 0 {
			return nil, errors.New("short group read")
		}
		enabled, w = w[0], w[1:]
	}
	if format&FormatTotalTimeRunning != 0 {
		if len(w) == 0 {
			return nil, errors.New("short group read")
		}
		running, w = w[0], w[1:]
	}
	per := uint64(1)
	if format&FormatID != 0 {
		per++
	}
	if format&FormatLost != 0 {
		per++
	}
	if nr > uint64(len(w))/per {
		return nil, fmt.Errorf("group read claims %d members, has room for %d", nr, uint64(len(w))/per)
	}
	out := make([]Value, nr)
	for i := range out {
		v := Value{Raw: w[0], Enabled: enabled, Running: running}
		j := 1
		if format&FormatID != 0 {
			v.ID = w[j]
			j++
		}
		if format&FormatLost != 0 {
			v.Lost = w[j]
		}
		w = w[per:]
		out[i] = v
	}
	return out, nil
}

func (c *Counter) ioctl(req uint) error {
	return unix.IoctlSetInt(c.fd, req, 0)
}

// Enable, Disable and Reset issue PERF_EVENT_IOC_ENABLE/DISABLE/RESET on this counter.
func (c *Counter) Enable() error  { return c.ioctl(unix.PERF_EVENT_IOC_ENABLE) }
func (c *Counter) Disable() error { return c.ioctl(unix.PERF_EVENT_IOC_DISABLE) }
func (c *Counter) Reset() error   { return c.ioctl(unix.PERF_EVENT_IOC_RESET) }

// Close releases the fd. Closing twice is harmless.
func (c *Counter) Close() error {
	if c == nil || c.fd < 0 {
		return nil
	}
	err := unix.Close(c.fd)
	c.fd = -1
	return err
}

// FD exposes the descriptor for polling (sampling); the Counter keeps ownership.
func (c *Counter) FD() int { return c.fd }
