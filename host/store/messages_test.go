package store

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/toolroute/toolroute/host"
	"github.com/toolroute/toolroute/registry"
	"github.com/toolroute/toolroute/registry/session"
)

// allFields is a log that uses every field of session.Message, with
// contents that are awkward to store.
var allFields = []session.Message{
	{Type: session.User, Content: "Hello 👋, 世界! \"quotes\" \\ back\\slash \x00 nul and\nnewline", Time: time.Date(2025, 1, 2, 3, 4, 5, 6, time.UTC)},
	{Type: session.Assistant, Content: "", Time: time.Date(2025, 1, 2, 3, 4, 6, 0, time.FixedZone("CET", 3600))},
	{
		Type:       session.ToolCall,
		ToolCallID: "call_1",
		ToolName:   "load_tool_group",
		ToolInput:  `{"group_name": "files"`, // malformed, kept as is
		Status:     registry.StatusSuccess,
		Index:      1,
		Time:       time.Date(1969, 7, 20, 20, 17, 0, 0, time.UTC), // before the Unix epoch
	},
	{
		Type:       session.ToolResult,
		Content:    "file not found: /tmp/x",
		ToolCallID: "call_1",
		ToolName:   "read_file",
		Status:     registry.StatusError,
		ErrorType:  "not_found",
		Index:      2,
	},
	{Type: session.User, Content: strings.Repeat("long ", 20000)},
}

func TestMessagesRoundTrip(t *testing.T) { forBackends(t, testMessagesRoundTrip) }

