// Package module runs toolroute's wasm module in wazero: it compiles the
// module once, instantiates it, speaks its ABI (wasm/ABI.md) with typed
// calls, and keeps a pool of instances so each turn runs on an instance no
// other goroutine touches.
package module

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	goruntime "runtime"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
	"github.com/toolroute/toolroute/internal/abi"
	"github.com/toolroute/toolroute/registry"
	"github.com/toolroute/toolroute/registry/check"
	"github.com/toolroute/toolroute/registry/session"
	"github.com/toolroute/toolroute/wasm"
)

// ErrTrapped is wrapped by the error of a call that trapped, or that ran out
// of time: the instance is broken and must be closed, never called again.
var ErrTrapped = errors.New("module: instance trapped")

// ErrNotToolroute is returned for a binary that is not a toolroute module of
// the ABI version this host speaks.
var ErrNotToolroute = errors.New("module: not a toolroute module this host can run")

// ErrInputTooLarge is wrapped by the error of a call whose input the module
// cannot take: over MaxInput, or refused by toolroute_alloc. The instance is
// unharmed.
var ErrInputTooLarge = errors.New("module: input too large")

// MaxInput is the largest request a host hands the module in one call: the
// most toolroute_alloc gives (wasm/ABI.md).
const MaxInput = abi.MaxAlloc

// DefaultMaxMemory is the hard limit of an instance's linear memory.
const DefaultMaxMemory = 1 << 30

// Config configures a Runtime.
type Config struct {
	// Binary is the module; nil means wasm.Binary.
	Binary []byte
	// CacheDir, when set, keeps compiled code on disk between processes,
	// in a folder of it for each module binary; the folders of binaries no
	// process has used for a week are removed. When it holds no code for
	// the binary, or is "", New starts on the interpreter and compiles in
	// the background (Runtime).
	CacheDir string
	// MaxMemory is the hard limit of an instance's memory in bytes, rounded
	// down to 64 KiB pages; 0 means DefaultMaxMemory. An instance that needs
	// more traps.
	MaxMemory uint64
	// Stderr receives what the module writes to standard error (the Go
	// runtime's reports when it fails); nil discards it.
	Stderr io.Writer
	// Interruptible makes a call stop when its context is done, breaking the
	// instance. It costs: the compiled code checks the context at every call
	// and loop, which made a turn about four times slower when measured
	// (BenchmarkTurn). The module never waits on the host and returns from
	// every export, so hosts leave it off unless they distrust the binary.
	Interruptible bool
	// WordVectors is the word vector table every instance ranks tool search
	// with (toolroute_word_vectors; assets.WordVectors is the one
	// toolroute ships); nil gives none, and search finds only tools that
	// share a word with the query. A module without the export is run
	// without them.
	WordVectors []byte
}

// Runtime is the compiled module, ready to instantiate. It is safe for
// concurrent use.
//
// # Compiled code and the interpreter
//
// Compiling the module to machine code takes about two seconds; loading
// the code from Config.CacheDir, a tenth of that. When the cache holds no
// code for the binary (a first start, a container with a throwaway home),
// or there is no cache folder, New starts on wazero's interpreter, which
// is ready in a few hundred milliseconds, and compiles in the background:
// once the code is ready, new instances run it, and those made before
// stay on the interpreter until they are closed (a Pool replaces them).
// The interpreter's runtime is closed once its last instance is.
//
// # One compiled module per process
//
// The Runtimes of a process that compile the same binary (the same
// slice: wasm.Binary, say) with the same CacheDir, MaxMemory and
// Interruptible share one compiled module: a second New costs no
// compile and no second copy of the code in memory. The code is released
// with the last of them.
type Runtime struct {
	code    *code
	stderr  io.Writer
	vectors []byte
	// clonable is code.clonable.
	clonable bool
	closed   atomic.Bool
}

