package pgtest

import (
	"context"
	"errors"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"
)

func TestMain(m *testing.M) { os.Exit(Run(m)) }

// Two databases of the server are two: a table made in one is not in the
// other.
func TestURL(t *testing.T) {
	ctx := context.Background()
	a, b := URL(t), URL(t)
	if a == b {
		t.Fatalf("two databases have one URL %s", a)
	}
	ca, err := pgx.Connect(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	defer ca.Close(ctx)
	if _, err := ca.Exec(ctx, `CREATE TABLE t (x int)`); err != nil {
		t.Fatal(err)
	}
	cb, err := pgx.Connect(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	defer cb.Close(ctx)
	var exists bool
	if err := cb.QueryRow(ctx, `SELECT to_regclass('t') IS NOT NULL`).Scan(&exists); err != nil {
		t.Fatal(err)
	}
	if exists {
		t.Error("the table made in one database is in the other")
	}
}

func TestBinMissing(t *testing.T) {
	t.Setenv("PG_BIN", t.TempDir())
	_, err := Bin()
	if err == nil || !errors.Is(err, errMissing) {
		t.Fatalf("Bin() with an empty PG_BIN = %v, want errMissing", err)
	}
}
