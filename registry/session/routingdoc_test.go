package session

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestRoutingDocTurnTexts checks the texts docs/reference/routing.md gives
// for a call of a tool the model was not sent: each, with NAME and GROUP
// as the format's %s, is a format string of this package's source.
func TestRoutingDocTurnTexts(t *testing.T) {
	doc, err := os.ReadFile("../../docs/reference/routing.md")
	if err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var src strings.Builder
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		src.Write(b)
	}
	row := regexp.MustCompile("(?m)^\\| `(unknown_tool|tool_disabled|tool_not_loaded)` \\| [^|]+ \\| `([^`]+)` \\|$")
	rows := row.FindAllStringSubmatch(string(doc), -1)
	if len(rows) != 6 {
		t.Fatalf("found %d rows of the table of texts, want 6: is the pattern right?", len(rows))
	}
	for _, m := range rows {
		format := strings.NewReplacer("NAME", "%s", "GROUP", "%s").Replace(m[2])
		if !strings.Contains(src.String(), `"`+format+`"`) {
			t.Errorf("docs/reference/routing.md gives the %s text\n%s\nwhich registry/session does not write (as the format %q)", m[1], m[2], format)
		}
	}
}
