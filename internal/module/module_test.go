package module

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/toolroute/toolroute/assets"
	"github.com/toolroute/toolroute/internal/abi"
	"github.com/toolroute/toolroute/internal/testcache"
	"github.com/toolroute/toolroute/internal/transcript"
	"github.com/toolroute/toolroute/registry/session"
	"github.com/toolroute/toolroute/registry/wire"
	"github.com/toolroute/toolroute/wasm"
)

var (
	sharedOnce sync.Once
	shared     *Runtime
	sharedErr  error
)

// runtime compiles the embedded module once for the package's tests, or
// takes it from the cache of testcache.Env (make fuzz's workers share it).
func runtime(t testing.TB) *Runtime {
	t.Helper()
	sharedOnce.Do(func() {
		shared, sharedErr = New(context.Background(), Config{Stderr: os.Stderr, CacheDir: testcache.Module("")})
		if sharedErr == nil {
			// The tests and benchmarks run on compiled code throughout
			// (the interpreter's have their own tests).
			sharedErr = shared.WaitCompiled(context.Background())
		}
	})
	if sharedErr != nil {
		t.Fatal(sharedErr)
	}
	return shared
}

func instance(t testing.TB) *Instance {
	t.Helper()
	inst, err := runtime(t).Instantiate(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { inst.Close(context.Background()) })
	return inst
}

// wasmDriver replays transcripts through one instance of the module.
type wasmDriver struct {
	inst *Instance
	turn uint32
}

func (d *wasmDriver) Build(catalogue []byte) error {
	rep, err := d.inst.Load(context.Background(), catalogue)
	if err != nil {
		return err
	}
	if !rep.OK() {
		return fmt.Errorf("catalogue has problems: %+v", rep)
	}
	return nil
}

func (d *wasmDriver) NewTurn() error {
	if d.turn != 0 {
		if err := d.inst.TurnFree(context.Background(), d.turn); err != nil {
			return err
		}
	}
	h, err := d.inst.TurnNew(context.Background())
	d.turn = h
	return err
}

func (d *wasmDriver) Handle(event []byte) ([]byte, error) {
	var e struct {
		Type string `json:"type"`
		Data json.RawMessage
	}
	_ = json.Unmarshal(event, &e)
	if e.Type == "chunk" {
		var data string
		if err := json.Unmarshal(e.Data, &data); err != nil {
			return nil, err
		}
		out, err := d.inst.TurnChunk(context.Background(), d.turn, []byte(data))
		if err != nil {
			return nil, unwrap(err)
		}
		return d.withBodies(out)
	}
	out, err := d.inst.TurnEvent(context.Background(), d.turn, event)
	if err != nil {
		return nil, unwrap(err)
	}
	return d.withBodies(out)
}

// withBodies puts the body toolroute_turn_body hands out back into the
// call_model action, where the transcripts have it.
func (d *wasmDriver) withBodies(out []byte) ([]byte, error) {
	var acts []session.Action
	if err := json.Unmarshal(out, &acts); err != nil {
		return nil, err
	}
	calls := false
	for _, a := range acts {
		if a.Request != nil {
			if a.Request.Body != nil {
				return nil, errors.New("a call_model action carries its body: ABI v2 hands it out through toolroute_turn_body")
			}
			body, err := d.inst.TurnBody(context.Background(), d.turn)
			if err != nil || body == nil {
				return nil, fmt.Errorf("toolroute_turn_body: %q, %v", body, err)
			}
			a.Request.Body, calls = body, true
		}
	}
	if !calls {
		return out, nil
	}
	if again, err := d.inst.TurnBody(context.Background(), d.turn); err != nil || again != nil {
		return nil, fmt.Errorf("toolroute_turn_body handed out a body twice: %q, %v", again, err)
	}
	return session.MarshalActions(acts)
}

// unwrap gives the engine's own message for a refused event, as the native
// driver does.
func unwrap(err error) error {
	var e *abi.Error
	if errors.As(err, &e) && e.Code == abi.CodeBadEvent {
		return errors.New(e.Message)
	}
	return err
}

// TestTranscripts replays every golden transcript through the module: the
// actions must be the native engine's, byte for byte.
func TestTranscripts(t *testing.T) {
	paths, err := filepath.Glob("../../testdata/transcripts/*.txtar")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no transcripts: %v", err)
	}
	inst := instance(t)
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			f, err := transcript.Load(path)
			if err != nil {
				t.Fatal(err)
			}
			got, err := f.Replay(&wasmDriver{inst: inst})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(f.Actions), string(got)); diff != "" {
				t.Errorf("actions through wasm differ from the golden ones (-want +got):\n%s", diff)
			}
		})
	}
}

