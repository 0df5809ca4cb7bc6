package comparehtml

import (
	"io"

	"github.com/pmc-tools/pmc/internal/compare"
)

func Write(w io.Writer, c *compare.Comparison) error { return nil }
