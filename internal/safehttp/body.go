package safehttp

import (
	"fmt"
	"io"
	"strconv"
)

// TooLargeError is the error of reading a body past its cap (LimitBody,
// ReadAll).
//
// # Notes
//
// A cap counts the bytes the reader gets: decoded, after any
// Content-Encoding Go's transport undid (it asks for gzip itself and
// inflates the answer), so a small compressed body that inflates without
// end is stopped at the cap too, with no more than the cap read and kept.
type TooLargeError struct {
	// What names the body: "the model's response".
	What string
	// Limit is the cap, in bytes.
	Limit int64
	// Hint says what to do about it.
	Hint string
}

// Error names the body, the cap and what to do.
func (e *TooLargeError) Error() string {
	msg := fmt.Sprintf("%s is over %s, the most toolroute reads of it", e.What, Size(e.Limit))
	if e.Hint != "" {
		msg += ": " + e.Hint
	}
	return msg
}

// LimitBody returns body reading at most limit bytes: a read past them
// fails with a *TooLargeError naming the body as what, with hint, and so
// does every read after. Closing it closes body.
func LimitBody(body io.ReadCloser, limit int64, what, hint string) io.ReadCloser {
	return &limited{r: body, c: body, left: limit, err: &TooLargeError{What: what, Limit: limit, Hint: hint}}
}

// ReadAll reads r to its end, at most limit bytes: a longer body is a
// *TooLargeError naming it as what, with hint.
func ReadAll(r io.Reader, limit int64, what, hint string) ([]byte, error) {
	return io.ReadAll(&limited{r: r, left: limit, err: &TooLargeError{What: what, Limit: limit, Hint: hint}})
}

// limited reads r up to left more bytes, then reports err if r goes on.
type limited struct {
	r    io.Reader
	c    io.Closer
	left int64
	err  *TooLargeError
	over bool
}

func (l *limited) Read(p []byte) (int, error) {
	if l.over {
		return 0, l.err
	}
	if len(p) == 0 {
		return 0, nil
	}
	if l.left <= 0 {
		// At the cap: one byte more says whether the body goes on.
		var one [1]byte
		if _, err := io.ReadFull(l.r, one[:]); err != nil {
			if err == io.ErrUnexpectedEOF {
				err = io.EOF
			}
			return 0, err
		}
		l.over = true
		return 0, l.err
	}
	if int64(len(p)) > l.left {
		p = p[:l.left]
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	return n, err
}

func (l *limited) Close() error {
	if l.c == nil {
		return nil
	}
	return l.c.Close()
}

// Size writes a number of bytes for people: in MB or KB when it is whole
// megabytes or kilobytes, else in bytes.
func Size(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return strconv.FormatInt(n>>20, 10) + " MB"
	case n >= 1<<10 && n%(1<<10) == 0:
		return strconv.FormatInt(n>>10, 10) + " KB"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}
