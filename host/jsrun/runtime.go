package jsrun

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/fastschema/qjs"
	"github.com/tetratelabs/wazero"

	"github.com/toolroute/toolroute/assets"
)

// preludeJS is the bridges' prelude, which every host runs: one file,
// assets/prelude.js.
var preludeJS = assets.Prelude

var (
	patchMu sync.Mutex
	patched = map[build][]byte{}
)

// build says how to make runtimes: the memory limit, and the folder
// keeping the compiled module ("" for none).
type build struct {
	memoryLimit int
	cacheDir    string
}

// quickJS returns the patched QuickJS module for a build, made once per
// process and build. qjs keeps one compiled module per process: runners
// with different builds in one process make it compile again when they
// alternate.
func quickJS(b build) ([]byte, error) {
	patchMu.Lock()
	defer patchMu.Unlock()
	if bin, ok := patched[b]; ok {
		return bin, nil
	}
	names, err := moduleNames(b.cacheDir)
	if err != nil {
		return nil, err
	}
	bin, err := patchQuickJS(qjsWasm, b.memoryLimit, names, true)
	if err != nil {
		return nil, err
	}
	patched[b] = bin
	return bin, nil
}

// runtime is one QuickJS runtime, used for one call and thrown away.
type runtime struct {
	q        *qjs.Runtime
	cwd      string
	maxBytes uint32         // its memory's maximum
	wrt      wazero.Runtime // qjs's, for close
	// call is the call the bridges serve; set when the runtime is taken.
	call *callState
}

// newRuntime makes a runtime with the bridges and the prelude, ready for a
// call. Its working directory, mounted at / by qjs, is a new empty folder.
func newRuntime(b build) (*runtime, error) {
	memoryLimit := b.memoryLimit
	bin, err := quickJS(b)
	if err != nil {
		return nil, err
	}
	cwd, err := os.MkdirTemp("", "toolroute-qjs-")
	if err != nil {
		return nil, fmt.Errorf("jsrun: working folder: %w", err)
	}
	rt := &runtime{cwd: cwd, maxBytes: uint32(min((memoryPages+(memoryLimit+65535)/65536)*65536, 1<<32-1))}
	q, err := qjs.New(qjs.Option{
		CWD:                cwd,
		CloseOnContextDone: false, // the hard stop ends calls; see patch.go
		QuickJSWasmBytes:   bin,
		CacheDir:           b.cacheDir,
		Stdout:             io.Discard,
		Stderr:             io.Discard,
	})
	if err != nil {
		os.RemoveAll(cwd)
		return nil, fmt.Errorf("jsrun: new QuickJS runtime: %w", err)
	}
	rt.q = q
	if rt.wrt, err = wazeroRuntime(q); err != nil {
		q.Close()
		os.RemoveAll(cwd)
		return nil, err
	}
	if err := cacheExports(q); err != nil {
		rt.close()
		return nil, err
	}
	rt.bind()
	if _, err := rt.eval("<toolroute prelude>", preludeJS); err != nil {
		rt.close()
		return nil, fmt.Errorf("jsrun: prelude: %w", err)
	}
	return rt, nil
}

// close releases the runtime and its working folder: it closes the wazero
// runtime qjs made for it, which holds the module and the host modules, and
// through those the bridges (qjs.Runtime.Close leaves it open, and frees
// the bridges' registry instead). QuickJS's state goes with the module's
// memory, so it is not freed first: that would only cost time, and after a
// trap would run on state the trap left half changed.
func (rt *runtime) close() {
	if rt.wrt != nil {
		rt.wrt.Close(context.Background())
	}
	os.RemoveAll(rt.cwd)
}

// setDeadline arms the hard stop: past t, the module traps at its next
// check. The zero time means never.
func (rt *runtime) setDeadline(t time.Time) error {
	var ns uint64
	if !t.IsZero() {
		ns = uint64(t.UnixNano())
	}
	return rt.q.Mem().Write(deadlineAddr, binary.LittleEndian.AppendUint64(nil, ns))
}

// reason says why the module trapped, if the hard stop or the stack check
// trapped it (reasonStack, reasonStopped, reasonTimeout), else 0.
func (rt *runtime) reason() uint32 {
	v, err := rt.q.Mem().ReadUint32(reasonAddr)
	if err != nil {
		return 0
	}
	return v
}

// setStop sets the stop word: once set, the module traps at its next check.
// It may be called while the runtime runs JS on another goroutine.
func (rt *runtime) setStop(stop bool) error {
	var v uint32
	if stop {
		v = 1
	}
	return rt.q.Mem().Write(stopAddr, binary.LittleEndian.AppendUint32(nil, v))
}