// code is a binary compiled, shared by the Runtimes that compile it the
// same way (codeKey).
type code struct {
	key  codeKey
	bin  []byte // the binary of key.bin, kept so no other takes its address
	refs int    // the Runtimes using it; guarded by codes.mu
	// clonable is whether the binary compiled exports its globals, so that
	// an instance can be copied (clone.go).
	clonable bool

	mu sync.Mutex
	// cur is the engine new instances come from; old, the interpreter's
	// once compiled code replaced it, until its last instance is closed.
	cur, old *engine
	closed   bool
	// compiled is closed when compiling in the background has ended, with
	// cur the compiled code unless it failed (compileErr); stop cancels it.
	compiled   chan struct{}
	compileErr error
	stop       context.CancelFunc
	// wait makes close wait for the background compile rather than stop
	// it: its code goes to the cache folder, for the next start.
	wait bool
}

// codeKey is what makes two News compile the same code: the binary, by
// its first byte's address and its length (the code keeps the slice, so
// no other binary can take its place), and the configuration that
// changes the code.
type codeKey struct {
	bin           *byte
	size          int
	cacheDir      string
	maxPages      uint32
	interruptible bool
}

// codes are the compiled modules in use in the process.
var codes = struct {
	mu sync.Mutex
	m  map[codeKey]*code
}{m: map[codeKey]*code{}}

// engine is the module compiled in one wazero runtime.
type engine struct {
	rt          wazero.Runtime
	compiled    wazero.CompiledModule
	interpreted bool
	// live counts the instances made of it not yet closed; guarded by
	// code.mu.
	live int
}

// New compiles the module, or shares the code of a Runtime of the process
// that compiled it alike. It refuses a binary without the toolroute
// exports with an error wrapping ErrNotToolroute.
func New(ctx context.Context, cfg Config) (*Runtime, error) {
	bin := cfg.Binary
	if bin == nil {
		bin = wasm.Binary
	}
	if len(bin) == 0 {
		return nil, fmt.Errorf("%w: the binary is empty", ErrNotToolroute)
	}
	maxMem := cfg.MaxMemory
	if maxMem == 0 {
		maxMem = DefaultMaxMemory
	}
	key := codeKey{bin: &bin[0], size: len(bin), cacheDir: cfg.CacheDir,
		maxPages: uint32(min(maxMem/65536, 65536)), interruptible: cfg.Interruptible}
	codes.mu.Lock()
	defer codes.mu.Unlock()
	c, ok := codes.m[key]
	if !ok {
		var err error
		if c, err = compileCode(ctx, key, bin); err != nil {
			return nil, err
		}
	}
	r := &Runtime{code: c, stderr: cfg.Stderr, clonable: c.clonable}
	exports := c.exports()
	if _, ok := exports[abi.ExportWordVectors]; ok {
		r.vectors = cfg.WordVectors
	}
	// Check the version once, on a first instance, and the word vectors.
	inst, err := r.Instantiate(ctx)
	if err != nil {
		if !ok {
			c.wait = false // nothing of it is kept
			c.close(ctx)
		}
		return nil, err
	}
	inst.Close(ctx)
	c.refs++
	codes.m[key] = c
	return r, nil
}

