package annotate

import (
	"reflect"
	"testing"

	"github.com/pmc-tools/pmc/internal/testenv"
)

// TestSchemaDocumented: every field of Result has a bullet in the pmc annotate section of
// docs/json-schema.md, and every bullet names a field.
func TestSchemaDocumented(t *testing.T) {
	testenv.CheckSchemaDoc(t, testenv.SchemaDoc{Doc: "../../docs/json-schema.md",
		Heading: "## pmc annotate: JSON schema `" + Schema + "`", Type: reflect.TypeOf(Result{}), Min: 20})
}
