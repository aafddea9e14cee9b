package jsrun

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"github.com/toolroute/toolroute/internal/hardlink"
	"github.com/toolroute/toolroute/registry/check"
)

// MaxFileBytes is the largest file fs reads or writes.
const MaxFileBytes = 1 << 20

// Bounds on the paths fs takes, so no path costs more than a moment: each
// level of a deep path is a lookup from the root.
const (
	MaxPathBytes    = 1024
	MaxPathDepth    = 32
	DefaultQuota    = 100 << 20 // bytes in the sandbox folder, when Options sets none
	DefaultMaxFiles = 10000     // files and folders in it
)

// errAccessDenied is what fs answers for any path outside the sandbox.
var errAccessDenied = errors.New("Access denied")

// sandbox is the fs bridge's folder. All access goes through an os.Root, so
// neither "..", nor an absolute path elsewhere, nor a symbolic link leading
// out can reach outside it.
type sandbox struct {
	dir  string
	root *os.Root

	quota    int64 // bytes
	maxFiles int

	mu      sync.Mutex
	counted bool  // bytes and files hold the folder's use
	bytes   int64 // in regular files
	files   int   // entries
}

func newSandbox(dir string, quota int64, maxFiles int) (*sandbox, error) {
	if quota <= 0 {
		quota = DefaultQuota
	}
	if maxFiles <= 0 {
		maxFiles = DefaultMaxFiles
	}
	if dir == "" {
		return &sandbox{quota: quota, maxFiles: maxFiles}, nil
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
	return &sandbox{dir: abs, root: root, quota: quota, maxFiles: maxFiles}, nil
}

// use returns the bytes and entries in the folder: counted once, then kept
// up to date by write. Another process writing there makes it approximate.
func (s *sandbox) use() (int64, int) {
	if !s.counted {
		fs.WalkDir(s.root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
			if err != nil || p == "." {
				return nil
			}
			s.files++
			if info, err := d.Info(); err == nil && info.Mode().IsRegular() {
				s.bytes += info.Size()
			}
			return nil
		})
		s.counted = true
	}
	return s.bytes, s.files
}

// rel turns a tool's path into one relative to the root, refusing paths that
// leave it.
func (s *sandbox) rel(p string) (string, error) {
	if s.root == nil {
		return "", &refusal{check.JSBridge{Code: "sandbox_none"}}
	}
	if p == "" || strings.ContainsRune(p, 0) {
		return "", fmt.Errorf("fs: invalid path %q", p)
	}
	if len(p) > MaxPathBytes {
		return "", fmt.Errorf("fs: the path is %d bytes long; paths are limited to %d", len(p), MaxPathBytes)
	}
	p = filepath.ToSlash(p)
	if path.IsAbs(p) || filepath.IsAbs(p) {
		inside, ok := strings.CutPrefix(path.Clean(p), filepath.ToSlash(s.dir))
		if !ok || (inside != "" && !strings.HasPrefix(inside, "/")) {
			return "", &refusal{check.JSBridge{Code: "sandbox_outside", Path: p}}
		}
		p = strings.TrimPrefix(inside, "/")
	}
	clean := path.Clean(p)
	if clean == ".." || strings.HasPrefix(clean, "../") {
		return "", &refusal{check.JSBridge{Code: "sandbox_outside", Path: p}}
	}
	if clean == "." {
		clean = ""
	}
	if n := strings.Count(clean, "/") + 1; n > MaxPathDepth {
		return "", fmt.Errorf("fs: '%s' is %d folders deep; paths are limited to %d levels", shorten(p), n, MaxPathDepth)
	}
	return clean, nil
}

// denied turns os.Root's escape errors into Access denied.
func denied(p string, err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) && strings.Contains(pe.Err.Error(), "escapes") {
		return &refusal{check.JSBridge{Code: "sandbox_leads_outside", Path: p}}
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
	b, err := s.readBytes(p, MaxFileBytes)
	if err != nil {
		return "", err
	}
	if bytes.IndexByte(b, 0) >= 0 { // a JS string from the host ends at NUL
		return "", &refusal{check.JSBridge{Code: "sandbox_nul", Path: p}}
	}
	return string(b), nil
}

