package browser

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"sync"
	"syscall"
	"time"
)

// errRefused is a connection to an address the browser may not reach.
var errRefused = errors.New("browser: loopback, private and link-local addresses cannot be reached")

// proxy is the HTTP proxy Chromium sends all its traffic through: CONNECT
// tunnels for https and websockets, forwarded requests for http. Every
// connection it makes is checked after DNS, at dial time.
type proxy struct {
	addr    string
	srv     *http.Server
	dialer  *net.Dialer
	forward *http.Transport

	mu      sync.Mutex
	refusal map[string]bool // host:port refused
}

func startProxy(blocked func(netip.AddrPort) bool) (*proxy, error) {
	p := &proxy{refusal: map[string]bool{}}
	p.dialer = &net.Dialer{Timeout: 10 * time.Second, ControlContext: func(_ context.Context, _, address string, _ syscall.RawConn) error {
		ap, err := netip.ParseAddrPort(address)
		if err != nil || blocked(ap) {
			return errRefused
		}
		return nil
	}}
	p.forward = &http.Transport{DialContext: p.dial, ResponseHeaderTimeout: ActionTimeout, IdleConnTimeout: 30 * time.Second}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p.addr = ln.Addr().String()
	p.srv = &http.Server{Handler: p, ReadHeaderTimeout: 10 * time.Second}
	go p.srv.Serve(ownersOnly{ln})
	return p, nil
}

// ownersOnly lets through the connections of this program's user alone:
// the proxy listens on loopback, where every local user can connect, and
// would otherwise carry their requests as this program's. Where the system
// cannot tell who connects (not Linux), it lets all through.
type ownersOnly struct{ net.Listener }

func (l ownersOnly) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil || !ownConnections {
			return c, err
		}
		if uid, ok := peerUID(c); ok && uid == os.Getuid() {
			return c, nil
		}
		c.SetWriteDeadline(time.Now().Add(time.Second))
		io.WriteString(c, "HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n"+
			"this proxy serves toolroute's browser tool, for the user who runs toolroute alone\n")
		c.Close()
	}
}

func (p *proxy) close() {
	p.srv.Close()
	p.forward.CloseIdleConnections()
}

// dial connects to address, remembering a refusal for the tool's message.
func (p *proxy) dial(ctx context.Context, network, address string) (net.Conn, error) {
	c, err := p.dialer.DialContext(ctx, network, address)
	if err != nil && errors.Is(err, errRefused) {
		p.mu.Lock()
		p.refusal[address] = true
		p.mu.Unlock()
	}
	return c, err
}

// refused reports whether a connection for raw's host was refused.
func (p *proxy) refused(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil {
		return false
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for addr := range p.refusal {
		host, aport, _ := net.SplitHostPort(addr)
		if aport == port && (host == u.Hostname() || resolvesTo(u.Hostname(), host)) {
			return true
		}
	}
	return false
}

func resolvesTo(name, ip string) bool {
	addrs, err := net.LookupHost(name)
	if err != nil {
		return false
	}
	for _, a := range addrs {
		if a == ip {
			return true
		}
	}
	return false
}

func (p *proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodConnect {
		p.tunnel(w, r)
		return
	}
	if r.URL.Scheme != "http" || r.URL.Host == "" {
		http.Error(w, "the browser's proxy forwards http requests and https tunnels only", http.StatusBadRequest)
		return
	}
	out := r.Clone(r.Context())
	out.RequestURI = ""
	out.Header.Del("Proxy-Connection")
	out.Header.Del("Proxy-Authorization")
	resp, err := p.forward.RoundTrip(out)
	if err != nil {
		status := http.StatusBadGateway
		if errors.Is(err, errRefused) {
			status = http.StatusForbidden
		}
		http.Error(w, err.Error(), status)
		return
	}
	defer resp.Body.Close()
	for k, vs := range resp.Header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	w.WriteHeader(resp.StatusCode)
	io.Copy(w, resp.Body)
}

// tunnel connects a CONNECT request's host and copies both ways.
func (p *proxy) tunnel(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 10*time.Second)
	up, err := p.dial(ctx, "tcp", r.Host)
	cancel()
	if err != nil {
		status := http.StatusBadGateway
		if errors.Is(err, errRefused) {
			status = http.StatusForbidden
		}
		http.Error(w, err.Error(), status)
		return
	}
	hj, ok := w.(http.Hijacker)
	if !ok {
		up.Close()
		http.Error(w, "no tunnel", http.StatusInternalServerError)
		return
	}
	down, buf, err := hj.Hijack()
	if err != nil {
		up.Close()
		return
	}
	down.Write([]byte("HTTP/1.1 200 Connection established\r\n\r\n"))
	go func() {
		if buf.Reader.Buffered() > 0 {
			io.CopyN(up, buf, int64(buf.Reader.Buffered()))
		}
		io.Copy(up, down)
		up.Close()
	}()
	io.Copy(down, up)
	down.Close()
}