// compileCode compiles bin as key says: on the interpreter when the
// cache holds no compiled code for it, compiling it in the background.
// The caller holds codes.mu.
func compileCode(ctx context.Context, key codeKey, bin []byte) (*code, error) {
	configure := func(rc wazero.RuntimeConfig) wazero.RuntimeConfig {
		return rc.WithCloseOnContextDone(key.interruptible).WithMemoryLimitPages(key.maxPages)
	}
	compiler := configure(wazero.NewRuntimeConfig())
	var marker string
	if key.cacheDir != "" {
		dir := binaryCache(key.cacheDir, bin)
		cache, err := wazero.NewCompilationCacheWithDir(dir)
		if err != nil {
			return nil, fmt.Errorf("module: compilation cache %s: %w", key.cacheDir, err)
		}
		compiler = compiler.WithCompilationCache(cache)
		marker = compiledMarker(dir, key.interruptible)
	}
	patched, clonable := ExportGlobals(bin)
	// The interpreter only when compiled code would take long: when the
	// cache holds none, and wazero has a compiler here at all.
	interpret := compilerSupported() && (marker == "" || !fileExists(marker))
	rc := compiler
	if interpret {
		rc = configure(wazero.NewRuntimeConfigInterpreter())
	}
	eng, err := newEngine(ctx, rc, patched)
	if err != nil {
		return nil, err
	}
	eng.interpreted = interpret
	exports := eng.compiled.ExportedFunctions()
	var missing []string
	for _, name := range []string{abi.ExportVersion, abi.ExportAlloc, abi.ExportFree, abi.ExportLoad, abi.ExportDescribe,
		abi.ExportTurnNew, abi.ExportTurnEvent, abi.ExportTurnChunk, abi.ExportTurnFree, abi.ExportTurnBody, "_initialize"} {
		if _, ok := exports[name]; !ok {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		eng.rt.Close(ctx)
		return nil, fmt.Errorf("%w: it does not export %s", ErrNotToolroute, strings.Join(missing, ", "))
	}
	c := &code{key: key, bin: bin, clonable: clonable, cur: eng, compiled: make(chan struct{}), stop: func() {}}
	if !interpret {
		close(c.compiled)
		return c, nil
	}
	bg, stop := context.WithCancel(context.WithoutCancel(ctx))
	c.stop, c.wait = stop, marker != ""
	go c.compile(bg, compiler, patched, marker)
	return c, nil
}

// exports are the module's exported functions.
func (c *code) exports() map[string]api.FunctionDefinition {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cur.compiled.ExportedFunctions()
}

// newEngine compiles bin in a new wazero runtime made with rc.
func newEngine(ctx context.Context, rc wazero.RuntimeConfig, bin []byte) (*engine, error) {
	rt := wazero.NewRuntimeWithConfig(ctx, rc)
	if _, err := wasi_snapshot_preview1.Instantiate(ctx, rt); err != nil {
		rt.Close(ctx)
		return nil, fmt.Errorf("module: WASI: %w", err)
	}
	compiled, err := rt.CompileModule(ctx, bin)
	if err != nil {
		rt.Close(ctx)
		return nil, fmt.Errorf("%w: %v", ErrNotToolroute, err)
	}
	return &engine{rt: rt, compiled: compiled}, nil
}

// compile compiles the module to machine code in the background, and
// makes it the code new instances run.
func (c *code) compile(ctx context.Context, rc wazero.RuntimeConfig, bin []byte, marker string) {
	defer close(c.compiled)
	eng, err := newEngine(ctx, rc, bin)
	c.mu.Lock()
	defer c.mu.Unlock()
	if err != nil || c.closed {
		c.compileErr = err
		if eng != nil {
			eng.rt.Close(ctx)
		}
		return
	}
	old := c.cur
	c.cur = eng
	if old.live == 0 {
		old.rt.Close(ctx)
		go freeInterpreter()
	} else {
		c.old = old
	}
	if marker != "" {
		_ = os.WriteFile(marker, nil, 0o644) // without it, the next start interprets again
	}
}

// freeInterpreter gives the memory of the interpreter's code, closed, back
// to the system: about 150 MB of Go heap, which the collector would
// otherwise keep for a while. It runs once per process's compile.
func freeInterpreter() { debug.FreeOSMemory() }

// compiledMarker is the file, in the binary's cache folder, that says it
// holds the compiled code of the module for this build of wazero.
func compiledMarker(dir string, interruptible bool) string {
	name := "compiled-" + wazeroVersion()
	if interruptible {
		name += "-interruptible"
	}
	return filepath.Join(dir, name)
}

// wazeroVersion is the version of wazero built into the program, as a
// file name; "unknown" when the build does not say.
var wazeroVersion = sync.OnceValue(func() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, d := range info.Deps {
			if d.Path == "github.com/tetratelabs/wazero" {
				if d.Replace != nil {
					d = d.Replace
				}
				return strings.Map(func(c rune) rune {
					if c == '/' || c == os.PathSeparator {
						return '_'
					}
					return c
				}, d.Version)
			}
		}
	}
	return "unknown"
})