// TestTranscriptsSessions replays every transcript as a host naming its
// sessions does, through the module: a turn that continues a session
// gives only the messages logged since, with the fingerprint the last
// turn handed out, and the instance resumes the session's state it kept.
// The actions, request bodies included, must be the golden ones.
func TestTranscriptsSessions(t *testing.T) {
	paths, err := filepath.Glob("../../testdata/transcripts/*.txtar")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no transcripts: %v", err)
	}
	inst := instance(t)
	resumed := 0
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			f, err := transcript.Load(path)
			if err != nil {
				t.Fatal(err)
			}
			d := &countingDriver{wasmDriver: wasmDriver{inst: inst}}
			got, err := f.ReplaySessions(d)
			if err != nil {
				t.Fatal(err)
			}
			resumed += d.resumed
			if diff := cmp.Diff(string(f.Actions), string(got)); diff != "" {
				t.Errorf("actions through wasm differ from the golden ones (-want +got):\n%s", diff)
			}
		})
	}
	if resumed < 20 {
		t.Errorf("%d turns resumed a session the instance kept; the transcripts have more", resumed)
	}
}

// countingDriver counts the start events with a fingerprint that the
// module took without asking for the history.
type countingDriver struct {
	wasmDriver
	resumed int
}

func (d *countingDriver) Handle(event []byte) ([]byte, error) {
	out, err := d.wasmDriver.Handle(event)
	if err == nil && strings.Contains(string(event), `"fingerprint":`) && string(out) != `[{"type":"need_history"}]` {
		d.resumed++
	}
	return out, err
}

func TestGarbageNeverTraps(t *testing.T) {
	ctx := context.Background()
	inst := instance(t)
	inputs := [][]byte{
		nil, {}, []byte("not json"), []byte("{"), []byte(`[]`), []byte(`"x"`), []byte(`{"type":5}`),
		[]byte(strings.Repeat("[", 100000)), {0xff, 0xfe, 0x00, 0x80}, []byte(`{"groups":[{"name":7}]}`),
		[]byte(`{"type":"start","user":"hi","settings":{"format":"openai","model":"m"},"history":"nope"}`),
	}
	expectError := func(what string, err error) {
		t.Helper()
		var e *abi.Error
		if !errors.As(err, &e) {
			t.Fatalf("%s: want an ABI error, got %v", what, err)
		}
	}
	// Before any catalogue.
	expectError("describe before load", func() error { _, err := inst.Describe(ctx, abi.DescribeRequest{}); return err }())
	_, err := inst.TurnNew(ctx)
	expectError("turn_new before load", err)

	for i, in := range inputs {
		if _, err := inst.Load(ctx, in); err != nil {
			expectError(fmt.Sprintf("load %d", i), err)
		}
	}
	if _, err := inst.Load(ctx, []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	h, err := inst.TurnNew(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for i, in := range inputs {
		_, err := inst.request(ctx, abi.ExportDescribe, nil, in)
		if err != nil {
			expectError(fmt.Sprintf("describe %d", i), err)
		}
		_, err = inst.TurnEvent(ctx, h, in)
		expectError(fmt.Sprintf("turn_event %d", i), err)
		_, err = inst.TurnEvent(ctx, 9999, in)
		expectError(fmt.Sprintf("turn_event on an unknown turn %d", i), err)
		_, err = inst.TurnChunk(ctx, 9999, in)
		expectError(fmt.Sprintf("turn_chunk on an unknown turn %d", i), err)
	}
	// A chunk before the start is refused by the turn.
	_, err = inst.TurnChunk(ctx, h, []byte("data: x\n\n"))
	expectError("chunk before start", err)

	// Pointers the module never gave out are refused, not followed.
	for _, p := range [][2]uint64{{0, 10}, {1 << 31, 100}, {12345, 1}, {0xffffffff, 0xffffffff}} {
		res, err := inst.call(ctx, abi.ExportLoad, p[0], p[1])
		if err != nil {
			t.Fatalf("load(%d, %d) trapped: %v", p[0], p[1], err)
		}
		_, err = inst.envelope(ctx, abi.ExportLoad, res[0])
		expectError(fmt.Sprintf("load(%d, %d)", p[0], p[1]), err)
	}
	for _, p := range []uint64{0, 12345, 0xffffffff} {
		if _, err := inst.call(ctx, abi.ExportFree, p); err != nil {
			t.Fatalf("free(%d) trapped: %v", p, err)
		}
		if _, err := inst.call(ctx, abi.ExportTurnFree, p); err != nil {
			t.Fatalf("turn_free(%d) trapped: %v", p, err)
		}
	}

	// After all that, the instance still serves a turn.
	if inst.Broken() != nil {
		t.Fatalf("instance broken: %v", inst.Broken())
	}
	h, err = inst.TurnNew(ctx)
	if err != nil {
		t.Fatal(err)
	}
	out, err := inst.TurnEvent(ctx, h, []byte(`{"type":"start","user":"hi","settings":{"format":"openai","model":"m"}}`))
	if err != nil || !strings.Contains(string(out), `"call_model"`) {
		t.Fatalf("after garbage: %s, %v", out, err)
	}
}

// TestInputNotAllocated: an export given bytes toolroute_alloc did not
// give, or more bytes than it gave, answers bad_json saying which, and the
// instance serves on.
func TestInputNotAllocated(t *testing.T) {
	ctx := context.Background()
	inst := instance(t)
	res, err := inst.call(ctx, abi.ExportAlloc, 8)
	if err != nil {
		t.Fatal(err)
	}
	ptr := res[0]
	for _, tt := range []struct {
		name      string
		ptr, size uint64
		want      string
	}{
		{"elsewhere", ptr + 1, 4, "was not allocated with toolroute_alloc"},
		{"longer", ptr, 20, "is 20 bytes, but toolroute_alloc gave 8 there: allocate as many bytes as the request has"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res, err := inst.call(ctx, abi.ExportLoad, tt.ptr, tt.size)
			if err != nil {
				t.Fatal(err)
			}
			out, err := inst.take(ctx, abi.ExportLoad, res[0])
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(out), `"code":"bad_json"`) || !strings.Contains(string(out), tt.want) {
				t.Errorf("%s", out)
			}
		})
	}
	if _, err := inst.call(ctx, abi.ExportFree, ptr); err != nil {
		t.Fatal(err)
	}
	if _, err := inst.Load(ctx, []byte(memCatalogue)); err != nil {
		t.Fatalf("load after the bad inputs: %v", err)
	}
}

