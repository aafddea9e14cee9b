package store

// DB's methods, each run by its backend. Those given a session id refuse
// one CheckSessionID refuses, with a *SessionIDError, before either backend
// sees it.

import (
	"context"
	"time"

	"github.com/toolroute/toolroute/registry/session"
)

// Path returns the absolute path of the SQLite file, or the PostgreSQL URL
// with its password replaced by xxxxx.
func (db *DB) Path() string { return db.backend.Path() }

// Close closes the database, once the write running, if any, is done;
// writes still queued fail, and the turn locks still held are released.
// Calls made after it return errors.
func (db *DB) Close() error { return db.backend.Close() }

// Sessions returns the sessions that have messages, the most recently
// updated first, then by id. A session is stored with its first message;
// an empty one (an older toolroute made them) is not listed.
func (db *DB) Sessions(ctx context.Context) ([]Session, error) { return db.backend.Sessions(ctx) }

// Session returns the session with that id, and false if there is none.
func (db *DB) Session(ctx context.Context, id string) (Session, bool, error) {
	if err := CheckSessionID(id); err != nil {
		return Session{}, false, err
	}
	return db.backend.Session(ctx, id)
}

// Rename gives a session a title, leaving its updated time alone: one the
// module's session_title check gave (host.Host.CheckArgs) when a user
// chose it, or Title's. It returns an error wrapping ErrNotFound if there
// is no such session.
func (db *DB) Rename(ctx context.Context, id, title string) error {
	if err := CheckSessionID(id); err != nil {
		return err
	}
	return db.backend.Rename(ctx, id, title)
}

// DeleteSession deletes a session, its messages and their search entries.
// It returns an error wrapping ErrNotFound if there is no such session, and
// one wrapping ErrSessionBusy while a turn runs in it, in this process or
// another sharing the database: the turn would go on writing to it.
func (db *DB) DeleteSession(ctx context.Context, id string) error {
	if err := CheckSessionID(id); err != nil {
		return err
	}
	return db.backend.DeleteSession(ctx, id)
}

// Messages returns a session's log in append order; an unknown session has
// none. It implements host.Store.
//
// A log read before is kept decoded (history.go), within a budget, and a
// later read decodes only the messages appended since.
func (db *DB) Messages(ctx context.Context, sessionID string) ([]session.Message, error) {
	if err := CheckSessionID(sessionID); err != nil {
		return nil, err
	}
	return db.backend.Messages(ctx, sessionID)
}

// MessagesFrom returns a session's messages after the first n (none when
// it holds n or fewer) and how many its log holds, reading no more than
// Messages does and copying only those. It implements host.TailReader.
func (db *DB) MessagesFrom(ctx context.Context, sessionID string, n int) ([]session.Message, int, error) {
	if err := CheckSessionID(sessionID); err != nil {
		return nil, 0, err
	}
	return db.backend.MessagesFrom(ctx, sessionID, n)
}

// Append adds msgs to the end of a session's log in one transaction,
// creating the session if needed and setting its updated time to now. A
// session without a title (a new one) gets one made by Title from the
// first user message among msgs: a session is stored with its first
// message and titled after it. It returns once the transaction is
// committed (see the package doc for what a crash of the machine can
// undo with SQLite): the messages are then all kept, and if it fails or the process
// dies first none of them are. Appending no messages does nothing. It
// implements host.Store.
//
// Append refuses, with an error wrapping ErrTurnRunning, while another
// process holds the session's turn lock, and with one wrapping ErrTurnLost
// if this DB held it and lost it (see LockTurn).
func (db *DB) Append(ctx context.Context, sessionID string, msgs ...session.Message) error {
	if err := CheckSessionID(sessionID); err != nil {
		return err
	}
	return db.backend.Append(ctx, sessionID, msgs...)
}

// AppendUnlock appends msgs as Append does and releases the session's turn
// lock this DB holds (LockTurn): a turn's last messages and the end of its
// turn. With SQLite both are one transaction, so a turn ends in one commit;
// with PostgreSQL the lock is released after the append commits. The unlock
// that LockTurn returned then does nothing. If it fails, nothing is
// appended and the lock is still held, for unlock to release. Without the
// lock it is Append. It implements host.TurnEnder.
func (db *DB) AppendUnlock(ctx context.Context, sessionID string, msgs ...session.Message) error {
	if err := CheckSessionID(sessionID); err != nil {
		return err
	}
	return db.backend.AppendUnlock(ctx, sessionID, msgs...)
}

// Search finds the user, assistant and tool_result messages of all sessions
// whose content has every word of query, best matches first (FTS5's bm25),
// then newest first. At most limit hits are returned, DefaultSearchLimit if
// limit is 0 or less.
//
// The query is plain words as a person or a model types them: FTS5 syntax
// has no meaning in it, and punctuation separates words as it does in the
// content. Matching ignores case and diacritics (cafe finds café). A query
// with no letters or digits finds nothing. Words are split at spaces and
// punctuation, so a word within text written without spaces (Chinese,
// Japanese) is found only as a whole run.
func (db *DB) Search(ctx context.Context, query string, limit int) ([]Hit, error) {
	return db.backend.Search(ctx, query, limit)
}

