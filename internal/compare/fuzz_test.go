package compare

import (
	"io"
	"os"
	"testing"
)

// FuzzDecode: whatever a saved comparison holds, reading it, building the rows again and
// writing every format ends without a panic.
func FuzzDecode(f *testing.F) {
	if data, err := os.ReadFile("../cli/testdata/compare/two.json"); err == nil {
		f.Add(data)
	}
	f.Add([]byte(`{"schema":"pmc.compare/v1","commands":[{"label":"A","runs":[{"index":0,"counts":[{"event":"x","cpu":-1,"status":"counted","scaled":1,"raw":1}]}]},{"label":"B","runs":[]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Decode(data)
		if err != nil {
			return
		}
		Build(c)
		Text(io.Discard, c, TextOptions{Color: true})
		Markdown(io.Discard, c)
		CSV(io.Discard, c)
		JSON(io.Discard, c)
	})
}