// TestImpossibleAlloc: toolroute_alloc answers 0 for a size over
// abi.MaxAlloc, as wasm/ABI.md says, where it used to make the Go runtime
// abort; the instance serves on.
func TestImpossibleAlloc(t *testing.T) {
	ctx := context.Background()
	inst := instance(t)
	tests := []struct {
		name     string
		size     uint64
		wantZero bool
	}{
		{"nothing", 0, true},
		{"a byte", 1, false},
		{"a KiB", 1 << 10, false},
		{"one over MaxAlloc", abi.MaxAlloc + 1, true},
		{"2 GiB", 1 << 31, true},
		{"0xffffffff", 0xffffffff, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := inst.call(ctx, abi.ExportAlloc, tt.size)
			if err != nil {
				t.Fatalf("alloc(%d) trapped: %v", tt.size, err)
			}
			if ptr := uint32(res[0]); (ptr == 0) != tt.wantZero {
				t.Fatalf("alloc(%d) = %d, want zero: %v", tt.size, ptr, tt.wantZero)
			}
			if _, err := inst.call(ctx, abi.ExportFree, res[0]); err != nil {
				t.Fatalf("free: %v", err)
			}
		})
	}
	if inst.Broken() != nil {
		t.Fatalf("instance broken: %v", inst.Broken())
	}
	if _, err := inst.Load(ctx, []byte(`{}`)); err != nil {
		t.Fatalf("load after the alloc: %v", err)
	}
	h, err := inst.TurnNew(ctx)
	if err != nil {
		t.Fatal(err)
	}
	out, err := inst.TurnEvent(ctx, h, []byte(`{"type":"start","user":"hi","settings":{"format":"openai","model":"m"}}`))
	if err != nil || !strings.Contains(string(out), `"call_model"`) {
		t.Fatalf("a turn after the alloc: %s, %v", out, err)
	}
}

