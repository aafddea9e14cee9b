package store

import (
	"errors"
	"fmt"
	"path/filepath"
	"syscall"

	"github.com/ncruces/go-sqlite3"
)

// ErrDiskFull is returned, wrapped, by a write that failed because the disk
// holding the SQLite database is full, or the PostgreSQL server's is (its
// SQLSTATE 53100). Nothing of the write is kept; what was committed before
// stays.
var ErrDiskFull = errors.New("the disk is full")

// lowSpace is the free space under which a failed write to a SQLite file
// is taken for a full disk: the driver reports a write that found no space
// (ENOSPC) as SQLITE_IOERR_WRITE, "disk I/O error", without the system's
// error, so the free space is read after the failure instead. A write
// failing for another reason with this little space left would fail for
// want of it soon anyway.
const lowSpace = 64 << 20

// diskFull returns err, a failed write to the SQLite file, wrapped with
// ErrDiskFull and where to free space if it failed for want of it; any
// other error unchanged.
func (db *liteDB) diskFull(err error) error {
	if err == nil || errors.Is(err, ErrDiskFull) {
		return err
	}
	dir := filepath.Dir(db.path)
	full := errors.Is(err, sqlite3.FULL) || errors.Is(err, syscall.ENOSPC)
	if !full && errors.Is(err, sqlite3.IOERR) {
		free, known := freeSpace(dir)
		full = known && free < lowSpace
	}
	if !full {
		return err
	}
	return fmt.Errorf("%w (%w): free space at %s (it holds the database %s), then try again", ErrDiskFull, err, dir, db.path)
}
