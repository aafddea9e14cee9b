package jsrun

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"strings"
	"sync"
	"time"
	_ "time/tzdata" // _time works on machines without a zoneinfo database

	"github.com/toolroute/toolroute/host"
	"github.com/toolroute/toolroute/registry"
	"github.com/toolroute/toolroute/registry/check"
)

// DefaultMemoryLimit is a call's JS heap limit when Options sets none.
const DefaultMemoryLimit = 64 << 20

// Options configure a Runner.
type Options struct {
	// SandboxRoot is the folder fs reads and writes, the user's: created if
	// missing. Nothing outside it can be reached.
	SandboxRoot string
	// SandboxQuota bounds the bytes of the files in SandboxRoot; 0 means
	// 100 MB. SandboxMaxFiles bounds its files and folders; 0 means 10,000.
	SandboxQuota    int64
	SandboxMaxFiles int
	// Libraries are the folders lib(name) loads NAME.js from, built-in
	// first, then the user's.
	Libraries []fs.FS
	// Fetch configures the fetch bridge.
	Fetch FetchOptions
	// Google serves google.getAccessToken and getAccountEmail; nil means
	// no account is connected.
	Google CredentialProvider
	// MemoryLimit bounds a call's JS heap, in bytes; 0 means 64 MB.
	MemoryLimit int
	// Warm is how many fresh runtimes are kept ready, made in the
	// background; 0 means 2.
	Warm int
	// Now is the clock of _time; nil means time.Now.
	Now func() time.Time
	// CacheDir, when set, keeps the compiled QuickJS module between
	// processes, which saves most of a second at start. The module's
	// private names are then drawn once per folder and kept in it, readable
	// by the user alone, rather than once per process.
	CacheDir string
}

// CredentialProvider gives the Google credentials of the user.
type CredentialProvider interface {
	AccessToken(ctx context.Context) (string, error)
	AccountEmail(ctx context.Context) (string, error)
}

// ErrNotConnected is what a CredentialProvider returns when no Google account
// is connected; the tool's error then says how to connect one.
var ErrNotConnected = errors.New("no Google account is connected")

// Runner runs JS tools, each call in a fresh QuickJS runtime. It is safe for
// concurrent use: every call gets its own runtime.
type Runner struct {
	opts    Options
	sandbox *sandbox
	client  *fetcher
	warm    chan *runtime
	stop    chan struct{}
	wg      sync.WaitGroup

	mu        sync.Mutex
	bytecode  map[[32]byte][]byte
	order     [][32]byte // bytecode's keys, oldest first
	codeBytes int        // bytecode's size
	warming   bool       // keepWarm runs
	closed    bool
	closeOnce sync.Once
}

// New returns a Runner. It does not start QuickJS: the first call patches
// and compiles it (once per process; a few hundred milliseconds, or most
// of a second without CacheDir's compiled code), and then the Runner keeps
// runtimes ready. A program that offers JS tools but runs none pays
// nothing for them.
func New(opts Options) (*Runner, error) {
	if opts.MemoryLimit <= 0 {
		opts.MemoryLimit = DefaultMemoryLimit
	}
	if opts.Warm <= 0 {
		opts.Warm = 2
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	sb, err := newSandbox(opts.SandboxRoot, opts.SandboxQuota, opts.SandboxMaxFiles)
	if err != nil {
		return nil, err
	}
	return &Runner{
		opts: opts, sandbox: sb, client: newFetcher(opts.Fetch),
		warm: make(chan *runtime, opts.Warm), stop: make(chan struct{}),
		bytecode: map[[32]byte][]byte{},
	}, nil
}

// startWarm starts keeping runtimes ready, once, unless the Runner is
// closed.
func (r *Runner) startWarm() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.warming || r.closed {
		return
	}
	r.warming = true
	r.wg.Add(1)
	go r.keepWarm()
}

// keepWarm refills the warm runtimes as calls take them.
func (r *Runner) keepWarm() {
	defer r.wg.Done()
	for {
		rt, err := newRuntime(r.build())
		if err != nil {
			select {
			case <-r.stop:
				return
			case <-time.After(time.Second):
				continue
			}
		}
		select {
		case r.warm <- rt:
		case <-r.stop:
			rt.close()
			return
		}
	}
}

// take returns a fresh runtime: a warm one, or a new one. The first makes
// its runtime itself, then has the others made in the background.
func (r *Runner) take() (*runtime, error) {
	select {
	case rt := <-r.warm:
		return rt, nil
	default:
	}
	rt, err := newRuntime(r.build())
	if err == nil {
		r.startWarm()
	}
	return rt, err
}

