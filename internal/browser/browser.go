// Package browser is the Go program's browser tool: a headless Chromium
// driven over the DevTools protocol (github.com/chromedp/chromedp) that
// opens pages, reads them as text, clicks, types and takes screenshots the
// model sees. The browser starts at the first call and keeps one tab for
// the program's life, shared by its sessions.
//
// Every connection Chromium makes goes through a proxy in this package
// (proxy.go), which refuses loopback, private and link-local addresses
// after DNS, as JS tools' fetch does, unless the program allows them; only
// http and https pages open. The browser and the worker cannot start a
// program, so they do not offer the tool.
package browser

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
	"unicode/utf16"

	"github.com/chromedp/chromedp"

	"github.com/toolroute/toolroute/host"
	"github.com/toolroute/toolroute/internal/safehttp"
	"github.com/toolroute/toolroute/registry"
)

// Name is the tool's name, a core tool (docs/reference/routing.md).
const Name = "browser"

// Limits of a call.
const (
	// ActionTimeout bounds one action, a page load included.
	ActionTimeout = 30 * time.Second
	// MaxText bounds the page text one call answers.
	MaxText = 20000
	// Width and Height are the window's size, which screenshots have.
	Width, Height = 1280, 800
)

// Options configure the tool.
type Options struct {
	// Chromium is the browser program: a path, or "" to look for chromium,
	// chromium-browser, google-chrome on PATH. Without one the tool is left
	// out.
	Chromium string
	// AllowPrivate lets pages reach loopback, private and link-local
	// addresses.
	AllowPrivate bool
	// Blocked judges an address the browser would connect to; nil means
	// safehttp.Blocked (none with AllowPrivate). Tests swap it.
	Blocked func(netip.AddrPort) bool
}

// Browser is the tool and the browser behind it.
type Browser struct {
	o Options

	mu      sync.Mutex // one action at a time: the tab is shared
	started bool
	proxy   *proxy
	cancel  []context.CancelFunc
	tab     context.Context
}

// New returns the tool, or a problem saying why it is left out.
func New(o Options) (*Browser, host.NativeTool, string) {
	bin, why := findChromium(o.Chromium)
	if why != "" {
		return nil, host.NativeTool{}, "browser is left out: " + why
	}
	o.Chromium = bin
	if o.Blocked == nil {
		o.Blocked = func(ap netip.AddrPort) bool { return !o.AllowPrivate && safehttp.Blocked(ap.Addr()) }
	}
	b := &Browser{o: o}
	return b, host.NativeTool{Tool: Definition(), RunOutput: b.run}, ""
}

func findChromium(path string) (string, string) {
	if path != "" {
		if _, err := os.Stat(path); err != nil {
			return "", fmt.Sprintf("no Chromium at %s", path)
		}
		return path, ""
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, ""
		}
	}
	return "", "no Chromium on PATH (install chromium, such as Debian's package)"
}

// Definition is the tool as the model sees it.
func Definition() registry.Tool {
	return registry.Tool{
		Name: Name,
		Description: "Browser automation in a headless Chromium: navigate to a URL, read the page as text, click an element, type into one, " +
			"or take a screenshot you see. The tab stays open between calls. Elements are chosen by CSS selector.",
		Parameters: json.RawMessage(`{"type":"object","properties":{` +
			`"action":{"type":"string","enum":["navigate","text","click","type","screenshot"]},` +
			`"url":{"type":"string","description":"navigate: the http or https address"},` +
			`"selector":{"type":"string","description":"click and type: the element, such as #search or button[type=submit]; text: a part of the page (default the whole body)"},` +
			`"text":{"type":"string","description":"type: what to type"}},` +
			`"required":["action"]}`),
		RequiredPermissions: []string{registry.PermissionRead, registry.PermissionWrite, registry.PermissionNetwork},
		TimeoutSeconds:      int(ActionTimeout/time.Second) + 30,
	}
}

type args struct {
	Action   string `json:"action"`
	URL      string `json:"url"`
	Selector string `json:"selector"`
	Text     string `json:"text"`
}

func fail(typ, format string, a ...any) error {
	return &host.ToolError{Type: typ, Message: fmt.Sprintf(format, a...)}
}

