//go:build linux && !arm64 && !arm

package main

import "golang.org/x/sys/unix"

// region on other architectures only lets the package build and vet on the host; its
// instruction count per iteration is unknown (spinBody 0).
func region(sysno, enA0, enA1, disA0, disA1, n uintptr) {
	unix.Syscall(sysno, enA0, enA1, 1)
	for i := uintptr(0); i < n; i++ {
		sink += i
	}
	unix.Syscall(sysno, disA0, disA1, 1)
}

var sink uintptr

const spinBody = 0
