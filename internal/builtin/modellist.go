package builtin

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/toolroute/toolroute/host"
	"github.com/toolroute/toolroute/registry/check"
)

// MaxModelListBytes bounds one page of a provider's model list.
const MaxModelListBytes = check.MaxModelListBytes

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
		status, body, over, err := getList(client, req)
		if err != nil {
			return nil, err
		}
		var page struct {
			IDs  []string `json:"ids"`
			Next string   `json:"next"`
		}
		if err := checked(ctx, "model_list", struct {
			Format string   `json:"format"`
			URL    string   `json:"url"`
			Status int      `json:"status"`
			Body   string   `json:"body"`
			Over   bool     `json:"over"`
			IDs    []string `json:"ids"`
		}{format, req.URL.Redacted(), status, string(body), over, ids}, &page); err != nil {
			return nil, err
		}
		ids, next = page.IDs, page.Next
		if next == "" {
			break
		}
	}
	return ids, nil
}

// getList makes one request of a model list and reads its status and
// body, and whether the body went over MaxModelListBytes (then cut): the
// module reads them (wasm/ABI.md, toolroute_check's model_list).
func getList(client *http.Client, req *http.Request) (int, []byte, bool, error) {
	where := req.URL.Redacted()
	resp, err := client.Do(req)
	if err != nil {
		return 0, nil, false, &host.ToolError{Type: "execution_error", Message: fmt.Sprintf("GET %s could not be reached: %v", where, unwrapURLError(err))}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxModelListBytes+1))
	if err != nil {
		return 0, nil, false, &host.ToolError{Type: "execution_error", Message: fmt.Sprintf("GET %s: reading the answer: %v", where, err)}
	}
	if len(body) > MaxModelListBytes {
		return resp.StatusCode, nil, true, nil
	}
	return resp.StatusCode, body, false, nil
}

func unwrapURLError(err error) error {
	if u, ok := err.(*url.Error); ok {
		return u.Err
	}
	return err
}