// TestAllocRefused: a module whose toolroute_alloc answers 0 gets an
// ErrInputTooLarge error from the host, which writes nothing at address 0
// and keeps the instance.
func TestAllocRefused(t *testing.T) {
	ctx := context.Background()
	rt, err := New(ctx, Config{Binary: fakeModule(abi.Version)})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close(ctx)
	inst, err := rt.Instantiate(ctx)
	if err != nil {
		t.Fatal(err)
	}
	before, _ := inst.mod.Memory().Read(0, 8)
	before = append([]byte(nil), before...)
	_, err = inst.Load(ctx, []byte(`{"tools":[]}`))
	if !errors.Is(err, ErrInputTooLarge) || !strings.Contains(err.Error(), "toolroute_alloc refused 12 bytes") {
		t.Fatalf("err = %v, want ErrInputTooLarge naming toolroute_alloc", err)
	}
	if inst.Broken() != nil {
		t.Fatalf("instance broken: %v", inst.Broken())
	}
	if after, _ := inst.mod.Memory().Read(0, 8); string(after) != string(before) {
		t.Errorf("the host wrote at address 0: %q", after)
	}
}

func TestTooManyTurns(t *testing.T) {
	ctx := context.Background()
	inst := instance(t)
	if _, err := inst.Load(ctx, []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	var handles []uint32
	for range abi.MaxTurns {
		h, err := inst.TurnNew(ctx)
		if err != nil {
			t.Fatal(err)
		}
		handles = append(handles, h)
	}
	var e *abi.Error
	if _, err := inst.TurnNew(ctx); !errors.As(err, &e) || e.Code != abi.CodeTooManyTurns {
		t.Fatalf("turn %d: %v", abi.MaxTurns+1, err)
	}
	if err := inst.TurnFree(ctx, handles[0]); err != nil {
		t.Fatal(err)
	}
	if _, err := inst.TurnNew(ctx); err != nil {
		t.Fatalf("after freeing one: %v", err)
	}
}

// turnEvents is one complete turn with a tool call, as a host would drive it.
var turnEvents = []string{
	`{"type":"response","body":{"choices":[{"message":{"tool_calls":[{"id":"c1","type":"function","function":{"name":"load_tool_group","arguments":"{\"group_name\":\"pdf\"}"}}]},"finish_reason":"tool_calls"}]}}`,
	`{"type":"response","body":{"choices":[{"message":{"tool_calls":[{"id":"c2","type":"function","function":{"name":"pdf_info","arguments":"{\"path\":\"a.pdf\"}"}}]},"finish_reason":"tool_calls"}]}}`,
	`{"type":"tool_results","results":[{"id":"c2","status":"success","output":"` + strings.Repeat("x", 4000) + `"}]}`,
	`{"type":"response","body":{"choices":[{"message":{"content":"It has 3 pages."},"finish_reason":"stop"}]}}`,
}

const memCatalogue = `{"groups":[{"name":"pdf","description":"PDF tools"}],"tools":[{"name":"pdf_info","description":"PDF info","group":"pdf","parameters":{"properties":{"path":{"type":"string"}},"required":["path"]}}]}`

// MemoryBound1000Turns is the bound TestMemoryAfter1000Turns holds an
// instance to.
const MemoryBound1000Turns = 64 << 20

// TestMemoryAfter1000Turns: one instance serves 1,000 turns, each with a
// growing 20-message history, and its memory stays under the bound.
func TestMemoryAfter1000Turns(t *testing.T) {
	if testing.Short() {
		t.Skip("1,000 turns")
	}
	ctx := context.Background()
	inst := instance(t)
	if _, err := inst.Load(ctx, []byte(memCatalogue)); err != nil {
		t.Fatal(err)
	}
	history := json.RawMessage(`[]`)
	var peak uint32
	for n := range 1000 {
		h, err := inst.TurnNew(ctx)
		if err != nil {
			t.Fatal(err)
		}
		start := fmt.Sprintf(`{"type":"start","user":"turn %d","settings":{"format":"openai","model":"m"},"history":%s}`, n, history)
		var log []json.RawMessage
		for _, ev := range append([]string{start}, turnEvents...) {
			out, err := inst.TurnEvent(ctx, h, []byte(ev))
			if err != nil {
				t.Fatalf("turn %d: %v", n, err)
			}
			var acts []struct {
				Type     string            `json:"type"`
				Messages []json.RawMessage `json:"messages"`
			}
			if err := json.Unmarshal(out, &acts); err != nil {
				t.Fatal(err)
			}
			for _, a := range acts {
				log = append(log, a.Messages...)
			}
		}
		if err := inst.TurnFree(ctx, h); err != nil {
			t.Fatal(err)
		}
		// user; assistant, load call and result; assistant; pdf_info call
		// and result; the final assistant message.
		if len(log) != 8 {
			t.Fatalf("turn %d logged %d messages, want 8", n, len(log))
		}
		history, _ = json.Marshal(log) // each turn starts from the last turn's log
		peak = max(peak, inst.MemorySize())
	}
	t.Logf("memory after 1,000 turns: %d MiB (peak %d MiB)", inst.MemorySize()>>20, peak>>20)
	if peak > MemoryBound1000Turns {
		t.Errorf("memory grew to %d bytes, over the %d-byte bound", peak, MemoryBound1000Turns)
	}
}

// startMemoryBound is what wasm/ABI.md lets the calls of an instance with
// a small catalogue add to its memory when the largest event it was given
// is n bytes: 16 MiB, and 8 bytes for each of the event's.
func startMemoryBound(n int) uint32 { return 16<<20 + 8*uint32(n) }

// TestStartMemory: a start event with a history of 100,000 messages (9.3
// MB of JSON) grows a new instance's memory by at most startMemoryBound,
// in every format. Decoded whole, with the event's copy, the history took
// the instance to 291 MiB. (Native routing encodes the same conversation,
// the loads in their native form: within 2 MiB of classic when measured.)
func TestStartMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("100,000 messages in each format")
	}
	ctx := context.Background()
	history := benchHistory(100000)
	for _, f := range wire.Formats {
		t.Run(string(f), func(t *testing.T) {
			ev, err := Marshal(session.Event{Type: session.EventStart, User: "And the last one?", Session: "s",
				Settings: session.Settings{Format: f, Model: "m"}, History: history})
			if err != nil {
				t.Fatal(err)
			}
			inst := loadedInstance(t, []byte(memCatalogue))
			defer inst.Close(ctx)
			before := inst.MemorySize()
			endTurn(t, inst, startTurn(t, inst, ev))
			got, bound := inst.MemorySize()-before, startMemoryBound(len(ev))
			t.Logf("a start of %d bytes: %d MiB to %d MiB", len(ev), before>>20, inst.MemorySize()>>20)
			if got > bound {
				t.Errorf("a start of %d bytes grew the instance by %d bytes, over the %d-byte bound", len(ev), got, bound)
			}
		})
	}
}

