package comparehtml

import (
	"fmt"
	"html"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/pmc-tools/pmc/internal/compare"
	"github.com/pmc-tools/pmc/internal/statfmt"
)

// palette colours the commands in turn.
var palette = []string{"#4269d0", "#efb118", "#ff725c", "#6cc5b0", "#3ca951", "#ff8ab7", "#a463f2", "#97bbf5"}

func colour(i int) string { return palette[i%len(palette)] }

// Write writes c as one HTML page.
func Write(w io.Writer, c *compare.Comparison) error {
	var b strings.Builder
	esc := html.EscapeString
	b.WriteString("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>pmc compare</title>\n<style>" + style + "</style>\n</head>\n<body>\n")
	b.WriteString("<h1>pmc compare</h1>\n<pre class=\"header\">")
	for _, h := range c.Header() {
		b.WriteString(esc(h) + "\n")
	}
	b.WriteString("</pre>\n")
	if c.Simulated {
		b.WriteString("<p class=\"simulated\">SIMULATED: these counts come from a simulator, not from hardware counters.</p>\n")
	}
	b.WriteString("<div class=\"legend\">")
	for i, cmd := range c.Commands {
		what := strings.Join(cmd.Command, " ")
		if cmd.File != "" {
			what = cmd.File
		}
		if s := cmd.Simulation.String(); s != "" {
			what += " (" + s + ")"
		}
		fmt.Fprintf(&b, "<span class=\"key\"><span class=\"swatch\" style=\"background:%s\"></span><b>%s</b> %s</span>", colour(i), esc(cmd.Label), esc(what))
	}
	b.WriteString("</div>\n")
	if len(c.Commands) > 1 {
		changes(&b, c)
	}
	for ri, r := range c.Rows {
		chart(&b, c, ri, r)
	}
	b.WriteString("<div id=\"tip\" hidden></div>\n<script>" + script + "</script>\n</body>\n</html>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// tickText is an axis value: digits grouped, no trailing zeros.
func tickText(v, step float64) string {
	dec := max(0, int(-math.Floor(math.Log10(step)+1e-9)))
	if math.Abs(v) < step/1e6 {
		v = 0
	}
	return statfmt.GroupDigits(strconv.FormatFloat(v, 'f', dec, 64), ',')
}

// scale maps values in [lo, hi] to pixels in [x0, x1].
type scale struct{ lo, hi, x0, x1 float64 }

func (s scale) at(v float64) float64 {
	if s.hi == s.lo {
		return s.x0
	}
	return s.x0 + (v-s.lo)/(s.hi-s.lo)*(s.x1-s.x0)
}

// ticks are about n round values covering [lo, hi], step apart.
func ticks(lo, hi float64, n int) (out []float64, step float64) {
	if hi <= lo {
		return []float64{lo}, 1
	}
	step = math.Pow(10, math.Floor(math.Log10((hi-lo)/float64(n))))
	for _, m := range []float64{1, 2, 5, 10} {
		if (hi-lo)/(step*m) <= float64(n) {
			step *= m
			break
		}
	}
	for k := math.Ceil(lo / step); k*step <= hi+step*1e-9; k++ {
		out = append(out, k*step)
	}
	return out, step
}

const (
	chartW  = 900.0
	deltaW  = 300.0
	rowH    = 34.0
	axisH   = 24.0
	plotEnd = chartW - deltaW - 10
	charPx  = 7.5 // width of a character of the 12px labels, about
)

// textWidth is about how wide s is in a 12px label.
func textWidth(s string) float64 { return charPx * float64(len([]rune(s))) }

// labelWidth is the room the command labels take left of the bars.
func labelWidth(c *compare.Comparison) float64 {
	w := 40.0
	for _, cmd := range c.Commands {
		w = math.Max(w, textWidth(cmd.Label)+28)
	}
	return math.Min(w, 250)
}

// chart draws one quantity: a bar per command at its mean, a ±sd error bar, each run as a
// point, and the change against the first command at the right.
func chart(b *strings.Builder, c *compare.Comparison, ri int, r compare.Row) {
	esc := html.EscapeString
	labelW := labelWidth(c)
	lo, hi := 0.0, 0.0
	for _, cell := range r.Cells {
		for _, v := range cell.Values {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
		if cell.Stats.N > 0 {
			hi = math.Max(hi, cell.Stats.Mean+cell.Stats.Stddev)
		}
	}
	if hi == lo {
		hi = lo + 1
	}
	hi *= 1.05
	sc := scale{lo, hi, labelW, plotEnd}
	height := float64(len(r.Cells))*rowH + axisH + 8
	fmt.Fprintf(b, "<section class=\"chart\" id=\"q%d\" data-quantity=\"%s\">\n<h2>%s</h2>\n", ri, esc(r.Name), esc(r.Title()))
	fmt.Fprintf(b, "<svg class=\"bars\" role=\"img\" aria-label=\"%s per command\" width=\"%g\" height=\"%g\" viewBox=\"0 0 %g %g\" xmlns=\"http://www.w3.org/2000/svg\">\n",
		esc(r.Title()), chartW, height, chartW, height)
	axisY := float64(len(r.Cells))*rowH + 4
	ts, step := ticks(lo, hi, 5)
	for _, t := range ts {
		x := sc.at(t)
		fmt.Fprintf(b, "<line class=\"grid\" x1=\"%.1f\" x2=\"%.1f\" y1=\"0\" y2=\"%.1f\"/><text class=\"tick\" x=\"%.1f\" y=\"%.1f\">%s</text>\n",
			x, x, axisY, x, axisY+16, esc(tickText(t, step)))
	}
	for ci, cell := range r.Cells {
		y := float64(ci) * rowH
		cmd := c.Commands[ci]
		fmt.Fprintf(b, "<g class=\"command\" data-label=\"%s\">\n<text class=\"label\" x=\"%g\" y=\"%.1f\">%s</text>\n", esc(cmd.Label), labelW-8, y+rowH/2+4, esc(cmd.Label))
		if cell.Stats.N == 0 {
			fmt.Fprintf(b, "<text class=\"missing\" x=\"%g\" y=\"%.1f\">%s</text>\n</g>\n", labelW+4, y+rowH/2+4, esc(cell.MeanText()))
			continue
		}
		s := cell.Stats
		x0, xm := sc.at(math.Max(lo, 0)), sc.at(s.Mean)
		fmt.Fprintf(b, "<rect class=\"bar\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"><title>%s %s: %s (%d runs)</title></rect>\n",
			math.Min(x0, xm), y+6, math.Abs(xm-x0), rowH-12, colour(ci), esc(cmd.Label), esc(r.Name), esc(cell.MeanText()), s.N)
		if s.N > 1 {
			xl, xh, ym := sc.at(math.Max(lo, s.Mean-s.Stddev)), sc.at(s.Mean+s.Stddev), y+rowH/2 // clipped at the axis
			fmt.Fprintf(b, "<path class=\"errorbar\" d=\"M%.1f %.1fV%.1fM%.1f %.1fH%.1fM%.1f %.1fV%.1f\"/>\n",
				xl, ym-6, ym+6, xl, ym, xh, xh, ym-6, ym+6)
		}
		outlier := map[int]bool{}
		for _, o := range s.Outliers {
			outlier[o] = true
		}
		for k, v := range cell.Values {
			run := cell.Runs[k]
			jitter := (float64(k%5) - 2) * 3
			cls := "run"
			if outlier[run] {
				cls = "run outlier"
			}
			fmt.Fprintf(b, "<circle class=\"%s\" cx=\"%.1f\" cy=\"%.1f\" r=\"3\" data-tip=\"%s run %d: %s\"/>\n",
				cls, sc.at(v), y+rowH/2+jitter, esc(cmd.Label), run, esc(compare.Value(v)+" "+r.Unit))
		}
		if d := cell.Delta; d != nil {
			cls := "delta"
			if d.Significant {
				cls += " significant"
			}
			txt := compare.Pct(d.Pct) + " " + r.RatioText(d)
			if ci := compare.CIText(d); ci != "" {
				txt += " " + ci
			}
			fmt.Fprintf(b, "<text class=\"%s\" x=\"%g\" y=\"%.1f\">%s<title>%s</title></text>\n", cls, plotEnd+10, y+rowH/2+4, esc(txt), esc(compare.Verdict(d)))
		}
		if f := cell.Flags(); len(f) > 0 {
			fmt.Fprintf(b, "<text class=\"flag\" x=\"%g\" y=\"%.1f\">⚑<title>%s</title></text>\n", 2.0, y+rowH/2+4, esc(strings.Join(f, "; ")))
		}
		b.WriteString("</g>\n")
	}
	b.WriteString("</svg>\n</section>\n")
}

// changes draws every change against the first command with its confidence interval, one
// line per quantity and command (a forest plot), centred on no change.
func changes(b *strings.Builder, c *compare.Comparison) {
	esc := html.EscapeString
	type item struct {
		row  compare.Row
		ci   int
		d    *compare.Delta
		name string
	}
	var items []item
	span := 1.0
	for _, r := range c.Rows {
		for ci, cell := range r.Cells {
			if d := cell.Delta; d != nil {
				items = append(items, item{r, ci, d, r.Title()})
				lo, hi, _ := d.Interval()
				span = math.Max(span, math.Max(math.Abs(d.Pct), math.Max(math.Abs(lo), math.Abs(hi))))
			}
		}
	}
	if len(items) == 0 {
		return
	}
	span = math.Min(span*1.1, 1000) // an interval wider than ±1000% is clipped, and says so
	const h = 20.0
	nameW := 80.0
	for _, it := range items {
		nameW = math.Max(nameW, textWidth(it.name+" · "+c.Commands[it.ci].Label)+16)
	}
	nameW = math.Min(nameW, chartW/2)
	sc := scale{-span, span, nameW, chartW - 20}
	height := float64(len(items))*h + axisH + 8
	fmt.Fprintf(b, "<section class=\"chart\" id=\"changes\">\n<h2>change vs %s, with the %g%% confidence interval</h2>\n", esc(c.Commands[0].Label), 100*c.Confidence)
	fmt.Fprintf(b, "<svg class=\"changes\" role=\"img\" aria-label=\"changes\" width=\"%g\" height=\"%g\" viewBox=\"0 0 %g %g\" xmlns=\"http://www.w3.org/2000/svg\">\n", chartW, height, chartW, height)
	axisY := float64(len(items))*h + 4
	ts, _ := ticks(-span, span, 6)
	for _, t := range ts {
		x := sc.at(t)
		fmt.Fprintf(b, "<line class=\"grid\" x1=\"%.1f\" x2=\"%.1f\" y1=\"0\" y2=\"%.1f\"/><text class=\"tick\" x=\"%.1f\" y=\"%.1f\">%+g%%</text>\n", x, x, axisY, x, axisY+16, t)
	}
	fmt.Fprintf(b, "<line class=\"zero\" x1=\"%.1f\" x2=\"%.1f\" y1=\"0\" y2=\"%.1f\"/>\n", sc.at(0), sc.at(0), axisY)
	clip := func(v float64) float64 { return math.Max(-span, math.Min(span, v)) }
	for k, it := range items {
		y := float64(k)*h + h/2
		cmd := c.Commands[it.ci]
		cls := "change"
		if it.d.Significant {
			cls += " significant"
		}
		fmt.Fprintf(b, "<g class=\"%s\"><text class=\"name\" x=\"%g\" y=\"%.1f\">%s · %s</text>\n", cls, nameW-8, y+4, esc(it.name), esc(cmd.Label))
		if lo, hi, ok := it.d.Interval(); ok {
			fmt.Fprintf(b, "<line class=\"ci\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>\n", sc.at(clip(lo)), sc.at(clip(hi)), y, y, colour(it.ci))
		}
		fmt.Fprintf(b, "<circle class=\"pct\" cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\" data-tip=\"%s\"/></g>\n", sc.at(clip(it.d.Pct)), y, colour(it.ci),
			esc(it.name+" "+cmd.Label+": "+compare.Pct(it.d.Pct)+" "+compare.CIText(it.d)+" "+it.row.RatioText(it.d)+", "+compare.Verdict(it.d)))
	}
	b.WriteString("</svg>\n</section>\n")
}

const style = `
body{font:14px/1.4 system-ui,sans-serif;margin:1.5em auto;max-width:940px;color:#222;background:#fff}
h1{font-size:1.4em}h2{font-size:1.05em;margin:1.2em 0 .3em}
.simulated{background:#fff3cd;border:1px solid #e0a800;padding:.4em .6em;font-weight:bold}
pre.header{background:#f6f6f6;padding:.6em;overflow-x:auto;font-size:12px;white-space:pre-wrap}
.legend .key{margin-right:1.2em;white-space:nowrap}.swatch{display:inline-block;width:.9em;height:.9em;margin-right:.3em;vertical-align:-.1em}
svg text{font-size:12px;fill:#333}.label{text-anchor:end;font-weight:bold}.tick{text-anchor:middle;fill:#777}
.grid{stroke:#e4e4e4}.zero{stroke:#555;stroke-dasharray:3 3}.bar{opacity:.75}
.errorbar{stroke:#222;stroke-width:1.5;fill:none}.run{fill:#fff;stroke:#222;stroke-width:1}.run.outlier{fill:#d33;stroke:#d33}
.delta{fill:#777}.delta.significant{fill:#111;font-weight:bold}.missing{fill:#a00}.flag{fill:#c80;cursor:help}
.name{text-anchor:end}.ci{stroke-width:3;opacity:.6}.change .pct{stroke:#222}.change:not(.significant) .pct{opacity:.45}
#tip{position:fixed;background:#222;color:#fff;padding:2px 6px;border-radius:3px;font-size:12px;pointer-events:none}
`

// script shows a point's value on hover and records that it ran (tests read data-ready).
const script = `
(function(){
  var tip=document.getElementById('tip');
  document.querySelectorAll('[data-tip]').forEach(function(el){
    el.addEventListener('mouseenter',function(e){tip.textContent=el.getAttribute('data-tip');tip.hidden=false;});
    el.addEventListener('mousemove',function(e){tip.style.left=(e.clientX+12)+'px';tip.style.top=(e.clientY+12)+'px';});
    el.addEventListener('mouseleave',function(){tip.hidden=true;});
  });
  document.body.setAttribute('data-ready',document.querySelectorAll('svg.bars').length+' charts');
})();
`
