package mcpserve

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxLine is the longest message RunIO takes, as the SDK's stdio
// transport: 16 MiB.
const MaxLine = mcp.DefaultMaxLineLength

// RunIO serves one client over newline-delimited JSON-RPC (the stdio
// transport: in is what the client writes, out what it reads) until in
// ends or ctx does.
//
// The SDK's transport ends the session at a line that is not one JSON-RPC
// message; RunIO answers such a line with a JSON-RPC error instead (parse
// error, invalid request, or a batch, which toolroute does not take) and
// reads on.
func (s *Server) RunIO(ctx context.Context, in io.Reader, out io.Writer) error {
	w := &lineWriter{w: out}
	pr, pw := io.Pipe()
	defer pr.Close() // ends the reader below at its next line
	go func() { pw.CloseWithError(guard(in, pw, w)) }()
	return s.Run(ctx, &mcp.IOTransport{Reader: pr, Writer: w})
}

// lineWriter writes whole lines, one at a time: the SDK's messages and the
// guard's errors never interleave.
type lineWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lineWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// Close leaves the stream open: the process's standard output is not the
// session's to close.
func (l *lineWriter) Close() error { return nil }

// guard copies the lines of in that are one JSON-RPC message to next, and
// answers the others on w.
func guard(in io.Reader, next io.Writer, w io.Writer) error {
	r := bufio.NewReaderSize(in, 64<<10)
	for {
		line, tooLong, err := readLine(r)
		if len(bytes.TrimSpace(line)) > 0 || tooLong {
			if answer := check(line, tooLong); answer != nil {
				if _, werr := w.Write(answer); werr != nil {
					return werr
				}
			} else if _, werr := next.Write(append(line, '\n')); werr != nil {
				return werr
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

// readLine reads a line without its newline; one past MaxLine is read to
// its end and dropped.
func readLine(r *bufio.Reader) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		if !tooLong {
			line = append(line, chunk...)
			if len(line) > MaxLine+1 {
				line, tooLong = nil, true
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimRight(line, "\r\n"), tooLong, err
	}
}

// check answers a line that is not one JSON-RPC message with an error
// response (a line, newline included); nil lets it through.
func check(line []byte, tooLong bool) []byte {
	switch {
	case tooLong:
		return rpcError(nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("a message is at most %d bytes", MaxLine))
	case !json.Valid(line):
		return rpcError(nil, jsonrpc.CodeParseError, "not JSON: send one JSON-RPC message a line")
	case bytes.HasPrefix(bytes.TrimSpace(line), []byte("[")):
		return rpcError(nil, jsonrpc.CodeInvalidRequest, "JSON-RPC batches are not taken: send one message a line")
	}
	if _, err := jsonrpc.DecodeMessage(line); err != nil {
		var m struct {
			ID json.RawMessage `json:"id"`
		}
		json.Unmarshal(line, &m)
		return rpcError(m.ID, jsonrpc.CodeInvalidRequest, "not a JSON-RPC 2.0 message: "+err.Error())
	}
	return nil
}

// rpcError is a JSON-RPC error response line; id is the request's when it
// has a valid one, else null.
func rpcError(id json.RawMessage, code int, message string) []byte {
	var v any
	if json.Unmarshal(id, &v) != nil {
		v = nil
	}
	switch v.(type) {
	case string, float64:
	default:
		id = json.RawMessage("null")
	}
	b, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}{JSONRPC: "2.0", ID: id, Error: struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}{code, message}})
	return append(b, '\n')
}