// TestSessionMemory: an instance serving the turns of one long session
// (10,000 messages with 2.4 KB tool results: 5.5 MB of JSON) stays within
// startMemoryBound of the session's events, beside the session's state it
// keeps (wasm/ABI.md: about twice its log's text), over 25 turns, whether
// the host sends the state's fingerprint and the messages since
// (Sessions) or the whole log each time. Sending the whole log grew the
// instance by about 128 MiB a turn, to 637 MiB: the garbage of each
// start stayed until the next had allocated as much again.
func TestSessionMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("50 turns of 5.5 MB")
	}
	ctx := context.Background()
	answer := []byte(`{"type":"response","body":{"choices":[{"message":{"content":"It has 3 pages."},"finish_reason":"stop"}]}}`)
	for _, fingerprints := range []bool{true, false} {
		t.Run(fmt.Sprintf("fingerprints=%v", fingerprints), func(t *testing.T) {
			inst := loadedInstance(t, []byte(memCatalogue))
			defer inst.Close(ctx)
			before := inst.MemorySize()
			log := resultHistory(10000)
			fp, covered, largest := "", 0, 0
			for turn := range 25 {
				start := session.Event{Type: session.EventStart, User: fmt.Sprintf("turn %d", turn), Session: "s",
					Settings: session.Settings{Format: "openai", Model: "m"}}
				if fingerprints && fp != "" {
					start.Fingerprint, start.History = fp, log[covered:]
				} else {
					start.History = log
				}
				ev, err := Marshal(start)
				if err != nil {
					t.Fatal(err)
				}
				largest = max(largest, len(ev))
				h := startTurn(t, inst, ev)
				acts, err := inst.TurnActions(ctx, h, answer)
				if err != nil {
					t.Fatal(err)
				}
				if err := inst.TurnFree(ctx, h); err != nil {
					t.Fatal(err)
				}
				log = append(log, session.Message{Type: session.User, Content: start.User})
				for _, a := range acts {
					log = append(log, a.Messages...)
					if a.Cache != nil {
						fp, covered = a.Cache.Fingerprint, a.Cache.Messages
					}
				}
				if got, bound := inst.MemorySize()-before, startMemoryBound(largest)+2*uint32(largest); got > bound {
					t.Fatalf("turn %d grew the instance by %d bytes, over the %d-byte bound", turn, got, bound)
				}
			}
			t.Logf("after 25 turns: %d MiB", inst.MemorySize()>>20)
		})
	}
}

