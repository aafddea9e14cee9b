package server_test

import (
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolroute/toolroute/host/store"
	"github.com/toolroute/toolroute/internal/app"
	"github.com/toolroute/toolroute/internal/fakemodel"
	"github.com/toolroute/toolroute/internal/fulldisk"
	"github.com/toolroute/toolroute/internal/pgtest"
	"github.com/toolroute/toolroute/internal/server"
)

// startDB serves an app whose database is db (a SQLite file, a PostgreSQL
// URL), the model the fake.
func startDB(t *testing.T, model *fakemodel.Server, db string) *httptest.Server {
	t.Helper()
	dir := t.TempDir()
	vars := map[string]string{"OPENAI_BASE_URL": model.BaseURL(), "OPENAI_API_KEY": "test-key"}
	a, err := app.Open(context.Background(), app.Config{
		DataDir: filepath.Join(dir, "data"), ConfigDir: filepath.Join(dir, "config"), CacheDir: cacheDir, DBPath: db,
		Model: "fake-model", Getenv: func(k string) string { return vars[k] }, Watch: -1, Stream: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(server.Handler(a, server.Options{Token: token}))
	t.Cleanup(func() { srv.Close(); a.Close() })
	return srv
}

// wantFailed checks that a turn's stream ended with a failed event of
// code, whose message has want; and, with only, that it held nothing else.
func wantFailed(t *testing.T, what string, evs []event, code, want string, only bool) {
	t.Helper()
	last := evs[len(evs)-1]
	f, _ := last.Data["failure"].(map[string]any)
	if last.Name != "failed" || f["code"] != code || !strings.Contains(f["message"].(string), want) {
		t.Errorf("%s: the stream ended with %s %v; want failed, code %s: %s", what, last.Name, last.Data, code, want)
	}
	if only && len(evs) != 1 {
		t.Errorf("%s: %d events, want only failed: %v", what, len(evs), evs)
	}
}

// Every turn's stream ends with done or failed, even when the server, not
// the turn, ends it: a turn running in another process (the turn does not
// start), a full disk, a PostgreSQL server down. They came as an "error"
// event, which the API's clients were not told of.
func TestServerFailuresEndTheStream(t *testing.T) {
	t.Run("a turn in another process", func(t *testing.T) {
		model := fakemodel.New(fakemodel.OpenAI, fakemodel.Text("Hi."))
		defer model.Close()
		path := filepath.Join(t.TempDir(), "toolroute.db")
		srv := startDB(t, model, path)
		other, err := store.Open(t.Context(), path)
		if err != nil {
			t.Fatal(err)
		}
		defer other.Close()
		unlock, ok, err := other.LockTurn(t.Context(), "work")
		if err != nil || !ok {
			t.Fatalf("the other process's lock: %v, %v", ok, err)
		}
		wantFailed(t, "refused", turn(t, srv, "work", "hello"), "turn_running",
			`session "work" has a turn running in another process (toolroute serve or chat); try again when it ends`, true)
		unlock()
		if evs := turn(t, srv, "work", "hello"); evs[len(evs)-1].Name != "done" {
			t.Errorf("once the other turn ended: %+v", evs[len(evs)-1])
		}
	})

	t.Run("a full disk", func(t *testing.T) {
		dir := fulldisk.Mount(t, 8<<20)
		hold := make(chan struct{})
		model := fakemodel.New(fakemodel.OpenAI, fakemodel.Text("Hi."), fakemodel.Reply{Text: strings.Repeat("A long answer. ", 200), Hold: hold},
			fakemodel.Text("Hi again."))
		defer model.Close()
		path := filepath.Join(dir, "toolroute.db")
		srv := startDB(t, model, path)
		if evs := turn(t, srv, "work", "hello"); evs[len(evs)-1].Name != "done" {
			t.Fatalf("before the disk filled: %+v", evs[len(evs)-1])
		}
		// The disk fills while the model answers the second turn.
		filled := make(chan func(), 1)
		go func() {
			for len(model.Requests()) < 2 {
				time.Sleep(10 * time.Millisecond)
			}
			filled <- fulldisk.Fill(t, dir)
			close(hold)
		}()
		want := "the disk is full (sqlite3: disk I/O error): free space at " + dir + " (it holds the database " + path + "), then try again"
		wantFailed(t, "on a full disk", turn(t, srv, "work", "hello"), "host_error", want, false)
		free := <-filled
		// The turn lock the failed turn could not release in the file is
		// the server's own: its next turn says the disk is full, and once
		// space is freed it runs, rather than being refused as another
		// process's turn for the 30 s of the lock's lease.
		wantFailed(t, "still full", turn(t, srv, "work", "hello"), "host_error", want, true)
		free()
		if evs := turn(t, srv, "work", "hello again"); evs[len(evs)-1].Name != "done" {
			t.Errorf("once space was freed: %+v", evs[len(evs)-1])
		}
	})

	t.Run("PostgreSQL down", func(t *testing.T) {
		pg, err := pgtest.Start(pgtest.Options{})
		if err != nil {
			if os.Getenv(pgtest.SkipEnv) == "1" {
				t.Skip(err)
			}
			t.Fatal(err)
		}
		stopped := false
		defer func() {
			if !stopped {
				pg.Stop()
			}
		}()
		url, err := pg.NewDatabase(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		hold := make(chan struct{})
		model := fakemodel.New(fakemodel.OpenAI, fakemodel.Text("Hi."), fakemodel.Reply{Text: "Too late.", Hold: hold})
		defer model.Close()
		srv := startDB(t, model, url)
		if evs := turn(t, srv, "work", "hello"); evs[len(evs)-1].Name != "done" {
			t.Fatalf("before the server stopped: %+v", evs[len(evs)-1])
		}
		// The server stops while the model answers the second turn.
		go func() {
			for len(model.Requests()) < 2 {
				select {
				case <-t.Context().Done():
					return
				default:
				}
				time.Sleep(10 * time.Millisecond)
			}
			pg.Stop()
			close(hold)
		}()
		wantFailed(t, "mid-turn", turn(t, srv, "work", "hello again"), "host_error",
			"the connection to the PostgreSQL server that held the session's turn lock ended", false)
		stopped = true
		wantFailed(t, "after", turn(t, srv, "work", "and again"), "host_error",
			"the PostgreSQL server cannot be reached (", true)
	})
}
