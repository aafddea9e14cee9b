package server

import (
	"net"
	"net/http"
	"time"
)

// DefaultStallTimeout is how long a response may wait on a client that
// takes none of it, when Options.StallTimeout is zero.
const DefaultStallTimeout = 30 * time.Second

// stallPiece is the most a write sends under one deadline: a client that
// reads at all takes this much within any stall limit.
const stallPiece = 32 << 10

// WriteDeadlines bounds how long next's responses may stall: every write,
// in pieces of 32 KB, and every flush has limit to go through. A client
// that stops reading (or keeps the connection open and its receive buffer
// full) fails the write after limit, and net/http then ends the request's
// context, as when the client goes away: a turn stops as a Stop stops it.
// A client that reads slowly is never cut off, however long the whole
// response takes.
//
// # Notes
//
// http.Server's WriteTimeout bounds a whole response, which a turn's stream
// or a session's notification stream outlives; a deadline set before each
// write bounds a stall instead. What the server writes after the handler
// returns (a buffered end, the chunked trailer) has limit too; net/http
// lifts the deadline once the response is done, before the connection's
// next request.
func WriteDeadlines(next http.Handler, limit time.Duration) http.Handler {
	if limit <= 0 {
		limit = DefaultStallTimeout
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc := http.NewResponseController(w)
		defer func() { rc.SetWriteDeadline(time.Now().Add(limit)) }()
		next.ServeHTTP(&stallWriter{ResponseWriter: w, rc: rc, limit: limit}, r)
	})
}

// stallWriter sets the write deadline before each piece it writes.
type stallWriter struct {
	http.ResponseWriter
	rc    *http.ResponseController
	limit time.Duration
}

func (s *stallWriter) Write(p []byte) (int, error) {
	if len(p) == 0 {
		return s.ResponseWriter.Write(p)
	}
	n := 0
	for len(p) > 0 {
		piece := p[:min(len(p), stallPiece)]
		s.rc.SetWriteDeadline(time.Now().Add(s.limit))
		m, err := s.ResponseWriter.Write(piece)
		n += m
		if err != nil {
			return n, err
		}
		p = p[m:]
	}
	return n, nil
}

// Flush is http.Flusher's, for handlers that ask for one.
func (s *stallWriter) Flush() { s.FlushError() }

// FlushError is what http.ResponseController.Flush calls.
func (s *stallWriter) FlushError() error {
	s.rc.SetWriteDeadline(time.Now().Add(s.limit))
	return s.rc.Flush()
}

// Unwrap lets http.ResponseController reach the connection's response.
func (s *stallWriter) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// unstalled is w without the stall writer: http.MaxBytesReader tells the
// server through the response itself to close a connection whose body is
// too large.
func unstalled(w http.ResponseWriter) http.ResponseWriter {
	if s, ok := w.(*stallWriter); ok {
		return s.ResponseWriter
	}
	return w
}

// sendBuffer is the kernel send buffer BoundSendBuffers gives a
// connection: ample on loopback, where serve listens.
const sendBuffer = 128 << 10

// BoundSendBuffers gives each connection ln accepts a send buffer of
// 128 KB. A write then waits on the client as soon as it lags that much,
// so WriteDeadlines measures the client: left to itself, the kernel grows
// a connection's buffer to megabytes and wakes a blocked writer only once
// a third of it has drained, and a client reading a few hundred KB a second
// could stall a write past the limit.
func BoundSendBuffers(ln net.Listener) net.Listener { return boundedListener{ln} }

type boundedListener struct{ net.Listener }

func (l boundedListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok {
		tc.SetWriteBuffer(sendBuffer) // best effort: a system that refuses keeps its own
	}
	return c, err
}
