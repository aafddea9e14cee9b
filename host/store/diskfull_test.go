package store

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolroute/toolroute/internal/fulldisk"
)

// On a full disk (a small tmpfs filled to its last byte) a write fails
// saying the disk is full and where to free space, not "disk I/O error".
// The turn lock whose release could not be written is this process's own
// again at once, not refused as another process's until its lease expired
// (30 s), and once space is freed the lease is deleted, so another process
// takes the session without waiting for it to expire. Every message
// committed before stays.
func TestDiskFull(t *testing.T) {
	dir := fulldisk.Mount(t, 4<<20)
	path := filepath.Join(dir, "toolroute.db")
	db := openAt(t, path)
	// The leases db takes last an hour by the others' clock, and are
	// renewed every 200 ms: another holder gets one only once it is
	// deleted.
	lite(db).lease = 600 * time.Millisecond
	lite(db).setClock(func() time.Time { return time.Now().Add(time.Hour) })
	other := openAt(t, path)
	ctx := t.Context()
	must(t, db.Append(ctx, "s", userMessage("before")))
	unlock := lockTurn(t, db, "s", true)
	free := fulldisk.Fill(t, dir)
	wantFull := func(what string, err error) {
		t.Helper()
		if !errors.Is(err, ErrDiskFull) || !strings.Contains(err.Error(), "the disk is full (sqlite3: disk I/O error): free space at "+dir+" (it holds the database "+path+"), then try again") {
			t.Errorf("%s on a full disk = %v; want ErrDiskFull saying where to free space", what, err)
		}
	}
	big := userMessage(strings.Repeat("a reply that needs new pages ", 10_000))
	wantFull("Append", db.Append(ctx, "s", big))
	wantFull("AppendUnlock", db.AppendUnlock(ctx, "s", big))
	unlock() // its delete fails too: the lease stays in the file
	if _, ok, err := db.LockTurn(ctx, "s"); err == nil {
		t.Errorf("LockTurn on a full disk = %v, nil; want the full disk, not the session refused as another process's", ok)
	} else {
		wantFull("LockTurn", err)
	}
	lockTurn(t, other, "s", false) // it cannot know the turn ended
	free()
	unlockOther := lockSoon(t, other, "s")
	must(t, other.AppendUnlock(ctx, "s", userMessage("from the other")))
	unlockOther()
	unlock = lockTurn(t, db, "s", true)
	must(t, db.AppendUnlock(ctx, "s", userMessage("after")))
	unlock()
	msgs, err := db.Messages(ctx, "s")
	if err != nil || len(msgs) != 3 || msgs[0].Content != "before" || msgs[1].Content != "from the other" || msgs[2].Content != "after" {
		t.Errorf("the log = %+v, %v; want before, from the other and after", msgs, err)
	}
	if n := leaseRows(t, db); n != 0 {
		t.Errorf("%d leases left after the turns", n)
	}
}
