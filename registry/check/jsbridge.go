package check

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// MaxUploadParts bounds the parts of one uploadMultipart.
const MaxUploadParts = 100

// JSBridge is a question of the QuickJS runner's, op js_bridge: Code
// names what the runner asks, the other fields are what that code reads.
// Some codes are rules the module decides (fetch_method, library_name,
// time_format, multipart: they pass or are refused); the others name
// what the host observed doing its I/O or enforcing its sandbox (a private
// address dialed, a path leading outside the sandbox folder, a call out of
// memory), which the host decides itself, for a tool can reach the host
// past the prelude, and the module only words: those are always refused.
// body_cut passes with the note a cut body ends with, in Args.
type JSBridge struct {
	Code    string `json:"code"`
	Tool    string `json:"tool,omitempty"`
	Bridge  string `json:"bridge,omitempty"`
	URL     string `json:"url,omitempty"`
	Path    string `json:"path,omitempty"`
	Name    string `json:"name,omitempty"`
	Zone    string `json:"zone,omitempty"`
	Format  string `json:"format,omitempty"`
	Method  string `json:"method,omitempty"`
	Reason  string `json:"reason,omitempty"`
	LimitMB int    `json:"limit_mb,omitempty"`
	// TimeoutMS is the call's timeout; Pending, whether the call ended
	// awaiting a promise that never settles.
	TimeoutMS float64 `json:"timeout_ms,omitempty"`
	Pending   bool    `json:"pending,omitempty"`
	// Max is the bytes a cut body kept; Total the body's length when the
	// response said it, else 0; Short, the note without what was kept
	// (uploadMultipart's).
	Max   int   `json:"max,omitempty"`
	Total int64 `json:"total,omitempty"`
	Short bool  `json:"short,omitempty"`
	// Upload is uploadMultipart's request, for multipart.
	Upload *Upload `json:"upload,omitempty"`
}

// Upload is an uploadMultipart request as multipart reads it: the
// request's Content-Type (multipart/related or multipart/form-data),
// whether each part gets a Content-Disposition (FormData), its parts, its
// headers, and the boundary the host drew (one no part's bytes hold,
// which only the host, holding them, can see).
type Upload struct {
	ContentType string            `json:"content_type"`
	FormData    bool              `json:"form_data,omitempty"`
	Parts       []UploadPart      `json:"parts"`
	Headers     map[string]string `json:"headers,omitempty"`
	Boundary    string            `json:"boundary"`
}

// UploadPart is a part as multipart reads it: its name and file name (nil
// when not given), its Content-Type, and whether it gives content or a
// file's path (the host reads the file).
type UploadPart struct {
	Name        *string `json:"name,omitempty"`
	Filename    *string `json:"filename,omitempty"`
	ContentType string  `json:"content_type,omitempty"`
	Content     bool    `json:"content,omitempty"`
	File        bool    `json:"file,omitempty"`
}

// JSBridgeCodes lists js_bridge's codes in the order ABI.md gives them.
var JSBridgeCodes = []string{
	"fetch_method", "library_name", "time_format", "multipart", "body_cut",
	"upload_too_large", "params_not_object", "timeout", "out_of_memory", "private_address", "read_failed",
	"library_not_found", "time_zone", "google_not_granted", "google_not_connected",
	"sandbox_none", "sandbox_outside", "sandbox_leads_outside", "sandbox_root", "sandbox_nul",
}

var fetchMethods = []string{"GET", "POST", "PUT", "PATCH", "DELETE"}

