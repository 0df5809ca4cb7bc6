//go:build linux && (arm64 || arm)

package main

// region makes the enabling system call, runs a loop of exactly n iterations of spinBody
// instructions and makes the disabling system call, all in assembly (spin_$GOARCH.s).
//
//go:noescape
func region(sysno, enA0, enA1, disA0, disA1, n uintptr)

const spinBody = 2