// build is how this runner's runtimes are made.
func (r *Runner) build() build {
	return build{memoryLimit: r.opts.MemoryLimit, cacheDir: r.opts.CacheDir}
}

// Close stops the warming and releases the warm runtimes.
func (r *Runner) Close() {
	r.closeOnce.Do(func() {
		r.mu.Lock()
		r.closed = true
		r.mu.Unlock()
		close(r.stop)
		r.wg.Wait()
		for {
			select {
			case rt := <-r.warm:
				rt.close()
			default:
				return
			}
		}
	})
}

// LogLine is one console line a call wrote.
type LogLine struct {
	Level string `json:"level"`
	Text  string `json:"text"`
}

// Result is a call's outcome and its console output.
type Result struct {
	registry.Result
	Logs []LogLine `json:"logs,omitempty"`
}

// Run implements host.JSRunner.
func (r *Runner) Run(ctx context.Context, c host.JSCall) host.JSResult {
	res := r.Call(ctx, c)
	out := host.JSResult{Result: res.Result}
	for _, l := range res.Logs {
		out.Logs = append(out.Logs, l.Level+": "+l.Text)
	}
	return out
}

var functionRE = regexp.MustCompile(`^[a-zA-Z_$][a-zA-Z0-9_$]*$`)

// Call runs one call of a JS tool in a fresh runtime, bounded by the call's
// timeout, and returns its result: a returned string as is, any other value
// as JSON, "" for null or undefined; or an error the model can act on.
func (r *Runner) Call(ctx context.Context, c host.JSCall) (res Result) {
	if c.Timeout <= 0 {
		c.Timeout = registry.DefaultTimeoutSeconds * time.Second
	}
	fail := func(typ, msg string) Result {
		return Result{Result: registry.Failure(typ, scrub(msg, c.Env))}
	}
	if !functionRE.MatchString(c.Function) {
		return fail("execution_error", fmt.Sprintf("Function name '%s' is not a JS identifier", c.Function))
	}
	params, err := withEnv(c.Params, c.Env)
	if errors.Is(err, errNotObject) {
		return worded(ctx, check.JSBridge{Code: "params_not_object"})
	}
	if err != nil {
		return fail("invalid_arguments", err.Error())
	}
	rt, err := r.take()
	if err != nil {
		return fail("execution_error", err.Error())
	}
	defer rt.close()
	return r.callOn(ctx, rt, c, params)
}

// callOn runs a call on a fresh runtime.
func (r *Runner) callOn(ctx context.Context, rt *runtime, c host.JSCall, params string) (res Result) {
	fail := func(typ, msg string) Result {
		return Result{Result: registry.Failure(typ, scrub(msg, c.Env))}
	}
	ctx, cancel := context.WithTimeout(ctx, c.Timeout)
	defer cancel()
	state := &callState{runner: r, ctx: ctx, env: c.Env, tool: c.Tool, google: c.Google, ops: c.Ops}
	rt.call = state
	deadline, _ := ctx.Deadline()

	if err := rt.setDeadline(deadline); err != nil {
		return fail("execution_error", err.Error())
	}
	stop := rt.stopWhenDone(ctx)
	out, err := r.run(ctx, rt, c, params)
	stop()
	logs := state.logs
	for i := range logs {
		logs[i].Text = scrub(logs[i].Text, c.Env)
	}
	reason := rt.reason()
	switch {
	case err == nil && reason == 0:
		return Result{Result: registry.Success(out), Logs: logs}
	case reason == reasonStack:
		// Whatever the call says after that (a trap, a promise left
		// pending), it overflowed.
		res = fail("execution_error", fmt.Sprintf("JS tool '%s' stopped: %v", c.Tool, errOverflow))
	case errors.Is(err, errPending), errors.Is(ctx.Err(), context.DeadlineExceeded), !time.Now().Before(deadline):
		res = worded(ctx, check.JSBridge{Code: "timeout", Tool: c.Tool, TimeoutMS: float64(c.Timeout) / float64(time.Millisecond), Pending: errors.Is(err, errPending)})
	case ctx.Err() != nil:
		res = fail("canceled", fmt.Sprintf("JS tool '%s' was canceled", c.Tool))
	case strings.Contains(err.Error(), "out of memory") || (isTrap(err) && rt.memoryFull()) ||
		// Out of memory while making the error itself: QuickJS throws null.
		(err.Error() == "null" && rt.memoryFull()):
		res = worded(ctx, check.JSBridge{Code: "out_of_memory", Tool: c.Tool, LimitMB: r.opts.MemoryLimit >> 20})
	case isTrap(err):
		res = fail("execution_error", fmt.Sprintf("JS tool '%s' crashed inside QuickJS (%s): the runtime was thrown away; try again with other input", c.Tool, trapText(err)))
	case errors.As(err, new(*typedError)):
		var te *typedError
		errors.As(err, &te)
		res = fail(te.typ, withoutGlue(te.msg))
	default:
		res = fail("execution_error", withoutGlue(err.Error()))
	}
	res.Logs = logs
	return res
}

