package doctor

import (
	"reflect"
	"testing"

	"github.com/pmc-tools/pmc/internal/testenv"
)

// TestSchemaDocumented: every field of Report has a row in docs/json-schema.md's
// pmc.doctor/v1 section, and every row names a field.
func TestSchemaDocumented(t *testing.T) {
	testenv.CheckSchemaDoc(t, testenv.SchemaDoc{Doc: "../../docs/json-schema.md",
		Heading: "## pmc doctor: JSON schema `" + Schema + "`", Type: reflect.TypeOf(Report{}), Min: 10})
}
