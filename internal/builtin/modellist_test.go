package builtin_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/toolroute/toolroute/host"
	"github.com/toolroute/toolroute/internal/builtin"
	"github.com/toolroute/toolroute/internal/gzipbomb"
)

// modelLists is a fake of the three providers' model list endpoints, in
// their real shapes: OpenAI's GET /v1/models, Anthropic's GET /v1/models
// (paged by after_id), Gemini's GET /v1beta/models (paged by pageToken).
// Each checks its key header and answers 401 without it.
func modelLists(t *testing.T) (*httptest.Server, *[]string) {
	var seen []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen = append(seen, r.URL.RequestURI())
		w.Header().Set("Content-Type", "application/json")
		ok := func(header, want string) bool {
			if r.Header.Get(header) != want {
				w.WriteHeader(http.StatusUnauthorized)
				w.Write([]byte(`{"error":{"message":"Incorrect API key provided"}}`))
				return false
			}
			return true
		}
		switch {
		case r.URL.Path == "/openai/v1/models":
			if ok("Authorization", "Bearer sk-openai-test") {
				w.Write([]byte(`{"object":"list","data":[{"id":"gpt-4.1","object":"model","created":1744316542,"owned_by":"system"},{"id":"gpt-4.1-mini","object":"model","created":1744317547,"owned_by":"system"}]}`))
			}
		case r.URL.Path == "/anthropic/v1/models":
			if !ok("x-api-key", "sk-ant-test") || r.Header.Get("anthropic-version") == "" {
				return
			}
			if r.URL.Query().Get("after_id") == "" {
				w.Write([]byte(`{"data":[{"type":"model","id":"claude-sonnet-4-5","display_name":"Claude Sonnet 4.5","created_at":"2025-09-29T00:00:00Z"}],"has_more":true,"first_id":"claude-sonnet-4-5","last_id":"claude-sonnet-4-5"}`))
			} else {
				w.Write([]byte(`{"data":[{"type":"model","id":"claude-haiku-4-5","display_name":"Claude Haiku 4.5","created_at":"2025-10-15T00:00:00Z"}],"has_more":false,"first_id":"claude-haiku-4-5","last_id":"claude-haiku-4-5"}`))
			}
		case r.URL.Path == "/gemini/v1beta/models":
			if !ok("x-goog-api-key", "gm-test") {
				return
			}
			if r.URL.Query().Get("pageToken") == "" {
				w.Write([]byte(`{"models":[{"name":"models/gemini-2.5-flash","version":"001","displayName":"Gemini 2.5 Flash","supportedGenerationMethods":["generateContent","countTokens"]},{"name":"models/text-embedding-004","supportedGenerationMethods":["embedContent"]}],"nextPageToken":"p2"}`))
			} else {
				w.Write([]byte(`{"models":[{"name":"models/gemini-2.5-pro","supportedGenerationMethods":["generateContent"]}]}`))
			}
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv, &seen
}

func TestFetchModels(t *testing.T) {
	srv, seen := modelLists(t)
	// A list of 400 MB gzipped into half a megabyte.
	bomb := httptest.NewServer(gzipbomb.Handler("application/json", gzipbomb.Make(`{"data":[{"id":"`, "a", `"}]}`, 400<<20)))
	defer bomb.Close()
	ctx := opCtx(t)
	for _, c := range []struct {
		name, format, base, key string
		want                    []string
		wantErr                 string
	}{
		{name: "openai", format: "openai", base: srv.URL + "/openai/v1/", key: "sk-openai-test", want: []string{"gpt-4.1", "gpt-4.1-mini"}},
		{name: "responses uses OpenAI's list", format: "responses", base: srv.URL + "/openai/v1", key: "sk-openai-test", want: []string{"gpt-4.1", "gpt-4.1-mini"}},
		{name: "anthropic, two pages", format: "anthropic", base: srv.URL + "/anthropic", key: "sk-ant-test", want: []string{"claude-sonnet-4-5", "claude-haiku-4-5"}},
		{name: "gemini, two pages, generating models only", format: "gemini", base: srv.URL + "/gemini", key: "gm-test", want: []string{"gemini-2.5-flash", "gemini-2.5-pro"}},
		{name: "a wrong key", format: "openai", base: srv.URL + "/openai/v1", key: "sk-wrong-key-123", wantErr: "answered HTTP 401: check the key's secret: "},
		{name: "a wrong base URL", format: "anthropic", base: srv.URL + "/elsewhere", key: "sk-ant-test", wantErr: "answered HTTP 404: check base_url"},
		{name: "nothing listening", format: "openai", base: "http://127.0.0.1:1/v1", wantErr: "could not be reached"},
		{name: "a list that inflates without end", format: "openai", base: bomb.URL + "/v1", wantErr: "answered over 4194304 bytes: not a model list"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := builtin.FetchModels(ctx, nil, c.format, c.base, c.key)
			if c.wantErr != "" {
				var te *host.ToolError
				if err == nil || !strings.Contains(err.Error(), c.wantErr) || !errors.As(err, &te) {
					t.Fatalf("err = %v, want a tool error with %q", err, c.wantErr)
				}
				if c.key != "" && strings.Contains(err.Error(), c.key) {
					t.Errorf("the error shows the key: %v", err)
				}
				return
			}
			if err != nil || !slices.Equal(got, c.want) {
				t.Errorf("FetchModels = %v, %v; want %v", got, err, c.want)
			}
		})
	}
	if !slices.Contains(*seen, "/anthropic/v1/models?limit=1000&after_id=claude-sonnet-4-5") || !slices.Contains(*seen, "/gemini/v1beta/models?pageSize=1000&pageToken=p2") {
		t.Errorf("the pages asked for: %v", *seen)
	}
}

