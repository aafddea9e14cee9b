package module

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"time"
)

// cacheTTL is how long the compiled code of a binary no process has used
// stays in the cache folder.
const cacheTTL = 7 * 24 * time.Hour

// binaryCache returns the folder of dir that keeps bin's compiled code,
// named by bin's hash, marking it used now, and removes the folders of
// other binaries (older releases of the module) that no process has used
// for cacheTTL. Each release's compiled code is about 20 MB, which would
// otherwise stay after every upgrade. Only folders named as this function
// names them are removed.
func binaryCache(dir string, bin []byte) string {
	sum := sha256.Sum256(bin)
	name := hex.EncodeToString(sum[:8])
	now := time.Now()
	if entries, err := os.ReadDir(dir); err == nil {
		for _, e := range entries {
			if !e.IsDir() || e.Name() == name || !isCacheName(e.Name()) {
				continue
			}
			if info, err := e.Info(); err == nil && now.Sub(info.ModTime()) > cacheTTL {
				_ = os.RemoveAll(filepath.Join(dir, e.Name())) // a failure leaves it for the next start
			}
		}
	}
	path := filepath.Join(dir, name)
	if err := os.MkdirAll(path, 0o755); err == nil {
		_ = os.Chtimes(path, now, now)
	}
	return path
}

// isCacheName reports whether a folder's name is one binaryCache gives:
// 16 lower-case hexadecimal digits.
func isCacheName(s string) bool {
	if len(s) != 16 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
