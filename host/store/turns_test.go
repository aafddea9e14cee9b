package store

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/toolroute/toolroute/host"
	"github.com/toolroute/toolroute/internal/testwait"
	"github.com/toolroute/toolroute/registry/session"
)

var _ host.TurnLocker = (*DB)(nil)

// openShared opens n DBs on one SQLite file, as n processes would.
func openShared(t *testing.T, n int) []*DB { return testBackends[0].openShared(t, n) }

// lockTurn calls LockTurn and checks whether it took the lock; unlock is
// nil when it did not.
func lockTurn(t *testing.T, db *DB, id string, wantOK bool) (unlock func()) {
	t.Helper()
	unlock, ok, err := db.LockTurn(t.Context(), id)
	if err != nil {
		t.Fatalf("LockTurn(%q): %v", id, err)
	}
	if ok != wantOK {
		t.Fatalf("LockTurn(%q) took the lock: %v, want %v", id, ok, wantOK)
	}
	if ok {
		t.Cleanup(unlock)
	}
	return unlock
}

// lockSoon takes the session's turn lock once it is free, within 10
// seconds: once a server has ended the session of a connection that held
// it.
func lockSoon(t *testing.T, db *DB, id string) (unlock func()) {
	t.Helper()
	for deadline := time.Now().Add(testwait.Failsafe); ; time.Sleep(10 * time.Millisecond) {
		unlock, ok, err := db.LockTurn(t.Context(), id)
		if err != nil {
			t.Fatal(err)
		}
		if ok {
			t.Cleanup(unlock)
			return unlock
		}
		if time.Now().After(deadline) {
			t.Fatalf("the lock of %q was not freed within 10 seconds", id)
		}
	}
}

func userMessage(text string) session.Message {
	return session.Message{Type: session.User, Content: text}
}

// leaseRows counts the turn locks held in the database: SQLite's lease
// rows, PostgreSQL's advisory locks.
func leaseRows(t *testing.T, db *DB) int {
	t.Helper()
	if lite(db) != nil {
		return queryInt(t, db, `SELECT count(*) FROM turn_leases`)
	}
	return queryInt(t, db, `SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'
		AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`)
}

// Two processes on one file: while one holds a session's turn lock the
// other can neither take it nor append to the session; once released, the
// other takes it.
func TestLockTurnAcrossHandles(t *testing.T) { forBackends(t, testLockTurnAcrossHandles) }

func testLockTurnAcrossHandles(t *testing.T, be testBackend) {
	dbs := be.openShared(t, 2)
	a, b := dbs[0], dbs[1]

	unlockA := lockTurn(t, a, "s", true)
	lockTurn(t, b, "s", false)
	lockTurn(t, a, "s", false) // the same handle is one holder
	lockTurn(t, b, "other", true)()

	if err := b.Append(t.Context(), "s", userMessage("from b")); !errors.Is(err, ErrTurnRunning) {
		t.Errorf("b.Append while a holds the lock = %v, want ErrTurnRunning", err)
	}
	must(t, a.Append(t.Context(), "s", userMessage("from a")))

	unlockA()
	unlockA() // a second unlock does nothing
	if n := leaseRows(t, a); n != 0 {
		t.Errorf("%d lease rows after every unlock, want 0", n)
	}

	unlockB := lockTurn(t, b, "s", true)
	lockTurn(t, a, "s", false)
	must(t, b.Append(t.Context(), "s", userMessage("from b")))
	if err := a.Append(t.Context(), "s", userMessage("from a again")); !errors.Is(err, ErrTurnRunning) {
		t.Errorf("a.Append while b holds the lock = %v, want ErrTurnRunning", err)
	}
	unlockB()

	msgs, err := a.Messages(t.Context(), "s")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range msgs {
		got = append(got, m.Content)
	}
	if diff := cmp.Diff([]string{"from a", "from b"}, got); diff != "" {
		t.Errorf("the log (-want +got):\n%s", diff)
	}
}

// Of many processes trying at once, one takes the lock.
func TestLockTurnRace(t *testing.T) { forBackends(t, testLockTurnRace) }