// withoutGlue drops the stack frames of the runner's own scripts, which say
// nothing to the model or the tool's author.
func withoutGlue(msg string) string {
	lines := strings.Split(msg, "\n")
	kept := lines[:0]
	for _, l := range lines {
		if !strings.Contains(l, "(<toolroute ") && !strings.Contains(l, "(<proxy_factory>") && !strings.Contains(l, "(native)") {
			kept = append(kept, l)
		}
	}
	return strings.TrimRight(strings.Join(kept, "\n"), "\n")
}

// trapText is what a trap says, without the call that met it or the stack.
func trapText(err error) string {
	msg, _, _ := strings.Cut(err.Error(), "\n")
	if i := strings.Index(msg, "wasm error: "); i >= 0 {
		return msg[i:]
	}
	return msg
}

// isTrap reports an error from a runtime whose module trapped or closed.
func isTrap(err error) bool {
	return err != nil && (isClosed(err.Error()) || strings.Contains(err.Error(), "wasm error"))
}

// typedError is a tool's error that says its type (error.type in JS).
type typedError struct{ typ, msg string }

func (e *typedError) Error() string { return e.msg }

// errOverflow is what the stack check's trap says.
var errOverflow = errors.New("stack overflow: calls or data nested too deeply " +
	"(deep recursion, or JSON or code nested thousands of levels deep); use a loop instead of recursion, or flatter data")

// errPending: the call's promise is pending with nothing left to run, so it
// will never settle.
var errPending = errors.New("the promise never settles")

// run loads the source and calls the function, turning panics from a dead
// runtime into errors. The hard stop traps JS past the deadline; a
// promise left pending with no job to run waits for the deadline.
func (r *Runner) run(ctx context.Context, rt *runtime, c host.JSCall, params string) (out string, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = errors.New(host.PanicText(p))
		}
	}()
	bc, err := r.compiled(rt, c.SourceRef, c.Source)
	if err != nil {
		return "", err
	}
	if err := rt.load(c.SourceRef, bc); err != nil {
		return "", err
	}
	// Each evaluation runs the jobs it leaves: after the start, the promise
	// has settled, or it waits on nothing that can happen (bridges are
	// synchronous and there are no timers).
	if _, err := rt.eval("<toolroute call>", fmt.Sprintf("__tr_start(%q, %s)", c.Function, jsString(params))); err != nil {
		return "", err
	}
	raw := rt.global("__tr_outcome")
	if raw == "" {
		<-ctx.Done()
		return "", errPending
	}
	var o struct {
		OK    bool            `json:"ok"`
		Value json.RawMessage `json:"value"`
		Error string          `json:"error"`
		Type  string          `json:"type"`
	}
	if err := json.Unmarshal([]byte(raw), &o); err != nil {
		return "", fmt.Errorf("reading the outcome: %v", err)
	}
	if !o.OK {
		if o.Type != "" {
			return "", &typedError{typ: o.Type, msg: o.Error}
		}
		return "", errors.New(o.Error)
	}
	var s string
	if err := json.Unmarshal(o.Value, &s); err != nil {
		return "", fmt.Errorf("reading the result: %v", err)
	}
	return s, nil
}

// MaxBytecodeCache bounds the compiled code a Runner keeps: tools the model
// writes and rewrites (create_js_tool, update_js_tool) are each new source,
// and would otherwise pile up. (js_eval's snippets are evaluated at run time
// by one compiled tool: they never reach the cache.)
const MaxBytecodeCache = 32 << 20

// compiled returns a source's bytecode, compiling it in rt the first time.
// The cache forgets the oldest entries past MaxBytecodeCache.
func (r *Runner) compiled(rt *runtime, ref string, source []byte) ([]byte, error) {
	key := sha256.Sum256(append([]byte(ref+"\x00"), source...))
	r.mu.Lock()
	bc, ok := r.bytecode[key]
	r.mu.Unlock()
	if ok {
		return bc, nil
	}
	bc, err := rt.compile(ref, string(source))
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.bytecode[key]; !ok && len(bc) <= MaxBytecodeCache {
		r.bytecode[key] = bc
		r.order = append(r.order, key)
		r.codeBytes += len(bc)
		for r.codeBytes > MaxBytecodeCache {
			oldest := r.order[0]
			r.order = r.order[1:]
			r.codeBytes -= len(r.bytecode[oldest])
			delete(r.bytecode, oldest)
		}
	}
	return bc, nil
}