func TestRefusesOtherModules(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name string
		bin  []byte
		want string
	}{
		{"not wasm", []byte("hello"), "not a toolroute module"},
		{"wasm without the exports", []byte("\x00asm\x01\x00\x00\x00"), "it does not export toolroute_abi_version"},
		{"another ABI version", fakeModule(42), "it speaks ABI version 42; this host speaks version 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New(ctx, Config{Binary: tt.bin})
			if !errors.Is(err, ErrNotToolroute) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want ErrNotToolroute containing %q", err, tt.want)
			}
		})
	}
}

// fakeModule encodes a wasm module with every toolroute export, whose
// toolroute_abi_version answers version, whose toolroute_alloc answers 0,
// and whose other exports do nothing. It has one page of memory.
func fakeModule(version uint32) []byte {
	names := []string{abi.ExportVersion, abi.ExportAlloc, abi.ExportFree, abi.ExportLoad, abi.ExportDescribe,
		abi.ExportTurnNew, abi.ExportTurnEvent, abi.ExportTurnChunk, abi.ExportTurnFree, abi.ExportTurnBody, "_initialize"}
	section := func(id byte, body []byte) []byte {
		out := []byte{id}
		for n := uint(len(body)); ; n >>= 7 { // LEB128 size
			if n < 0x80 {
				out = append(out, byte(n))
				break
			}
			out = append(out, byte(n&0x7f|0x80))
		}
		return append(out, body...)
	}
	// Two types: () -> i32 for every function but toolroute_alloc, which
	// is (i32) -> i32.
	types := section(1, []byte{2, 0x60, 0, 1, 0x7f, 0x60, 1, 0x7f, 1, 0x7f})
	funcs := []byte{byte(len(names))}
	for _, n := range names {
		if n == abi.ExportAlloc {
			funcs = append(funcs, 1)
		} else {
			funcs = append(funcs, 0)
		}
	}
	memory := section(5, []byte{1, 0, 1}) // one memory: min 1 page, no max
	exports := []byte{byte(len(names) + 1)}
	for i, n := range names {
		exports = append(exports, byte(len(n)))
		exports = append(exports, n...)
		exports = append(exports, 0, byte(i))
	}
	exports = append(exports, 6)
	exports = append(exports, "memory"...)
	exports = append(exports, 2, 0)
	code := []byte{byte(len(names))}
	for _, n := range names {
		body := []byte{0, 0x41, byte(version & 0x7f), 0x0b} // i32.const version; end
		if n == abi.ExportAlloc {
			body = []byte{0, 0x41, 0, 0x0b} // i32.const 0; end
		}
		code = append(code, byte(len(body)))
		code = append(code, body...)
	}
	mod := []byte("\x00asm\x01\x00\x00\x00")
	mod = append(mod, types...)
	mod = append(mod, section(3, funcs)...)
	mod = append(mod, memory...)
	mod = append(mod, section(7, exports)...)
	mod = append(mod, section(10, code)...)
	return mod
}