// LockTurn takes the session's turn lock unless another holder has it, and
// reports whether it did; unlock releases it. It implements host.TurnLocker.
//
// # Notes
//
// With PostgreSQL the lock is a session-level advisory lock on a
// connection the turn keeps (pglock.go): the server frees it when that
// connection ends, at once if the process dies; Append on the holder's
// connection refuses with ErrTurnLost once it ended, and Append through
// another holder with ErrTurnRunning while the lock is held.
//
// With SQLite the lock is a lease row in the database file, so it holds across the
// processes sharing the file. It is taken in one write transaction (BEGIN
// IMMEDIATE) if the session has no lease, or one that expired, or one
// whose process is gone from this machine. While held it is renewed every
// 10 seconds for 30 more: a process killed holding it frees the session at
// once for the processes of its machine (its id is no longer running), and
// within 30 seconds for others, or if its id was reused.
//
// Append checks the lease in its transaction, which fences a holder that
// lost its lock: while this DB holds a session's lock, Append commits only
// if the lease is still this lock's (ErrTurnLost otherwise); while another
// holder's lease is live, it refuses (ErrTurnRunning).
//
// Two DBs open on one database are two holders, as two processes are; a second
// LockTurn of a session through the DB that holds it reports false.
func (db *DB) LockTurn(ctx context.Context, sessionID string) (unlock func(), ok bool, err error) {
	if err := CheckSessionID(sessionID); err != nil {
		return nil, false, err
	}
	return db.backend.LockTurn(ctx, sessionID)
}

// Setting returns the value of a setting, and false if it is not set.
func (db *DB) Setting(ctx context.Context, key string) (string, bool, error) {
	return db.backend.Setting(ctx, key)
}

// SetSetting sets a setting, replacing its value if it is set.
func (db *DB) SetSetting(ctx context.Context, key, value string) error {
	return db.backend.SetSetting(ctx, key, value)
}

// DeleteSetting unsets a setting. It does nothing if the setting is not set.
func (db *DB) DeleteSetting(ctx context.Context, key string) error {
	return db.backend.DeleteSetting(ctx, key)
}

// Settings returns the settings whose keys start with prefix, all of them
// for "", sorted by key (byte order).
func (db *DB) Settings(ctx context.Context, prefix string) ([]Setting, error) {
	return db.backend.Settings(ctx, prefix)
}

// SaveMemory saves a memory and returns it.
func (db *DB) SaveMemory(ctx context.Context, text string) (Memory, error) {
	return db.backend.SaveMemory(ctx, text)
}

// Memories returns all the memories, oldest first.
func (db *DB) Memories(ctx context.Context) ([]Memory, error) { return db.backend.Memories(ctx) }

// DeleteMemory deletes a memory. It returns an error wrapping ErrNotFound
// if there is no memory with that id.
func (db *DB) DeleteMemory(ctx context.Context, id int64) error {
	return db.backend.DeleteMemory(ctx, id)
}

// PutTask stores a task, replacing the one of the same name.
func (db *DB) PutTask(ctx context.Context, t Task) error { return db.backend.PutTask(ctx, t) }

// ClaimTask replaces a task's record with t only if its next run is still
// due, the time a caller found it due at: of several processes sharing
// the store that found the task due, exactly one claims that run. It
// reports whether this one did.
func (db *DB) ClaimTask(ctx context.Context, t Task, due time.Time) (bool, error) {
	return db.backend.ClaimTask(ctx, t, due)
}

// Task returns the task of that name, and false if there is none.
func (db *DB) Task(ctx context.Context, name string) (Task, bool, error) {
	return db.backend.Task(ctx, name)
}

// DeleteTask removes a task; it reports whether there was one.
func (db *DB) DeleteTask(ctx context.Context, name string) (bool, error) {
	return db.backend.DeleteTask(ctx, name)
}

// Tasks returns every task, by name (byte order).
func (db *DB) Tasks(ctx context.Context) ([]Task, error) { return db.backend.Tasks(ctx) }

// DueTasks returns the tasks whose next run is at or before now, the
// earliest first.
func (db *DB) DueTasks(ctx context.Context, now time.Time) ([]Task, error) {
	return db.backend.DueTasks(ctx, now)
}

// NextTaskRun returns the earliest next run of any task, and false if no
// task will run again.
func (db *DB) NextTaskRun(ctx context.Context) (time.Time, bool, error) {
	return db.backend.NextTaskRun(ctx)
}

// ReleaseCaches forgets the logs kept decoded for the next turns of their
// sessions (up to 32 MiB of their JSON): the next read of each decodes it
// from the database again. A long-running process calls it once quiet
// (host.CacheReleaser): the cache is for turns that follow each other, and
// otherwise holds the logs of every session of the last burst of load,
// most never read again (issue 34).
func (db *DB) ReleaseCaches() { db.backend.ReleaseCaches() }
