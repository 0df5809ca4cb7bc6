package result

import "testing"

// TestToUnit: clocks go from ns to msec; a sysfs .scale (RAPL energy counts 2^-32 J each)
// converts into its unit; no scale leaves counts alone.
func TestToUnit(t *testing.T) {
	cases := []struct {
		v, scale, want float64
		unit           string
	}{
		{2_500_000, 1e-6, 2.5, "msec"},
		{2_500_000, 0, 2.5, "msec"}, // a Count written before unit_scale existed
		{4294967296, 0x1p-32, 1, "Joules"},
		{42, 0, 42, ""},
		{42, 1, 42, ""},
	}
	for _, c := range cases {
		if got := ToUnit(c.v, c.unit, c.scale); got != c.want {
			t.Errorf("ToUnit(%v, %q, %v) = %v, want %v", c.v, c.unit, c.scale, got, c.want)
		}
	}
	if v := (Count{Scaled: 8589934592, Unit: "Joules", UnitScale: 0x1p-32}).Value(); v != 2 {
		t.Errorf("Count.Value = %v, want 2 Joules", v)
	}
}
