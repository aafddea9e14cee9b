package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// CacheFile is the name of the file, in the program's data folder, that
// keeps each server's tools from its last run (Options.CacheFile): what
// lets the catalogue list a server, load its group and search its tools
// before it is started.
const CacheFile = "mcp-tools.json"

// cacheEntry is one server's tools as it last listed them, with the hash
// of the config entry it was started with: an entry changed since (another
// command, version pinned, env) is not trusted, and the server is started
// to list them again.
type cacheEntry struct {
	Key          string              `json:"key"`
	ConfigHash   string              `json:"config_hash"`
	ServerInfo   *mcp.Implementation `json:"server_info"`
	Instructions string              `json:"instructions,omitempty"`
	Protocol     string              `json:"protocol,omitempty"`
	Tools        []*mcp.Tool         `json:"tools"`
	ListedAt     time.Time           `json:"listed_at"`
}

// cacheFile is the file's content: the entries in the order they were
// first written, each replaced in place.
type cacheFile struct {
	Servers []cacheEntry `json:"servers"`
}

// configHash is the hash of what starts a server and how it is reached:
// its entry as toolroute read it, the timeout aside (it changes no tool).
func configHash(c ServerConfig) string {
	c.TimeoutSeconds, c.Disabled = 0, false
	b, _ := json.Marshal(c) // maps are marshalled sorted
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// readCache reads the cache file; a missing or unreadable one is empty (the
// servers are then started to list their tools, as without a cache).
func readCache(path string) cacheFile {
	var f cacheFile
	if path == "" {
		return f
	}
	b, err := os.ReadFile(path)
	if err != nil || json.Unmarshal(b, &f) != nil {
		return cacheFile{}
	}
	return f
}

// find is the entry for c, if its config is the one cached.
func (f cacheFile) find(c ServerConfig) (cacheEntry, bool) {
	i := slices.IndexFunc(f.Servers, func(e cacheEntry) bool { return e.Key == c.Key })
	if i < 0 || f.Servers[i].ConfigHash != configHash(c) {
		return cacheEntry{}, false
	}
	return f.Servers[i], true
}

// remember writes what a server listed into the cache file (written whole
// to a temporary file, then renamed over it, so a reader never sees half).
// A failure to write is not the server's problem: the next run starts it.
func (h *hub) remember(e cacheEntry) {
	if h.CacheFile == "" {
		return
	}
	h.cacheMu.Lock()
	defer h.cacheMu.Unlock()
	f := readCache(h.CacheFile)
	if i := slices.IndexFunc(f.Servers, func(old cacheEntry) bool { return old.Key == e.Key }); i >= 0 {
		f.Servers[i] = e
	} else {
		f.Servers = append(f.Servers, e)
	}
	b, err := json.MarshalIndent(f, "", " ")
	if err != nil {
		return
	}
	if err := os.MkdirAll(filepath.Dir(h.CacheFile), 0o700); err != nil {
		return
	}
	tmp, err := os.CreateTemp(filepath.Dir(h.CacheFile), CacheFile+".*")
	if err != nil {
		return
	}
	_, werr := tmp.Write(append(b, '\n'))
	cerr := tmp.Close()
	if werr != nil || cerr != nil || os.Rename(tmp.Name(), h.CacheFile) != nil {
		os.Remove(tmp.Name())
	}
}