// start launches Chromium behind the proxy, once.
func (b *Browser) start() error {
	if b.started {
		return nil
	}
	p, err := startProxy(b.o.Blocked)
	if err != nil {
		return err
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(b.o.Chromium),
		chromedp.WindowSize(Width, Height),
		chromedp.ProxyServer("http://"+p.addr),
		// Loopback goes through the proxy too, to be checked.
		chromedp.Flag("proxy-bypass-list", "<-loopback>"),
		chromedp.Flag("disable-background-networking", true),
		// WebRTC's UDP does not go through an HTTP proxy: a page's ICE
		// gathering reached addresses the proxy refuses. Only what the
		// proxy carries is sent.
		chromedp.Flag("webrtc-ip-handling-policy", "disable_non_proxied_udp"),
	)
	if os.Geteuid() == 0 {
		opts = append(opts, chromedp.NoSandbox)
	}
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	tab, cancelTab := chromedp.NewContext(allocCtx)
	if err := chromedp.Do(tab); err != nil {
		cancelTab()
		cancelAlloc()
		p.close()
		return fail("unavailable", "Chromium did not start: %v", err)
	}
	b.proxy, b.tab, b.cancel, b.started = p, tab, []context.CancelFunc{cancelTab, cancelAlloc}, true
	return nil
}

// Close stops the browser. Calling it again does nothing.
func (b *Browser) Close() {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, c := range b.cancel {
		c()
	}
	if b.proxy != nil {
		b.proxy.close()
	}
	b.cancel, b.proxy, b.started = nil, nil, false
}

func (b *Browser) run(ctx context.Context, in json.RawMessage) (host.Output, error) {
	var a args
	if err := json.Unmarshal(in, &a); err != nil {
		return host.Output{}, fail("invalid_arguments", "the arguments do not match the parameters: %v", err)
	}
	switch a.Action {
	case "navigate":
		u, err := url.Parse(strings.TrimSpace(a.URL))
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return host.Output{}, fail("invalid_arguments", "url %q is not an http or https address", a.URL)
		}
		a.URL = u.String()
	case "click", "type":
		if strings.TrimSpace(a.Selector) == "" {
			return host.Output{}, fail("invalid_arguments", "%s needs a selector: the element's CSS selector, such as #search", a.Action)
		}
	case "text", "screenshot":
	default:
		return host.Output{}, fail("invalid_arguments", "action %q: use navigate, text, click, type or screenshot", a.Action)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if err := b.start(); err != nil {
		return host.Output{}, err
	}
	// The action runs in the tab, bounded by its own time and by the call's.
	tctx, cancel := context.WithTimeout(b.tab, ActionTimeout)
	defer cancel()
	stop := context.AfterFunc(ctx, cancel)
	defer stop()
	out, err := b.act(tctx, a)
	if err != nil {
		var te *host.ToolError
		switch {
		case errors.As(err, &te):
		case ctx.Err() != nil:
			return host.Output{}, ctx.Err()
		case tctx.Err() != nil:
			err = fail("timed_out", "%s took over %s and was stopped", a.Action, ActionTimeout)
		default:
			err = fail("execution_error", "%s: %v", a.Action, err)
		}
	}
	return out, err
}

