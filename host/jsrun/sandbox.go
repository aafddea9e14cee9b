package jsrun

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// MaxFileBytes is the largest file fs reads or writes.
const MaxFileBytes = 1 << 20

// errAccessDenied is what fs answers for any path outside the sandbox.
var errAccessDenied = errors.New("Access denied")

// sandbox is the fs bridge's folder. All access goes through an os.Root, so
// neither "..", nor an absolute path elsewhere, nor a symbolic link leading
// out can reach outside it.
type sandbox struct {
	dir  string
	root *os.Root
}

func newSandbox(dir string) (*sandbox, error) {
	if dir == "" {
		return &sandbox{}, nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("jsrun: sandbox folder: %w", err)
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		return nil, fmt.Errorf("jsrun: sandbox folder: %w", err)
	}
	root, err := os.OpenRoot(abs)
	if err != nil {
		return nil, fmt.Errorf("jsrun: sandbox folder: %w", err)
	}
	return &sandbox{dir: abs, root: root}, nil
}

// rel turns a tool's path into one relative to the root, refusing paths that
// leave it.
func (s *sandbox) rel(p string) (string, error) {
	if s.root == nil {
		return "", errors.New("fs: no sandbox folder is configured for JS tools")
	}
	if p == "" || strings.ContainsRune(p, 0) {
		return "", fmt.Errorf("fs: invalid path %q", p)
	}
	p = filepath.ToSlash(p)
	if path.IsAbs(p) || filepath.IsAbs(p) {
		inside, ok := strings.CutPrefix(path.Clean(p), filepath.ToSlash(s.dir))
		if !ok || (inside != "" && !strings.HasPrefix(inside, "/")) {
			return "", fmt.Errorf("%w: '%s' is outside the sandbox folder", errAccessDenied, p)
		}
		p = strings.TrimPrefix(inside, "/")
	}
	clean := path.Clean(p)
	if clean == ".." || strings.HasPrefix(clean, "../") {
		return "", fmt.Errorf("%w: '%s' is outside the sandbox folder", errAccessDenied, p)
	}
	if clean == "." {
		clean = ""
	}
	return clean, nil
}

// denied turns os.Root's escape errors into Access denied.
func denied(p string, err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) && strings.Contains(pe.Err.Error(), "escapes") {
		return fmt.Errorf("%w: '%s' leads outside the sandbox folder", errAccessDenied, p)
	}
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("fs: file not found: '%s'", p)
	}
	return fmt.Errorf("fs: '%s': %v", p, stripDir(err))
}

// stripDir keeps the sandbox's own location out of messages.
func stripDir(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

func (s *sandbox) read(p string) (string, error) {
	rel, err := s.rel(p)
	if err != nil {
		return "", err
	}
	f, err := s.root.Open(orDot(rel))
	if err != nil {
		return "", denied(p, err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return "", denied(p, err)
	}
	if info.IsDir() {
		return "", fmt.Errorf("fs: '%s' is a folder, not a file", p)
	}
	if info.Size() > MaxFileBytes {
		return "", fmt.Errorf("fs: '%s' is %d bytes; files are limited to %d", p, info.Size(), MaxFileBytes)
	}
	b, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return "", denied(p, err)
	}
	if len(b) > MaxFileBytes {
		return "", fmt.Errorf("fs: '%s' is over %d bytes; files are limited to that", p, MaxFileBytes)
	}
	return string(b), nil
}

func (s *sandbox) write(p, content string, appendTo bool) error {
	rel, err := s.rel(p)
	if err != nil {
		return err
	}
	if rel == "" {
		return fmt.Errorf("fs: '%s' is the sandbox folder, not a file", p)
	}
	if len(content) > MaxFileBytes {
		return fmt.Errorf("fs: content is %d bytes; files are limited to %d", len(content), MaxFileBytes)
	}
	if err := s.mkdirs(path.Dir(rel)); err != nil {
		return denied(p, err)
	}
	flags := os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	if appendTo {
		flags = os.O_WRONLY | os.O_CREATE | os.O_APPEND
		if info, err := s.root.Stat(rel); err == nil && info.Size()+int64(len(content)) > MaxFileBytes {
			return fmt.Errorf("fs: appending would make '%s' %d bytes; files are limited to %d", p, info.Size()+int64(len(content)), MaxFileBytes)
		}
	}
	f, err := s.root.OpenFile(rel, flags, 0o644)
	if err != nil {
		return denied(p, err)
	}
	if _, err := io.WriteString(f, content); err != nil {
		f.Close()
		return denied(p, err)
	}
	return f.Close()
}

// mkdirs makes a relative folder and its parents inside the root.
func (s *sandbox) mkdirs(dir string) error {
	if dir == "." || dir == "" {
		return nil
	}
	parts := strings.Split(dir, "/")
	for i := range parts {
		err := s.root.Mkdir(strings.Join(parts[:i+1], "/"), 0o755)
		if err != nil && !errors.Is(err, fs.ErrExist) {
			return err
		}
	}
	return nil
}

func (s *sandbox) exists(p string) bool {
	rel, err := s.rel(p)
	if err != nil {
		return false
	}
	_, err = s.root.Stat(orDot(rel))
	return err == nil
}

func orDot(rel string) string {
	if rel == "" {
		return "."
	}
	return rel
}