// check answers the question; an unknown code is the host's mistake.
func (b JSBridge) check() (Answer, error) {
	fail := func(typ, msg string) (Answer, error) {
		return Answer{Error: &Refusal{Type: typ, Message: msg}}, nil
	}
	no := func(msg string) (Answer, error) { return fail("execution_error", msg) }
	switch b.Code {
	case "fetch_method":
		if b.Method == "" || slices.Contains(fetchMethods, strings.ToUpper(b.Method)) {
			return Answer{}, nil
		}
		return no(fmt.Sprintf("fetch: method '%s' is not allowed: use GET, POST, PUT, PATCH or DELETE", b.Method))
	case "library_name":
		if libraryName(b.Name) {
			return Answer{}, nil
		}
		return no(fmt.Sprintf("lib: invalid library name '%s': use letters, digits, '_' and '-', starting with a letter", b.Name))
	case "time_format":
		if b.Format == "" || b.Format == "iso8601" || b.Format == "human_readable" {
			return Answer{}, nil
		}
		return no(fmt.Sprintf("_time: invalid format '%s': use 'iso8601' or 'human_readable'", b.Format))
	case "multipart":
		if b.Upload == nil {
			return Answer{}, fmt.Errorf("check js_bridge multipart: args has no upload: give {\"upload\": {\"content_type\", \"parts\", \"boundary\"}}")
		}
		return b.Upload.frame()
	case "body_cut":
		total := "more"
		if b.Total > 0 {
			total = fmt.Sprint(b.Total)
		}
		size := fmt.Sprintf("%d bytes", b.Max)
		if b.Max%1024 == 0 {
			size = fmt.Sprintf("%d KB", b.Max>>10)
		}
		note := fmt.Sprintf("\n\n[toolroute: the body was cut at %s: kept %d of %s bytes]", size, b.Max, total)
		if b.Short {
			note = fmt.Sprintf("\n\n[toolroute: the body was cut at %s]", size)
		}
		return Answer{Args: struct {
			Note string `json:"note"`
		}{note}}, nil
	case "upload_too_large":
		return no(fmt.Sprintf("the parts hold over %d bytes (5 MB), the most an upload sends", b.Max))
	case "params_not_object":
		return fail("invalid_arguments", "the parameters are not a JSON object")
	case "timeout":
		msg := fmt.Sprintf("JS tool '%s' execution timed out after %s", b.Tool, duration(b.TimeoutMS))
		if b.Pending {
			msg += ": it awaits a promise that never settles"
		}
		return fail("timeout", msg)
	case "out_of_memory":
		return fail("out_of_memory", fmt.Sprintf("JS tool '%s' ran out of memory (the limit is %d MB)", b.Tool, b.LimitMB))
	case "private_address":
		return no(fmt.Sprintf("%s: %s is refused: loopback, private and link-local addresses cannot be reached from tools", b.Bridge, b.URL))
	case "read_failed":
		return no(fmt.Sprintf("fetch: reading the response from %s: %s", b.URL, b.Reason))
	case "library_not_found":
		return no(fmt.Sprintf("lib: library '%s' not found in the library folders (as %s.min.js or %s.js)", b.Name, b.Name, b.Name))
	case "time_zone":
		return no(fmt.Sprintf("_time: invalid timezone '%s': use an IANA time zone name such as 'Europe/Paris', 'America/New_York' or 'UTC'", b.Zone))
	case "google_not_granted":
		return no(fmt.Sprintf("google: '%s' may not use the Google account: only tools whose manifest lists \"google\" in requiredPermissions may, and code the model writes only when the user grants it at approval (js_eval's \"secrets\": [\"google\"])", b.Tool))
	case "google_not_connected":
		return no("Google account not connected: set GOOGLE_ACCESS_TOKEN, or GOOGLE_REFRESH_TOKEN with GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET, or run `toolroute google login`")
	case "sandbox_none":
		return no("fs: no sandbox folder is configured for JS tools")
	case "sandbox_outside":
		return no(fmt.Sprintf("Access denied: '%s' is outside the sandbox folder", b.Path))
	case "sandbox_leads_outside":
		return no(fmt.Sprintf("Access denied: '%s' leads outside the sandbox folder", b.Path))
	case "sandbox_root":
		return no(fmt.Sprintf("fs: '%s' is the sandbox folder, not a file", b.Path))
	case "sandbox_nul":
		return no(fmt.Sprintf("fs: '%s' holds a NUL byte (a binary file?): fs reads text files", b.Path))
	}
	return Answer{}, fmt.Errorf("check js_bridge: unknown code %q: use one of %s", b.Code, strings.Join(JSBridgeCodes, ", "))
}

