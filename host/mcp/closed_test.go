package mcp

import (
	"errors"
	"fmt"
	"io"
	"syscall"
	"testing"
)

// A server that exits at once may be gone before toolroute writes the
// handshake: the write's broken pipe is the peer closing, as EOF is, so
// the problem says it exited rather than that it spoke something else.
func TestClosedByPeer(t *testing.T) {
	for _, tt := range []struct {
		err  error
		want bool
	}{
		{io.EOF, true},
		{fmt.Errorf("calling %q: %w", "initialize", io.ErrUnexpectedEOF), true},
		{fmt.Errorf("write |1: %w", syscall.EPIPE), true},
		{errors.New(`connection closed: calling "initialize": client is closing: write |1: broken pipe`), true},
		{errors.New("invalid character 'h' looking for beginning of value"), false},
	} {
		if got := closedByPeer(tt.err); got != tt.want {
			t.Errorf("closedByPeer(%q) = %v, want %v", tt.err, got, tt.want)
		}
	}
}
