package cli

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/pmc-tools/pmc/internal/result"
)

// TestMetricsOnOtherCPUs (issue 24 item 7): the seed's dtlb_miss_ratio (dTLB-load-misses /
// cache-references) is generic, so it is there on the A57 as on the A7; a metric only
// another CPU defines (l1d_refill_rate is Armv8's raw-code metric) is a warning for that
// metric and the others are still computed; a name no CPU knows is still an error.
func TestMetricsOnOtherCPUs(t *testing.T) {
	stat := func(machine string, args ...string) (*result.Stat, string, int) {
		_, errs, code := runPMC(append([]string{"stat", "--fake", "testdata/fake/a7-tlb.json", "--fake-machine", "testdata/fake/" + machine, "--json"}, args...)...)
		var r result.Stat
		if i := strings.Index(errs, "{"); code == 0 && i >= 0 {
			if err := json.Unmarshal([]byte(errs[i:]), &r); err != nil {
				t.Fatalf("%v\n%s", err, errs)
			}
		}
		return &r, errs, code
	}
	metric := func(r *result.Stat, name string) (float64, bool) {
		for _, m := range r.Metrics {
			if m.Name == name && m.Valid {
				return m.Value, true
			}
		}
		return 0, false
	}
	r, errs, code := stat("machine-cortex-a57.json", "-M", "ipc,dtlb_miss_ratio", "--", "./a")
	if v, ok := metric(r, "dtlb_miss_ratio"); code != 0 || !ok || math.Abs(v-0.075) > 1e-12 {
		t.Errorf("A57 -M ipc,dtlb_miss_ratio: exit %d, dtlb_miss_ratio %v %v, want 0.075%%\n%s", code, v, ok, errs)
	}
	r, errs, code = stat("machine-cortex-a7.json", "-e", "instructions,cycles", "-M", "ipc,l1d_refill_rate", "--", "./a")
	if v, ok := metric(r, "ipc"); code != 0 || !ok || v != 0.5 {
		t.Errorf("A7 -M ipc,l1d_refill_rate: exit %d, ipc %v %v, want 0.5 and a warning\n%s", code, v, ok, errs)
	}
	if !strings.Contains(errs, "l1d_refill_rate") || !strings.Contains(errs, "armv8") || strings.Count(errs, "l1d_refill_rate") > 3 {
		t.Errorf("no one warning naming l1d_refill_rate and where it is defined:\n%s", errs)
	}
	if _, errs, code := stat("machine-cortex-a7.json", "-M", "ipc,no_such_metric", "--", "./a"); code != 1 || !strings.Contains(errs, `no metric or metric group "no_such_metric"`) {
		t.Errorf("an unknown name: exit %d\n%s", code, errs)
	}
}
