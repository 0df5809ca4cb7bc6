package fromperf

import "github.com/pmc-tools/pmc/internal/perfdata"

// Call chains from the last branch records (perf record --call-graph lbr, Intel only: no
// machine of the project's has them, so they are read as perf reads them and tested on
// a recording made up to their layout, against perf report on it).

// branchCallStack is PERF_SAMPLE_BRANCH_CALL_STACK in branch_sample_type: the branch stack
// is the calls of the user call stack, the most recent first.
const branchCallStack = 1 << 11

// CallStackBranches says the event's branch stacks are LBR call stacks.
func CallStackBranches(a perfdata.Attr) bool {
	return a.SampleType&perfdata.SampleBranchStack != 0 && a.BranchSampleType&branchCallStack != 0
}

// lbrChain is a sample's call chain as perf report resolves an LBR call stack
// (resolve_lbr_callchain_sample, callee order): the kernel's part of the recorded chain,
// then the most recent call's target and each call's source; nil when the chain has no
// user part or the stack no entry (the chain is then read as recorded).
func (c *converter) lbrChain(s *perfdata.Sample, a perfdata.Attr) []uint64 {
	if !CallStackBranches(a) || len(s.Branches) == 0 {
		return nil
	}
	user := -1
	for i, ip := range s.Callchain {
		if ip == perfdata.ContextUser {
			user = i
			break
		}
	}
	if user < 0 {
		return nil
	}
	chain := append(append(c.lbr[:0], s.Callchain[:user+1]...), s.Branches[0].To)
	for _, b := range s.Branches {
		chain = append(chain, b.From)
	}
	c.lbr = chain
	return chain
}
