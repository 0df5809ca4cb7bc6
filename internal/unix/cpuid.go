package unix

// HypervisorVendor is the signature of CPUID leaf 0x40000000 ("KVMKVMKVM", "Microsoft Hv",
// "VMwareVMware", "XenVMMXenVMM", "TCGTCGTCGTCG"...), or "" when CPUID leaf 1 does not set
// the hypervisor bit or the architecture has no CPUID.
func HypervisorVendor() string {
	if !hasCPUID {
		return ""
	}
	_, _, c, _ := cpuid(1, 0)
	if c&(1<<31) == 0 {
		return ""
	}
	_, b, c, d := cpuid(0x40000000, 0)
	var sig []byte
	for _, r := range []uint32{b, c, d} {
		sig = append(sig, byte(r), byte(r>>8), byte(r>>16), byte(r>>24))
	}
	for len(sig) > 0 && (sig[len(sig)-1] == 0 || sig[len(sig)-1] == ' ') {
		sig = sig[:len(sig)-1]
	}
	for i, ch := range sig {
		if ch < 0x20 || ch > 0x7e {
			sig[i] = '?'
		}
	}
	return string(sig)
}
