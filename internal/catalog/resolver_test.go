package catalog_test

import (
	"testing"

	"github.com/pmc-tools/pmc/internal/catalog"
	"github.com/pmc-tools/pmc/internal/events"
)

var _ events.Tables = catalog.Resolver{}

func TestResolver(t *testing.T) {
	c, err := catalog.Load()
	if err != nil {
		t.Fatal(err)
	}
	a7, _ := c.ByName("cortex-a7")
	zen3, _ := c.ByName("zen3")
	r := catalog.NewResolver(a7, nil, zen3)
	for name, want := range map[string]uint64{
		"l1d_cache_refill":                       0x03,
		"CPU_CYCLES_CCNT":                        0xff,
		"l2_cache_req_stat.ic_dc_miss_in_l2":     0x964,
		"ic_tag_hit_miss.instruction_cache_miss": 0x10000188e,
	} {
		pmu, cfg, ok := r.Lookup(name)
		if !ok || pmu != "" || cfg != want {
			t.Errorf("Lookup(%s) = %q, %#x, %v; want core PMU, %#x", name, pmu, cfg, ok, want)
		}
	}
	if _, _, ok := r.Lookup("no_such_event"); ok {
		t.Error("found no_such_event")
	}
	if n := len(r.Names()); n != a7.Len()+zen3.Len() {
		t.Errorf("Names: %d", n)
	}
}
