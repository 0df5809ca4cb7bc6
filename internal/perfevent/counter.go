package perfevent

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/pmc-tools/pmc/internal/unix"
)

// Targets of perf_event_open(2): pid and cpu arguments.
const (
	AnyCPU        = -1 // count the task on whichever CPU it runs
	AllTasks      = -1 // with a cpu >= 0: every task on that CPU (system-wide)
	CallingThread = 0
)

// Counter is one open perf event fd. It owns the fd: Close releases it.
type Counter struct {
	fd      int
	attr    Attr
	name    string
	id      uint64 // kernel event id (PERF_EVENT_IOC_ID), to find this member in a group read
	members int    // a leader's group size (itself included): sizes the group read
	leader  *Counter
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
	return open(name, attr, pid, cpu, leader, unix.PERF_FLAG_FD_CLOEXEC)
}

// OpenCgroup counts the tasks of a cgroup on one CPU (perf stat -G): cgroupFD is an open
// cgroup v2 directory (unix.OpenCgroupDir), passed as the pid with PERF_FLAG_PID_CGROUP.
// cpu must be a CPU: the kernel counts cgroups per CPU only.
func OpenCgroup(name string, attr Attr, cgroupFD, cpu int, leader *Counter) (*Counter, error) {
	return open(name, attr, cgroupFD, cpu, leader, unix.PERF_FLAG_FD_CLOEXEC|unix.PERF_FLAG_PID_CGROUP)
}

func open(name string, attr Attr, pid, cpu int, leader *Counter, flags int) (*Counter, error) {
	k, err := Encode(attr)
	if err != nil {
		return nil, fmt.Errorf("encoding %q: %w", name, err)
	}
	groupFd := -1
	if leader != nil {
		groupFd = leader.fd
	}
	fd, err := unix.PerfEventOpen(k, pid, cpu, groupFd, flags)
	if err != nil {
		var errno unix.Errno
		if !errors.As(err, &errno) {
			return nil, fmt.Errorf("opening %q: %w", name, err)
		}
		return nil, &OpenError{Event: name, PID: pid, CPU: cpu, Errno: errno, Err: classify(errno),
			Cgroup: flags&unix.PERF_FLAG_PID_CGROUP != 0}
	}
	c := &Counter{fd: fd, attr: attr, name: name, members: 1}
	c.leader = c
	if leader != nil {
		c.leader = leader
		leader.members++
	}
	if attr.ReadFormat&FormatGroup != 0 {
		if err := c.readID(); err != nil {
			c.Close()
			return nil, fmt.Errorf("event id of %q: %w", name, err)
		}
	}
	return c, nil
}

func (c *Counter) readID() error {
	id, err := unix.PerfEventID(c.fd)
	if err != nil {
		return err
	}
	c.id = id
	return nil
}

// Read reads this counter's value. With PERF_FORMAT_GROUP the kernel returns the whole
// group (leader first) from any member's fd; Read picks this counter's entry by its id.
func (c *Counter) Read() (Value, error) {
	if c.attr.ReadFormat&FormatGroup != 0 {
		vs, err := c.ReadGroup()
		if err != nil {
			return Value{}, err
		}
		return pick(vs, c.id, c.attr.ReadFormat)
	}
	buf := make([]byte, 8*5)
	n, err := unix.Read(c.fd, buf)
	if err != nil {
		return Value{}, fmt.Errorf("reading %q: %w", c.name, err)
	}
	return ParseRead(buf[:n], c.attr.ReadFormat)
}

// ReadGroup reads a leader opened with PERF_FORMAT_GROUP: one Value per member, leader first.
// The buffer is sized from the members opened with this leader.
func (c *Counter) ReadGroup() ([]Value, error) {
	buf := make([]byte, groupReadSize(c.attr.ReadFormat, c.leader.members))
	n, err := unix.Read(c.fd, buf)
	if err != nil {
		return nil, fmt.Errorf("reading group %q: %w", c.name, err)
	}
	return ParseGroupRead(buf[:n], c.attr.ReadFormat)
}

// groupReadSize is the size in bytes of a PERF_FORMAT_GROUP read of n members: nr, the
// optional times, then per member the value and the optional id and lost count.
func groupReadSize(format uint64, n int) int {
	words := 1
	per := 1
	for _, bit := range []uint64{FormatTotalTimeEnabled, FormatTotalTimeRunning} {
		if format&bit != 0 {
			words++
		}
	}
	for _, bit := range []uint64{FormatID, FormatLost} {
		if format&bit != 0 {
			per++
		}
	}
	return 8 * (words + n*per)
}

// ID is the kernel's id of the event (PERF_EVENT_IOC_ID), read when it was opened with
// PERF_FORMAT_GROUP; it finds the member in its group's read.
func (c *Counter) ID() uint64 { return c.id }

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

// pick finds the member with id in a group read. Without PERF_FORMAT_ID there is no way to
// tell members apart, which is an error rather than a silently wrong value.
func pick(vs []Value, id uint64, format uint64) (Value, error) {
	if format&FormatID == 0 {
		return Value{}, errors.New("group read without PERF_FORMAT_ID cannot identify members")
	}
	for _, v := range vs {
		if v.ID == id {
			return v, nil
		}
	}
	return Value{}, fmt.Errorf("event id %d not in its group's read", id)
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

// KernelID asks the kernel for the counter's event id (PERF_EVENT_IOC_ID), the id its
// samples carry.
func (c *Counter) KernelID() (uint64, error) {
	if c.id != 0 {
		return c.id, nil
	}
	if err := c.readID(); err != nil {
		return 0, fmt.Errorf("event id of %q: %w", c.name, err)
	}
	return c.id, nil
}

// Name is the event's name as opened.
func (c *Counter) Name() string { return c.name }
