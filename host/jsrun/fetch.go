package jsrun

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/toolroute/toolroute/internal/safehttp"
	"github.com/toolroute/toolroute/registry/check"
)

// FetchOptions configure the fetch bridge.
type FetchOptions struct {
	// AllowPrivate lets tools reach loopback, private and link-local
	// addresses, which are refused by default (SSRF).
	AllowPrivate bool
	// Rewrites send the URLs under From (same scheme, host and port, a
	// path at or below From's) to To instead, such as
	// https://www.googleapis.com to a local test server; safehttp.Rewrite
	// says exactly. The host chose those targets, so they are not checked
	// for private addresses, but a redirect must stay inside them. The
	// tool sees the response's URL under From (safehttp.Client.Shown).
	Rewrites []Rewrite
	// Timeout bounds one request; 0 means 30 seconds. A call's own timeout
	// bounds it too.
	Timeout time.Duration
	// MaxBody is the most body bytes a response keeps; 0 means 100 KB. A
	// call's maxBytes option sets its own, up to MaxFetchBytes.
	MaxBody int
}

// Rewrite sends the URLs under From to To, as safehttp.Rewrite.
type Rewrite struct {
	From string
	To   string
}

const defaultMaxBody = 100 << 10

// MaxFetchBytes bounds a call's maxBytes option: fetch(url, {maxBytes})
// keeps up to that many body bytes instead of the host's MaxBody, for a
// tool that reads whole pages (webfetch). A larger maxBytes keeps this
// many. web/packages/toolroute/jsrun/fetch.js has the same bound.
const MaxFetchBytes = 5 << 20

type fetcher struct {
	opts   FetchOptions
	client *safehttp.Client
}

func newFetcher(o FetchOptions) *fetcher {
	if o.Timeout <= 0 {
		o.Timeout = 30 * time.Second
	}
	if o.MaxBody <= 0 {
		o.MaxBody = defaultMaxBody
	}
	so := safehttp.Options{AllowPrivate: o.AllowPrivate, Timeout: o.Timeout}
	for _, rw := range o.Rewrites {
		so.Rewrites = append(so.Rewrites, safehttp.Rewrite(rw))
	}
	return &fetcher{opts: o, client: safehttp.New(so)}
}

type fetchRequest struct {
	Method  string            `json:"method"`
	Headers map[string]string `json:"headers"`
	Body    *string           `json:"body"`
	// MaxBytes is the call's maxBytes, a whole number above 0 (the prelude
	// checks it); a float, since a tool may give 1e12.
	MaxBytes *float64 `json:"maxBytes"`
}

// fetchResponse is a response for the prelude. URL is where the request
// ended, after redirects, in the tool's terms: a rewritten request's is
// under the rule's From, not its To.
type fetchResponse struct {
	Status     int               `json:"status"`
	StatusText string            `json:"statusText"`
	Headers    map[string]string `json:"headers"`
	URL        string            `json:"url"`
	Body       string            `json:"body"`
	Truncated  bool              `json:"truncated,omitempty"`
	Kept       int               `json:"kept,omitempty"`
}

// fetch performs a tool's fetch and returns the response as JSON for the
// prelude.
func (s *callState) fetch(rawURL, options string) (string, error) {
	f := s.runner.client
	var req fetchRequest
	if err := json.Unmarshal([]byte(options), &req); err != nil {
		return "", fmt.Errorf("fetch: bad options: %v", err)
	}
	if err := ask(s.ctx, check.JSBridge{Code: "fetch_method", Method: req.Method}); err != nil {
		return "", err
	}
	method := strings.ToUpper(req.Method)
	if method == "" {
		method = "GET"
	}
	var body io.Reader
	if req.Body != nil {
		body = strings.NewReader(*req.Body)
	}
	resp, done, err := s.send("fetch", rawURL, method, req.Headers, body)
	if err != nil {
		return "", err
	}
	defer done()
	maxBody := f.opts.MaxBody
	if req.MaxBytes != nil && *req.MaxBytes >= 1 {
		maxBody = int(min(*req.MaxBytes, MaxFetchBytes))
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, int64(maxBody)+1))
	if err != nil {
		return "", refused(s.ctx, check.JSBridge{Code: "read_failed", URL: rawURL, Reason: err.Error()})
	}
	out := fetchResponse{
		Status:     resp.StatusCode,
		StatusText: statusText(resp),
		Headers:    map[string]string{},
		URL:        responseURL(f.client.Shown(rawURL, resp.Request.URL)),
		Body:       string(data),
	}
	for k, v := range resp.Header {
		out.Headers[strings.ToLower(k)] = strings.Join(v, ", ")
	}
	if len(data) > maxBody {
		out.Truncated, out.Kept = true, maxBody
		note, err := cutNote(s.ctx, check.JSBridge{Max: maxBody, Total: max(resp.ContentLength, 0)})
		if err != nil {
			return "", err
		}
		out.Body = string(data[:maxBody]) + note
	}
	b, err := json.Marshal(out)
	return string(b), err
}

// send makes one request of a tool's, for fetch, downloadToFile and
// uploadMultipart alike: the rewrite rules, the address guard (loopback,
// private and link-local addresses refused after DNS, at every redirect),
// the host's timeout and the call's. bridge names the bridge in errors. The
// caller reads the body, then calls done, which closes it and ends the
// request's timeout.
func (s *callState) send(bridge, rawURL, method string, headers map[string]string, body io.Reader) (*http.Response, func(), error) {
	f := s.runner.client
	if s.noNetwork {
		return nil, nil, fmt.Errorf("%s: %s was not requested: toolroute check runs a file's top level without the network", bridge, rawURL)
	}
	u, rewritten, err := f.client.Target(rawURL)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %v", bridge, err)
	}
	ctx, cancel := context.WithTimeout(s.ctx, f.opts.Timeout)
	hreq, err := http.NewRequestWithContext(ctx, method, u.String(), body)
	if err != nil {
		cancel()
		return nil, nil, fmt.Errorf("%s: %v", bridge, err)
	}
	for _, k := range sortedKeys(headers) {
		hreq.Header.Set(k, headers[k])
	}
	if hreq.Header.Get("User-Agent") == "" {
		hreq.Header.Set("User-Agent", "toolroute")
	}
	resp, err := f.client.Do(hreq, rewritten)
	if err != nil {
		defer cancel()
		if errors.Is(err, safehttp.ErrPrivate) {
			return nil, nil, refused(s.ctx, check.JSBridge{Code: "private_address", Bridge: bridge, URL: rawURL})
		}
		if ctx.Err() != nil {
			return nil, nil, fmt.Errorf("%s: %s timed out", bridge, rawURL)
		}
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, nil, fmt.Errorf("%s: %s failed: %v", bridge, rawURL, err)
	}
	return resp, func() { resp.Body.Close(); cancel() }, nil
}

// statusText is a response's reason phrase: the server's, or the
// standard one when it sent none.
func statusText(resp *http.Response) string {
	t := strings.TrimSpace(strings.TrimPrefix(resp.Status, strconv.Itoa(resp.StatusCode)))
	if t == "" {
		t = http.StatusText(resp.StatusCode)
	}
	return t
}

// responseURL writes a response's URL as fetch gives it: without a
// fragment, which is never sent.
func responseURL(u *url.URL) string {
	c := *u
	c.Fragment, c.RawFragment = "", ""
	return c.String()
}
