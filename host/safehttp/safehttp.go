// Package safehttp makes HTTP requests on behalf of tools: http and https
// only, a bounded number of redirects, and no way to reach loopback, private
// or link-local addresses (SSRF) unless the host allows it. The check runs at
// dial time, after DNS, so a name resolving to such an address is refused
// too. Rewrite rules send a URL prefix elsewhere, such as Google's API host
// to a local test server; the host chose those targets, so they are exempt.
package safehttp

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"
)

// ErrPrivate is wrapped by the error of a request to a refused address.
var ErrPrivate = errors.New("safehttp: loopback, private and link-local addresses cannot be reached")

// Options configure a Client.
type Options struct {
	// AllowPrivate lets requests reach loopback, private and link-local
	// addresses.
	AllowPrivate bool
	// Rewrites send URLs starting with From to To instead.
	Rewrites []Rewrite
	// Timeout bounds a request until its response headers; 0 means 30
	// seconds.
	Timeout time.Duration
}

// Rewrite sends URLs with a prefix elsewhere.
type Rewrite struct {
	From string
	To   string
}

// Client makes guarded requests. It is safe for concurrent use.
type Client struct {
	opts Options
	// checked refuses private addresses; trusted serves rewritten URLs.
	// They never share connections.
	checked, trusted *http.Client
}

// New returns a Client.
func New(o Options) *Client {
	if o.Timeout <= 0 {
		o.Timeout = 30 * time.Second
	}
	return &Client{opts: o, checked: client(o, !o.AllowPrivate), trusted: client(o, false)}
}

func client(o Options, check bool) *http.Client {
	d := &net.Dialer{Timeout: 10 * time.Second}
	if check {
		d.ControlContext = func(_ context.Context, _, address string, _ syscall.RawConn) error {
			host, _, err := net.SplitHostPort(address)
			if err != nil {
				return err
			}
			if ip, err := netip.ParseAddr(host); err != nil || Blocked(ip) {
				return ErrPrivate
			}
			return nil
		}
	}
	return &http.Client{
		Transport: &http.Transport{
			DialContext:           d.DialContext,
			TLSHandshakeTimeout:   10 * time.Second,
			ResponseHeaderTimeout: o.Timeout,
			MaxIdleConnsPerHost:   4,
			IdleConnTimeout:       30 * time.Second,
		},
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) >= 5 {
				return errors.New("more than 5 redirects")
			}
			if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
				return fmt.Errorf("redirect to a %s URL", req.URL.Scheme)
			}
			return nil
		},
	}
}

// Blocked reports loopback, private, link-local, unspecified, multicast and
// shared (CGNAT) addresses.
func Blocked(ip netip.Addr) bool {
	ip = ip.Unmap()
	return ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() ||
		ip.IsUnspecified() || ip.IsMulticast() || ip.IsInterfaceLocalMulticast() ||
		cgnat.Contains(ip) || thisNetwork.Contains(ip)
}

var (
	cgnat       = netip.MustParsePrefix("100.64.0.0/10")
	thisNetwork = netip.MustParsePrefix("0.0.0.0/8")
)

// Target applies the rewrite rules to a URL and checks it is http or https.
// It reports whether a rule applied.
func (c *Client) Target(raw string) (*url.URL, bool, error) {
	target, rewritten := raw, false
	for _, rw := range c.opts.Rewrites {
		if rest, ok := strings.CutPrefix(raw, rw.From); ok {
			target, rewritten = rw.To+rest, true
			break
		}
	}
	u, err := url.Parse(target)
	if err != nil || u.Host == "" {
		return nil, false, fmt.Errorf("invalid URL '%s': give a full http:// or https:// URL", raw)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, false, fmt.Errorf("'%s' is not an http or https URL", raw)
	}
	return u, rewritten, nil
}

// Do sends a request built for Target's URL; rewritten says whether Target
// rewrote it.
func (c *Client) Do(req *http.Request, rewritten bool) (*http.Response, error) {
	if rewritten {
		return c.trusted.Do(req)
	}
	return c.checked.Do(req)
}
