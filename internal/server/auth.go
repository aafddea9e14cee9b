package server

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"
)

// TokenFile is the file in the data folder that keeps serve's token.
const TokenFile = "serve-token"

// ErrBadToken is the error for a token that is too short or holds
// characters a URL or a cookie would have to escape.
var ErrBadToken = errors.New("server: a token is 16 or more letters, digits or . _ ~ -")

// CheckToken reports whether s can be serve's token.
func CheckToken(s string) error {
	if len(s) < 16 {
		return ErrBadToken
	}
	for _, c := range s {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.ContainsRune("._~-", c)) {
			return ErrBadToken
		}
	}
	return nil
}

// LoadToken returns the token kept in dir/serve-token, making the file (32
// random bytes in hex, readable by the user alone) the first time, so that
// later serves of the same data folder keep the same address.
//
// # Errors
//
// A file others may read is refused rather than used: its token is no
// longer the user's alone.
func LoadToken(dir string) (string, error) {
	path := filepath.Join(dir, TokenFile)
	tok, err := readToken(path)
	if !errors.Is(err, fs.ErrNotExist) {
		return tok, err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("server: making the data folder: %w", err)
	}
	var b [32]byte
	rand.Read(b[:])
	tok = hex.EncodeToString(b[:])
	// Written aside (CreateTemp makes it 0600) and linked into place, so that a serve starting at the
	// same moment reads a whole token or none.
	tmp, err := os.CreateTemp(dir, TokenFile+".*")
	if err != nil {
		return "", fmt.Errorf("server: writing the token: %w", err)
	}
	defer os.Remove(tmp.Name())
	_, err = io.WriteString(tmp, tok+"\n")
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", fmt.Errorf("server: writing the token: %w", err)
	}
	if err := os.Link(tmp.Name(), path); errors.Is(err, fs.ErrExist) {
		return readToken(path) // the other serve's
	} else if err != nil {
		return "", fmt.Errorf("server: writing the token: %w", err)
	}
	return tok, nil
}

func readToken(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return "", err
	}
	if perm := st.Mode().Perm(); perm&0o077 != 0 && runtime.GOOS != "windows" {
		return "", fmt.Errorf("server: %s may be read by others (mode %04o): remove it for a new token, or chmod 600 it", path, perm)
	}
	b, err := io.ReadAll(io.LimitReader(f, 1024))
	if err != nil {
		return "", err
	}
	tok := strings.TrimSpace(string(b))
	if err := CheckToken(tok); err != nil {
		return "", fmt.Errorf("server: %s holds no token (%w): remove it for a new one", path, err)
	}
	return tok, nil
}

// auth holds the token and answers for it.
type auth struct {
	token  string
	sum    [32]byte // the token's SHA-256: compared at one length whatever is sent
	from   string   // where a client finds the token, for the 401 answers
	logins *Logins  // the page's sign-in codes; nil for none
}

func (a *auth) match(tok string) bool {
	sum := sha256.Sum256([]byte(tok))
	return subtle.ConstantTimeCompare(sum[:], a.sum[:]) == 1
}

// cookieName names the cookie after the port: browsers send a host's
// cookies to all its ports, and two serves must not overwrite each other's.
func cookieName(r *http.Request) string {
	if addr, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok {
		if tcp, ok := addr.(*net.TCPAddr); ok {
			return "toolroute-token-" + strconv.Itoa(tcp.Port)
		}
	}
	return "toolroute-token"
}

// authorized reports whether r carries the token, as the cookie or as
// Authorization: Bearer.
func (a *auth) authorized(r *http.Request) bool {
	if tok, ok := bearer(r); ok && a.match(tok) {
		return true
	}
	c, err := r.Cookie(cookieName(r))
	return err == nil && a.match(c.Value)
}

// bearer is the token of a request's Authorization: Bearer header.
func bearer(r *http.Request) (string, bool) {
	scheme, tok, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	return strings.TrimSpace(tok), true
}

// api lets only requests with the token through.
func (a *auth) api(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !a.authorized(r) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="toolroute"`)
			fail(w, http.StatusUnauthorized, "toolroute serve needs its token: open the sign-in link it printed (http://127.0.0.1:PORT/?login=...), or send Authorization: Bearer with the token from "+a.from)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// Logins are the page's one-use sign-in codes: serve prints a link with
// one and opens the browser with another, so that the token itself is in
// no command line (other local users read those in ps) and a link seen
// once is no good afterwards: a code signs in once, within its time.
type Logins struct {
	mu    sync.Mutex
	codes map[[32]byte]time.Time // a code's SHA-256 → when it expires
	now   func() time.Time
}

// NewLogins returns an empty set of codes.
func NewLogins() *Logins {
	return &Logins{codes: map[[32]byte]time.Time{}, now: time.Now}
}

// New returns a new code, good for one sign-in within ttl.
func (l *Logins) New(ttl time.Duration) string {
	var b [32]byte
	rand.Read(b[:])
	code := hex.EncodeToString(b[:])
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	for c, end := range l.codes {
		if !now.Before(end) {
			delete(l.codes, c)
		}
	}
	l.codes[sha256.Sum256([]byte(code))] = now.Add(ttl)
	return code
}

// take reports whether code is a live code, and uses it up.
func (l *Logins) take(code string) bool {
	if l == nil || code == "" {
		return false
	}
	sum := sha256.Sum256([]byte(code))
	l.mu.Lock()
	defer l.mu.Unlock()
	end, ok := l.codes[sum]
	delete(l.codes, sum)
	return ok && l.now().Before(end)
}

// page trades /?login=CODE (a one-use code from Logins) or /?token=T for
// a cookie holding the token, and sends the browser to /, so that neither
// stays in the address bar and the page's requests carry the token.
func (a *auth) page(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if !q.Has("token") && !q.Has("login") || r.Method != http.MethodGet && r.Method != http.MethodHead {
			next.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Cache-Control", "no-store")
		switch {
		case q.Has("login"):
			if !a.logins.take(q.Get("login")) {
				fail(w, http.StatusUnauthorized, "this sign-in link was used already or has expired (each works once, for a few minutes): "+
					"restart toolroute serve for a new one, or open /?token=TOKEN with the token from "+a.from)
				return
			}
		case !a.match(q.Get("token")):
			fail(w, http.StatusUnauthorized, "the address holds a token that is not this toolroute serve's: open the sign-in link it printed, or use the token from "+a.from)
			return
		}
		http.SetCookie(w, &http.Cookie{Name: cookieName(r), Value: a.token, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
		http.Redirect(w, r, "/", http.StatusFound)
	})
}

// bodyDeadline gives a request's body limit to arrive, so that a client
// sending it slowly cannot hold a connection. net/http lifts the deadline
// once the body is read (its watch for the client going away reads with
// none), so the stream that may follow, a whole turn, is not cut.
func bodyDeadline(w http.ResponseWriter, r *http.Request, limit time.Duration) {
	if r.Body != nil && r.Body != http.NoBody {
		http.NewResponseController(w).SetReadDeadline(time.Now().Add(limit))
	}
}
