package statfmt

import (
	"bytes"
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/pmc-tools/pmc/internal/result"
	"github.com/pmc-tools/pmc/internal/testenv"
)

const schemaDoc = "../../docs/json-schema.md"

// TestSchemaDocumented fails when a field of result.Stat (or of the types inside it) has no
// row in docs/json-schema.md's pmc.stat/v1 section, or a row names a field that does not exist.
func TestSchemaDocumented(t *testing.T) {
	testenv.CheckSchemaDoc(t, testenv.SchemaDoc{Doc: schemaDoc, Heading: "## Document",
		Type: reflect.TypeOf(result.Stat{}), Min: 60})
	doc, err := os.ReadFile(schemaDoc)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(doc, []byte("`\""+result.SchemaVersion+"\"`")) {
		t.Errorf("docs/json-schema.md does not name the schema version %s", result.SchemaVersion)
	}
}

// TestJSONRoundTrip: the JSON decodes back to the same Result, and every document says
// its schema.
func TestJSONRoundTrip(t *testing.T) {
	for _, c := range goldenCases {
		r := c.build()
		data := renderJSON(t, r)
		if !bytes.HasSuffix(data, []byte("}\n")) {
			t.Errorf("%s: JSON does not end with a newline", c.name)
		}
		var back result.Stat
		if err := json.Unmarshal(data, &back); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !reflect.DeepEqual(&back, r) {
			t.Errorf("%s: JSON round trip changed the Result", c.name)
		}
	}
	var b bytes.Buffer
	if err := JSON(&b, &result.Stat{Mode: "launch"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `"schema": "`+result.SchemaVersion+`"`) {
		t.Errorf("an empty Schema is not filled in:\n%s", b.String())
	}
}
