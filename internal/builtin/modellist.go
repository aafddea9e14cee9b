package builtin

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/toolroute/toolroute/host"
)

// MaxModelListBytes bounds one page of a provider's model list.
const MaxModelListBytes = 4 << 20

// maxModelListPages bounds the pages of a list that pages (Anthropic's,
// Gemini's).
const maxModelListPages = 10

// FetchModels reads a provider's model list, in the provider's order:
// GET BASE/models for the OpenAI formats (openai, responses), GET
// BASE/v1/models for Anthropic and GET BASE/v1beta/models for Gemini (only
// the models that generate content, without the "models/" prefix), each
// with its format's key header. A nil client means one with a 30-second
// timeout. A failure is a *host.ToolError saying what the provider
// answered; key never appears in it.
func FetchModels(ctx context.Context, client *http.Client, format, baseURL, key string) ([]string, error) {
	if client == nil {
		client = &http.Client{Timeout: 30 * time.Second}
	}
	base := strings.TrimRight(baseURL, "/")
	var ids []string
	next := ""
	for page := 0; page < maxModelListPages; page++ {
		var u string
		switch format {
		case "openai", "responses":
			u = base + "/models"
		case "anthropic":
			u = base + "/v1/models?limit=1000"
			if next != "" {
				u += "&after_id=" + url.QueryEscape(next)
			}
		case "gemini":
			u = base + "/v1beta/models?pageSize=1000"
			if next != "" {
				u += "&pageToken=" + url.QueryEscape(next)
			}
		default:
			return nil, invalid("format %q has no model list: use one of %s", format, strings.Join(Formats, ", "))
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		if err != nil {
			return nil, invalid("the provider's base_url gives no address: %v", err)
		}
		if key != "" {
			switch format {
			case "anthropic":
				req.Header.Set("x-api-key", key)
			case "gemini":
				req.Header.Set("x-goog-api-key", key)
			default:
				req.Header.Set("Authorization", "Bearer "+key)
			}
		}
		if format == "anthropic" {
			req.Header.Set("anthropic-version", "2023-06-01")
		}
		body, err := getList(client, req)
		if err != nil {
			return nil, err
		}
		got, more, err := parseModelList(format, body)
		if err != nil {
			return nil, &host.ToolError{Type: "execution_error", Message: fmt.Sprintf("GET %s answered something that is not a model list (%v): is base_url the API root, such as %s?", u, err, DefaultBaseURLs[format])}
		}
		ids = append(ids, got...)
		next = more
		if next == "" {
			break
		}
	}
	out := ids[:0]
	for _, id := range ids {
		if id != "" && checkModel(id) == nil && !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out, nil
}

// parseModelList reads one page of a model list in format's shape: the
// ids, in order, and the next page's token ("" for none).
func parseModelList(format string, body []byte) (ids []string, next string, err error) {
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
	if err := json.Unmarshal(body, &list); err != nil {
		return nil, "", err
	}
	if format == "gemini" {
		for _, m := range list.Models {
			if m.Methods == nil || slices.Contains(m.Methods, "generateContent") {
				ids = append(ids, strings.TrimPrefix(m.Name, "models/"))
			}
		}
		return ids, list.NextPageToken, nil
	}
	for _, m := range list.Data {
		ids = append(ids, m.ID)
	}
	if format == "anthropic" && list.HasMore {
		next = list.LastID
	}
	return ids, next, nil
}

// getList makes one request of a model list and reads its body.
func getList(client *http.Client, req *http.Request) ([]byte, error) {
	where := req.URL.Redacted()
	resp, err := client.Do(req)
	if err != nil {
		return nil, &host.ToolError{Type: "execution_error", Message: fmt.Sprintf("GET %s could not be reached: %v", where, unwrapURLError(err))}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxModelListBytes+1))
	if err != nil {
		return nil, &host.ToolError{Type: "execution_error", Message: fmt.Sprintf("GET %s: reading the answer: %v", where, err)}
	}
	if len(body) > MaxModelListBytes {
		return nil, &host.ToolError{Type: "execution_error", Message: fmt.Sprintf("GET %s answered over %d bytes: not a model list", where, MaxModelListBytes)}
	}
	if resp.StatusCode/100 != 2 {
		text := strings.TrimSpace(string(body))
		if len(text) > 300 {
			text = text[:300] + "…"
		}
		hint := ""
		switch resp.StatusCode {
		case http.StatusUnauthorized, http.StatusForbidden:
			hint = ": check the key's secret"
		case http.StatusNotFound:
			hint = ": check base_url"
		}
		return nil, &host.ToolError{Type: "execution_error", Message: fmt.Sprintf("GET %s answered HTTP %d%s: %s", where, resp.StatusCode, hint, text)}
	}
	return body, nil
}

func unwrapURLError(err error) error {
	if u, ok := err.(*url.Error); ok {
		return u.Err
	}
	return err
}
