package tiny

// Image is the shim's executable for the running architecture, nil if there is none. The
// caller must not modify it.
func Image() []byte { return image }
