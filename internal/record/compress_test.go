package record

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/pmc-tools/pmc/internal/perfdata"
	"github.com/pmc-tools/pmc/internal/unix"
)

// TestCompressed: with Compression the records are written in COMPRESSED records (perf
// record -z) that read back as every sample pushed, the HEADER_COMPRESSED feature says
// the level and the rings' mapping, and the Result the sizes before and after.
func TestCompressed(t *testing.T) {
	k := newFake(t)
	out := &memFile{}
	a, err := startAttached(t, k, out, &Request{Mode: Attach, Compression: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer a.s.Close()
	wait := a.run(t, context.Background())
	r := k.rings()[0]
	for round := 0; round < 5; round++ {
		for i := 0; i < 200; i++ {
			r.push(sample(0x400100+uint64(i%7)*16, 100, 100, uint64(round*1000+i)))
		}
		waitDrained(t, r, out, 0)
	}
	close(a.gone)
	res := wait()
	if res.WriteErr != nil || res.Samples != 1000 {
		t.Fatalf("result %+v: want 1000 samples written", res)
	}
	f, counts, recs := readBack(t, out)
	if counts[perfdata.RecordSample] != 1000 || f.Data.Size != res.Bytes {
		t.Errorf("the file holds %d samples in %d bytes, the result says %d in %d", counts[perfdata.RecordSample], f.Data.Size, res.Samples, res.Bytes)
	}
	time := uint64(0)
	for _, rec := range recs {
		if s, ok := rec.(*perfdata.Sample); ok {
			if s.IP != 0x400100+(s.Time%1000%7)*16 || s.Time < time {
				t.Fatalf("sample %+v after time %d", s, time)
			}
			time = s.Time
		}
	}
	c := f.Features.Compressed
	if c == nil || c.Type != perfdata.CompressZstd || c.Level != 3 || int(c.MmapLen) != (DefaultRingPages+1)*os.Getpagesize() {
		t.Errorf("HEADER_COMPRESSED %+v", c)
	}
	// Only the rounds' ends (8 bytes each) are outside the COMPRESSED records.
	rounds := uint64(counts[perfdata.RecordFinishedRound])
	if res.Packed.In < 1000*40 || res.Packed.Out == 0 || res.Packed.Out*4 > res.Packed.In || res.Bytes != res.Packed.Out+8*rounds {
		t.Errorf("%d bytes of records compressed to %d, %d in the file with %d rounds", res.Packed.In, res.Packed.Out, res.Bytes, rounds)
	}
	if c != nil && c.Ratio != uint32(float64(res.Packed.In)/float64(res.Packed.Out)+0.5) {
		t.Errorf("ratio %d, the result's %d/%d", c.Ratio, res.Packed.In, res.Packed.Out)
	}
}

// TestCompressedFullDisk: a disk that fills up during a compressed recording leaves a
// file that holds every sample the Result says, each round whole.
func TestCompressedFullDisk(t *testing.T) {
	k := newFake(t)
	out := &memFile{}
	a, err := startAttached(t, k, out, &Request{Mode: Attach, Compression: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer a.s.Close()
	out.setLimit(3000) // past the header: a few rounds of compressed samples
	wait := a.run(t, context.Background())
	r := k.rings()[0]
	n := 0
	for round := 0; round < 40; round++ {
		for i := 0; i < 100; i++ {
			r.push(sample(0x400100+uint64(n*7919%4096), 100, 100, uint64(n)*1000003))
			n++
		}
		waitDrained(t, r, out, 0)
	}
	close(a.gone)
	res := wait()
	if !errors.Is(res.WriteErr, unix.ENOSPC) || res.Samples == 0 || res.Samples+res.Unwritten != uint64(n) {
		t.Fatalf("result %+v: want ENOSPC, some samples kept, %d in all", res, n)
	}
	t.Logf("kept %d samples (%d bytes), %d not written", res.Samples, res.Bytes, res.Unwritten)
	f, counts, _ := readBack(t, out)
	if uint64(counts[perfdata.RecordSample]) != res.Samples || f.Data.Size != res.Bytes || f.Unfinished {
		t.Fatalf("the file holds %d samples in %d bytes (unfinished %v), the result says %d in %d", counts[perfdata.RecordSample],
			f.Data.Size, f.Unfinished, res.Samples, res.Bytes)
	}
}

// TestSummaryCompressed: perf's summary line with its compression part.
func TestSummaryCompressed(t *testing.T) {
	var b strings.Builder
	r := &Result{Samples: 9, Bytes: 1 << 20}
	r.Packed.In, r.Packed.Out = 5<<20, 2<<20
	r.Summary(&b, "perf.data")
	if want := "[ pmc record: Captured and wrote 1.000 MB perf.data (9 samples), compressed (original 5.000 MB, ratio is 2.500) ]\n"; b.String() != want {
		t.Errorf("summary %q, want %q", b.String(), want)
	}
}
