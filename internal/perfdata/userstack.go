package perfdata

import (
	"fmt"
	"math/bits"
)

// Sample types of --call-graph dwarf: the user registers and a copy of the user stack.
const (
	SampleRegsUser  uint64 = 1 << 12
	SampleStackUser uint64 = 1 << 13
)

// The register ABIs of PERF_SAMPLE_REGS_USER (enum perf_sample_regs_abi): none (a kernel
// thread has no user registers), a 32-bit or a 64-bit task.
const (
	RegsABINone uint64 = 0
	RegsABI32   uint64 = 1
	RegsABI64   uint64 = 2
)

// maxUserStack bounds a stack copy: a record is at most 64 KiB.
const maxUserStack = 1 << 16

// UserStack is what a sample of --call-graph dwarf holds of user space at the sample:
// the registers (PERF_SAMPLE_REGS_USER) and the stack from the stack pointer up
// (PERF_SAMPLE_STACK_USER). The unwinder's input.
type UserStack struct {
	// ABI is the task's register ABI (RegsABI32, RegsABI64; RegsABINone: no registers).
	ABI uint64
	// Regs are the values of the registers the attribute's sample_regs_user names, its
	// lowest bit first (Mask).
	Regs []uint64
	Mask uint64
	// Stack is the copy's valid part, from the user stack pointer up: the kernel reserves
	// Size bytes and says how many it filled (dyn_size, Dyn). A Dyn above Size is a record
	// that claims more than it holds: Stack is then the Size bytes there are.
	Stack     []byte
	Size, Dyn uint64
}

// Short says the stack copy holds less than the record claims.
func (u *UserStack) Short() bool { return u != nil && u.Dyn > u.Size }

// decodeUser reads the REGS_USER and STACK_USER fields at d (after the branch stack).
func (d *dec) decodeUser(t uint64, a Attr, s *Sample, al *alloc) error {
	if t&(SampleRegsUser|SampleStackUser) == 0 {
		return nil
	}
	u := al.user()
	if t&SampleRegsUser != 0 {
		u.ABI, u.Mask = d.u64(), a.SampleRegsUser
		if u.ABI != RegsABINone {
			n := bits.OnesCount64(a.SampleRegsUser)
			if n > len(d.b)/8 {
				return fmt.Errorf("%d user registers in %d bytes", n, len(d.b))
			}
			u.Regs = al.regs(n)
			for i := range u.Regs {
				u.Regs[i] = d.u64()
			}
		}
	}
	if t&SampleStackUser != 0 {
		u.Size = d.u64()
		if u.Size != 0 {
			if u.Size > maxUserStack || u.Size > uint64(len(d.b)) {
				return fmt.Errorf("user stack of %d bytes in %d", u.Size, len(d.b))
			}
			data := d.b[:u.Size]
			d.b = d.b[u.Size:]
			u.Dyn = d.u64()
			u.Stack = al.bytes(data[:min(u.Dyn, u.Size)])
		}
	}
	s.User = u
	return d.err
}

// appendUser writes s's REGS_USER and STACK_USER fields as the kernel lays them out.
func appendUser(b []byte, t uint64, a Attr, s *Sample) ([]byte, error) {
	u := s.User
	if u == nil {
		u = &UserStack{}
	}
	if t&SampleRegsUser != 0 {
		b = le.AppendUint64(b, u.ABI)
		if u.ABI != RegsABINone {
			if len(u.Regs) != bits.OnesCount64(a.SampleRegsUser) {
				return nil, fmt.Errorf("perf.data writer: %d user registers for a mask of %d", len(u.Regs), bits.OnesCount64(a.SampleRegsUser))
			}
			for _, r := range u.Regs {
				b = le.AppendUint64(b, r)
			}
		}
	}
	if t&SampleStackUser != 0 {
		size := (max(u.Size, uint64(len(u.Stack))) + 7) &^ 7
		b = le.AppendUint64(b, size)
		if size != 0 {
			b = append(b, u.Stack...)
			b = append(b, make([]byte, size-uint64(len(u.Stack)))...)
			dyn := u.Dyn
			if dyn == 0 {
				dyn = uint64(len(u.Stack))
			}
			b = le.AppendUint64(b, dyn)
		}
	}
	return b, nil
}

// user returns a UserStack for the sample being decoded: a recycled one (its buffers
// kept for regs and bytes) when there is one.
func (a *alloc) user() *UserStack {
	if a == nil {
		return &UserStack{}
	}
	a.curRegs, a.curStack = nil, nil
	n := len(a.freeUsers)
	if n == 0 {
		return &UserStack{}
	}
	u := a.freeUsers[n-1]
	a.freeUsers = a.freeUsers[:n-1]
	a.curRegs, a.curStack = u.Regs, u.Stack
	*u = UserStack{}
	return u
}

// recycleUser keeps a UserStack given back with its sample (a bounded number of them).
func (a *alloc) recycleUser(u *UserStack) {
	if u != nil && len(a.freeUsers) < 1<<10 {
		a.freeUsers = append(a.freeUsers, u)
	}
}

// regs returns n words for the registers of the UserStack user returned last.
func (a *alloc) regs(n int) []uint64 {
	if a != nil && cap(a.curRegs) >= n {
		r := a.curRegs[:n]
		a.curRegs = nil
		return r
	}
	return make([]uint64, n)
}

// bytes copies data into the stack buffer of the UserStack user returned last.
func (a *alloc) bytes(data []byte) []byte {
	if a != nil && cap(a.curStack) >= len(data) {
		b := append(a.curStack[:0], data...)
		a.curStack = nil
		return b
	}
	return append(make([]byte, 0, max(len(data), 8<<10)), data...)
}
