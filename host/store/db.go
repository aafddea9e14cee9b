package store

import (
	"context"
	"strings"
	"time"

	"github.com/toolroute/toolroute/registry/session"
)

// DB is an open toolroute database: a SQLite file (the default, embedded)
// or a PostgreSQL database that several processes, on several machines,
// share. Both keep the same things and answer the same way; the package
// tests run one suite against both. It is safe for concurrent use.
type DB struct {
	backend
}

// backend is what a DB does: liteDB (SQLite, store.go) and pgDB
// (PostgreSQL, pg.go) implement it, each method as documented on DB's.
type backend interface {
	// Path is the SQLite file's absolute path, or the PostgreSQL URL
	// without its password.
	Path() string
	Close() error

	Sessions(ctx context.Context) ([]Session, error)
	Session(ctx context.Context, id string) (Session, bool, error)
	Rename(ctx context.Context, id, title string) error
	DeleteSession(ctx context.Context, id string) error

	Messages(ctx context.Context, sessionID string) ([]session.Message, error)
	MessagesFrom(ctx context.Context, sessionID string, n int) ([]session.Message, int, error)
	Append(ctx context.Context, sessionID string, msgs ...session.Message) error
	AppendUnlock(ctx context.Context, sessionID string, msgs ...session.Message) error
	Search(ctx context.Context, query string, limit int) ([]Hit, error)
	LockTurn(ctx context.Context, sessionID string) (unlock func(), ok bool, err error)

	Setting(ctx context.Context, key string) (string, bool, error)
	SetSetting(ctx context.Context, key, value string) error
	DeleteSetting(ctx context.Context, key string) error
	Settings(ctx context.Context, prefix string) ([]Setting, error)

	SaveMemory(ctx context.Context, text string) (Memory, error)
	Memories(ctx context.Context) ([]Memory, error)
	DeleteMemory(ctx context.Context, id int64) error

	PutTask(ctx context.Context, t Task) error
	ClaimTask(ctx context.Context, t Task, due time.Time) (bool, error)
	Task(ctx context.Context, name string) (Task, bool, error)
	DeleteTask(ctx context.Context, name string) (bool, error)
	Tasks(ctx context.Context) ([]Task, error)
	DueTasks(ctx context.Context, now time.Time) ([]Task, error)
	NextTaskRun(ctx context.Context) (time.Time, bool, error)

	// ReleaseCaches forgets the decoded logs kept for the next reads.
	ReleaseCaches()

	// setClock sets the clock of the sessions', memories' and turn
	// locks' times, for tests.
	setClock(now func() time.Time)
}

// Open opens a toolroute database and brings its schema up to date,
// creating it if needed. where is either a PostgreSQL URL
// (postgres://user:password@host:port/database?sslmode=..., or
// postgresql://...) or keyword=value string (host=... dbname=...), whose
// database must exist, or the path of a SQLite file, made with its parent
// folders if needed. Its errors and Path show a PostgreSQL password as
// xxxxx, in whatever form it was given.
//
// Open refuses a SQLite file that is not a SQLite database, a database
// that holds tables but not toolroute's, and one whose schema a newer
// toolroute made; for PostgreSQL also a URL it cannot parse and a server it
// cannot reach or log in to, each with what to do.
func Open(ctx context.Context, where string) (*DB, error) {
	if IsPostgresURL(where) {
		p, err := openPG(ctx, where)
		if err != nil {
			return nil, err
		}
		return &DB{p}, nil
	}
	l, err := openLite(ctx, where)
	if err != nil {
		return nil, err
	}
	return &DB{l}, nil
}

// IsPostgresURL reports whether Open takes where as a PostgreSQL
// connection string: a URL, starting with postgres:// or postgresql://, or
// libpq's keyword=value form, starting with one of its keywords and '='
// (host=db.example.com user=toolroute ...). Such a string given as a SQLite
// path made a file named with the password.
func IsPostgresURL(where string) bool {
	return strings.HasPrefix(where, "postgres://") || strings.HasPrefix(where, "postgresql://") || isKeywordValue(where)
}
