package compare

import (
	"reflect"
	"testing"

	"github.com/pmc-tools/pmc/internal/testenv"
)

// TestSchemaDocumented: every field of a Comparison has a bullet in docs/json-schema.md's
// pmc.compare/v1 section, and every bullet names a field; pmc.stat/v1's types (package
// result) are documented in their own section.
func TestSchemaDocumented(t *testing.T) {
	testenv.CheckSchemaDoc(t, testenv.SchemaDoc{Doc: "../../docs/json-schema.md",
		Heading: "## pmc compare: JSON schema `pmc.compare/v1`", Type: reflect.TypeOf(Comparison{}),
		Stop: []string{"/result"}, Min: 20})
}
