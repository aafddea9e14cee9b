package jsrun

import (
	"reflect"
	"testing"
	"unsafe"

	"github.com/fastschema/qjs"
	"github.com/tetratelabs/wazero/api"
)

// moduleOf reads the module qjs calls through, the field cacheExports
// replaces.
func moduleOf(t *testing.T, q *qjs.Runtime) api.Module {
	t.Helper()
	f := reflect.ValueOf(q).Elem().FieldByName("module")
	return reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem().Interface().(api.Module)
}

func TestExportsCached(t *testing.T) {
	rt, err := newRuntime(build{memoryLimit: DefaultMemoryLimit})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.close()
	m, ok := moduleOf(t, rt.q).(*cachedModule)
	if !ok {
		t.Fatalf("the runtime calls through %T, not the export cache", moduleOf(t, rt.q))
	}
	a, b := m.ExportedFunction("JS_HasException"), m.ExportedFunction("JS_HasException")
	if a == nil || a != b {
		t.Fatalf("two lookups of JS_HasException gave %p and %p, want one cached function", a, b)
	}
	if f := m.ExportedFunction("no_such_export"); f != nil {
		t.Fatalf("a missing export gave %v, want nil as wazero gives", f)
	}
	if err := cacheExports(rt.q); err != nil || moduleOf(t, rt.q) != api.Module(m) {
		t.Fatalf("a second cacheExports wrapped the wrapper (%v)", err)
	}
}

// A host function called from QJS_Eval that evaluates JS itself calls
// QJS_Eval again while the outer call runs: the inner call must get an
// engine of its own, and both must answer.
func TestExportsReentrant(t *testing.T) {
	rt, err := newRuntime(build{memoryLimit: DefaultMemoryLimit})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.close()
	c := rt.q.Context()
	c.SetFunc("__test_inner", func(this *qjs.This) (*qjs.Value, error) {
		v, err := c.Eval("inner.js", qjs.Code(`[6, 7].reduce((a, b) => a * b)`))
		if err != nil {
			return nil, err
		}
		defer v.Free()
		return c.NewInt32(v.Int32() + int32(len(this.Args()))), nil
	})
	for i := range 3 {
		out, err := rt.eval("outer.js", `String(__test_inner("x") + __test_inner())`)
		if err != nil || out != "85" {
			t.Fatalf("run %d: %q, %v; want 85 (43 + 42)", i, out, err)
		}
	}
	f := moduleOf(t, rt.q).(*cachedModule).funcs["QJS_Eval"]
	if f == nil || len(f.idle) != 2 {
		t.Fatalf("QJS_Eval has %d idle engines after nested calls, want 2 (outer and inner)", len(f.idle))
	}
}