// models.fetch reads the list with the key of the provider's secret and
// keeps it; without the secret set it says who sets it.
func TestModelsFetchOp(t *testing.T) {
	srv, _ := modelLists(t)
	f := newFixture(t)
	ctx := opCtx(t)
	ops := builtin.Ops(f.deps)
	call := func(op, args string) (map[string]any, error) {
		v, err := ops[op](ctx, json.RawMessage(args))
		if err != nil {
			return nil, err
		}
		b, _ := json.Marshal(v)
		var m map[string]any
		json.Unmarshal(b, &m)
		return m, nil
	}
	if _, err := call("providers.create", `{"name":"claude","format":"anthropic","base_url":"`+srv.URL+`/anthropic","key_secret":"ANT_KEY"}`); err != nil {
		t.Fatal(err)
	}
	if _, err := call("models.fetch", `{"provider":"claude"}`); err == nil || !strings.Contains(err.Error(), "claude's key, the secret ANT_KEY, is not set") {
		t.Errorf("without the key: %v", err)
	}
	if err := f.deps.Store.SetSetting(ctx, builtin.EnvPrefix+"ANT_KEY", "sk-ant-test"); err != nil {
		t.Fatal(err)
	}
	got, err := call("models.fetch", `{"provider":"claude"}`)
	if err != nil || got["fetched"] != 2.0 || got["new"] != 2.0 || got["key_set"] != true {
		t.Fatalf("models.fetch = %v, %v", got, err)
	}
	listed, err := call("models.list", `{"provider":"claude"}`)
	if err != nil || !slices.Equal(anyStrings(listed["models"]), []string{"claude-sonnet-4-5", "claude-haiku-4-5"}) {
		t.Errorf("models.list = %v, %v", listed, err)
	}
	b, _ := json.Marshal(listed)
	if strings.Contains(string(b), "sk-ant-test") {
		t.Errorf("the answer shows the key: %s", b)
	}
	if _, err := call("models.fetch", `{"provider":"nobody"}`); err == nil || !strings.Contains(err.Error(), `no provider "nobody"`) {
		t.Errorf("an unknown provider: %v", err)
	}
}

func anyStrings(v any) []string {
	list, _ := v.([]any)
	out := make([]string, len(list))
	for i, x := range list {
		out[i], _ = x.(string)
	}
	return out
}
