package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/toolroute/toolroute/host/store"
	"github.com/toolroute/toolroute/internal/fakemodel"
	"github.com/toolroute/toolroute/internal/pgtest"
	"github.com/toolroute/toolroute/internal/testwait"
)

// Two serve processes of two users (two machines, as far as they can
// tell) on one PostgreSQL database: a session made through one is listed
// and continued through the other; while one runs a turn of it, the
// other's turn is refused at once, as between processes sharing a SQLite
// file; once it ends, the other's runs.
func TestServesSharePostgres(t *testing.T) {
	url := pgtest.URL(t)
	hold := make(chan struct{})
	released := false
	defer func() {
		if !released {
			close(hold)
		}
	}()
	model := fakemodel.New(fakemodel.OpenAI,
		fakemodel.Text("One."),
		fakemodel.Reply{Text: "Two.", Hold: hold},
		fakemodel.Text("Three."),
	)
	defer model.Close()
	type serve struct{ addr, token string }
	var serves []serve
	for range 2 {
		addr, token, stop := startServe(t, newUser(t, model, fakemodel.OpenAI), "--db", url)
		defer stop()
		serves = append(serves, serve{addr, token})
	}
	call := func(s serve, method, path, body string) string {
		req, _ := http.NewRequest(method, s.addr+path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+s.token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		out, _ := io.ReadAll(resp.Body)
		return string(out)
	}
	mustContain(t, "the first serve's events", call(serves[0], "POST", "/api/sessions/work/messages", `{"text":"Hello one"}`), "event: done\n", `"text":"One."`)

	var list []struct{ ID, Title string }
	if err := json.Unmarshal([]byte(call(serves[1], "GET", "/api/sessions", "")), &list); err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(list, func(s struct{ ID, Title string }) bool { return s.ID == "work" }) {
		t.Errorf("the second serve lists %+v, want the session work", list)
	}

	second := make(chan string)
	go func() { second <- call(serves[1], "POST", "/api/sessions/work/messages", `{"text":"Hello two"}`) }()
	for deadline := time.Now().Add(testwait.Failsafe); len(model.Requests()) < 2; time.Sleep(10 * time.Millisecond) {
		select {
		case out := <-second:
			t.Fatalf("the second serve's turn ended before its model call: %s", out)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("the second serve's model call never came")
		}
	}
	mustContain(t, "the first serve's events while the second runs a turn", call(serves[0], "POST", "/api/sessions/work/messages", `{"text":"Hello three"}`),
		"event: failed\n", `"code":"turn_running"`, `"message":"`+strings.ReplaceAll(strings.TrimPrefix(busyError, "host: "), `"`, `\"`)+`"`)
	close(hold)
	released = true
	mustContain(t, "the second serve's events", <-second, "event: done\n", `"text":"Two."`)
	mustContain(t, "the first serve's events", call(serves[0], "POST", "/api/sessions/work/messages", `{"text":"Hello three"}`), "event: done\n", `"text":"Three."`)

	db, err := store.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	msgs, err := db.Messages(context.Background(), "work")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range msgs {
		got = append(got, string(m.Type)+" "+m.Content)
	}
	want := []string{"user Hello one", "assistant One.", "user Hello two", "assistant Two.", "user Hello three", "assistant Three."}
	if !slices.Equal(got, want) {
		t.Errorf("the log holds %q, want %q", got, want)
	}
}

// The commands that keep settings take the URL too: a variable set by one
// user's env is listed by another's on the same database. A URL that
// cannot be used fails with what to do.
func TestEnvPostgres(t *testing.T) {
	url := pgtest.URL(t)
	a, b := newUser(t, nil, fakemodel.OpenAI), newUser(t, nil, fakemodel.OpenAI)
	if res := a.run("secret\n", "env", "set", "SHARED_KEY", "--db", url); res.code != 0 {
		t.Fatalf("env set: exit %d\n%s", res.code, res.stderr)
	}
	res := b.run("", "env", "list", "--db", url)
	if res.code != 0 || res.stdout != "SHARED_KEY\n" {
		t.Errorf("env list on the other machine: exit %d, %q\n%s", res.code, res.stdout, res.stderr)
	}
	res = b.run("", "env", "list", "--db", "postgres://u:hunter2@127.0.0.1:notaport/db")
	if res.code != 1 || strings.Contains(res.stderr, "hunter2") {
		t.Errorf("env list with a bad URL: exit %d\n%s", res.code, res.stderr)
	}
	mustContain(t, "the error", res.stderr, "toolroute: store: the PostgreSQL URL is not valid", "give one like postgres://user:password@host:5432/database")
}

// A PostgreSQL password given on the command line, in any form, is shown
// as xxxxx in what the program prints when it cannot open the database,
// and no file is named with it (a keyword=value string was once taken for
// a SQLite file's path).
func TestDBPasswordNotShown(t *testing.T) {
	const password = "Hunt3rTw0Pw"
	u := newUser(t, nil, "")
	for _, c := range []struct{ args []string }{
		{[]string{"chat", "--provider", "demo", "--db", "postgres://someone:" + password + "@127.0.0.1:1/db"}},
		{[]string{"serve", "--port", "0", "--db", "postgres://someone@127.0.0.1:1/db?password=" + password}},
		{[]string{"env", "list", "--db", "host=127.0.0.1 port=1 user=someone password=" + password + " dbname=db"}},
		{[]string{"policy", "list", "--db", "postgresql://someone:Hunt3r@Tw0Pw@127.0.0.1:1/db"}},
	} {
		res := u.run("", c.args...)
		if res.code == 0 || !strings.Contains(res.stderr, "xxxxx") {
			t.Errorf("%s: exit %d, %q; want the store's error with the password as xxxxx", c.args[0], res.code, res.stderr)
		}
		if out := res.stdout + res.stderr; strings.Contains(out, "Hunt3r") || strings.Contains(out, "Tw0Pw") {
			t.Errorf("%s shows the password:\n%s", c.args[0], out)
		}
	}
	entries, _ := os.ReadDir(u.home)
	for _, e := range entries {
		if strings.Contains(e.Name(), password) {
			t.Errorf("the working folder holds %q", e.Name())
		}
	}
}
