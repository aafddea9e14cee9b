package host

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"slices"
	"strings"

	"github.com/toolroute/toolroute/registry"
	"github.com/toolroute/toolroute/registry/session"
)

// Secret is a value that must never leave the host: an API key, a token, a
// variable set for tools. Name says which, in the marker that replaces it.
type Secret struct {
	Name  string
	Value string
}

// MinSecretLength is the shortest value redacted: shorter ones would
// replace ordinary words.
const MinSecretLength = 8

// DescribeSecrets names secrets a call asks for, for the user who is asked
// to grant them: the Google account, then the variables.
func DescribeSecrets(names []string) string {
	var parts, vars []string
	for _, n := range names {
		if n == registry.PermissionGoogle {
			parts = append(parts, "your Google account")
		} else {
			vars = append(vars, n)
		}
	}
	if len(vars) > 0 {
		parts = append(parts, "the variables "+strings.Join(vars, ", "))
	}
	return strings.Join(parts, " and ")
}

// Redaction is the marker that replaces a secret's value.
func Redaction(name string) string { return "[redacted " + name + "]" }

// redactor replaces known secret values in text leaving the host: tool
// results and console output, the messages stored and the model requests.
// The longest values go first, so a secret holding another is replaced
// whole.
type redactor struct {
	pairs []Secret // value as it appears -> marker, longest first
}

func newRedactor(secrets []Secret) *redactor {
	var pairs []Secret
	seen := map[string]bool{}
	add := func(value, name string) {
		if len(value) < MinSecretLength || seen[value] {
			return
		}
		seen[value] = true
		pairs = append(pairs, Secret{Name: name, Value: value})
	}
	for _, s := range secrets {
		add(s.Value, s.Name)
		// In a JSON body the value may appear escaped.
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if enc.Encode(s.Value) == nil {
			add(strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(b.String()), `"`), `"`), s.Name)
		}
		enc = json.NewEncoder(&b)
		b.Reset()
		if enc.Encode(s.Value) == nil { // the HTML-escaping form other encoders write
			add(strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(b.String()), `"`), `"`), s.Name)
		}
	}
	slices.SortStableFunc(pairs, func(a, b Secret) int { return cmp.Compare(len(b.Value), len(a.Value)) })
	return &redactor{pairs: pairs}
}

func (r *redactor) text(s string) string {
	for _, p := range r.pairs {
		if strings.Contains(s, p.Value) {
			s = strings.ReplaceAll(s, p.Value, Redaction(p.Name))
		}
	}
	return s
}

func (r *redactor) bytes(b []byte) []byte {
	for _, p := range r.pairs {
		if bytes.Contains(b, []byte(p.Value)) {
			b = bytes.ReplaceAll(b, []byte(p.Value), []byte(Redaction(p.Name)))
		}
	}
	return b
}

func (r *redactor) result(res registry.Result) registry.Result {
	res.Output = r.text(res.Output)
	res.Message = r.text(res.Message)
	if len(res.Asked) > 0 {
		asked := make([]string, len(res.Asked))
		for i, a := range res.Asked {
			asked[i] = r.text(a)
		}
		res.Asked = asked
	}
	if len(res.MCP) > 0 {
		// Markers hold no quote or backslash: the JSON stays whole.
		res.MCP = r.bytes(res.MCP)
	}
	return res
}

// messages redacts messages in place and reports whether it changed any.
func (r *redactor) messages(msgs []session.Message) bool {
	changed := false
	for i := range msgs {
		content, input := r.text(msgs[i].Content), r.text(msgs[i].ToolInput)
		changed = changed || content != msgs[i].Content || input != msgs[i].ToolInput
		msgs[i].Content, msgs[i].ToolInput = content, input
		// An attached text file is what the user wrote too (an image's
		// base64 holds no secret's text).
		for j := range msgs[i].Attachments {
			a := &msgs[i].Attachments[j]
			text := r.text(a.Text)
			changed = changed || text != a.Text
			a.Text = text
		}
	}
	return changed
}

// Redact returns b with the values of the secrets known now (Options.Secrets)
// replaced by their markers, as everything leaving the host is: for text a
// program shows or sends on that did not come through a turn, such as the
// body of a provider's error it passes to a page.
func (h *Host) Redact(ctx context.Context, b []byte) []byte { return h.redactor(ctx).bytes(b) }

// ProviderKeySecret names the provider's key when Options.Secrets does not
// list its value: the JS host's name for it too (web/packages/toolroute/host/redact.js's
// callers), so a tool that echoes the key reads the same marker in both.
const ProviderKeySecret = "the provider's key"

// redactor returns the redactor of the secrets known now, the HTTP
// provider's key among them whether or not Options.Secrets lists it (as the
// JS host does: testdata/redaction holds both to it).
func (h *Host) redactor(ctx context.Context) *redactor {
	var secrets []Secret
	if h.opts.Secrets != nil {
		secrets = h.opts.Secrets(ctx)
	}
	if p, ok := h.opts.Provider.(*HTTPProvider); ok && p.APIKey != "" {
		secrets = append(slices.Clip(secrets), Secret{Name: ProviderKeySecret, Value: p.APIKey})
	}
	if len(secrets) == 0 {
		return &redactor{}
	}
	return newRedactor(secrets)
}
