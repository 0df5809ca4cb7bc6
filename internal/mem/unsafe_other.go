//go:build !amd64

package mem

import "unsafe"

// unsafeAdd is &buf[i] without a bounds check (the caller's index comes from the list).
func unsafeAdd(buf *uint32, i uint32) unsafe.Pointer {
	return unsafe.Add(unsafe.Pointer(buf), uintptr(i)*4)
}