// Precompile compiles sources to bytecode ahead of their first call, so the
// first call does not pay for parsing. Sources that do not compile are
// skipped; their calls report the error.
func (r *Runner) Precompile(sources map[string][]byte) {
	rt, err := newRuntime(r.build())
	if err != nil {
		return
	}
	defer rt.close()
	for _, ref := range sortedRefs(sources) {
		func() {
			defer func() { _ = recover() }()
			_, _ = r.compiled(rt, ref, sources[ref])
		}()
	}
}

// Check compiles a source as a tool's source is compiled and returns its
// syntax error, naming the file and line, or nil; the bytecode is kept for
// the source's first call.
func (r *Runner) Check(ref string, source []byte) (err error) {
	rt, err := newRuntime(r.build())
	if err != nil {
		return err
	}
	defer rt.close()
	defer func() {
		if p := recover(); p != nil {
			err = errors.New(host.PanicText(p))
		}
		if err != nil && rt.reason() == reasonStack {
			err = errOverflow
		}
	}()
	_, err = r.compiled(rt, ref, source)
	if err != nil {
		return errors.New(withoutGlue(err.Error()))
	}
	return nil
}

// Undefined runs a source's top level as a call would, then returns those
// of names that are not functions a call could find (a function
// declaration, or a global binding such as const execute = ...), in their
// order. err is the source's syntax error, or what its top level threw.
//
// The top level runs with lib, console and _time; the network, fs, the
// Google account and the host's storage refuse it: a tool file's top level
// should only define functions (toolroute check runs this on files it
// has not been told to trust). It has 5 seconds.
func (r *Runner) Undefined(ctx context.Context, ref string, source []byte, names []string) (missing []string, err error) {
	rt, err := r.take()
	if err != nil {
		return nil, err
	}
	defer rt.close()
	defer func() {
		if p := recover(); p != nil {
			err = errors.New(host.PanicText(p))
		}
		if err != nil && rt.reason() == reasonStack {
			err = fmt.Errorf("its top level stopped: %w", errOverflow)
		}
	}()
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	rt.call = &callState{runner: r, ctx: ctx, tool: ref, noNetwork: true, sandboxOff: true}
	deadline, _ := ctx.Deadline()
	if err := rt.setDeadline(deadline); err != nil {
		return nil, err
	}
	stop := rt.stopWhenDone(ctx)
	defer stop()
	bc, err := r.compiled(rt, ref, source)
	if err != nil {
		return nil, errors.New(withoutGlue(err.Error()))
	}
	if err := rt.load(ref, bc); err != nil {
		if ctx.Err() != nil {
			return nil, errors.New("its top level ran past 5 seconds")
		}
		return nil, errors.New(withoutGlue(err.Error()))
	}
	list, _ := json.Marshal(append([]string{}, names...))
	out, err := rt.eval("<toolroute check>", `JSON.stringify(`+string(list)+`.filter(function (n) {
		var f = globalThis[n];
		if (typeof f !== "function") {
			try { f = (0, eval)("typeof " + n + " === 'function' ? " + n + " : undefined"); } catch (e) { f = undefined; }
		}
		return typeof f !== "function";
	}))`)
	if err != nil {
		return nil, errors.New(withoutGlue(err.Error()))
	}
	if err := json.Unmarshal([]byte(out), &missing); err != nil {
		return nil, fmt.Errorf("reading the functions: %v", err)
	}
	return missing, nil
}

// errNotObject is withEnv's error for parameters that are not a JSON
// object, which the module words (js_bridge's params_not_object).
var errNotObject = errors.New("jsrun: not an object")

// withEnv adds _env to the call's parameters.
func withEnv(params json.RawMessage, env map[string]string) (string, error) {
	var obj map[string]json.RawMessage
	if len(strings.TrimSpace(string(params))) == 0 {
		obj = map[string]json.RawMessage{}
	} else if err := json.Unmarshal(params, &obj); err != nil || obj == nil {
		return "", errNotObject
	}
	if env == nil {
		env = map[string]string{}
	}
	e, err := json.Marshal(env)
	if err != nil {
		return "", err
	}
	obj["_env"] = e
	b, err := json.Marshal(obj)
	return string(b), err
}

// jsString quotes s as a JS string literal (JSON's rules are JS's).
func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// scrub removes the values of the tool's environment variables from text
// leaving the model's sight: secrets never appear in errors or logs.
func scrub(text string, env map[string]string) string {
	for _, k := range sortedKeys(env) {
		if v := env[k]; len(v) >= 4 {
			text = strings.ReplaceAll(text, v, "[redacted "+k+"]")
		}
	}
	return text
}
