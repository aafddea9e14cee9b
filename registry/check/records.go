package check

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// ProviderFormats are the wire formats a stored provider may speak.
var ProviderFormats = []string{"openai", "anthropic", "responses", "gemini"}

// ReservedProviderNames are the provider kinds a host already names (the
// page's settings panel): a stored provider takes another name, so the
// provider setting means one thing.
var ReservedProviderNames = []string{"server", "openai", "anthropic", "responses", "gemini", "demo"}

// defaultBaseURL is each format's API root when a provider gives none.
func defaultBaseURL(format string) string {
	switch format {
	case "openai", "responses":
		return "https://api.openai.com/v1"
	case "anthropic":
		return "https://api.anthropic.com"
	case "gemini":
		return "https://generativelanguage.googleapis.com"
	}
	return ""
}

// ProviderRecord is a stored provider's record as an operation gives it
// (op provider_record), after its name passed provider_name: its format,
// API root ("" for the format's) and the name of the variable holding its
// key ("" for none).
type ProviderRecord struct {
	Name      string `json:"name"`
	Format    string `json:"format"`
	BaseURL   string `json:"base_url"`
	KeySecret string `json:"key_secret"`
}

// check refuses a record no host may store, or answers its base_url as
// stored: the format's when none is given, without a trailing slash.
func (p ProviderRecord) check() Answer {
	if slices.Contains(ReservedProviderNames, p.Name) {
		return refuse(fmt.Sprintf("%q names a provider kind the hosts already have: give yours another name, such as %s_work", p.Name, p.Name))
	}
	if !slices.Contains(ProviderFormats, p.Format) {
		return refuse(fmt.Sprintf("format %q: use one of %s", p.Format, strings.Join(ProviderFormats, ", ")))
	}
	base := p.BaseURL
	if base == "" {
		base = defaultBaseURL(p.Format)
	}
	if !apiRoot(base) {
		return refuse(fmt.Sprintf("base_url %q is not an http or https address such as %s", base, defaultBaseURL(p.Format)))
	}
	if p.KeySecret != "" && !VariableName(p.KeySecret) {
		return refuse(fmt.Sprintf("key_secret %q is not a secret's name: give the name of the variable holding the key (letters, digits and _, such as OPENAI_WORK_KEY), never the key itself", p.KeySecret))
	}
	return Answer{Args: struct {
		BaseURL string `json:"base_url"`
	}{strings.TrimRight(base, "/")}}
}

// apiRoot reports whether s is an http or https address with a host and
// no user name, password, query or fragment: an API root a host appends
// paths to, with an optional numeric port. net/url would do it, at
// 185,625 bytes of the module (45 KB gzipped) for this one check, so the
// rule is read here by hand: a URL with a space or control character, a
// lone ? or # included, is refused whole.
func apiRoot(s string) bool {
	rest, ok := cutFold(s, "https://")
	if !ok {
		rest, ok = cutFold(s, "http://")
	}
	if !ok || strings.ContainsFunc(s, func(r rune) bool { return r <= ' ' || r == 0x7f }) {
		return false
	}
	host, _, _ := strings.Cut(rest, "/")
	if strings.ContainsAny(rest, "?#") || strings.Contains(host, "@") {
		return false
	}
	if i := strings.LastIndexByte(host, ':'); i >= 0 && !strings.Contains(host[i:], "]") {
		if strings.Trim(host[i+1:], "0123456789") != "" {
			return false
		}
		host = host[:i]
	}
	if strings.HasPrefix(host, "[") {
		return len(host) > 2 && strings.HasSuffix(host, "]") && strings.Trim(host[1:len(host)-1], "0123456789abcdefABCDEF:.") == ""
	}
	return host != "" && !strings.ContainsAny(host, "[]\\:%<>{}|^`\"")
}

// cutFold is strings.CutPrefix, the prefix matched without regard to case.
func cutFold(s, prefix string) (string, bool) {
	if len(s) < len(prefix) || !strings.EqualFold(s[:len(prefix)], prefix) {
		return s, false
	}
	return s[len(prefix):], true
}

// MaxModelListBytes bounds a page of a provider's model list.
const MaxModelListBytes = 4 << 20

// ModelListPage is one page of a provider's model list as the host got it
// (op model_list): the format, the URL it asked (key-free), the HTTP
// status, the body (as text), whether the body went over
// MaxModelListBytes (Over, the body then cut), and the ids of the pages
// before (IDs).
type ModelListPage struct {
	Format string   `json:"format"`
	URL    string   `json:"url"`
	Status int      `json:"status"`
	Body   string   `json:"body"`
	Over   bool     `json:"over"`
	IDs    []string `json:"ids"`
}

// check reads a page: the list so far with this page's model ids (in the
// provider's order, each once, none that is not a model name), and the
// next page's token ("" for none); or the failure the model reads.
func (p ModelListPage) check() Answer {
	fail := func(msg string) Answer { return refuseAs("execution_error", msg) }
	if p.Over {
		return fail(fmt.Sprintf("GET %s answered over %d bytes: not a model list", p.URL, MaxModelListBytes))
	}
	if p.Status/100 != 2 {
		hint := ""
		switch p.Status {
		case 401, 403:
			hint = ": check the key's secret"
		case 404:
			hint = ": check base_url"
		}
		text := strings.TrimSpace(p.Body)
		if len(text) > 300 {
			text = text[:300] + "…"
		}
		return fail(fmt.Sprintf("GET %s answered HTTP %d%s: %s", p.URL, p.Status, hint, strings.ToValidUTF8(text, "")))
	}
	var list struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
		HasMore bool   `json:"has_more"`
		LastID  string `json:"last_id"`
		Models  []struct {
			Name    string   `json:"name"`
			Methods []string `json:"supportedGenerationMethods"`
		} `json:"models"`
		NextPageToken string `json:"nextPageToken"`
	}
	if err := json.Unmarshal([]byte(p.Body), &list); err != nil {
		return fail(fmt.Sprintf("GET %s answered something that is not a model list (%v): is base_url the API root, such as %s?", p.URL, err, defaultBaseURL(p.Format)))
	}
	out := struct {
		IDs  []string `json:"ids"`
		Next string   `json:"next"`
	}{IDs: []string{}}
	add := func(id string) {
		if id != "" && modelName(id) && !slices.Contains(out.IDs, id) {
			out.IDs = append(out.IDs, id)
		}
	}
	for _, id := range p.IDs {
		add(id)
	}
	if p.Format == "gemini" {
		for _, m := range list.Models {
			if m.Methods == nil || slices.Contains(m.Methods, "generateContent") {
				add(strings.TrimPrefix(m.Name, "models/"))
			}
		}
		out.Next = list.NextPageToken
		return Answer{Args: out}
	}
	for _, m := range list.Data {
		add(m.ID)
	}
	if p.Format == "anthropic" && list.HasMore {
		out.Next = list.LastID
	}
	return Answer{Args: out}
}

// modelName reports whether m may be a model's name: not blank, at most
// 200 bytes, no white space.
func modelName(m string) bool {
	return strings.TrimSpace(m) != "" && len(m) <= 200 && !strings.ContainsAny(m, " \t\r\n")
}
