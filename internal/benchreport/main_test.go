package main

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
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

// TestParseNode reads web/packages/toolroute/jsrun/bench.mjs's lines, which carry no GOMAXPROCS
// suffix: a name ending in a number keeps it.
func TestParseNode(t *testing.T) {
	out := "BenchmarkJSTrivialLoop/none\t1\t800000000 ns/op\t80.0 ns/turn\n" +
		"BenchmarkJSTrivialLoop/poll-every-10000-ops\t1\t820000000 ns/op\t82.0 ns/turn\n" +
		"BenchmarkJSTrivialLoop/interrupt-handler\t1\t2400000000 ns/op\t240.0 ns/turn\n" +
		"BenchmarkJSTrivialLoop/hard-stop\t1\t2800000000 ns/op\t280.0 ns/turn\n"
	var order []string
	res := parse(out, &order)
	rows := benchRows(res, order, map[string]string{})
	want := map[string]string{
		"JSTrivialLoop/none":                 "800ms/op, 80 ns/turn",
		"JSTrivialLoop/poll-every-10000-ops": "820ms/op, 1.0x none, 82 ns/turn",
		"JSTrivialLoop/interrupt-handler":    "2.4s/op, 3.0x none, 240 ns/turn",
		"JSTrivialLoop/hard-stop":            "2.8s/op, 3.5x none, 280 ns/turn",
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

// The AI SDK adapter's lines (web/packages/toolroute/ai-sdk/bench.mjs) go
// to their own section, a session's step against describing the whole
// history, with the messages the module is given per step.
func TestAISDKRows(t *testing.T) {
	out := "BenchmarkAISDKPrepareStep/messages=4000/session\t10\t400000 ns/op\t2.0 module-messages/step\n" +
		"BenchmarkAISDKPrepareStep/messages=4000/whole-history\t10\t40000000 ns/op\n"
	var order []string
	rows := benchRows(parse(out, &order), order, map[string]string{})
	want := map[string]string{
		"AISDKPrepareStep/messages=4000/session":       "400µs/op, 1/100 of whole-history, 2 module-messages/step",
		"AISDKPrepareStep/messages=4000/whole-history": "40ms/op",
	}
	if len(rows) != len(want) {
		t.Fatalf("rows = %v", rows)
	}
	for _, r := range rows {
		if want[r.figure] != r.value || r.section != "13. The AI SDK adapter" {
			t.Errorf("%s = %q in %q, want %q in section 13", r.figure, r.value, r.section, want[r.figure])
		}
	}
}

// The UI's figures: the initial JavaScript against the target, the
// tokenizer apart, the wasm files, by how index.html reaches each file.
func TestUIRows(t *testing.T) {
	files := fstest.MapFS{
		"index.html":    {Data: []byte(`<link rel="stylesheet" href="app.css"><script type="module" src="app.js"></script>`)},
		"app.css":       {Data: []byte(`body{}`)},
		"app.js":        {Data: []byte(`new Worker(new URL("worker.js",import.meta.url));`)},
		"worker.js":     {Data: []byte(`import"./chunk-AAAA.js";import("./chunk-TTTT.js");import("./chunk-QQQQ.js");new URL("toolroute.wasm",b);new URL("quickjs.wasm",b)`)},
		"chunk-AAAA.js": {Data: []byte(strings.Repeat("a", 1000))},
		"chunk-TTTT.js": {Data: []byte(`const e="o200k_base";`)},
		"chunk-QQQQ.js": {Data: []byte(`export const q=1;`)},
		"quickjs.wasm":  {Data: []byte("\x00asm")},
	}
	rows, err := uiRows(files, []byte("\x00asm\x01\x00\x00\x00"))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, r := range rows {
		if r.section != uiSection {
			t.Errorf("row %q in section %q", r.figure, r.section)
		}
		got[strings.SplitN(r.figure, ",", 2)[0]] = r.value
	}
	initial := len(files["app.js"].Data) + len(files["worker.js"].Data) + 1000
	for figure, want := range map[string]string{
		"initial JavaScript: what the page runs before the first interaction (index.html's script": fmt.Sprintf("3 files (app.js, worker.js, chunk-AAAA.js): %d bytes raw,", initial),
		"the o200k_base tokenizer":                      "chunk-TTTT.js: 21 bytes raw,",
		"other JavaScript import()ed when first needed": "1 files (chunk-QQQQ.js): 17 bytes raw,",
		"toolroute.wasm":                                "8 bytes raw,",
		"quickjs.wasm":                                  "4 bytes raw,",
		"the page's other files":                        "index.html, app.css: ",
		"what the UI adds to the program":               "",
	} {
		if v, ok := got[figure]; !ok || !strings.HasPrefix(v, want) {
			t.Errorf("%s = %q, want it to start with %q", figure, v, want)
		}
	}
	if v := got["initial JavaScript: what the page runs before the first interaction (index.html's script"]; !strings.Contains(v, "under the 500 KB target; the largest, chunk-AAAA.js, 1000 raw") {
		t.Errorf("initial JavaScript = %q", v)
	}
}

// -search rewrites its own section and the notes, and leaves the rest.
func TestReplaceSection(t *testing.T) {
	doc := "# Benchmarks\n\n## 1. Tokens\n\n| a |\n\n## 6. The browser UI\n\n| b |\n\n## Where figures miss their targets\n\nold notes\n"
	table := "\n## 8. Tool search\n\n| search 1 |\n"
	once := replaceSection(doc, table, "\n## Where figures miss their targets\n\nnew notes\n")
	want := "# Benchmarks\n\n## 1. Tokens\n\n| a |\n\n## 6. The browser UI\n\n| b |\n\n## 8. Tool search\n\n| search 1 |\n\n## Where figures miss their targets\n\nnew notes\n"
	if once != want {
		t.Errorf("first time:\n%s\nwant:\n%s", once, want)
	}
	twice := replaceSection(once, "\n## 8. Tool search\n\n| search 2 |\n", "\n## Where figures miss their targets\n\nnew notes\n")
	if twice != strings.Replace(want, "search 1", "search 2", 1) {
		t.Errorf("second time:\n%s", twice)
	}
	// A section followed by others stays where it is.
	middle := strings.Replace(once, "## 8. Tool search\n\n| search 1 |\n", "## 8. Tool search\n\n| search 1 |\n\n## 9. The worker\n\n| c |\n", 1)
	got := replaceSection(middle, "\n## 8. Tool search\n\n| search 3 |\n", "\n## Where figures miss their targets\n\nnew notes\n")
	if want := strings.Replace(middle, "search 1", "search 3", 1); got != want {
		t.Errorf("a section in the middle:\n%s\nwant:\n%s", got, want)
	}
}

// The "how" column's command runs the benchmark of its row and no other.
func TestBenchPattern(t *testing.T) {
	for _, tt := range []struct{ name, want string }{
		{"BenchmarkCallItself", "^BenchmarkCallItself$"},
		{"BenchmarkCatalogue/tools=100/wasm", "^BenchmarkCatalogue$/^tools=100$/^wasm$"},
	} {
		if got := benchPattern(tt.name); got != tt.want {
			t.Errorf("benchPattern(%q) = %q, want %q", tt.name, got, tt.want)
		}
	}
}

// A first visit, through serve's handler: the files and the catalogue,
// each smaller in brotli than as they are, and the sum of the two.
func TestFirstVisitRows(t *testing.T) {
	files := fstest.MapFS{
		"index.html": {Data: []byte(`<script type="module" src="app.js"></script>` + strings.Repeat("<p>words words words</p>", 100))},
		"app.js":     {Data: []byte(strings.Repeat("const words = 'words';\n", 200))},
	}
	rows, err := firstVisitRows(files, []byte(strings.Repeat("\x00asm\x01\x00\x00\x00", 1000)))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 3 {
		t.Fatalf("rows = %v", rows)
	}
	if v := rows[0].value; !strings.HasPrefix(v, "4 files: ") || !strings.Contains(v, "; the module ") {
		t.Errorf("the files: %q", v)
	}
	sizes := regexp.MustCompile(`^(?:\d+ files: )?(\d+) bytes to Chromium \(brotli\), (\d+) to a client taking gzip alone, (\d+) before`)
	var sums [3]int
	for i, r := range rows {
		if r.section != uiSection {
			t.Errorf("row %q in section %q", r.figure, r.section)
		}
		m := sizes.FindStringSubmatch(r.value)
		if m == nil {
			t.Fatalf("%s: %q", r.figure, r.value)
		}
		br, _ := strconv.Atoi(m[1])
		gz, _ := strconv.Atoi(m[2])
		raw, _ := strconv.Atoi(m[3])
		if !(br > 0 && br < raw && gz < raw) {
			t.Errorf("%s: %q", r.figure, r.value)
		}
		if i < 2 {
			sums[0], sums[1], sums[2] = sums[0]+br, sums[1]+gz, sums[2]+raw
		} else if [3]int{br, gz, raw} != sums {
			t.Errorf("in all %q, the sum of the others %v", r.value, sums)
		}
	}
}

// The soak's metrics read as serve's memory at the start and after each
// round, with the verdict against issue 34's 20%.
func TestMemoryRows(t *testing.T) {
	const mib = 1 << 20
	units := map[string][]float64{
		"rss-at-start-bytes": {160 * mib}, "live-heap-at-start-bytes": {25 * mib}, "goroutines-at-start": {16},
		"rss-after-round-1-bytes": {250 * mib}, "rss-after-round-2-bytes": {275 * mib}, "rss-after-round-3-bytes": {260 * mib},
		"peak-rss-round-1-bytes": {300 * mib}, "peak-rss-round-2-bytes": {310 * mib}, "peak-rss-round-3-bytes": {305 * mib},
		"live-heap-after-round-1-bytes": {50 * mib}, "live-heap-after-round-2-bytes": {52 * mib}, "live-heap-after-round-3-bytes": {51 * mib},
		"goroutines-after-round-1": {18}, "goroutines-after-round-2": {19}, "goroutines-after-round-3": {18},
		"turns/round": {1000}, "new-sessions/round": {100},
	}
	rows := memoryRows(units, "how")
	if len(rows) != 4 {
		t.Fatalf("%d rows: %+v", len(rows), rows)
	}
	for i, want := range []string{
		"at start 160; after rounds 1 to 3: 250, 275, 260 MiB, each at the end of the round's idle; rounds 2 to 3 against round 1: +10%, +4% (target: at most +20%, met)",
		"300, 310, 305 MiB",
		"at start 25; after rounds 1 to 3: 50, 52, 51 MiB of live heap; at start 16; after rounds 1 to 3: 18, 19, 18 goroutines",
		"1000 turns and 100 new sessions a round (mean)",
	} {
		if rows[i].value != want || rows[i].section != memorySection {
			t.Errorf("row %d = %q in %q, want %q", i, rows[i].value, rows[i].section, want)
		}
	}
	units["rss-after-round-3-bytes"] = []float64{320 * mib}
	if v := memoryRows(units, "how")[0].value; !strings.HasSuffix(v, "+10%, +28% (target: at most +20%, missed)") {
		t.Errorf("a round 28%% above the first: %q", v)
	}
	units["rss-after-round-2-bytes"], units["rss-after-round-3-bytes"] = []float64{240 * mib}, []float64{230 * mib}
	if v := memoryRows(units, "how")[0].value; !strings.HasSuffix(v, "-4%, -8% (target: at most +20%, met)") {
		t.Errorf("rounds below the first: %q", v)
	}
	if rows := memoryRows(map[string][]float64{}, "how"); rows != nil {
		t.Errorf("no metrics gave %+v", rows)
	}
}
