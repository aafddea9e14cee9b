package store

import (
	"fmt"
	"math/bits"
	"sync"

	"github.com/ncruces/go-sqlite3"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
)

var cacheOnce sync.Once

// SetCacheDir keeps SQLite's compiled code in dir, so the next process
// starts without compiling it again (about a second). It applies to the
// whole process and must come before the first Open; later calls do
// nothing.
func SetCacheDir(dir string) error {
	err := fmt.Errorf("store: SetCacheDir was already called")
	cacheOnce.Do(func() {
		cache, cerr := wazero.NewCompilationCacheWithDir(dir)
		if cerr != nil {
			err = fmt.Errorf("store: compilation cache in %s: %w", dir, cerr)
			return
		}
		// The driver's own defaults, with the cache.
		pages := uint32(4096) // 256 MB
		if bits.UintSize < 64 {
			pages = 512
		}
		sqlite3.RuntimeConfig = wazero.NewRuntimeConfig().
			WithMemoryLimitPages(pages).
			WithCoreFeatures(api.CoreFeaturesV2).
			WithCompilationCache(cache)
		err = nil
	})
	return err
}
