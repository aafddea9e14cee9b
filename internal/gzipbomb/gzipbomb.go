// Package gzipbomb makes gzip bodies that are small on the wire and inflate
// to hundreds of megabytes, for the tests of the caps on what the program
// reads: a model's reply, an MCP server's, a fetch, Google's.
package gzipbomb

import (
	"bytes"
	"compress/gzip"
	"net/http"
	"strings"
)

// Make returns a gzip body inflating to head, then fill repeated until the
// whole is at least n bytes, then tail. It is a series of gzip members,
// which a gzip reader reads as one body (Go's transport does): the fill is
// compressed once, in megabyte blocks each a kilobyte or so on the wire.
func Make(head, fill, tail string, n int64) []byte {
	var out bytes.Buffer
	out.Write(member(head))
	block := strings.Repeat(fill, max(1, (1<<20)/len(fill)))
	z := member(block)
	for done := int64(len(head)); done < n; done += int64(len(block)) {
		out.Write(z)
	}
	out.Write(member(tail))
	return out.Bytes()
}

// Single is Make in one gzip member, for readers that stop after the
// first (Chromium's). It compresses the whole, so it takes a second or so
// for each hundred megabytes.
func Single(head, fill, tail string, n int64) []byte {
	var b bytes.Buffer
	w, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
	w.Write([]byte(head))
	block := []byte(strings.Repeat(fill, max(1, (1<<20)/len(fill))))
	for done := int64(len(head)); done < n; done += int64(len(block)) {
		w.Write(block)
	}
	w.Write([]byte(tail))
	w.Close()
	return b.Bytes()
}

func member(s string) []byte {
	var b bytes.Buffer
	w, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
	w.Write([]byte(s))
	w.Close()
	return b.Bytes()
}

// Handler answers every request with body, compressed as Make made it,
// as Content-Type contentType with Content-Encoding gzip, whatever the
// request asked for.
func Handler(contentType string, body []byte) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", contentType)
		w.Header().Set("Content-Encoding", "gzip")
		w.Write(body)
	})
}