// readBytes reads a file whatever it holds, up to limit bytes: fs's text
// (read) and uploadMultipart's parts.
func (s *sandbox) readBytes(p string, limit int) ([]byte, error) {
	rel, err := s.rel(p)
	if err != nil {
		return nil, err
	}
	// A FIFO or a device would block or never end: refused before the open,
	// which itself does not wait (O_NONBLOCK) should one appear meanwhile.
	if info, err := s.root.Stat(orDot(rel)); err == nil && !info.Mode().IsRegular() && !info.IsDir() {
		return nil, special(p, info)
	}
	f, err := s.root.OpenFile(orDot(rel), os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, denied(p, err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, denied(p, err)
	}
	if info.IsDir() {
		return nil, fmt.Errorf("fs: '%s' is a folder, not a file", p)
	}
	if !info.Mode().IsRegular() {
		return nil, special(p, info)
	}
	if hardlink.Extra(info) {
		return nil, linked(p)
	}
	if info.Size() > int64(limit) {
		return nil, fmt.Errorf("fs: '%s' is %d bytes; files are limited to %d", p, info.Size(), limit)
	}
	b, err := io.ReadAll(io.LimitReader(f, int64(limit)+1))
	if err != nil {
		return nil, denied(p, err)
	}
	if len(b) > limit {
		return nil, fmt.Errorf("fs: '%s' is over %d bytes; files are limited to that", p, limit)
	}
	return b, nil
}

func (s *sandbox) write(p, content string, appendTo bool) error {
	return s.put(p, content, appendTo, MaxFileBytes)
}

// writeBytes writes a whole file whatever it holds (downloadToFile's), up
// to MaxTransferBytes, replacing one there; the folder's quota and count
// of files hold as for fs's.
func (s *sandbox) writeBytes(p string, data []byte) error {
	return s.put(p, string(data), false, MaxTransferBytes)
}

// put writes or appends content of at most limit bytes.
func (s *sandbox) put(p, content string, appendTo bool, limit int) error {
	rel, err := s.rel(p)
	if err != nil {
		return err
	}
	if rel == "" {
		return &refusal{check.JSBridge{Code: "sandbox_root", Path: p}}
	}
	if len(content) > limit {
		return fmt.Errorf("fs: content is %d bytes; files are limited to %d", len(content), limit)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	used, files := s.use()
	var old int64
	existing, statErr := s.root.Stat(rel)
	switch {
	case statErr == nil && existing.IsDir():
		return fmt.Errorf("fs: '%s' is a folder, not a file", p)
	case statErr == nil && !existing.Mode().IsRegular():
		return special(p, existing)
	case statErr == nil && hardlink.Extra(existing):
		return linked(p)
	case statErr == nil:
		old = existing.Size()
	}
	size := int64(len(content))
	if appendTo {
		size += old
		if size > int64(limit) {
			return fmt.Errorf("fs: appending would make '%s' %d bytes; files are limited to %d", p, size, limit)
		}
	}
	if used-old+size > s.quota {
		return fmt.Errorf("fs: the sandbox folder would hold %d bytes; it is limited to %d MB: delete files the tools no longer need", used-old+size, s.quota>>20)
	}
	created, err := s.mkdirs(path.Dir(rel), files)
	s.files += created
	if err != nil {
		return denied(p, err)
	}
	if statErr != nil {
		if s.files+1 > s.maxFiles {
			return fmt.Errorf("fs: the sandbox folder holds %d files and folders; it is limited to %d", s.files, s.maxFiles)
		}
	}
	// Not truncated at the open: the open file is checked first.
	flags := os.O_WRONLY | os.O_CREATE | syscall.O_NONBLOCK
	if appendTo {
		flags = os.O_WRONLY | os.O_CREATE | os.O_APPEND | syscall.O_NONBLOCK
	}
	f, err := s.root.OpenFile(rel, flags, 0o644)
	if err != nil {
		return denied(p, err)
	}
	if statErr != nil {
		s.files++
	}
	if info, err := f.Stat(); err == nil && !info.Mode().IsRegular() {
		f.Close()
		return special(p, info)
	} else if err == nil && hardlink.Extra(info) {
		// Linked between the Stat and the open.
		f.Close()
		return linked(p)
	}
	if !appendTo {
		err = f.Truncate(0)
	}
	if err == nil {
		_, err = io.WriteString(f, content)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if info, serr := s.root.Stat(rel); serr == nil {
		s.bytes += info.Size() - old
	}
	if err != nil {
		return denied(p, err)
	}
	return nil
}

// special is the error for a path that is neither a file nor a folder.
func special(p string, info fs.FileInfo) error {
	return fmt.Errorf("fs: '%s' is not a regular file (%s): only files and folders can be used", p, info.Mode().Type())
}

// linked is the error for a file with other names (package hardlink).
func linked(p string) error {
	return fmt.Errorf("%w: '%s' has other names (hard links), which may be files outside the sandbox folder: it is not used; copy what you need into a file of its own", errAccessDenied, p)
}

// shorten keeps a long path's message short.
func shorten(p string) string {
	if len(p) > 80 {
		return p[:60] + "…" + p[len(p)-16:]
	}
	return p
}

// mkdirs makes a relative folder and its parents inside the root, and
// returns how many it made; files is the folder's count of entries, which
// the new folders may not take past the limit.
func (s *sandbox) mkdirs(dir string, files int) (int, error) {
	if dir == "." || dir == "" {
		return 0, nil
	}
	parts := strings.Split(dir, "/")
	made := 0
	for i := range parts {
		if files+made >= s.maxFiles {
			return made, fmt.Errorf("the sandbox folder holds %d files and folders; it is limited to %d", files+made, s.maxFiles)
		}
		err := s.root.Mkdir(strings.Join(parts[:i+1], "/"), 0o755)
		if err == nil {
			made++
		} else if !errors.Is(err, fs.ErrExist) {
			return made, err
		}
	}
	return made, nil
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
