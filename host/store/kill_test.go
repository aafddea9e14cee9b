package store

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/toolroute/toolroute/registry/session"
)

// The environment variables that make TestHelperProcess the child of
// TestKillDuringAppend.
const (
	helperDBEnv    = "TOOLROUTE_STORE_HELPER_DB"
	helperBatchEnv = "TOOLROUTE_STORE_HELPER_BATCH"
)

// killedSession is the session the child appends to.
const killedSession = "killed"

// killedLog opens the database a killed child wrote, checks its
// integrity and returns it with the killed session's log.
func killedLog(t *testing.T, path string) (*DB, []session.Message) {
	t.Helper()
	db := openAt(t, path)
	checkIntegrity(t, db)
	got, err := db.Messages(t.Context(), killedSession)
	if err != nil {
		t.Fatal(err)
	}
	return db, got
}

// killedMessages returns the messages of the child's Append number n: batch
// messages, long enough that the kill often lands inside a transaction.
func killedMessages(n, batch int) []session.Message {
	msgs := make([]session.Message, batch)
	for i := range msgs {
		msgs[i] = session.Message{
			Type:    session.User,
			Content: fmt.Sprintf("append %d message %d %s", n, i, strings.Repeat("padding ", 500+n%7*100)),
			Index:   i,
		}
	}
	return msgs
}

// TestHelperProcess is not a test: run by TestKillDuringAppend, it appends
// to a database until it is killed, printing each Append's number once
// Append has returned.
func TestHelperProcess(t *testing.T) {
	path := os.Getenv(helperDBEnv)
	if path == "" {
		t.Skip("the child process of TestKillDuringAppend")
	}
	batch, err := strconv.Atoi(os.Getenv(helperBatchEnv))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	db, err := Open(t.Context(), path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	for n := 0; ; n++ {
		if err := db.Append(t.Context(), killedSession, killedMessages(n, batch)...); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		fmt.Println(n)
	}
}

func TestKillDuringAppend(t *testing.T) {
	tests := []struct {
		name  string
		batch int // messages per Append
	}{
		{"one message per append", 1},
		{"three messages per append", 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "toolroute.db")
			// Kill the child while it appends, after reading what it printed
			// before dying: those Appends had returned.
			reported, waitErr, stderr := killChild(t, "TestHelperProcess", 20, "appends",
				helperDBEnv+"="+path, helperBatchEnv+"="+strconv.Itoa(tt.batch))
			if exitErr, ok := waitErr.(*exec.ExitError); !ok || exitErr.Exited() {
				t.Fatalf("child ended with %v, want killed; stderr:\n%s", waitErr, stderr)
			}

			db, got := killedLog(t, path)
			appends := len(got) / tt.batch
			t.Logf("the child reported %d appends; the database has %d", reported, appends)
			if len(got)%tt.batch != 0 || appends < reported || appends > reported+1 {
				t.Fatalf("after the kill: %d messages, want %d or %d (%d appends reported of %d messages)",
					len(got), reported*tt.batch, (reported+1)*tt.batch, reported, tt.batch)
			}
			var want []session.Message
			for n := range appends {
				want = append(want, killedMessages(n, tt.batch)...)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("messages after the kill (-want +got):\n%s", diff)
			}
			s, ok, err := db.Session(t.Context(), killedSession)
			if err != nil || !ok || s.Messages != len(got) {
				t.Errorf("Session(%s) = %+v, %v, %v; want %d messages", killedSession, s, ok, err, len(got))
			}
			hits, err := db.Search(t.Context(), fmt.Sprintf("append %d message 0", appends-1), 0)
			if err != nil || len(hits) == 0 {
				t.Errorf("Search for the last append = %v, %v; want it found", hits, err)
			}

			// The database still takes appends after its writer was killed.
			must(t, db.Append(t.Context(), killedSession, killedMessages(appends, tt.batch)...))
		})
	}
}

// The environment variable that makes TestTurnHelperProcess the child of
// TestKillDuringTurns.
const turnHelperDBEnv = "TOOLROUTE_STORE_TURN_HELPER_DB"

