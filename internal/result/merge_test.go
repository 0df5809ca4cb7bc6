package result

import (
	"math"
	"testing"
)

func TestMerged(t *testing.T) {
	s := []Summary{
		{Event: "instructions", CPU: -1, Group: 1, Status: Counted, RawMean: 100, Mean: 400, Enabled: 1000, Running: 250},
		{Event: "cycles", CPU: -1, Group: 0, Status: Counted, RawMean: 900, Mean: 900, Enabled: 1000, Running: 1000},
		{Event: "instructions", CPU: -1, Group: 2, Status: Counted, RawMean: 140, Mean: 560, Enabled: 1000, Running: 250},
		{Event: "instructions", CPU: -1, Group: 3, Status: NotCounted, Enabled: 1000},
	}
	m := Merged(s)
	if len(m) != 2 || m[0].Event != "instructions" || m[1].Event != "cycles" {
		t.Fatalf("%+v", m)
	}
	// 240 raw over 500 of 1000 ns: 480 for the whole run.
	if in := m[0]; in.RawMean != 240 || in.Running != 500 || math.Abs(in.Mean-480) > 1e-9 || in.Status != Counted {
		t.Errorf("merged instructions %+v", in)
	}
}
