// Package safehttp makes HTTP requests on behalf of tools: http and https
// only, a bounded number of redirects, and no way to reach loopback, private
// or link-local addresses (SSRF) unless the host allows it. The check runs at
// dial time, after DNS, so a name resolving to such an address is refused
// too, and again on every redirect. Rewrite rules send an origin and path
// prefix elsewhere, such as Google's API host to a local test server; the
// host chose those targets, so they are exempt from the address check, and a
// rewritten request may redirect only within its target.
//
// It also caps what a response may deliver (LimitBody, ReadAll, body.go):
// the one reader every body the program reads whole or streams goes
// through, its own requests' or not (a model's reply, an MCP server's,
// Google's), failing past its cap with an error that names the cap.
package safehttp

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
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
	// Rewrites send URLs matching From to To instead.
	Rewrites []Rewrite
	// Timeout bounds a request until its response headers; 0 means 30
	// seconds.
	Timeout time.Duration
}

// Rewrite sends the URLs under From to To: those with From's scheme, host
// and port (the scheme's default port when none is given), and a path equal
// to From's or below it at a '/' (From https://h/v1 takes /v1 and /v1/x, not
// /v1x). The rest of the path, the query and the fragment are kept:
// https://h/v1/x?q=1 becomes To + /x?q=1.
//
// From and To are scheme://host[:port][/path] with no user, query or
// fragment; Target reports a rule that is not.
type Rewrite struct {
	From string
	To   string
}

// Client makes guarded requests. It is safe for concurrent use.
type Client struct {
	opts  Options
	rules []rule
	// blocked judges the addresses dialled and redirected to; tests swap
	// it to play a public server on loopback.
	blocked func(netip.AddrPort) bool
	// checked refuses private addresses; trusted serves rewritten URLs.
	// They never share connections.
	checked, trusted *http.Client
}

// New returns a Client.
func New(o Options) *Client {
	return newClient(o, func(ap netip.AddrPort) bool { return Blocked(ap.Addr()) })
}

func newClient(o Options, blocked func(netip.AddrPort) bool) *Client {
	if o.Timeout <= 0 {
		o.Timeout = 30 * time.Second
	}
	c := &Client{opts: o, blocked: blocked}
	for _, rw := range o.Rewrites {
		c.rules = append(c.rules, parseRule(rw))
	}
	c.checked = c.client(!o.AllowPrivate, c.checkRedirect)
	c.trusted = c.client(false, c.checkRewrittenRedirect)
	return c
}

func (c *Client) client(check bool, redirect func(*http.Request, []*http.Request) error) *http.Client {
	d := &net.Dialer{Timeout: 10 * time.Second}
	if check {
		d.ControlContext = func(_ context.Context, _, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil || c.blocked(ap) {
				return ErrPrivate
			}
			return nil
		}
	}
	return &http.Client{
		Transport: &http.Transport{
			// Proxy stays nil: a proxy from the environment would dial
			// for us, past the check above.
			DialContext:           d.DialContext,
			TLSHandshakeTimeout:   10 * time.Second,
			ResponseHeaderTimeout: c.opts.Timeout,
			MaxIdleConnsPerHost:   4,
			IdleConnTimeout:       30 * time.Second,
		},
		CheckRedirect: redirect,
	}
}

// checkRedirect judges a redirect of a request no rule rewrote. The dial
// check judges names after DNS; an IP literal is refused here, before any
// connection, with a plainer error.
func (c *Client) checkRedirect(req *http.Request, via []*http.Request) error {
	if err := checkHop(req, via); err != nil {
		return err
	}
	if c.opts.AllowPrivate {
		return nil
	}
	if ip, err := netip.ParseAddr(req.URL.Hostname()); err == nil {
		_, p := endpoint(req.URL)
		port, _ := strconv.ParseUint(p, 10, 16)
		if c.blocked(netip.AddrPortFrom(ip, uint16(port))) {
			return fmt.Errorf("redirect to %s: %w", req.URL.Host, ErrPrivate)
		}
	}
	return nil
}

