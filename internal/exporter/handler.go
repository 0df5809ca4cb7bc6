package exporter

import (
	"bytes"
	"compress/gzip"
	"net/http"
	"runtime"
	"strings"
)

// Source gives families at each scrape.
type Source func() []Family

// maxScrapes is how many scrapes are served at once; more get 503 (Prometheus retries at the
// next interval).
const maxScrapes = 8

// MetricsHandler serves /metrics: every source's families, gathered before a byte is written
// (so a slow client holds only its own connection, never the counters), in the text format,
// gzipped when the client accepts it.
func MetricsHandler(sources ...Source) http.Handler {
	slots := make(chan struct{}, maxScrapes)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case slots <- struct{}{}:
			defer func() { <-slots }()
		default:
			http.Error(w, "too many scrapes at once", http.StatusServiceUnavailable)
			return
		}
		var fams []Family
		for _, s := range sources {
			fams = append(fams, s()...)
		}
		var buf bytes.Buffer
		if err := WriteText(&buf, fams); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		h := w.Header()
		h.Set("Content-Type", ContentType)
		if acceptsGzip(r.Header.Get("Accept-Encoding")) {
			h.Set("Content-Encoding", "gzip")
			h.Add("Vary", "Accept-Encoding")
			zw := gzip.NewWriter(w)
			zw.Write(buf.Bytes())
			zw.Close()
			return
		}
		w.Write(buf.Bytes())
	})
}

// acceptsGzip says whether an Accept-Encoding header allows gzip (listed without q=0).
func acceptsGzip(header string) bool {
	for part := range strings.SplitSeq(header, ",") {
		name, params, _ := strings.Cut(part, ";")
		if strings.TrimSpace(name) != "gzip" {
			continue
		}
		q := strings.ReplaceAll(params, " ", "")
		return q != "q=0" && q != "q=0.0" && q != "q=0.00" && q != "q=0.000"
	}
	return false
}

// BuildInfo is pmc_build_info: pmc's version, the Go it was built with and the architecture.
func BuildInfo(version string) Source {
	f := Family{Name: "pmc_build_info", Type: Gauge,
		Help: "pmc's version (pmc version), the Go it was built with and the architecture; always 1.",
		Series: []Series{{Value: 1, Labels: []Label{
			{"goarch", runtime.GOARCH}, {"goversion", runtime.Version()}, {"version", version}}}}}
	return func() []Family { return []Family{f} }
}
