package unix

const hasCPUID = true

// cpuid executes the CPUID instruction (cpuid_amd64.s).
func cpuid(leaf, sub uint32) (a, b, c, d uint32)
