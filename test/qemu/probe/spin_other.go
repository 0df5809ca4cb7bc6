//go:build linux && !arm64 && !arm

package main

// spin on other architectures only lets the package build and vet on the host; its
// instruction count per iteration is unknown (0).
func spin(n uint32) {
	for i := uint32(0); i < n; i++ {
		sink += i
	}
}

var sink uint32

const spinBody = 0
