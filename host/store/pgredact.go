package store

import (
	"errors"
	"net/url"
	"regexp"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
)

// A PostgreSQL connection string is a URL (postgres://user:password@host/db?
// sslmode=...) or libpq's keyword=value form (host=h user=u password=p
// dbname=db). Everything the program prints of one (Open's errors, Path)
// shows its passwords as xxxxx: the URL's user:password@, a password= or
// sslpassword= parameter of either form, whatever their case, quoting or
// percent-encoding, and a password holding '@', ':', '/' or spaces.

// pgMask replaces a password where a connection string is shown.
const pgMask = "xxxxx"

// pgKeywords are libpq's connection keywords: a string starting with one
// of them and '=' is a keyword=value connection string.
var pgKeywords = []string{"host", "hostaddr", "port", "dbname", "user", "password", "passfile", "service", "sslmode",
	"connect_timeout", "options", "application_name", "target_session_attrs"}

// isKeywordValue reports whether s is in libpq's keyword=value form.
func isKeywordValue(s string) bool {
	key, _, ok := strings.Cut(strings.TrimLeft(s, " \t\n\r\v\f"), "=")
	if !ok {
		return false
	}
	key = strings.TrimRight(key, " \t\n\r\v\f")
	for _, k := range pgKeywords {
		if key == k {
			return true
		}
	}
	return false
}

// isSecretKey reports whether a parameter holds a password, in any case:
// libpq's names are lowercase, but a user writing PASSWORD= means one too.
func isSecretKey(key string) bool {
	k := strings.ToLower(key)
	if d, err := url.QueryUnescape(k); err == nil {
		k = strings.ToLower(d)
	}
	return k == "password" || k == "sslpassword"
}

// redactConn returns a connection string as it may be shown: with every
// password replaced by xxxxx. Where the string is ambiguous (a password
// holding an '@' or '/' the URL does not encode), it masks more rather than
// less.
func redactConn(raw string) string {
	if isKeywordValue(raw) {
		return redactKeywordValue(raw)
	}
	for _, scheme := range []string{"postgresql://", "postgres://"} {
		if rest, ok := strings.CutPrefix(raw, scheme); ok {
			return scheme + redactURLRest(rest, !pgAmbiguous(raw))
		}
	}
	return raw
}

// pgAmbiguous reports whether a URL's userinfo may end elsewhere than pgx
// takes it to: the URL does not parse, or more than one '@' comes before
// its path (postgres://u:p@ss@h/db gives pgx the password "p" and the host
// "ss@h", which its errors show).
func pgAmbiguous(raw string) bool {
	if _, err := pgconn.ParseConfig(raw); err != nil {
		return true
	}
	rest := raw[strings.Index(raw, "://")+len("://"):]
	if i := strings.IndexAny(rest, "@/"); i >= 0 && rest[i] == '@' {
		host := rest[i+1:]
		if end := strings.IndexAny(host, "/?"); end >= 0 {
			host = host[:end]
		}
		return strings.Contains(host, "@")
	}
	return false
}