// stopWhenDone stops the runtime's JS when ctx is done (Ctrl-C, a client
// gone, the deadline, which the check also reads itself), until the returned
// function is called, which waits for the watcher to end. The stop is
// written again every 50 ms: a store racing a memory.grow of the running
// module could be lost.
func (rt *runtime) stopWhenDone(ctx context.Context) (release func()) {
	done, ended := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(ended)
		select {
		case <-done:
			return
		case <-ctx.Done():
		}
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for {
			func() {
				defer func() { _ = recover() }() // a runtime that trapped
				rt.setStop(true)
			}()
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	return func() {
		close(done)
		<-ended
	}
}

// memoryFull reports whether the memory reached its maximum: a trap then is
// most likely an allocation that failed.
func (rt *runtime) memoryFull() bool {
	return rt.q.Mem().Size()+(1<<20) >= rt.maxBytes
}

// eval runs code as a global script (strict, as qjs evaluates) and returns
// its value as a string.
func (rt *runtime) eval(file, code string) (string, error) {
	v, err := rt.q.Eval(file, qjs.Code(code))
	if err != nil {
		return "", err
	}
	defer v.Free()
	return v.String(), nil
}

// global reads a global property as a string: a property read, not a
// script to parse and compile, as eval would make of its name.
func (rt *runtime) global(name string) string {
	v := rt.q.Context().Global().GetPropertyStr(name)
	defer v.Free()
	return v.String()
}

// compile compiles a tool's source to bytecode as a non-strict global script,
// as tools were written for, keeping the file name for error positions.
func (rt *runtime) compile(file, source string) ([]byte, error) {
	c := rt.q.Context()
	name := c.NewStringHandle(file)
	code := c.NewStringHandle(source)
	defer c.FreeHandle(name.Raw())
	defer c.FreeHandle(code.Raw())
	opts := c.Call("QJS_CreateEvalOption", code.Raw(), 0, 0, name.Raw(), qjs.JsEvalTypeGlobal|qjs.JsEvalFlagCompileOnly)
	defer c.FreeHandle(opts.Raw())
	res := c.Call("QJS_Compile2", c.Raw(), opts.Raw())
	if c.HasException() {
		res.Free()
		return nil, c.Exception()
	}
	defer res.Free()
	if res.IsError() {
		return nil, res.Exception()
	}
	return bytes.Clone(res.Bytes()), nil
}

// load runs compiled bytecode, defining the tool's functions.
func (rt *runtime) load(file string, bytecode []byte) error {
	v, err := rt.q.Eval(file, qjs.Bytecode(bytecode))
	if err != nil {
		return err
	}
	v.Free()
	return nil
}

// bind registers the host functions the prelude wraps.
func (rt *runtime) bind() {
	c := rt.q.Context()
	fn := func(name string, f func(args []*qjs.Value) (*qjs.Value, error)) {
		c.SetFunc(name, func(this *qjs.This) (*qjs.Value, error) {
			if rt.call == nil {
				return nil, errors.New("no call is running")
			}
			// A bridge called past the deadline or after a cancel does no
			// work: the call is ending.
			if err := rt.call.ctx.Err(); err != nil {
				return nil, errors.New("the call is stopped: its time is up or it was canceled")
			}
			// The sandbox folder's refusals are worded by the module.
			v, err := f(this.Args())
			return v, word(rt.call.ctx, err)
		})
	}
	str := func(args []*qjs.Value, i int) string {
		if i >= len(args) || args[i].IsUndefined() || args[i].IsNull() {
			return ""
		}
		return args[i].String()
	}
	fn("__tr_console", func(args []*qjs.Value) (*qjs.Value, error) {
		rt.call.log(str(args, 0), str(args, 1))
		return nil, nil
	})
	fn("__tr_time", func(args []*qjs.Value) (*qjs.Value, error) {
		s, err := rt.call.time(str(args, 0), str(args, 1))
		if err != nil {
			return nil, err
		}
		return c.NewString(s), nil
	})
	fn("__tr_fs_read", func(args []*qjs.Value) (*qjs.Value, error) {
		s, err := rt.call.files().read(str(args, 0))
		if err != nil {
			return nil, err
		}
		return c.NewString(s), nil
	})
	fn("__tr_fs_write", func(args []*qjs.Value) (*qjs.Value, error) {
		appendTo := len(args) > 2 && args[2].Bool()
		return nil, rt.call.files().write(str(args, 0), str(args, 1), appendTo)
	})
	fn("__tr_fs_exists", func(args []*qjs.Value) (*qjs.Value, error) {
		return c.NewBool(rt.call.files().exists(str(args, 0))), nil
	})
	fn("__tr_fetch", func(args []*qjs.Value) (*qjs.Value, error) {
		s, err := rt.call.fetch(str(args, 0), str(args, 1))
		if err != nil {
			return nil, err
		}
		return c.NewString(s), nil
	})
	fn("__tr_lib", func(args []*qjs.Value) (*qjs.Value, error) {
		s, err := rt.call.runner.library(rt.call.ctx, str(args, 0))
		if err != nil {
			return nil, err
		}
		return c.NewString(s), nil
	})
	// One function serves the google bridge and the toolroute bridge,
	// the op naming which.
	fn("__tr_host", func(args []*qjs.Value) (*qjs.Value, error) {
		s, err := rt.call.hostOp(str(args, 0), str(args, 1))
		if err != nil {
			return nil, err
		}
		return c.NewString(s), nil
	})
}

// isClosed reports whether an error or panic came from the module being
// closed: by its context (a timeout) or by a trap.
func isClosed(msg string) bool {
	return strings.Contains(msg, "module closed")
}
