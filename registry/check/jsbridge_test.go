package check

import (
	"encoding/json"
	"strings"
	"testing"
)

// Every code js_bridge lists is one it answers; the cases every host
// replays (testdata/checks/cases.json) hold their sentences.
func TestJSBridgeCodes(t *testing.T) {
	for _, code := range JSBridgeCodes {
		t.Run(code, func(t *testing.T) {
			args, _ := json.Marshal(JSBridge{Code: code, Method: "TRACE", Name: "../x", Format: "x", Max: 1024,
				Upload: &Upload{ContentType: "text/plain", Parts: []UploadPart{{Content: true}}}})
			a, err := Run(Request{Op: "js_bridge", Args: args})
			if err != nil {
				t.Fatal(err)
			}
			if code == "body_cut" {
				if a.Error != nil || !strings.Contains(string(mustJSON(t, a.Args)), "[toolroute: the body was cut at 1 KB") {
					t.Errorf("body_cut: %+v", a)
				}
				return
			}
			if a.Error == nil || a.Error.Message == "" || a.Error.Type == "" {
				t.Errorf("%s: %+v, want a refusal with a type and a sentence", code, a)
			}
		})
	}
}

func TestJSBridgeRules(t *testing.T) {
	for _, tt := range []struct {
		name string
		q    JSBridge
		ok   bool
	}{
		{"GET", JSBridge{Code: "fetch_method", Method: "GET"}, true},
		{"delete in lower case", JSBridge{Code: "fetch_method", Method: "delete"}, true},
		{"no method", JSBridge{Code: "fetch_method"}, true},
		{"CONNECT", JSBridge{Code: "fetch_method", Method: "CONNECT"}, false},
		{"library with a hyphen", JSBridge{Code: "library_name", Name: "a-b_2"}, true},
		{"library with a slash", JSBridge{Code: "library_name", Name: "a/b"}, false},
		{"library with a dot", JSBridge{Code: "library_name", Name: "a.min"}, false},
		{"empty library", JSBridge{Code: "library_name"}, false},
		{"no format", JSBridge{Code: "time_format"}, true},
		{"iso8601", JSBridge{Code: "time_format", Format: "iso8601"}, true},
		{"ISO8601", JSBridge{Code: "time_format", Format: "ISO8601"}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a, err := tt.q.check()
			if err != nil {
				t.Fatal(err)
			}
			if (a.Error == nil) != tt.ok {
				t.Errorf("%+v: %+v, want ok %v", tt.q, a.Error, tt.ok)
			}
		})
	}
}

func TestMultipart(t *testing.T) {
	name, file := "a\"b\r\nc", "x.png"
	u := Upload{ContentType: "multipart/form-data", FormData: true, Boundary: "B",
		Headers: map[string]string{"content-type": "text/plain", "X-A": "1"},
		Parts:   []UploadPart{{Name: &name, Content: true, ContentType: "text/plain\r\nX-Evil: 1"}, {Filename: &file, File: true, ContentType: "image/png"}}}
	a, err := u.frame()
	if err != nil || a.Error != nil {
		t.Fatal(err, a.Error)
	}
	got := string(mustJSON(t, a.Args))
	want := `{"heads":["--B\r\nContent-Disposition: form-data; name=\"a%22b%0D%0Ac\"\r\nContent-Type: text/plain  X-Evil: 1\r\n\r\n","--B\r\nContent-Disposition: form-data; name=\"\"; filename=\"x.png\"\r\nContent-Type: image/png\r\n\r\n"],"tail":"--B--\r\n","content_type":"multipart/form-data; boundary=B","headers":{"Content-Type":"multipart/form-data; boundary=B","X-A":"1"}}`
	if got != want {
		t.Errorf("framing\n got %s\nwant %s", got, want)
	}
	for _, tt := range []struct {
		name string
		u    Upload
		want string
	}{
		{"no parts", Upload{ContentType: "multipart/related"}, "give at least one part"},
		{"101 parts", Upload{ContentType: "multipart/related", Parts: make([]UploadPart, 101)}, "101 parts: an upload takes at most 100"},
		{"not multipart", Upload{ContentType: "text/plain", Parts: []UploadPart{{Content: true}}}, "the Content-Type 'text/plain' is not multipart/related or multipart/form-data"},
		{"a part of nothing", Upload{ContentType: "Multipart/Related", Parts: []UploadPart{{Content: true}, {}}}, "part 2 has neither content nor filePath"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a, err := tt.u.frame()
			if err != nil || a.Error == nil || a.Error.Message != tt.want {
				t.Errorf("%v %+v, want %q", err, a.Error, tt.want)
			}
		})
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