// redactURLRest redacts what follows a URL's scheme. A URL pgx parses
// unambiguously has its userinfo where pgx (after libpq) finds it: up to
// the first '@' before any '/'. Otherwise the userinfo is taken up to the
// last '@' of the authority, or of the whole string when a '/' or '?' of
// the password comes first (postgres://u:pa/ss@h/db): never less than the
// password.
func redactURLRest(rest string, exact bool) string {
	at := -1
	if i := strings.IndexAny(rest, "@/"); exact && i >= 0 && rest[i] == '@' {
		at = i
	}
	if !exact {
		authority := rest
		if i := strings.IndexAny(rest, "/?"); i >= 0 {
			authority = rest[:i]
		}
		at = strings.LastIndex(authority, "@")
		// A user name may hold a '?' as pgx reads an ambiguous URL
		// (postgres://?:secret@@ gives the user "?" and the password
		// "secret"), never a '/'.
		if j := strings.LastIndex(rest, "@"); at < 0 && j >= 0 {
			if user, _, ok := strings.Cut(rest[:j], ":"); ok && !strings.Contains(user, "/") {
				at = j
			}
		}
	}
	out := rest
	if at >= 0 {
		if user, _, hasPassword := strings.Cut(rest[:at], ":"); hasPassword {
			out = user + ":" + pgMask + rest[at:]
		}
	}
	// The query: a password= or sslpassword= value, up to the next '&'
	// that starts a parameter (a pair without '=' is taken as more of the
	// value, an '&' the password did not encode).
	q := strings.Index(out, "?")
	if q < 0 {
		return out
	}
	var kept []string
	masking := false
	for _, p := range strings.Split(out[q+1:], "&") {
		key, _, hasValue := strings.Cut(p, "=")
		switch {
		case hasValue && isSecretKey(key):
			kept, masking = append(kept, key+"="+pgMask), true
		case !hasValue && masking:
			// more of the password: left out
		default:
			kept, masking = append(kept, p), false
		}
	}
	return out[:q+1] + strings.Join(kept, "&")
}

// redactKeywordValue redacts a keyword=value string, read as libpq reads
// it: a value is quoted ('...', with \' and \\ inside) or runs to the next
// space, with backslash escapes. Words after a password's value up to the
// next keyword= are taken as more of it (a space the password did not
// quote).
func redactKeywordValue(s string) string {
	var b strings.Builder
	masking := false
	for i := 0; i < len(s); {
		if isSpace(s[i]) {
			b.WriteByte(s[i])
			i++
			continue
		}
		// A keyword, up to '=' or a space.
		start := i
		for i < len(s) && s[i] != '=' && !isSpace(s[i]) {
			i++
		}
		key := s[start:i]
		j := i
		for j < len(s) && isSpace(s[j]) {
			j++
		}
		if j >= len(s) || s[j] != '=' {
			// A word that is no keyword=: more of a password, or the
			// string is not valid; either way not shown when masking.
			if !masking {
				b.WriteString(key)
			}
			continue
		}
		b.WriteString(s[start : j+1])
		i = j + 1
		for i < len(s) && isSpace(s[i]) {
			b.WriteByte(s[i])
			i++
		}
		vstart := i
		if i < len(s) && s[i] == '\'' {
			for i++; i < len(s) && s[i] != '\''; i++ {
				if s[i] == '\\' {
					i++
				}
			}
			i = min(i+1, len(s))
		} else {
			for ; i < len(s) && !isSpace(s[i]); i++ {
				if s[i] == '\\' {
					i++
				}
			}
			i = min(i, len(s))
		}
		masking = isSecretKey(key)
		if masking {
			b.WriteString(pgMask)
		} else {
			b.WriteString(s[vstart:i])
		}
	}
	return b.String()
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// quoted finds the texts an error quotes.
var quoted = regexp.MustCompile(`"[^"]*"|'[^']*'|` + "`[^`]*`")

// pgParseReason is why pgx refused a connection string, without the
// string: only pgx's reason, and of what it quotes only what the string
// shows redacted (a quoted piece of a password becomes xxxxx).
func pgParseReason(raw string, err error) string {
	reason := err.Error()
	var pe *pgconn.ParseConfigError
	if errors.As(err, &pe) {
		// "cannot parse `STRING`: REASON", the string redacted by pgx's
		// best effort, which is not toolroute's.
		if i := strings.LastIndex(reason, "`: "); i >= 0 {
			reason = reason[i+len("`: "):]
		}
	}
	shown := redactConn(raw)
	return quoted.ReplaceAllStringFunc(reason, func(q string) string {
		if inner := q[1 : len(q)-1]; inner == "" || inner == "=" || strings.Contains(shown, inner) {
			return q
		}
		return q[:1] + pgMask + q[len(q)-1:]
	})
}
