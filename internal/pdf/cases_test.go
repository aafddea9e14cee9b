package pdf

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolroute/toolroute/host"
)

// Case is one of testdata/pdf/cases.json: a call of pdf_info or
// pdf_extract_text on a fixture, and what every host answers: its output,
// or its error's type and message. The JS hosts replay them too
// (web/packages/toolroute/test/pdf.test.js).
type Case struct {
	Name      string          `json:"name"`
	Tool      string          `json:"tool"`
	Input     json.RawMessage `json:"input"`
	Output    *string         `json:"output,omitempty"`
	ErrorType string          `json:"error_type,omitempty"`
	Message   string          `json:"message,omitempty"`
}

const casesFile = fixtureDir + "/cases.json"

func readCases(t *testing.T) []Case {
	t.Helper()
	data, err := os.ReadFile(casesFile)
	if err != nil {
		t.Fatal(err)
	}
	var cases []Case
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatalf("%s: %v", casesFile, err)
	}
	return cases
}

// TestCases replays the shared cases with testdata/pdf as the sandbox
// folder; -update writes what this host answers into the file.
func TestCases(t *testing.T) {
	dir, err := filepath.Abs(fixtureDir)
	if err != nil {
		t.Fatal(err)
	}
	_, tools, _ := Tools(Options{SandboxDir: dir})
	byName := map[string]host.NativeTool{}
	for _, nt := range tools {
		byName[nt.Tool.Name] = nt
	}
	cases := readCases(t)
	for i, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			nt, ok := byName[c.Tool]
			if !ok {
				t.Fatalf("no tool %q", c.Tool)
			}
			out, err := nt.Run(context.Background(), c.Input)
			var got Case
			got.Name, got.Tool, got.Input = c.Name, c.Tool, c.Input
			var te *host.ToolError
			switch {
			case err == nil:
				got.Output = &out
			case errors.As(err, &te):
				got.ErrorType, got.Message = te.Type, te.Message
			default:
				t.Fatalf("a Go error, not a tool failure: %v", err)
			}
			if *update {
				cases[i] = got
				return
			}
			if diff := cmp.Diff(c, got); diff != "" {
				t.Errorf("(-case +got):\n%s", diff)
			}
		})
	}
	if *update {
		data, err := json.MarshalIndent(cases, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(casesFile, append(data, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
