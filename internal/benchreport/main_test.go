package main

import (
	"strings"
	"testing"
)

func TestParseAndMedian(t *testing.T) {
	out := `goos: linux
BenchmarkColdCall-2         	      20	    731000 ns/op	  12 B/op	       1 allocs/op
BenchmarkColdCall-2         	      20	    700000 ns/op	  12 B/op	       1 allocs/op
BenchmarkColdCall-2         	      20	    900000 ns/op	  12 B/op	       1 allocs/op
BenchmarkRuntimeMemory-2    	       1	   5000 ns/op	   2097152 wasm-bytes/runtime	 100 B/op	 1 allocs/op
BenchmarkStartTurn/history=10/wasm-2  3  2000 ns/op
BenchmarkStartTurn/history=10/native-2  3  500 ns/op
PASS
`
	var order []string
	res := parse(out, &order)
	if got := strings.Join(order, ","); got != "BenchmarkColdCall,BenchmarkRuntimeMemory,BenchmarkStartTurn/history=10/wasm,BenchmarkStartTurn/history=10/native" {
		t.Fatalf("order = %s", got)
	}
	if m := median(res["BenchmarkColdCall"]["ns/op"]); m != 731000 {
		t.Errorf("median = %v", m)
	}
	if v := res["BenchmarkRuntimeMemory"]["wasm-bytes/runtime"]; len(v) != 1 || v[0] != 2097152 {
		t.Errorf("custom metric = %v", v)
	}
	rows := benchRows(res, order, map[string]string{})
	var wasm string
	for _, r := range rows {
		if r.figure == "StartTurn/history=10/wasm" {
			wasm = r.value
		}
	}
	if !strings.Contains(wasm, "4.0x native") {
		t.Errorf("the wasm row = %q", wasm)
	}
	if median([]float64{4, 1, 3, 2}) != 2.5 || median(nil) != 0 {
		t.Error("median of an even count or of nothing")
	}
}

// TestParseNode reads web/jsrun/bench.mjs's lines, which carry no GOMAXPROCS
// suffix: a name ending in a number keeps it.
func TestParseNode(t *testing.T) {
	out := "BenchmarkJSTrivialLoop/none\t1\t800000000 ns/op\t80.0 ns/turn\n" +
		"BenchmarkJSTrivialLoop/poll-every-10000-ops\t1\t820000000 ns/op\t82.0 ns/turn\n" +
		"BenchmarkJSTrivialLoop/interrupt-handler\t1\t2400000000 ns/op\t240.0 ns/turn\n"
	var order []string
	res := parse(out, &order)
	rows := benchRows(res, order, map[string]string{})
	want := map[string]string{
		"JSTrivialLoop/none":                 "800ms/op, 80 ns/turn",
		"JSTrivialLoop/poll-every-10000-ops": "820ms/op, 1.0x none, 82 ns/turn",
		"JSTrivialLoop/interrupt-handler":    "2.4s/op, 3.0x none, 240 ns/turn",
	}
	if len(rows) != len(want) {
		t.Fatalf("rows = %v", rows)
	}
	for _, r := range rows {
		if want[r.figure] != r.value {
			t.Errorf("%s = %q, want %q", r.figure, r.value, want[r.figure])
		}
	}
}
