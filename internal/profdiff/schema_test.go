package profdiff

import (
	"reflect"
	"testing"

	"github.com/pmc-tools/pmc/internal/testenv"
)

// TestSchemaDocumented: every field of Diff has a bullet in docs/json-schema.md's
// pmc.diff/v1 section, and every bullet names a field.
func TestSchemaDocumented(t *testing.T) {
	testenv.CheckSchemaDoc(t, testenv.SchemaDoc{Doc: "../../docs/json-schema.md",
		Heading: "## pmc diff: JSON schema `pmc.diff/v1`", Type: reflect.TypeOf(Diff{}), Min: 15})
}