// compilerSupported reports whether wazero compiles to machine code here.
func compilerSupported() bool {
	return (goruntime.GOARCH == "amd64" || goruntime.GOARCH == "arm64") &&
		(goruntime.GOOS == "linux" || goruntime.GOOS == "darwin" || goruntime.GOOS == "windows" || goruntime.GOOS == "freebsd" || goruntime.GOOS == "netbsd" || goruntime.GOOS == "dragonfly" || goruntime.GOOS == "solaris" || goruntime.GOOS == "illumos")
}

func fileExists(name string) bool {
	_, err := os.Stat(name)
	return err == nil
}

// HasWordVectors reports whether instances are given word vectors
// (Config.WordVectors, for a module that takes them).
func (r *Runtime) HasWordVectors() bool { return len(r.vectors) > 0 }

// WaitCompiled waits until new instances run compiled code, and returns
// nil then; the error of compiling it in the background, if that failed
// (instances then stay on the interpreter); or ctx's error.
func (r *Runtime) WaitCompiled(ctx context.Context) error {
	c := r.code
	select {
	case <-c.compiled:
	case <-ctx.Done():
		return ctx.Err()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cur.interpreted {
		if c.compileErr != nil {
			return fmt.Errorf("module: compiling: %w", c.compileErr)
		}
		return errors.New("module: the runtime was closed before its code was compiled")
	}
	return nil
}

// Interpreted reports whether new instances run on the interpreter: until
// the code compiled in the background is ready.
func (r *Runtime) Interpreted() bool {
	c := r.code
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cur.interpreted
}

// Close releases the runtime; with the last Runtime of the process that
// shares its code, the code and every instance. A compile running in the
// background is then waited for when its code goes to a cache folder,
// for the next start, and stopped otherwise.
func (r *Runtime) Close(ctx context.Context) error {
	if r.closed.Swap(true) {
		return nil
	}
	codes.mu.Lock()
	c := r.code
	c.refs--
	last := c.refs == 0
	if last && codes.m[c.key] == c {
		delete(codes.m, c.key)
	}
	codes.mu.Unlock()
	if !last {
		return nil
	}
	return c.close(ctx)
}

// close releases the code and every instance of it.
func (c *code) close(ctx context.Context) error {
	if !c.wait {
		c.stop()
	}
	<-c.compiled
	c.stop()
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	var err error
	if c.old != nil {
		err = c.old.rt.Close(ctx)
		c.old = nil
	}
	if cerr := c.cur.rt.Close(ctx); err == nil {
		err = cerr
	}
	return err
}

// Instance is one instance of the module. It must not be used by two
// goroutines at once.
type Instance struct {
	mod    api.Module
	fns    map[string]api.Function
	broken error
	code   *code
	eng    *engine
	closed bool
}

// Interpreted reports whether the instance runs on wazero's interpreter.
func (i *Instance) Interpreted() bool { return i.eng.interpreted }

// Instantiate makes a new instance, runs _initialize and checks its ABI
// version.
func (r *Runtime) Instantiate(ctx context.Context) (*Instance, error) {
	inst, err := r.instantiate(ctx, "_initialize")
	if err != nil {
		return nil, err
	}
	res, err := inst.call(ctx, abi.ExportVersion)
	if err != nil {
		inst.Close(ctx)
		return nil, err
	}
	if v := uint32(res[0]); v != abi.Version {
		inst.Close(ctx)
		return nil, fmt.Errorf("%w: it speaks ABI version %d; this host speaks version %d (use a module and host of the same release)", ErrNotToolroute, v, abi.Version)
	}
	if len(r.vectors) > 0 {
		if _, err := inst.request(ctx, abi.ExportWordVectors, nil, r.vectors); err != nil {
			inst.Close(ctx)
			return nil, fmt.Errorf("module: the word vectors: %w", err)
		}
	}
	return inst, nil
}

// instantiate makes an instance of the current engine running the start
// functions named.
func (r *Runtime) instantiate(ctx context.Context, start ...string) (*Instance, error) {
	if r.closed.Load() {
		return nil, errors.New("module: the runtime is closed")
	}
	c := r.code
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil, errors.New("module: the runtime is closed")
	}
	eng := c.cur
	eng.live++ // keeps it open while the instance is made
	c.mu.Unlock()
	stderr := r.stderr
	if stderr == nil {
		stderr = io.Discard
	}
	mc := wazero.NewModuleConfig().
		WithName("").
		WithStartFunctions(start...).
		WithStderr(stderr).
		WithRandSource(rand.Reader).
		WithSysNanotime().
		WithSysWalltime()
	if alloc := memoryAllocator(); alloc != nil {
		ctx = experimental.WithMemoryAllocator(ctx, alloc)
	}
	mod, err := eng.rt.InstantiateModule(ctx, eng.compiled, mc)
	if err != nil {
		c.release(ctx, eng)
		return nil, fmt.Errorf("module: instantiate: %w", err)
	}
	inst := &Instance{mod: mod, fns: map[string]api.Function{}, code: c, eng: eng}
	for name := range eng.compiled.ExportedFunctions() {
		inst.fns[name] = mod.ExportedFunction(name)
	}
	return inst, nil
}