func testMessagesRoundTrip(t *testing.T, be testBackend) {
	db := be.open(t)
	ctx := t.Context()
	if err := db.Append(ctx, "s", allFields...); err != nil {
		t.Fatal(err)
	}
	got, err := db.Messages(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(allFields, got); diff != "" {
		t.Errorf("Messages (-want +got):\n%s", diff)
	}

	// The json column holds exactly what encoding/json gives, and the
	// search columns agree with it.
	if be.name != "sqlite" {
		return
	}
	rows, err := lite(db).sql.QueryContext(ctx,
		`SELECT seq, type, content, tool_name, time, json FROM messages WHERE session_id = 's' ORDER BY seq`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for i := 0; rows.Next(); i++ {
		var (
			seq                              int
			typ, content, toolName, jsonText string
			at                               *int64
		)
		if err := rows.Scan(&seq, &typ, &content, &toolName, &at, &jsonText); err != nil {
			t.Fatal(err)
		}
		m := allFields[i]
		want, _ := json.Marshal(m)
		if jsonText != string(want) {
			t.Errorf("message %d: json column = %s, want %s", i, jsonText, want)
		}
		var wantAt *int64
		if !m.Time.IsZero() {
			n := m.Time.UnixNano()
			wantAt = &n
		}
		if diff := cmp.Diff([]any{i, string(m.Type), m.Content, m.ToolName, wantAt}, []any{seq, typ, content, toolName, at}); diff != "" {
			t.Errorf("message %d: columns (-want +got):\n%s", i, diff)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
}

func TestAppend(t *testing.T) { forBackends(t, testAppend) }

func testAppend(t *testing.T, be testBackend) {
	user := func(s string) session.Message { return session.Message{Type: session.User, Content: s} }
	tests := []struct {
		name    string
		appends [][]session.Message // the msgs of successive Append calls to "s"
		want    []session.Message
	}{
		{name: "nothing", appends: nil, want: nil},
		{name: "no messages", appends: [][]session.Message{{}, {}}, want: nil},
		{name: "one", appends: [][]session.Message{{user("a")}}, want: []session.Message{user("a")}},
		{
			name:    "calls keep their order",
			appends: [][]session.Message{{user("a"), user("b")}, {}, {user("c")}, {user("d"), user("e"), user("f")}},
			want:    []session.Message{user("a"), user("b"), user("c"), user("d"), user("e"), user("f")},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db := be.open(t)
			ctx := t.Context()
			for _, msgs := range tt.appends {
				if err := db.Append(ctx, "s", msgs...); err != nil {
					t.Fatal(err)
				}
			}
			got, err := db.Messages(ctx, "s")
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Messages (-want +got):\n%s", diff)
			}
			_, exists, err := db.Session(ctx, "s")
			if err != nil {
				t.Fatal(err)
			}
			if exists != (len(tt.want) > 0) {
				t.Errorf("session exists = %v after appending %d messages", exists, len(tt.want))
			}
		})
	}
}

func TestAppendErrors(t *testing.T) { forBackends(t, testAppendErrors) }

func testAppendErrors(t *testing.T, be testBackend) {
	db := be.open(t)
	ctx := t.Context()
	if err := db.Append(ctx, "", session.Message{Type: session.User}); err == nil || !strings.Contains(err.Error(), `session id "" is empty`) {
		t.Errorf("Append to \"\" = %v, want an empty session id error", err)
	}
	// A failed transaction leaves nothing: a trigger of the test's own
	// fails the second message's insert.
	failTrigger := map[string]string{
		"sqlite": `CREATE TRIGGER test_fail BEFORE INSERT ON messages WHEN new.content = 'fail'
			BEGIN SELECT RAISE(ABORT, 'test failure'); END`,
		"postgres": `CREATE FUNCTION test_fail() RETURNS trigger LANGUAGE plpgsql AS $$
			BEGIN IF new.content = 'fail' THEN RAISE EXCEPTION 'test failure'; END IF; RETURN new; END $$;
			CREATE TRIGGER test_fail BEFORE INSERT ON messages FOR EACH ROW EXECUTE FUNCTION test_fail()`,
	}
	execSQL(t, db, failTrigger[be.name])
	err := db.Append(ctx, "s",
		session.Message{Type: session.User, Content: "ok"},
		session.Message{Type: session.User, Content: "fail"})
	if err == nil || !strings.Contains(err.Error(), "test failure") {
		t.Fatalf("Append = %v, want the test failure", err)
	}
	if _, exists, err := db.Session(ctx, "s"); err != nil || exists {
		t.Errorf("Session after a failed Append: exists = %v, err = %v; want false, nil", exists, err)
	}
	if hits, err := db.Search(ctx, "ok", 0); err != nil || len(hits) != 0 {
		t.Errorf("Search after a failed Append = %v, %v; want nothing", hits, err)
	}
	checkIntegrity(t, db)
}

func TestMessagesUnknownSession(t *testing.T) { forBackends(t, testMessagesUnknownSession) }

func testMessagesUnknownSession(t *testing.T, be testBackend) {
	db := be.open(t)
	got, err := db.Messages(t.Context(), "nobody")
	if err != nil || len(got) != 0 {
		t.Errorf("Messages(nobody) = %v, %v; want none", got, err)
	}
}

func TestConcurrentAppends(t *testing.T) { forBackends(t, testConcurrentAppends) }

func testConcurrentAppends(t *testing.T, be testBackend) {
	const (
		writers = 8  // goroutines per kind of session
		appends = 25 // Append calls per goroutine
	)
	db := be.open(t)
	ctx := t.Context()
	content := func(w, i int) string { return fmt.Sprintf("writer %d message %d", w, i) }

	var wg sync.WaitGroup
	errs := make(chan error, 4*writers)
	spawn := func(f func()) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f()
		}()
	}
	for w := range writers {
		// One goroutine per own session, one per writer into "shared",
		// each Append of two messages that must stay together.
		spawn(func() {
			for i := range appends {
				if err := db.Append(ctx, fmt.Sprintf("own-%d", w), session.Message{Type: session.User, Content: content(w, i)}); err != nil {
					errs <- err
					return
				}
			}
		})
		spawn(func() {
			for i := range appends {
				if err := db.Append(ctx, "shared",
					session.Message{Type: session.User, Content: content(w, i)},
					session.Message{Type: session.Assistant, Content: content(w, i)}); err != nil {
					errs <- err
					return
				}
			}
		})
		// Readers at the same time.
		spawn(func() {
			for range appends {
				if _, err := db.Messages(ctx, "shared"); err != nil {
					errs <- err
					return
				}
				if _, err := db.Sessions(ctx); err != nil {
					errs <- err
					return
				}
				if _, err := db.Search(ctx, "writer message", 5); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}

	for w := range writers {
		msgs, err := db.Messages(ctx, fmt.Sprintf("own-%d", w))
		if err != nil {
			t.Fatal(err)
		}
		var want []session.Message
		for i := range appends {
			want = append(want, session.Message{Type: session.User, Content: content(w, i)})
		}
		if diff := cmp.Diff(want, msgs); diff != "" {
			t.Errorf("own-%d (-want +got):\n%s", w, diff)
		}
	}

	shared, err := db.Messages(ctx, "shared")
	if err != nil {
		t.Fatal(err)
	}
	if len(shared) != 2*writers*appends {
		t.Fatalf("shared has %d messages, want %d", len(shared), 2*writers*appends)
	}
	next := make([]int, writers) // each writer's next message
	for i := 0; i < len(shared); i += 2 {
		var w, n int
		if _, err := fmt.Sscanf(shared[i].Content, "writer %d message %d", &w, &n); err != nil {
			t.Fatalf("shared[%d]: %v", i, err)
		}
		if n != next[w] {
			t.Fatalf("shared[%d] = %q, want writer %d's message %d", i, shared[i].Content, w, next[w])
		}
		next[w]++
		if shared[i].Type != session.User || !reflect.DeepEqual(shared[i+1], session.Message{Type: session.Assistant, Content: shared[i].Content}) {
			t.Fatalf("shared[%d:%d] = %+v, want one Append's user and assistant pair", i, i+2, shared[i:i+2])
		}
	}

	sessions, err := db.Sessions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(sessions) != writers+1 {
		t.Errorf("%d sessions, want %d", len(sessions), writers+1)
	}
	for _, s := range sessions {
		want := appends
		if s.ID == "shared" {
			want = 2 * writers * appends
		}
		if s.Messages != want {
			t.Errorf("session %s: Messages = %d, want %d", s.ID, s.Messages, want)
		}
	}
	checkIntegrity(t, db)
}

func TestMessagesFrom(t *testing.T) { forBackends(t, testMessagesFrom) }

// MessagesFrom gives the log after the first n, and its length, from the
// cached log as from a first read; what it gives is a copy.
func testMessagesFrom(t *testing.T, be testBackend) {
	db := be.open(t)
	ctx := t.Context()
	var _ host.TailReader = db
	for i := range 5 {
		if err := db.Append(ctx, "s", session.Message{Type: session.User, Content: fmt.Sprint("m", i)}); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct{ n, want int }{{0, 5}, {2, 3}, {5, 0}, {7, 0}} {
		for _, read := range []string{"first", "cached"} {
			got, total, err := db.MessagesFrom(ctx, "s", c.n)
			if err != nil || total != 5 || len(got) != c.want {
				t.Fatalf("%s read, MessagesFrom(%d) = %d messages, total %d, %v; want %d of 5", read, c.n, len(got), total, err, c.want)
			}
			if c.want > 0 && got[0].Content != fmt.Sprint("m", c.n) {
				t.Errorf("MessagesFrom(%d) starts with %q", c.n, got[0].Content)
			}
			if len(got) > 0 {
				got[0].Content = "changed by the caller"
			}
		}
	}
	if all, _ := db.Messages(ctx, "s"); all[2].Content != "m2" {
		t.Errorf("a caller's change reached the cached log: %q", all[2].Content)
	}
	if got, total, err := db.MessagesFrom(ctx, "nobody", 0); err != nil || total != 0 || got != nil {
		t.Errorf("MessagesFrom(nobody) = %v, %d, %v", got, total, err)
	}
}