// turnMessages are the two messages of the child's turn number n.
func turnMessages(n int) (question, answer session.Message) {
	return session.Message{Type: session.User, Content: fmt.Sprintf("turn %d %s", n, strings.Repeat("padding ", 300))},
		session.Message{Type: session.Assistant, Content: fmt.Sprintf("answer %d", n)}
}

// TestTurnHelperProcess is not a test: run by TestKillDuringTurns, it runs
// the writes of turns as the host does (lock, append the question, append
// the answer and unlock in one) until it is killed, printing each turn's
// number once it ended.
func TestTurnHelperProcess(t *testing.T) {
	path := os.Getenv(turnHelperDBEnv)
	if path == "" {
		t.Skip("the child process of TestKillDuringTurns")
	}
	db, err := Open(t.Context(), path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	for n := 0; ; n++ {
		unlock, ok, err := db.LockTurn(t.Context(), killedSession)
		if err != nil || !ok {
			fmt.Fprintln(os.Stderr, "LockTurn:", ok, err)
			os.Exit(2)
		}
		q, a := turnMessages(n)
		if err := db.Append(t.Context(), killedSession, q); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		if err := db.AppendUnlock(t.Context(), killedSession, a); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		unlock()
		fmt.Println(n)
	}
}

// A process killed in its turns' writes leaves whole turns, or a turn's
// question without its answer, and at most its lease: one that frees
// itself as any other, here once past its expiry.
func TestKillDuringTurns(t *testing.T) {
	path := filepath.Join(t.TempDir(), "toolroute.db")
	reported, _, _ := killChild(t, "TestTurnHelperProcess", 30, "turns", turnHelperDBEnv+"="+path)

	db, got := killedLog(t, path)
	t.Logf("the child reported %d turns; the database has %d messages", reported, len(got))
	if len(got) < 2*reported || len(got) > 2*reported+2 {
		t.Fatalf("after the kill: %d messages, want %d to %d", len(got), 2*reported, 2*reported+2)
	}
	var want []session.Message
	for n := 0; len(want) < len(got); n++ {
		q, a := turnMessages(n)
		want = append(want, q, a)
	}
	if diff := cmp.Diff(want[:len(got)], got); diff != "" {
		t.Errorf("messages after the kill (-want +got):\n%s", diff)
	}
	if n := leaseRows(t, db); n > 1 {
		t.Fatalf("%d lease rows after the kill, want at most the child's", n)
	}
	if leaseRows(t, db) == 1 {
		expires := queryInt(t, db, `SELECT expires FROM turn_leases`)
		if left := time.Until(time.Unix(0, int64(expires))); left <= 0 || left > defaultLease {
			t.Errorf("the child's lease expires in %v, want within %v", left, defaultLease)
		}
	}
	// Past any lease's expiry, the session is free, and takes turns.
	db.setClock(func() time.Time { return time.Now().Add(defaultLease + time.Second) })
	unlock := lockTurn(t, db, killedSession, true)
	q, a := turnMessages(len(got))
	must(t, db.Append(t.Context(), killedSession, q))
	must(t, db.AppendUnlock(t.Context(), killedSession, a))
	unlock()
	if n := leaseRows(t, db); n != 0 {
		t.Errorf("%d lease rows after the turn, want 0", n)
	}
}

// killChild runs this test binary's helper test as a child process with
// env added, reads the numbers it prints (0, 1, ... one a line, each once
// its write returned), kills it once it has printed killAt, and returns
// how many it printed before dying, how it ended and its standard error.
// what names the writes in its failures.
func killChild(t *testing.T, helper string, killAt int, what string, env ...string) (reported int, waitErr error, stderr *bytes.Buffer) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+helper+"$")
	cmd.Env = append(os.Environ(), env...)
	stderr = &bytes.Buffer{}
	cmd.Stderr = stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(stdout)
	for lines.Scan() {
		if n, err := strconv.Atoi(lines.Text()); err != nil || n != reported {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("child printed %q, want %d; stderr:\n%s", lines.Text(), reported, stderr)
		}
		reported++
		if reported == killAt {
			if err := cmd.Process.Kill(); err != nil {
				t.Fatal(err)
			}
		}
	}
	waitErr = cmd.Wait()
	if reported < killAt {
		t.Fatalf("child stopped after %d %s: %v; stderr:\n%s", reported, what, waitErr, stderr)
	}
	return reported, waitErr, stderr
}