// release counts an instance of eng closed, closing the interpreter's
// runtime with its last instance once compiled code replaced it.
func (c *code) release(ctx context.Context, eng *engine) {
	c.mu.Lock()
	defer c.mu.Unlock()
	eng.live--
	if eng == c.old && eng.live == 0 {
		eng.rt.Close(ctx)
		c.old = nil
		go freeInterpreter()
	}
}

// ErrClosed is the error of a call on an instance that was closed.
var ErrClosed = errors.New("module: the instance is closed")

// Close releases the instance; a call after it fails with ErrClosed.
// wazero does not refuse a call on a closed module, and the memory it
// would run on is unmapped by then (memory_unix.go), so the instance
// refuses it itself. The caller makes sure no call is running.
func (i *Instance) Close(ctx context.Context) error {
	i.broken = ErrClosed
	if i.closed {
		return nil
	}
	i.closed = true
	err := i.mod.Close(ctx)
	i.code.release(ctx, i.eng)
	return err
}

// Broken reports why the instance can no longer be used, or nil.
func (i *Instance) Broken() error { return i.broken }

// MemorySize is the instance's linear memory in bytes.
func (i *Instance) MemorySize() uint32 { return i.mod.Memory().Size() }

func (i *Instance) call(ctx context.Context, name string, params ...uint64) ([]uint64, error) {
	if i.broken != nil {
		return nil, i.broken
	}
	res, err := i.fns[name].Call(ctx, params...)
	if err != nil {
		i.broken = fmt.Errorf("%w: %s: %v", ErrTrapped, name, err)
		return nil, i.broken
	}
	return res, nil
}

// write copies data into memory the module allocates; the caller frees it.
func (i *Instance) write(ctx context.Context, data []byte) (uint32, error) {
	if len(data) == 0 {
		return 0, nil
	}
	if len(data) > MaxInput {
		return 0, fmt.Errorf("%w: %d bytes is over the %d-byte limit", ErrInputTooLarge, len(data), MaxInput)
	}
	res, err := i.call(ctx, abi.ExportAlloc, uint64(len(data)))
	if err != nil {
		return 0, err
	}
	ptr := uint32(res[0])
	if ptr == 0 {
		// Writing at 0 would overwrite the module's own memory.
		return 0, fmt.Errorf("%w: %s refused %d bytes", ErrInputTooLarge, abi.ExportAlloc, len(data))
	}
	if !i.mod.Memory().Write(ptr, data) {
		i.broken = fmt.Errorf("%w: %s gave %d, outside memory", ErrTrapped, abi.ExportAlloc, ptr)
		return 0, i.broken
	}
	return ptr, nil
}

// request calls an export that takes (ptr, len) after the given leading
// parameters and answers with a packed envelope; it returns the envelope's
// ok payload, or its error as an *abi.Error.
func (i *Instance) request(ctx context.Context, name string, lead []uint64, data []byte) (json.RawMessage, error) {
	var ok json.RawMessage
	return ok, i.requestInto(ctx, name, lead, data, &ok)
}