// libraryName reports whether name may name a library lib() loads:
// ^[A-Za-z][A-Za-z0-9_-]*$.
func libraryName(name string) bool {
	if name == "" || !(name[0] >= 'a' && name[0] <= 'z' || name[0] >= 'A' && name[0] <= 'Z') {
		return false
	}
	for _, c := range []byte(name) {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// duration is ms milliseconds, within time.Duration's range: a float
// beyond it would convert to whatever the platform gives (the module's
// wasm traps on some).
func duration(ms float64) time.Duration {
	const most = float64(math.MaxInt64 / int64(time.Millisecond))
	switch {
	case !(ms > 0): // NaN too
		return 0
	case ms >= most:
		return time.Duration(math.MaxInt64)
	}
	return time.Duration(ms * float64(time.Millisecond))
}

// frame refuses an upload that cannot be one whatever its files hold, or
// gives its framing: each part's head (heads, in order: the boundary line,
// the Content-Disposition with form data, the Content-Type, a blank line),
// which the host follows with the part's bytes and CRLF, the tail after
// the last part, the request's Content-Type with the boundary, and its
// headers with that Content-Type in place of any the tool gave.
func (u Upload) frame() (Answer, error) {
	no := func(msg string) (Answer, error) {
		return Answer{Error: &Refusal{Type: "execution_error", Message: msg}}, nil
	}
	switch {
	case len(u.Parts) == 0:
		return no("give at least one part")
	case len(u.Parts) > MaxUploadParts:
		return no(fmt.Sprintf("%d parts: an upload takes at most %d", len(u.Parts), MaxUploadParts))
	case !strings.HasPrefix(strings.ToLower(u.ContentType), "multipart/"):
		return no(fmt.Sprintf("the Content-Type '%s' is not multipart/related or multipart/form-data", u.ContentType))
	}
	type framing struct {
		Heads       []string          `json:"heads"`
		Tail        string            `json:"tail"`
		ContentType string            `json:"content_type"`
		Headers     map[string]string `json:"headers"`
	}
	f := framing{Headers: map[string]string{}}
	for i, p := range u.Parts {
		if !p.Content && !p.File {
			return no(fmt.Sprintf("part %d has neither content nor filePath", i+1))
		}
		head := "--" + u.Boundary + "\r\n"
		if u.FormData {
			name := ""
			if p.Name != nil {
				name = *p.Name
			}
			disposition := `form-data; name="` + quoteField(name) + `"`
			if p.Filename != nil {
				disposition += `; filename="` + quoteField(*p.Filename) + `"`
			}
			head += "Content-Disposition: " + disposition + "\r\n"
		}
		f.Heads = append(f.Heads, head+"Content-Type: "+oneLine(p.ContentType)+"\r\n\r\n")
	}
	f.Tail = "--" + u.Boundary + "--\r\n"
	f.ContentType = u.ContentType + "; boundary=" + u.Boundary
	// The tool's headers, but its Content-Type: encoding/json writes the
	// map in key order.
	for k, v := range u.Headers {
		if !strings.EqualFold(k, "Content-Type") {
			f.Headers[k] = v
		}
	}
	f.Headers["Content-Type"] = f.ContentType
	return Answer{Args: f}, nil
}

// quoteField escapes a name or file name for a quoted Content-Disposition
// parameter as browsers do for form data: '"', CR and LF percent-encoded.
func quoteField(s string) string {
	var b strings.Builder
	for _, c := range []byte(s) {
		switch c {
		case '"':
			b.WriteString("%22")
		case '\r':
			b.WriteString("%0D")
		case '\n':
			b.WriteString("%0A")
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// oneLine keeps a header value on its line.
func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\r' || r == '\n' {
			return ' '
		}
		return r
	}, s)
}
