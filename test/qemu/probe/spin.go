//go:build linux && (arm64 || arm)

package main

// spin runs a loop of exactly n iterations of spinBody instructions (spin_$GOARCH.s).
//
//go:noescape
func spin(n uint32)

const spinBody = 2
