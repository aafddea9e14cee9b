package module

import (
	"context"
	"errors"
	"os"
	goruntime "runtime"
	"testing"
	"time"

	"github.com/toolroute/toolroute/assets"
	"github.com/toolroute/toolroute/internal/testwait"
	"github.com/toolroute/toolroute/wasm"
)

// TestInterpreterThenCompiled: with no compiled code in the cache, a
// runtime starts on the interpreter and serves turns at once; once the
// code compiled in the background is ready, the pool's next instance runs
// it, the interpreter's instances are closed (one with an open turn once
// that turn is freed), and the next start finds the code in the cache.
func TestInterpreterThenCompiled(t *testing.T) {
	if !compilerSupported() {
		t.Skip("wazero has no compiler here")
	}
	ctx := context.Background()
	dir := t.TempDir()
	rt, err := New(ctx, Config{CacheDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close(ctx)
	if !rt.Interpreted() {
		t.Fatal("with an empty cache, New waited for compiled code")
	}
	p := NewPool(rt, PoolConfig{MaxInstances: 2})
	defer p.Close(ctx)
	p.SetCatalogue([]byte(memCatalogue))
	// Turns are served before any code is compiled: one left open, one
	// to its end on a second instance.
	open, err := p.OpenTurn(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := open.Event(ctx, poolStart); err != nil {
		t.Fatal(err)
	}
	first := poolTurn(t, p, "a")
	if first == open.inst {
		t.Fatal("the second turn went to the busy instance")
	}
	if !first.Interpreted() || !open.inst.Interpreted() {
		t.Fatal("the first instances do not run on the interpreter")
	}
	if err := rt.WaitCompiled(ctx); err != nil {
		t.Fatal(err)
	}
	// The idle instance on the interpreter goes without waiting for a turn.
	for deadline := time.Now().Add(testwait.Failsafe); ; time.Sleep(5 * time.Millisecond) {
		p.mu.Lock()
		closed := first.closed
		p.mu.Unlock()
		if closed {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the idle instance on the interpreter stayed once the compiled code was ready")
		}
	}
	next := poolTurn(t, p, "a")
	if next.Interpreted() {
		t.Error("an instance made after the compiled code was ready runs on the interpreter")
	}
	if !errors.Is(first.Broken(), ErrClosed) {
		t.Errorf("the idle instance on the interpreter was not closed: %v", first.Broken())
	}
	// The open turn goes on where it is, then its instance goes.
	if _, err := open.Body(ctx); err != nil {
		t.Errorf("a turn open on the interpreter: %v", err)
	}
	inst := open.inst
	if err := open.Free(ctx); err != nil {
		t.Fatal(err)
	}
	if !errors.Is(inst.Broken(), ErrClosed) {
		t.Errorf("the interpreter's instance stayed after its last turn: %v", inst.Broken())
	}
	// The interpreter's runtime is closed with its last instance.
	rt.code.mu.Lock()
	old := rt.code.old
	rt.code.mu.Unlock()
	if old != nil {
		t.Error("the interpreter's runtime is still open")
	}
	again, err := New(ctx, Config{CacheDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close(ctx)
	if again.Interpreted() {
		t.Error("with the compiled code in the cache, New started on the interpreter")
	}
}

// TestCloseWhileCompiling: a runtime closed while its code compiles in the
// background closes cleanly, with or without a cache folder, leaving no
// goroutine behind; with one, the code is compiled first and kept for the
// next start. An instance made before Close refuses calls after it.
func TestCloseWhileCompiling(t *testing.T) {
	if !compilerSupported() {
		t.Skip("wazero has no compiler here")
	}
	ctx := context.Background()
	before := goruntime.NumGoroutine()
	for _, dir := range []string{"", t.TempDir()} {
		// A memory limit of its own, so that no Runtime of another test
		// shares its code.
		rt, err := New(ctx, Config{CacheDir: dir, MaxMemory: 333 << 20})
		if err != nil {
			t.Fatal(err)
		}
		if !rt.Interpreted() {
			t.Fatalf("cache %q: New did not start on the interpreter", dir)
		}
		p := NewPool(rt, PoolConfig{})
		p.SetCatalogue([]byte(memCatalogue))
		tr, err := p.OpenTurn(ctx, "s1")
		if err != nil {
			t.Fatal(err)
		}
		p.Close(ctx)
		if err := rt.Close(ctx); err != nil {
			t.Errorf("cache %q: Close: %v", dir, err)
		}
		if _, err := tr.Event(ctx, poolStart); err == nil {
			t.Errorf("cache %q: a turn ran after Close", dir)
		}
		if _, err := rt.Instantiate(ctx); err == nil {
			t.Errorf("cache %q: a closed runtime made an instance", dir)
		}
		if dir != "" {
			if _, err := os.Stat(compiledMarker(binaryCache(dir, wasm.Binary), false)); err != nil {
				t.Errorf("the compiled code was not kept: %v", err)
			}
		}
	}
	for deadline := time.Now().Add(testwait.Failsafe); goruntime.NumGoroutine() > before; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines after Close, %d before", goruntime.NumGoroutine(), before)
		}
	}
}

// TestSharedCode: two Runtimes of the same binary and configuration share
// one compiled module, each with its own word vectors; the code stays
// while either is open, and a closed one makes no instance.
func TestSharedCode(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	a, err := New(ctx, Config{CacheDir: dir, WordVectors: assets.WordVectors})
	if err != nil {
		t.Fatal(err)
	}
	b, err := New(ctx, Config{CacheDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	other, err := New(ctx, Config{CacheDir: dir, MaxMemory: 64 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close(ctx)
	if a.code != b.code {
		t.Error("two Runtimes of one binary and configuration compiled it twice")
	}
	if other.code == a.code {
		t.Error("a Runtime of another memory limit shares the code")
	}
	if !a.HasWordVectors() || b.HasWordVectors() {
		t.Errorf("word vectors: a %v, b %v; want a's alone", a.HasWordVectors(), b.HasWordVectors())
	}
	if err := a.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Instantiate(ctx); err == nil {
		t.Error("a closed Runtime made an instance")
	}
	inst, err := b.Instantiate(ctx)
	if err != nil {
		t.Fatalf("the other Runtime, once the first is closed: %v", err)
	}
	if _, err := inst.Load(ctx, []byte(memCatalogue)); err != nil {
		t.Fatal(err)
	}
	inst.Close(ctx)
	b.Close(ctx)
	c, err := New(ctx, Config{CacheDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	if c.code == a.code {
		t.Error("the code closed with its last Runtime was used again")
	}
}
