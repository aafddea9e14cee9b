package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/term"

	"github.com/toolroute/toolroute/internal/termout"
)

// historyKeep is how many lines the chat's history keeps.
const historyKeep = 1000

// lineEditor reads chat's lines at a terminal with editing: the arrow
// keys, Home and End, Ctrl-A/E/K/U/W, and Up and Down through the lines
// sent before, in this run and earlier ones. The terminal is in raw mode
// only while a line is read, so Ctrl-C during a turn stays a signal.
type lineEditor struct {
	in   *os.File
	out  *os.File
	keys *keyWatch
	t    *term.Terminal
	hist *history
	// pending is a read that a cancelled context left running; the next
	// read takes its line.
	pending chan lineRead
}

type lineRead struct {
	line string
	err  error
}

// newLineEditor edits lines on in, echoing to out; history is the file
// the lines are kept in ("" keeps them for this run only).
func newLineEditor(in, out *os.File, historyFile string) *lineEditor {
	e := &lineEditor{in: in, out: out, keys: &keyWatch{r: in}, hist: loadHistory(historyFile)}
	e.reset()
	return e
}

// reset starts a new line's state: a Terminal that ended a read at Ctrl-C
// or Ctrl-D keeps the prompt and the text of the line it was reading.
func (e *lineEditor) reset() {
	e.t = term.NewTerminal(struct {
		io.Reader
		io.Writer
	}{e.keys, e.out}, "")
	e.t.History = e.hist
}

// readLine reads a line after prompt; keep adds it to the history. An
// interrupt from stop (a signal) ends the read as ctx's end does. At
// Ctrl-D on an empty line, and at Ctrl-C, the error is io.EOF;
// interrupted says which.
func (e *lineEditor) readLine(ctx context.Context, prompt string, keep bool, stop <-chan os.Signal) (string, error) {
	fd := int(e.in.Fd())
	old, err := term.MakeRaw(fd)
	if err != nil {
		return "", fmt.Errorf("the terminal: %w", err)
	}
	defer term.Restore(fd, old)
	if w, h, err := term.GetSize(int(e.out.Fd())); err == nil {
		e.t.SetSize(w, h)
	}
	if e.pending == nil {
		e.t.SetPrompt(prompt)
		e.hist.skip = !keep
		e.keys.ctrlC = false
		done := make(chan lineRead, 1)
		go func() {
			line, err := e.t.ReadLine()
			done <- lineRead{line, err}
		}()
		e.pending = done
	}
	select {
	case r := <-e.pending:
		e.pending = nil
		if r.err != nil {
			fmt.Fprint(e.out, "\r\n")
			e.reset()
		}
		return r.line, r.err
	case <-stop:
		fmt.Fprint(e.out, "\r\n")
		return "", io.EOF
	case <-ctx.Done():
		fmt.Fprint(e.out, "\r\n")
		return "", ctx.Err()
	}
}

// interrupted says whether the last read ended at Ctrl-C.
func (e *lineEditor) interrupted() bool { return e.keys.ctrlC }

// keyWatch notes a Ctrl-C among the keys read: the Terminal ends a line
// with io.EOF at Ctrl-C as at Ctrl-D, which chat treats apart.
type keyWatch struct {
	r     io.Reader
	ctrlC bool
}

func (k *keyWatch) Read(p []byte) (int, error) {
	n, err := k.r.Read(p)
	if bytes.IndexByte(p[:n], 3) >= 0 {
		k.ctrlC = true
	}
	return n, err
}

// history is the lines typed at the prompt, newest last, kept in a file
// of one line each; it implements term.History. The file is appended to
// as lines come, so a run that is killed keeps what it was sent, and cut
// back to the last historyKeep lines when read.
type history struct {
	path  string
	lines []string
	// skip: the line being read is an answer to a question, not kept.
	skip bool
}

// historyPath is the chat's history file: toolroute/chat_history in the
// user's state folder ($XDG_STATE_HOME, or ~/.local/state), "" when there
// is none.
func historyPath() string {
	if x := os.Getenv("XDG_STATE_HOME"); filepath.IsAbs(x) {
		return filepath.Join(x, "toolroute", "chat_history")
	}
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return ""
	}
	return filepath.Join(home, ".local", "state", "toolroute", "chat_history")
}

// loadHistory reads the history file; one that cannot be read is an
// empty history, written to from now on if it can be.
func loadHistory(path string) *history {
	h := &history{path: path}
	if path == "" {
		return h
	}
	f, err := os.Open(path)
	if err != nil {
		return h
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 4<<20)
	read := 0
	for sc.Scan() {
		read++
		h.lines = append(h.lines, sc.Text())
	}
	if len(h.lines) > historyKeep {
		h.lines = h.lines[len(h.lines)-historyKeep:]
	}
	if read > 2*historyKeep {
		h.rewrite()
	}
	return h
}

// rewrite writes the history file anew with the lines kept.
func (h *history) rewrite() {
	tmp := h.path + ".new"
	data := strings.Join(h.lines, "\n") + "\n"
	if err := os.WriteFile(tmp, []byte(data), 0o600); err != nil {
		return
	}
	if err := os.Rename(tmp, h.path); err != nil {
		os.Remove(tmp)
	}
}

// Add keeps a line typed at the prompt: not an empty one, an answer, or
// the line just before again.
func (h *history) Add(line string) {
	if h.skip || strings.TrimSpace(line) == "" || (len(h.lines) > 0 && h.lines[len(h.lines)-1] == line) {
		return
	}
	h.lines = append(h.lines, line)
	if len(h.lines) > historyKeep {
		h.lines = h.lines[1:]
	}
	if h.path == "" {
		return
	}
	if err := h.append(line); err != nil {
		// Once is enough to say it; the history goes on in memory.
		fmt.Fprintf(os.Stderr, "\r\ntoolroute: keeping the chat's history: %v\r\n", err)
		h.path = ""
	}
}

func (h *history) append(line string) error {
	if err := os.MkdirAll(filepath.Dir(h.path), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(h.path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	_, err = f.WriteString(termout.Sanitize(line) + "\n")
	return errors.Join(err, f.Close())
}

// Len is the number of lines kept.
func (h *history) Len() int { return len(h.lines) }

// At is a line kept, 0 the newest.
func (h *history) At(i int) string { return h.lines[len(h.lines)-1-i] }
