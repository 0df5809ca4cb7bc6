//go:build !amd64 && !arm64 && !arm

package tiny

var image []byte