// checkRewrittenRedirect keeps a rewritten request inside the target of the
// rule that rewrote it: its client does not check addresses, so a redirect
// elsewhere would reach anything the test server names.
func (c *Client) checkRewrittenRedirect(req *http.Request, via []*http.Request) error {
	if err := checkHop(req, via); err != nil {
		return err
	}
	r := c.ruleFor(via[0].URL)
	if r == nil {
		return fmt.Errorf("redirect to %s is refused: the request is under no rewrite target", req.URL.Redacted())
	}
	if !r.to.contains(req.URL) {
		return fmt.Errorf("redirect to %s leaves the rewrite target: a rewritten URL may redirect only within %s; fetch the new URL directly if it is public", req.URL.Redacted(), r.to)
	}
	return nil
}

// checkHop holds for every redirect: a bounded count, http or https, no
// user name or password.
func checkHop(req *http.Request, via []*http.Request) error {
	if len(via) >= 5 {
		return errors.New("more than 5 redirects")
	}
	if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
		return fmt.Errorf("redirect to a %s URL", req.URL.Scheme)
	}
	if req.URL.User != nil {
		return fmt.Errorf("redirect to %s is refused: a URL with a user name or password before '@' is never followed", req.URL.Redacted())
	}
	return nil
}

// Blocked reports the addresses a tool must not reach: loopback, private,
// link-local, site-local (fec0::/10), unspecified, multicast, shared
// (CGNAT), "this network" (0.0.0.0/8), reserved (240.0.0.0/4, the broadcast
// address 255.255.255.255 included), and the IPv6 forms that carry an IPv4
// address.
//
// # Notes
//
// IPv4-mapped addresses (::ffff:0:0/96) and NAT64's well-known prefix
// (64:ff9b::/96) are judged by the IPv4 address they carry: on an IPv6-only
// network with DNS64 every public IPv4 site has a 64:ff9b:: address, so
// refusing the prefix would break fetching there, while 64:ff9b::a00:1
// reaches 10.0.0.1 through the gateway. The other forms are refused whole:
// local-use NAT64 (64:ff9b:1::/48) places its IPv4 address where each
// network chooses, and 6to4 (2002::/16) and IPv4-compatible (::/96)
// addresses are deprecated, so no server a tool needs lives there.
func Blocked(ip netip.Addr) bool {
	if !ip.IsValid() {
		return true
	}
	ip = ip.WithZone("") // Prefix.Contains never matches a zoned address
	if ip.Is4In6() {
		return Blocked(ip.Unmap())
	}
	if nat64.Contains(ip) {
		b := ip.As16()
		return Blocked(netip.AddrFrom4([4]byte(b[12:])))
	}
	if ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() ||
		ip.IsUnspecified() || ip.IsMulticast() || ip.IsInterfaceLocalMulticast() {
		return true
	}
	for _, p := range blockedPrefixes {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

var (
	nat64           = netip.MustParsePrefix("64:ff9b::/96")
	blockedPrefixes = []netip.Prefix{
		netip.MustParsePrefix("0.0.0.0/8"),
		netip.MustParsePrefix("100.64.0.0/10"),
		netip.MustParsePrefix("240.0.0.0/4"),
		netip.MustParsePrefix("::/96"),
		netip.MustParsePrefix("64:ff9b:1::/48"),
		netip.MustParsePrefix("2002::/16"),
		netip.MustParsePrefix("fec0::/10"),
	}
)

// Target applies the rewrite rules to a URL and checks it is http or https
// with no user name or password. It reports whether a rule applied.
func (c *Client) Target(raw string) (*url.URL, bool, error) {
	u, err := parse(raw)
	if err != nil {
		return nil, false, err
	}
	for _, r := range c.rules {
		if r.err != nil {
			return nil, false, r.err
		}
	}
	for _, r := range c.rules {
		if !r.from.sameOrigin(u) {
			continue
		}
		// A rule's path prefix is its boundary: /v1/../admin must not
		// reach the target's /admin.
		for _, seg := range strings.Split(u.Path, "/") {
			if seg == "." || seg == ".." {
				return nil, false, fmt.Errorf("URL '%s' has a '.' or '..' path segment: give the path without them", raw)
			}
		}
		if rest, ok := r.from.rest(u); ok {
			return r.to.join(rest, u), true, nil
		}
	}
	return u, false, nil
}

// Shown gives final, the URL a request for raw ended at, as the caller
// should see it: under the From of the rule that rewrote raw, since
// final then lies inside the rule's To (Do keeps redirects there), and as
// it is when no rule applied. A page's links resolved against it go
// through the rule again, where the target's own address would be refused.
func (c *Client) Shown(raw string, final *url.URL) *url.URL {
	u, err := parse(raw)
	if err != nil {
		return final
	}
	for _, r := range c.rules {
		if r.err != nil || !r.from.contains(u) {
			continue
		}
		if rest, ok := r.to.rest(final); ok {
			return r.from.join(rest, final)
		}
		return final
	}
	return final
}

// Do sends a request built for Target's URL; rewritten says whether Target
// rewrote it.
func (c *Client) Do(req *http.Request, rewritten bool) (*http.Response, error) {
	if !rewritten {
		return c.checked.Do(req)
	}
	if c.ruleFor(req.URL) == nil {
		return nil, fmt.Errorf("safehttp: %s is under no rewrite target: send it with rewritten false", req.URL.Redacted())
	}
	return c.trusted.Do(req)
}

// ruleFor returns the rule whose target holds u with the longest path: when
// targets nest, a redirect is kept inside the narrowest, since Do is not told
// which rule rewrote its URL.
func (c *Client) ruleFor(u *url.URL) *rule {
	var best *rule
	for i := range c.rules {
		if r := &c.rules[i]; r.err == nil && r.to.contains(u) && (best == nil || len(r.to.path) > len(best.to.path)) {
			best = r
		}
	}
	return best
}

// parse reads a URL a request may be sent to.
func parse(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("invalid URL '%s': give a full http:// or https:// URL", raw)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("'%s' is not an http or https URL", raw)
	}
	if u.User != nil {
		return nil, fmt.Errorf("URL '%s' has a user name or password before '@', which is refused: send credentials in an Authorization header, and the host right after '//'", u.Redacted())
	}
	return u, nil
}

type rule struct {
	from, to place
	err      error
}

func parseRule(rw Rewrite) rule {
	from, err := parsePlace(rw.From)
	if err == nil {
		var to place
		if to, err = parsePlace(rw.To); err == nil {
			return rule{from: from, to: to}
		}
	}
	return rule{err: fmt.Errorf("safehttp: rewrite rule %q to %q: %v", rw.From, rw.To, err)}
}

// place is an origin and a path prefix: a rule's From or To.
type place struct {
	scheme, host, port string
	authority          string // the Host as written, for a rewritten URL
	path               string // escaped, without a trailing '/'
}

func parsePlace(raw string) (place, error) {
	u, err := parse(raw)
	if err != nil {
		return place{}, err
	}
	if u.RawQuery != "" || u.Fragment != "" || u.ForceQuery {
		return place{}, fmt.Errorf("'%s' has a query or fragment: give scheme://host[:port][/path]", raw)
	}
	host, port := endpoint(u)
	return place{scheme: u.Scheme, host: host, port: port, authority: u.Host, path: strings.TrimSuffix(u.EscapedPath(), "/")}, nil
}

func (p place) String() string {
	return p.scheme + "://" + p.authority + p.path
}

// endpoint returns a URL's host, lowercased without a trailing dot (an IP
// literal in its canonical form), and its port, the scheme's default if the
// URL gives none.
func endpoint(u *url.URL) (host, port string) {
	host = strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	if ip, err := netip.ParseAddr(host); err == nil {
		host = ip.String()
	}
	port = u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	return host, port
}

func (p place) sameOrigin(u *url.URL) bool {
	host, port := endpoint(u)
	return u.Scheme == p.scheme && host == p.host && port == p.port
}

// rest returns the escaped path of u after p's prefix, if u is under p.
func (p place) rest(u *url.URL) (string, bool) {
	path := u.EscapedPath()
	if !p.sameOrigin(u) {
		return "", false
	}
	if path == p.path || p.path == "" {
		return strings.TrimPrefix(path, p.path), true
	}
	if rest, ok := strings.CutPrefix(path, p.path+"/"); ok {
		return "/" + rest, true
	}
	return "", false
}

func (p place) contains(u *url.URL) bool {
	_, ok := p.rest(u)
	return ok
}

// join returns p with the escaped path rest appended and u's query and
// fragment.
func (p place) join(rest string, u *url.URL) *url.URL {
	out := &url.URL{Scheme: p.scheme, Host: p.authority, RawQuery: u.RawQuery, Fragment: u.Fragment, RawFragment: u.RawFragment}
	out.RawPath = p.path + rest
	out.Path, _ = url.PathUnescape(out.RawPath) // both parts came from EscapedPath
	return out
}