func TestPoolReplacesBrokenInstances(t *testing.T) {
	ctx := context.Background()
	// A small memory limit, and a catalogue too big for it: the Go runtime in
	// the module runs out of memory and aborts, a real trap.
	rt, err := New(ctx, Config{MaxMemory: 48 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close(ctx)
	p := NewPool(rt, PoolConfig{MaxInstances: 1})
	defer p.Close(ctx)
	p.SetCatalogue([]byte(memCatalogue))
	first, err := p.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	huge := []byte(`{"skills":[{"name":"big","description":"d","content":"` + strings.Repeat("x", 40<<20) + `"}]}`)
	if _, err := first.Load(ctx, huge); !errors.Is(err, ErrTrapped) {
		t.Fatalf("loading a catalogue over the memory limit: %v", err)
	}
	if first.Broken() == nil {
		t.Fatal("instance not marked broken")
	}
	if _, err := first.TurnNew(ctx); !errors.Is(err, ErrTrapped) {
		t.Fatalf("a broken instance answered: %v", err)
	}
	p.Release(ctx, first)

	second, err := p.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Release(ctx, second)
	if second.Instance == first.Instance {
		t.Fatal("the broken instance was lent again")
	}
	if _, err := second.TurnNew(ctx); err != nil {
		t.Fatalf("replacement does not work: %v", err)
	}
}

func TestInterruptible(t *testing.T) {
	ctx := context.Background()
	rt, err := New(ctx, Config{Interruptible: true})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close(ctx)
	inst, err := rt.Instantiate(ctx)
	if err != nil {
		t.Fatal(err)
	}
	dead, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := inst.TurnNew(dead); !errors.Is(err, ErrTrapped) {
		t.Fatalf("a call on a cancelled context: %v", err)
	}
}

func TestPoolReloadsNewCatalogue(t *testing.T) {
	ctx := context.Background()
	p := NewPool(runtime(t), PoolConfig{MaxInstances: 1})
	defer p.Close(ctx)
	if _, err := p.Acquire(ctx); err == nil {
		t.Fatal("acquired without a catalogue")
	}
	p.SetCatalogue([]byte(memCatalogue))
	l, err := p.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Release(ctx, l)
	if changed, err := l.Refresh(ctx); err != nil || changed {
		t.Fatalf("refresh of a current instance: %v %v", changed, err)
	}
	// A new catalogue while the instance is lent: Refresh loads it.
	p.SetCatalogue([]byte(`{"manifests":[{"file":"solo.json","text":"{\"name\":\"solo\",\"description\":\"d\"}","source":"solo.js"}]}`))
	if changed, err := l.Refresh(ctx); err != nil || !changed {
		t.Fatalf("refresh: %v %v", changed, err)
	}
	d, err := l.Describe(ctx, abi.DescribeRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Groups) != 0 || len(d.Files) != 1 {
		t.Errorf("the old catalogue is still loaded: %+v %+v", d.Groups, d.Files)
	}
}

func TestPoolRecyclesGrownInstances(t *testing.T) {
	ctx := context.Background()
	p := NewPool(runtime(t), PoolConfig{MaxInstances: 1, RecycleMemory: 1})
	defer p.Close(ctx)
	p.SetCatalogue([]byte(`{}`))
	a, err := p.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	p.Release(ctx, a)
	b, err := p.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Release(ctx, b)
	if a.Instance == b.Instance {
		t.Error("an instance over the memory limit was reused")
	}
}

// TestCompilationCache: the compiled code is kept in a folder for the
// binary, and the folders of other binaries unused for a week go, while
// recent ones and folders of other names stay.
func TestCompilationCache(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	old := time.Now().Add(-8 * 24 * time.Hour)
	for _, name := range []string{"0123456789abcdef", "fedcba9876543210", "not-ours"} {
		if err := os.Mkdir(filepath.Join(dir, name), 0o755); err != nil {
			t.Fatal(err)
		}
		if name != "fedcba9876543210" {
			if err := os.Chtimes(filepath.Join(dir, name), old, old); err != nil {
				t.Fatal(err)
			}
		}
	}
	for range 2 {
		rt, err := New(ctx, Config{CacheDir: dir})
		if err != nil {
			t.Fatal(err)
		}
		rt.Close(ctx)
	}
	var names []string
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		names = append(names, e.Name())
	}
	mine := filepath.Base(binaryCache(dir, wasm.Binary))
	want := []string{mine, "fedcba9876543210", "not-ours"}
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Errorf("the cache folder holds %q, want %q", names, want)
	}
	if code, err := os.ReadDir(filepath.Join(dir, mine)); err != nil || len(code) == 0 {
		t.Errorf("no compiled code in the binary's folder: %v", err)
	}
}

// toolroute_word_vectors takes a table, refuses one that does not read
// with bad_vectors (keeping the instance usable), and an empty one takes
// the table away; a Runtime given a bad table says so at New.
func TestWordVectors(t *testing.T) {
	ctx := context.Background()
	inst := instance(t)
	for _, in := range [][]byte{[]byte("wordvec1"), []byte("not a table"), assets.WordVectors[:len(assets.WordVectors)-1]} {
		_, err := inst.request(ctx, abi.ExportWordVectors, nil, in)
		var e *abi.Error
		if !errors.As(err, &e) || e.Code != abi.CodeBadVectors || !strings.Contains(e.Message, "the search keeps the table it had") {
			t.Errorf("%.20q: %v, want bad_vectors", in, err)
		}
	}
	for _, tt := range []struct {
		in   []byte
		want abi.WordVectorsInfo
	}{
		{assets.WordVectors, abi.WordVectorsInfo{Words: 10000, Dimensions: 46}},
		{nil, abi.WordVectorsInfo{}},
	} {
		var got abi.WordVectorsInfo
		if err := inst.requestInto(ctx, abi.ExportWordVectors, nil, tt.in, &got); err != nil || got != tt.want {
			t.Errorf("%d bytes: %+v, %v; want %+v", len(tt.in), got, err, tt.want)
		}
	}
	if _, err := inst.Load(ctx, []byte(`{}`)); err != nil {
		t.Errorf("after the tables: %v", err)
	}
	if _, err := New(ctx, Config{WordVectors: []byte("wordvec1 and then nothing")}); err == nil || !strings.Contains(err.Error(), "module: the word vectors: ") {
		t.Errorf("New with a bad table: %v", err)
	}
}