func testLockTurnRace(t *testing.T, be testBackend) {
	dbs := be.openShared(t, 6)
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		taken int
		start = make(chan struct{})
	)
	for _, db := range dbs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			unlock, ok, err := db.LockTurn(t.Context(), "s")
			if err != nil {
				t.Error(err)
				return
			}
			if ok {
				mu.Lock()
				taken++
				mu.Unlock()
				t.Cleanup(unlock)
			}
		}()
	}
	close(start)
	wg.Wait()
	if taken != 1 {
		t.Errorf("%d of %d processes took the lock, want 1", taken, len(dbs))
	}
}

// A held lock is renewed: it outlives several leases. The lease is 2 s,
// renewed every 667 ms: one of 300 ms is lost whenever a renewal waits
// that long for a core or the disk, as it can on a busy machine.
func TestLockTurnRenewed(t *testing.T) {
	dbs := openShared(t, 2)
	a, b := dbs[0], dbs[1]
	const lease = 2 * time.Second
	lite(a).lease, lite(b).lease = lease, lease
	lockTurn(t, a, "s", true)
	for range 4 {
		time.Sleep(lease * 3 / 4)
		lockTurn(t, b, "s", false)
	}
	must(t, a.Append(t.Context(), "s", userMessage("still mine")))
}