// requestInto is request, decoding the ok payload into v as it reads the
// envelope: the answer is parsed once.
func (i *Instance) requestInto(ctx context.Context, name string, lead []uint64, data []byte, v any) error {
	ptr, err := i.write(ctx, data)
	if err != nil {
		return err
	}
	res, err := i.call(ctx, name, append(lead, uint64(ptr), uint64(len(data)))...)
	if ptr != 0 {
		if _, ferr := i.call(ctx, abi.ExportFree, uint64(ptr)); ferr != nil && err == nil {
			err = ferr
		}
	}
	if err != nil {
		return err
	}
	return i.envelopeInto(ctx, name, res[0], v)
}

// envelope reads and frees a packed (ptr << 32 | len) result.
func (i *Instance) envelope(ctx context.Context, name string, packed uint64) (json.RawMessage, error) {
	var ok json.RawMessage
	return ok, i.envelopeInto(ctx, name, packed, &ok)
}

// envelopeInto reads and frees a packed result, an envelope, decoding its
// ok payload into v; its error comes back as an *abi.Error.
func (i *Instance) envelopeInto(ctx context.Context, name string, packed uint64, v any) error {
	data, err := i.take(ctx, name, packed)
	if err != nil {
		return err
	}
	if raw, ok := v.(*json.RawMessage); ok {
		if payload, ok := okPayload(data); ok {
			*raw = payload
			return nil
		}
	}
	env := struct {
		OK    any        `json:"ok"`
		Error *abi.Error `json:"error"`
	}{OK: v}
	if err := json.Unmarshal(data, &env); err != nil {
		i.broken = fmt.Errorf("%w: %s answered with something that is not an envelope: %v", ErrTrapped, name, err)
		return i.broken
	}
	if env.Error != nil {
		return env.Error
	}
	return nil
}

// okPayload is the ok payload of an envelope that holds nothing else, as
// the module writes it: {"ok":PAYLOAD}, PAYLOAD valid JSON with no space
// around it. It is what json.Unmarshal gives for the envelope's "ok" into
// a json.RawMessage, found with one check of the payload rather than by
// reflection; false for any other envelope, which json.Unmarshal reads.
func okPayload(data []byte) (json.RawMessage, bool) {
	const head = `{"ok":`
	if len(data) < len(head)+2 || string(data[:len(head)]) != head || data[len(data)-1] != '}' {
		return nil, false
	}
	payload := data[len(head) : len(data)-1]
	switch payload[0] {
	case ' ', '\t', '\n', '\r':
		return nil, false
	}
	switch payload[len(payload)-1] {
	case ' ', '\t', '\n', '\r':
		return nil, false
	}
	if !json.Valid(payload) {
		return nil, false
	}
	return payload, true
}

// take copies and frees a packed (ptr << 32 | len) result.
func (i *Instance) take(ctx context.Context, name string, packed uint64) ([]byte, error) {
	ptr, size := uint32(packed>>32), uint32(packed)
	view, ok := i.mod.Memory().Read(ptr, size)
	if !ok || size == 0 {
		i.broken = fmt.Errorf("%w: %s answered %d, outside memory", ErrTrapped, name, packed)
		return nil, i.broken
	}
	data := append([]byte(nil), view...)
	if _, err := i.call(ctx, abi.ExportFree, uint64(ptr)); err != nil {
		return nil, err
	}
	return data, nil
}

// Load builds the instance's registry from a catalogue (registry.Catalogue as
// JSON).
func (i *Instance) Load(ctx context.Context, catalogue []byte) (registry.BuildReport, error) {
	var rep registry.BuildReport
	out, err := i.request(ctx, abi.ExportLoad, nil, catalogue)
	if err != nil {
		return rep, err
	}
	return rep, json.Unmarshal(out, &rep)
}