// TestTitleRenames: the module's session_title check gives every title a
// user gives in testdata/sessions/titles.json as it is to be kept, or the
// refusal, as natively (internal/abi) and in Node (web/packages/toolroute/test/module.test.js).
func TestTitleRenames(t *testing.T) {
	data, err := os.ReadFile("../../testdata/sessions/titles.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases struct {
		Renames []struct{ Name, Title, Want, Error string }
	}
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	if len(cases.Renames) == 0 {
		t.Fatal("no cases")
	}
	ctx := WithChecker(context.Background(), instance(t))
	for _, c := range cases.Renames {
		got := struct {
			Title string `json:"title"`
		}{}
		err := CheckArgs(ctx, "session_title", map[string]string{"title": c.Title}, &got)
		var r *Refused
		switch {
		case c.Error != "" && (!errors.As(err, &r) || r.Message != c.Error || r.Type != "invalid_arguments"):
			t.Errorf("%s: %v, want the refusal %q", c.Name, err, c.Error)
		case c.Error == "" && (err != nil || got.Title != c.Want):
			t.Errorf("%s: %q, %v, want %q", c.Name, got.Title, err, c.Want)
		}
	}
}

// TestRetryCases: the module's toolroute_retry answers every case of
// testdata/retries, as internal/abi's Guest does natively and the JS driver
// TestCheckCases: toolroute_check answers every case of testdata/checks in
// wazero, as natively (internal/abi) and in Node (web/packages/toolroute/test/module.test.js),
// and Check gives a refusal as an answer, a host's mistake as an error.
func TestCheckCases(t *testing.T) {
	data, err := os.ReadFile("../../testdata/checks/cases.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Name    string          `json:"name"`
		Request json.RawMessage `json:"request"`
		Want    json.RawMessage `json:"want"`
		Code    string          `json:"code"`
	}
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	inst := instance(t)
	ctx := WithChecker(context.Background(), inst)
	for _, c := range cases {
		got, err := inst.request(context.Background(), abi.ExportCheck, nil, c.Request)
		if c.Code != "" {
			var ae *abi.Error
			if !errors.As(err, &ae) || ae.Code != c.Code {
				t.Errorf("%s: %v, want the error %s", c.Name, err, c.Code)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		var g, w any
		if err := json.Unmarshal(got, &g); err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		if err := json.Unmarshal(c.Want, &w); err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		if diff := cmp.Diff(w, g); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.Name, diff)
		}
	}
	// What a host's operation sees of it (CheckArgs).
	var r *Refused
	if err := CheckArgs(ctx, "tool_name", map[string]string{"name": "Bad"}, nil); !errors.As(err, &r) || r.Type != "invalid_arguments" || !strings.HasPrefix(r.Message, `"Bad" is not a tool name`) {
		t.Errorf("a bad tool name: %v, want its refusal", err)
	}
	if err := CheckArgs(ctx, "tool_name", map[string]string{"name": "good"}, nil); err != nil {
		t.Errorf("a good tool name: %v", err)
	}
	if err := CheckArgs(ctx, "no_such_check", map[string]string{}, nil); errors.As(err, &r) || err == nil {
		t.Errorf("an unknown op: %v, want the host's error", err)
	}
	if err := CheckArgs(context.Background(), "tool_name", map[string]string{"name": "good"}, nil); !errors.Is(err, ErrNoChecker) {
		t.Errorf("no checker: %v, want ErrNoChecker", err)
	}
}

// does in Node.
func TestRetryCases(t *testing.T) {
	data, err := os.ReadFile("../../testdata/retries/cases.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Name    string          `json:"name"`
		Request json.RawMessage `json:"request"`
		Want    json.RawMessage `json:"want"`
	}
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	inst := instance(t)
	for _, c := range cases {
		got, err := inst.request(context.Background(), abi.ExportRetry, nil, c.Request)
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		var g, w any
		if err := json.Unmarshal(got, &g); err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		if err := json.Unmarshal(c.Want, &w); err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		if diff := cmp.Diff(w, g); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.Name, diff)
		}
	}
}