// A process that dies holding the lock, here a handle closed without
// unlocking, frees the session when its lease expires.
func TestLockTurnExpires(t *testing.T) {
	dbs := openShared(t, 2)
	a, b := dbs[0], dbs[1]
	const lease = 300 * time.Millisecond
	lite(a).lease = lease
	unlockA := lockTurn(t, a, "s", true)
	a.Close() // no more renewals; the lease stays in the file
	start := time.Now()
	lockTurn(t, b, "s", false)
	for {
		unlock, ok, err := b.LockTurn(t.Context(), "s")
		if err != nil {
			t.Fatal(err)
		}
		if ok {
			defer unlock()
			break
		}
		if time.Since(start) > testwait.Failsafe {
			t.Fatal("the expired lease was never taken over")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if waited := time.Since(start); waited < lease/2 {
		t.Errorf("took over after %v, before the lease of %v could expire", waited, lease)
	}
	must(t, b.Append(t.Context(), "s", userMessage("after the takeover")))
	unlockA() // releasing through a closed handle does nothing, and returns
}

// A holder that went unrenewed past its lease (a stopped process; here, the
// other handle's clock a minute ahead) loses the lock: its appends are
// refused, and its unlock leaves the new holder's lease alone.
func TestLockTurnLost(t *testing.T) {
	dbs := openShared(t, 2)
	a, b := dbs[0], dbs[1]
	b.setClock(func() time.Time { return time.Now().Add(time.Minute) })
	unlockA := lockTurn(t, a, "s", true)
	unlockB := lockTurn(t, b, "s", true)

	if err := a.Append(t.Context(), "s", userMessage("late")); !errors.Is(err, ErrTurnLost) {
		t.Errorf("a.Append after losing the lock = %v, want ErrTurnLost", err)
	}
	must(t, b.Append(t.Context(), "s", userMessage("b's turn")))
	unlockA()
	lockTurn(t, a, "s", false)
	if n := leaseRows(t, a); n != 1 {
		t.Errorf("%d lease rows after the loser's unlock, want b's", n)
	}
	unlockB()
	lockTurn(t, a, "s", true)
}

// The environment variable that makes TestLockHelperProcess the child of
// TestLockTurnKilledProcess.
const lockHelperDBEnv = "TOOLROUTE_STORE_LOCK_HELPER_DB"

// TestLockHelperProcess is not a test: run by TestLockTurnKilledProcess, it
// takes the turn lock of session "s", says so, and waits to be killed.
func TestLockHelperProcess(t *testing.T) {
	path := os.Getenv(lockHelperDBEnv)
	if path == "" {
		t.Skip("the child process of TestLockTurnKilledProcess")
	}
	db, err := Open(t.Context(), path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	if _, ok, err := db.LockTurn(t.Context(), "s"); err != nil || !ok {
		fmt.Fprintln(os.Stderr, "LockTurn:", ok, err)
		os.Exit(2)
	}
	fmt.Println("locked")
	select {}
}

// A process killed holding the lock frees the session at once: for the
// processes of its machine, long before its lease expires (SQLite); for
// all, as soon as the server sees its connection close (PostgreSQL).
func TestLockTurnKilledProcess(t *testing.T) { forBackends(t, testLockTurnKilledProcess) }

func testLockTurnKilledProcess(t *testing.T, be testBackend) {
	path := be.where(t)
	db := openAt(t, path)
	cmd := exec.Command(os.Args[0], "-test.run=^TestLockHelperProcess$")
	cmd.Env = append(os.Environ(), lockHelperDBEnv+"="+path)
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer cmd.Process.Kill()
	if line, err := bufio.NewReader(stdout).ReadString('\n'); line != "locked\n" {
		t.Fatalf("the child printed %q, %v", line, err)
	}

	lockTurn(t, db, "s", false)
	if err := db.Append(t.Context(), "s", userMessage("meanwhile")); !errors.Is(err, ErrTurnRunning) {
		t.Errorf("Append while the child holds the lock = %v, want ErrTurnRunning", err)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	if be.name == "postgres" {
		// The server ends the child's session once it sees its socket
		// closed: a few milliseconds, which the lock waits for.
		lockSoon(t, db, "s")()
	}
	lockTurn(t, db, "s", true)
	must(t, db.Append(t.Context(), "s", userMessage("after the kill")))
}

func TestLockTurnEmptySession(t *testing.T) { forBackends(t, testLockTurnEmptySession) }

func testLockTurnEmptySession(t *testing.T, be testBackend) {
	db := be.open(t)
	if _, _, err := db.LockTurn(t.Context(), ""); err == nil {
		t.Error("LockTurn of an empty session id succeeded")
	}
}

var _ host.TurnEnder = (*DB)(nil)

// AppendUnlock logs a turn's last messages and releases its lock: the other
// handle takes the lock at once, and the unlock LockTurn returned then
// leaves the new holder's lock alone. Without the lock it is Append,
// refused while another holds the lock.
func TestAppendUnlock(t *testing.T) { forBackends(t, testAppendUnlock) }

func testAppendUnlock(t *testing.T, be testBackend) {
	dbs := be.openShared(t, 2)
	a, b := dbs[0], dbs[1]

	unlockA := lockTurn(t, a, "s", true)
	must(t, a.Append(t.Context(), "s", userMessage("question")))
	must(t, a.AppendUnlock(t.Context(), "s", session.Message{Type: session.Assistant, Content: "answer"}))
	unlockB := lockTurn(t, b, "s", true)
	unlockA() // already released: does nothing
	if n := leaseRows(t, a); n != 1 {
		t.Errorf("%d lease rows while b holds the lock, want 1", n)
	}
	lockTurn(t, a, "s", false)
	if err := a.AppendUnlock(t.Context(), "s", userMessage("from a")); !errors.Is(err, ErrTurnRunning) {
		t.Errorf("a.AppendUnlock while b holds the lock = %v, want ErrTurnRunning", err)
	}
	must(t, b.AppendUnlock(t.Context(), "s")) // no messages: only the release
	if n := leaseRows(t, a); n != 0 {
		t.Errorf("%d lease rows after b's AppendUnlock, want 0", n)
	}
	unlockB()
	must(t, a.AppendUnlock(t.Context(), "s", userMessage("no lock held")))

	msgs, err := b.Messages(t.Context(), "s")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range msgs {
		got = append(got, m.Content)
	}
	if diff := cmp.Diff([]string{"question", "answer", "no lock held"}, got); diff != "" {
		t.Errorf("the log (-want +got):\n%s", diff)
	}
}

// An AppendUnlock that fails (the lock was lost) appends nothing and leaves
// the lock as it was: this handle still counts as its holder until unlock,
// which leaves the new holder's lease alone.
func TestAppendUnlockLost(t *testing.T) {
	dbs := openShared(t, 2)
	a, b := dbs[0], dbs[1]
	b.setClock(func() time.Time { return time.Now().Add(time.Minute) })
	unlockA := lockTurn(t, a, "s", true)
	unlockB := lockTurn(t, b, "s", true)
	if err := a.AppendUnlock(t.Context(), "s", userMessage("late")); !errors.Is(err, ErrTurnLost) {
		t.Errorf("a.AppendUnlock after losing the lock = %v, want ErrTurnLost", err)
	}
	lockTurn(t, a, "s", false)
	unlockA()
	if n := leaseRows(t, a); n != 1 {
		t.Errorf("%d lease rows after the loser's unlock, want b's", n)
	}
	if msgs, err := b.Messages(t.Context(), "s"); err != nil || len(msgs) != 0 {
		t.Errorf("the log after a refused AppendUnlock: %v, %v; want empty", msgs, err)
	}
	unlockB()
}

// While a handle holds a session's lock, its reads come from the log it
// checked against the file when it took the lock, or read under it, and
// its appends since; that log is the file's, turn after turn, and a turn
// of another handle in between makes it read the file again.
func TestReadsUnderTheLock(t *testing.T) {
	dbs := openShared(t, 2)
	a, b := dbs[0], dbs[1]
	var want []string
	turn := func(db *DB, n int) {
		t.Helper()
		unlock := lockTurn(t, db, "s", true)
		msgs, total, err := db.MessagesFrom(t.Context(), "s", len(want)-1)
		if err != nil || total != len(want) || len(want) > 0 && (len(msgs) != 1 || msgs[0].Content != want[len(want)-1]) {
			t.Fatalf("turn %d: MessagesFrom(%d) = %v, %d, %v; want the last of %q", n, len(want)-1, msgs, total, err, want)
		}
		q, r := fmt.Sprintf("question %d", n), fmt.Sprintf("answer %d", n)
		must(t, db.Append(t.Context(), "s", userMessage(q)))
		must(t, db.AppendUnlock(t.Context(), "s", session.Message{Type: session.Assistant, Content: r}))
		want = append(want, q, r)
		unlock()
	}
	logOf := func(db *DB) []string {
		t.Helper()
		msgs, err := db.Messages(t.Context(), "s")
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, m := range msgs {
			got = append(got, m.Content)
		}
		return got
	}
	for n := range 3 {
		turn(a, n)
	}
	// a's lock now starts from its kept log.
	unlock := lockTurn(t, a, "s", true)
	if _, log, _ := lite(a).leased("s"); log == nil || len(log.msgs) != len(want) {
		t.Fatalf("a's lock keeps no log of %d messages: %v", len(want), log)
	}
	if diff := cmp.Diff(want, logOf(a)); diff != "" {
		t.Errorf("a's log under its lock (-want +got):\n%s", diff)
	}
	unlock()
	turn(b, 3)
	turn(a, 4) // its cached log lacks b's turn: read from the file
	turn(a, 5)
	for _, db := range dbs {
		if diff := cmp.Diff(want, logOf(db)); diff != "" {
			t.Errorf("the log (-want +got):\n%s", diff)
		}
	}
	fresh := openAt(t, lite(a).path)
	if diff := cmp.Diff(logOf(fresh), logOf(a)); diff != "" {
		t.Errorf("a's log and a new handle's (-new +a):\n%s", diff)
	}
}

// A session deleted and made again by another handle, with as many
// messages, is not taken for the one cached: its rows are not the same.
func TestLockTurnSeesASessionMadeAgain(t *testing.T) {
	dbs := openShared(t, 2)
	a, b := dbs[0], dbs[1]
	unlock := lockTurn(t, a, "s", true)
	must(t, a.Append(t.Context(), "s", userMessage("old")))
	unlock()
	if _, err := a.Messages(t.Context(), "s"); err != nil {
		t.Fatal(err)
	}
	must(t, b.DeleteSession(t.Context(), "s"))
	must(t, b.Append(t.Context(), "other", userMessage("a row between")))
	must(t, b.Append(t.Context(), "s", userMessage("new")))
	lockTurn(t, a, "s", true)
	msgs, err := a.Messages(t.Context(), "s")
	if err != nil || len(msgs) != 1 || msgs[0].Content != "new" {
		t.Errorf("a's log under its lock = %v, %v; want the new session's", msgs, err)
	}
}
