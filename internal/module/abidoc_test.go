package module

import (
	"context"
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/tetratelabs/wazero"
	"github.com/toolroute/toolroute/registry/session"
	"github.com/toolroute/toolroute/wasm"
)

// TestABIResponses feeds the module each example response of wasm/ABI.md's
// "Model responses", as a host that wrote its scripted model from that
// section would: each must log its text and usage and run its pdf_info
// call, so the examples say what the module reads.
func TestABIResponses(t *testing.T) {
	doc, err := os.ReadFile("../../wasm/ABI.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?s)```json response (\\w+)\n(.*?)```").FindAllSubmatch(doc, -1)
	var formats []string
	for _, b := range blocks {
		formats = append(formats, string(b[1]))
	}
	if len(formats) != 4 {
		t.Fatalf("ABI.md has example responses for %v, want one for each of the 4 formats", formats)
	}
	ctx := context.Background()
	inst := loadedInstance(t, []byte(`{"tools":[{"name":"pdf_info","description":"Page count of a PDF",`+
		`"parameters":{"properties":{"path":{"type":"string"}},"required":["path"]}}]}`))
	for _, b := range blocks {
		format, body := string(b[1]), b[2]
		t.Run(format, func(t *testing.T) {
			if !json.Valid(body) {
				t.Fatalf("the example is not JSON:\n%s", body)
			}
			h := startTurn(t, inst, []byte(`{"type":"start","user":"Pages of a.pdf?","settings":{"format":"`+format+`","model":"m"}}`))
			defer inst.TurnFree(ctx, h)
			ev, err := json.Marshal(map[string]any{"type": "response", "body": json.RawMessage(body)})
			if err != nil {
				t.Fatal(err)
			}
			acts, err := inst.TurnActions(ctx, h, ev)
			if err != nil {
				t.Fatal(err)
			}
			var assistant *session.Message
			var calls []session.Call
			for _, a := range acts {
				switch a.Type {
				case session.ActionAppend:
					for i, m := range a.Messages {
						if m.Type == session.Assistant {
							assistant = &a.Messages[i]
						}
					}
				case session.ActionRunTools:
					calls = a.Calls
				}
			}
			if assistant == nil || assistant.Content != "Checking the file." || assistant.Usage == nil ||
				assistant.Usage.InputTokens != 120 || assistant.Usage.OutputTokens != 20 {
				t.Errorf("the assistant message logged: %+v, want its text and 120 tokens in, 20 out", assistant)
			}
			if len(calls) != 1 || calls[0].Tool != "pdf_info" || string(calls[0].Input) != `{"path":"a.pdf"}` {
				t.Errorf("run_tools calls = %+v, want pdf_info with a.pdf", calls)
			}
		})
	}
}

// The module imports only the WASI functions wasm/ABI.md lists, which the
// JS hosts' small WASI (web/packages/toolroute/driver/wasi.js) gives: a
// change that links another (a json.Decoder's reads linked fd_read once)
// would fail every JS host at instantiation while wazero, which has them
// all, never noticed.
func TestImportsAreTheABIs(t *testing.T) {
	abi, err := os.ReadFile("../../wasm/ABI.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(abi)
	start := strings.Index(text, "## Imports")
	end := strings.Index(text, "## Lifecycle")
	if start < 0 || end < start {
		t.Fatal("wasm/ABI.md has no Imports section before Lifecycle")
	}
	var listed []string
	for _, line := range strings.Split(text[start:end], "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		cell := strings.SplitN(line, "|", 3)[1]
		for _, m := range regexp.MustCompile("`([a-z_]+)`").FindAllStringSubmatch(cell, -1) {
			listed = append(listed, m[1])
		}
	}
	rt := wazero.NewRuntime(t.Context())
	defer rt.Close(t.Context())
	compiled, err := rt.CompileModule(t.Context(), wasm.Binary)
	if err != nil {
		t.Fatal(err)
	}
	var imported []string
	for _, f := range compiled.ImportedFunctions() {
		mod, name, _ := f.Import()
		if mod != "wasi_snapshot_preview1" {
			t.Errorf("the module imports %s.%s: only wasi_snapshot_preview1 is given", mod, name)
		}
		if !slices.Contains(imported, name) {
			imported = append(imported, name)
		}
	}
	slices.Sort(listed)
	slices.Sort(imported)
	for _, name := range imported {
		if !slices.Contains(listed, name) {
			t.Errorf("the module imports %s, which wasm/ABI.md does not list (and the JS hosts' WASI may not give)", name)
		}
	}
	for _, name := range listed {
		if !slices.Contains(imported, name) {
			t.Errorf("wasm/ABI.md lists %s, which the module does not import", name)
		}
	}
}
