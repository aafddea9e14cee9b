package jsrun

import (
	"context"
	"errors"
	"reflect"
	"sync"
	"unsafe"

	"github.com/fastschema/qjs"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
)

// qjs v0.0.6 calls into QuickJS by name: every call asks the module for the
// export (api.Module.ExportedFunction), and wazero answers each lookup with
// a new call engine, its own stack included. That cost about 3.7 µs a call
// and some 22 calls a tool call. cacheExports puts a wrapper in front of the
// runtime's module that keeps the engines and hands them out again.
//
// An engine may not run two calls at once, and QuickJS re-enters itself: a
// host function (a bridge) called from QJS_Eval calls back into QuickJS,
// possibly the same export. So each export keeps a list of idle engines; a
// call takes one (or makes one when all are busy) and gives it back after.

// cachedModule is the runtime's module with its exported functions cached.
type cachedModule struct {
	api.Module
	mu    sync.Mutex
	funcs map[string]*cachedFunc // nil when the module has no such export
}

// ExportedFunction returns the cached function for name, or nil when the
// module exports no function of that name, as api.Module does.
func (m *cachedModule) ExportedFunction(name string) api.Function {
	m.mu.Lock()
	f, ok := m.funcs[name]
	if !ok {
		if fn := m.Module.ExportedFunction(name); fn != nil {
			f = &cachedFunc{Function: fn, m: m, name: name, idle: []api.Function{fn}}
		}
		m.funcs[name] = f
	}
	m.mu.Unlock()
	if f == nil {
		return nil
	}
	return f
}

// cachedFunc is one export. Its embedded Function gives the definition; the
// calls run on idle engines.
type cachedFunc struct {
	api.Function
	m    *cachedModule
	name string
	idle []api.Function // engines not running a call; guarded by m.mu
}

func (f *cachedFunc) take() api.Function {
	f.m.mu.Lock()
	if n := len(f.idle); n > 0 {
		e := f.idle[n-1]
		f.idle = f.idle[:n-1]
		f.m.mu.Unlock()
		return e
	}
	f.m.mu.Unlock()
	// Every engine is in a call further up the stack: a new one.
	return f.m.Module.ExportedFunction(f.name)
}

func (f *cachedFunc) give(e api.Function) {
	f.m.mu.Lock()
	f.idle = append(f.idle, e)
	f.m.mu.Unlock()
}

// Call implements api.Function.
func (f *cachedFunc) Call(ctx context.Context, params ...uint64) ([]uint64, error) {
	e := f.take()
	defer f.give(e)
	return e.Call(ctx, params...)
}

// CallWithStack implements api.Function.
func (f *cachedFunc) CallWithStack(ctx context.Context, stack []uint64) error {
	e := f.take()
	defer f.give(e)
	return e.CallWithStack(ctx, stack)
}

var errQJSLayout = errors.New("jsrun: qjs.Runtime has no field module of type api.Module: the export cache is written for qjs v0.0.6")

// cacheExports replaces q's module, an unexported field of qjs.Runtime, by
// the caching wrapper. The field is found by name and type, and a qjs whose
// Runtime has no such field is refused, not patched blindly.
func cacheExports(q *qjs.Runtime) error {
	field := reflect.ValueOf(q).Elem().FieldByName("module")
	modType := reflect.TypeFor[api.Module]()
	if !field.IsValid() || field.Type() != modType {
		return errQJSLayout
	}
	field = reflect.NewAt(modType, unsafe.Pointer(field.UnsafeAddr())).Elem()
	mod, _ := field.Interface().(api.Module)
	if mod == nil {
		return errQJSLayout
	}
	if _, done := mod.(*cachedModule); done {
		return nil
	}
	field.Set(reflect.ValueOf(&cachedModule{Module: mod, funcs: map[string]*cachedFunc{}}))
	return nil
}

var errQJSRuntime = errors.New("jsrun: qjs.Runtime has no field wrt of type wazero.Runtime: closing runtimes is written for qjs v0.0.6")

// wazeroRuntime returns the wazero runtime qjs made for q, an unexported
// field of qjs.Runtime found by name and type, which qjs never closes.
func wazeroRuntime(q *qjs.Runtime) (wazero.Runtime, error) {
	field := reflect.ValueOf(q).Elem().FieldByName("wrt")
	wrtType := reflect.TypeFor[wazero.Runtime]()
	if !field.IsValid() || field.Type() != wrtType {
		return nil, errQJSRuntime
	}
	wrt, _ := reflect.NewAt(wrtType, unsafe.Pointer(field.UnsafeAddr())).Elem().Interface().(wazero.Runtime)
	if wrt == nil {
		return nil, errQJSRuntime
	}
	return wrt, nil
}