func (b *Browser) act(ctx context.Context, a args) (host.Output, error) {
	switch a.Action {
	case "navigate":
		resp, err := chromedp.Run(ctx, chromedp.NavigateResponse(a.URL))
		// The proxy answers a refused address itself (403), which the tab
		// shows as a page: the refusal is the tool's error.
		if b.proxy.refused(a.URL) {
			chromedp.Do(ctx, chromedp.Navigate("about:blank"))
			return host.Output{}, fail("forbidden", "%s is a loopback, private or link-local address, which the browser may not reach", a.URL)
		}
		if err != nil {
			return host.Output{}, fail("execution_error", "%s could not be opened: %v", a.URL, err)
		}
		status := 0
		if resp != nil {
			status = int(resp.Status)
		}
		title, where, err := b.where(ctx)
		if err != nil {
			return host.Output{}, err
		}
		return host.Output{Text: fmt.Sprintf("Opened %s (HTTP %d): %s. Read it with action text, or see it with screenshot.", where, status, quote(title))}, nil
	case "text":
		sel := a.Selector
		if sel == "" {
			sel = "body"
		}
		if ok, err := b.exists(ctx, sel); err != nil || !ok {
			if err == nil {
				err = fail("not_found", "no element matches %q on this page", sel)
			}
			return host.Output{}, err
		}
		// The text is cut in the page: a page may hold far more than the
		// tool answers (a compressed one inflates to any size), and all
		// of it would come over the DevTools connection. Its length is
		// JavaScript's, in UTF-16 units: characters, for most text.
		type cut struct {
			Text   string `json:"text"`
			Length int    `json:"length"`
		}
		js := "(() => { const e = document.querySelector(" + jsString(sel) + "); const t = (e.innerText ?? e.textContent ?? \"\").trim();" +
			" return {text: t.slice(0, " + fmt.Sprint(2*MaxText) + "), length: t.length}; })()"
		got, err := chromedp.Run(ctx, chromedp.Evaluate[cut](js))
		if err != nil {
			return host.Output{}, err
		}
		title, where, err := b.where(ctx)
		if err != nil {
			return host.Output{}, err
		}
		text := got.Text
		if r := []rune(text); len(r) > MaxText || got.Length > len(utf16.Encode(r)) {
			text = string(r[:min(len(r), MaxText)]) + fmt.Sprintf("\n[text cut at %d characters of %d: read a part with selector]", MaxText, got.Length)
		}
		return host.Output{Text: fmt.Sprintf("%s (%s):\n\n%s", quote(title), where, text)}, nil
	case "click", "type":
		if ok, err := b.exists(ctx, a.Selector); err != nil || !ok {
			if err == nil {
				err = fail("not_found", "no element matches %q on this page: read the page with action text", a.Selector)
			}
			return host.Output{}, err
		}
		action := chromedp.Click(chromedp.CSS(a.Selector), chromedp.NodeVisible)
		if a.Action == "type" {
			action = chromedp.SendKeys(chromedp.CSS(a.Selector), a.Text, chromedp.NodeVisible)
		}
		if err := chromedp.Do(ctx, action); err != nil {
			return host.Output{}, err
		}
		// A click may start a navigation: let it settle.
		chromedp.Do(ctx, chromedp.Sleep(300*time.Millisecond), chromedp.WaitReady(chromedp.CSS("body")))
		title, where, err := b.where(ctx)
		if err != nil {
			return host.Output{}, err
		}
		if a.Action == "type" {
			return host.Output{Text: fmt.Sprintf("Typed %d characters into %s; the page is %s (%s).", len([]rune(a.Text)), a.Selector, quote(title), where)}, nil
		}
		return host.Output{Text: fmt.Sprintf("Clicked %s; the page is now %s (%s).", a.Selector, quote(title), where)}, nil
	}
	// screenshot
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		return host.Output{}, err
	}
	title, where, err := b.where(ctx)
	if err != nil {
		return host.Output{}, err
	}
	data := base64.StdEncoding.EncodeToString(png)
	return host.Output{
		Text:   fmt.Sprintf("Screenshot of %s (%s), %dx%d: [image image/png, %d bytes]", quote(title), where, Width, Height, len(png)),
		Images: []registry.Image{{MIMEType: "image/png", Data: data}},
	}, nil
}

// MaxTitle bounds the page title a call answers.
const MaxTitle = 300

// where is the tab's title, cut in the page at MaxTitle characters, and
// its address.
func (b *Browser) where(ctx context.Context) (string, string, error) {
	js := "(() => { const t = document.title; return t.length > " + fmt.Sprint(MaxTitle) + " ? t.slice(0, " + fmt.Sprint(MaxTitle) + ") + '…' : t; })()"
	title, err := chromedp.Run(ctx, chromedp.Evaluate[string](js))
	if err != nil {
		return "", "", err
	}
	loc, err := chromedp.Run(ctx, chromedp.Location())
	return title, loc, err
}

func (b *Browser) exists(ctx context.Context, sel string) (bool, error) {
	js := "document.querySelectorAll(" + jsString(sel) + ").length"
	n, err := chromedp.Run(ctx, chromedp.Evaluate[int](js))
	if err != nil {
		return false, fail("invalid_arguments", "%q is not a CSS selector the page takes: %v", sel, err)
	}
	return n > 0, nil
}

func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func quote(title string) string {
	if title == "" {
		return "an untitled page"
	}
	return "\u201c" + title + "\u201d"
}