// Describe describes the catalogue, and a session's active tools.
func (i *Instance) Describe(ctx context.Context, req abi.DescribeRequest) (abi.Description, error) {
	var d abi.Description
	in, err := Marshal(req)
	if err != nil {
		return d, err
	}
	out, err := i.request(ctx, abi.ExportDescribe, nil, in)
	if err != nil {
		return d, err
	}
	return d, json.Unmarshal(out, &d)
}

// CheckAnswer is the module's answer to a check (toolroute_check): Error
// when the arguments are refused, else Args when the operation is to use
// them changed (a title's whitespace collapsed), else neither.
type CheckAnswer struct {
	Error *check.Refusal  `json:"error,omitempty"`
	Args  json.RawMessage `json:"args,omitempty"`
}

// Check asks the module whether op's arguments pass its rules
// (toolroute_check) before the host does op's I/O. Only model_call and offer need a catalogue.
// A refusal is an answer, not an error; an error is the host's mistake
// (an op the module does not know) or a broken instance.
func (i *Instance) Check(ctx context.Context, op string, args any) (CheckAnswer, error) {
	var a CheckAnswer
	in, err := Marshal(struct {
		Op   string `json:"op"`
		Args any    `json:"args"`
	}{op, args})
	if err != nil {
		return a, err
	}
	return a, i.requestInto(ctx, abi.ExportCheck, nil, in, &a)
}

// TurnNew opens a turn.
func (i *Instance) TurnNew(ctx context.Context) (uint32, error) {
	res, err := i.call(ctx, abi.ExportTurnNew)
	if err != nil {
		return 0, err
	}
	out, err := i.envelope(ctx, abi.ExportTurnNew, res[0])
	if err != nil {
		return 0, err
	}
	var h abi.TurnHandle
	return h.Turn, json.Unmarshal(out, &h)
}

// TurnEvent feeds a turn one event (session.Event as JSON) and returns the
// actions (a JSON array of session.Action).
func (i *Instance) TurnEvent(ctx context.Context, turn uint32, event []byte) (json.RawMessage, error) {
	return i.request(ctx, abi.ExportTurnEvent, []uint64{uint64(turn)}, event)
}

// TurnChunk feeds a turn raw bytes of a streamed response.
func (i *Instance) TurnChunk(ctx context.Context, turn uint32, data []byte) (json.RawMessage, error) {
	return i.request(ctx, abi.ExportTurnChunk, []uint64{uint64(turn)}, data)
}

// TurnActions feeds a turn one event (session.Event as JSON) and decodes
// its actions as it reads the answer.
func (i *Instance) TurnActions(ctx context.Context, turn uint32, event []byte) ([]session.Action, error) {
	var acts []session.Action
	return acts, i.requestInto(ctx, abi.ExportTurnEvent, []uint64{uint64(turn)}, event, &acts)
}

// TurnChunkActions feeds a turn raw bytes of a streamed response and
// decodes its actions.
func (i *Instance) TurnChunkActions(ctx context.Context, turn uint32, data []byte) ([]session.Action, error) {
	var acts []session.Action
	return acts, i.requestInto(ctx, abi.ExportTurnChunk, []uint64{uint64(turn)}, data, &acts)
}

// TurnBody takes the request body of the turn's last call_model action,
// raw: the bytes to post. It is nil when there is none to take (the
// module hands each body out once).
func (i *Instance) TurnBody(ctx context.Context, turn uint32) ([]byte, error) {
	res, err := i.call(ctx, abi.ExportTurnBody, uint64(turn))
	if err != nil {
		return nil, err
	}
	if res[0] == 0 {
		return nil, nil
	}
	return i.take(ctx, abi.ExportTurnBody, res[0])
}

// TurnFree closes a turn.
func (i *Instance) TurnFree(ctx context.Context, turn uint32) error {
	_, err := i.call(ctx, abi.ExportTurnFree, uint64(turn))
	return err
}

// Marshal encodes a value for the module as JSON without escaping <, > and &
// as encoding/json does by default: raw JSON inside the value, such as a
// tool's parameter schema, reaches the module, and from there the model,
// byte for byte, as it does from the browser and worker hosts.
func Marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
