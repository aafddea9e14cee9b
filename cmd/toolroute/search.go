package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/toolroute/toolroute/assets"
	"github.com/toolroute/toolroute/internal/toolsearch"
	"github.com/toolroute/toolroute/registry"
)

// runSearch ranks the tools of a tool list for each query of standard input,
// one query a line: the names of the best -k, tab-separated, one line per
// query, a blank line for a blank query, so that line n of the output
// answers line n of the input. This is how the ranking is measured (make
// bench) and judged, on any tool list.
//
// The ranking (internal/toolsearch) adds the query's sentence-embedding cosines
// with each tool's texts to registry's BM25F; --words ranks as the module's
// search_tools does in every host, by BM25F and word vectors, and then a
// query that matches no tool gets a blank line. Queries are ranked on all processors,
// each answer written as soon as those before it are.
func runSearch(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	flags := newFlagSet("search", stderr)
	tools := flags.String("tools", "", "the tool list: a JSON array of objects with \"name\" and \"description\" (required)")
	k := flags.Int("k", 5, "how many tools to print for each query")
	asJSON := flags.Bool("json", false, "print each query's answer as a JSON object {\"query\", \"tools\": [{\"name\", \"score\"}]}")
	words := flags.Bool("words", false, "rank as search_tools does in every host (BM25F and word vectors), without the sentence encoder")
	cache := flags.String("cache", defaultSearchCache(), "the folder that keeps the tools' vectors between runs (\"\" for none)")
	rest, err := parseArgs(flags, args)
	if err != nil {
		return exitFor(err)
	}
	if len(rest) > 0 {
		fmt.Fprintf(stderr, "toolroute search: unexpected %q: the queries come on standard input, one a line\n", rest[0])
		return 2
	}
	if *tools == "" {
		fmt.Fprint(stderr, "toolroute search: --tools FILE.json is required: a JSON array of objects with \"name\" and \"description\"\n")
		return 2
	}
	if *k < 1 {
		fmt.Fprintf(stderr, "toolroute search: -k %d: give 1 or more\n", *k)
		return 2
	}
	data, err := os.ReadFile(*tools)
	if err != nil {
		fmt.Fprintf(stderr, "toolroute search: %v\n", err)
		return 1
	}
	docs, err := registry.ParseToolList(data)
	if err == nil && len(docs) == 0 {
		err = errors.New("it lists no tools")
	}
	if err != nil {
		fmt.Fprintf(stderr, "toolroute search: %s: %v\n", *tools, err)
		return 1
	}
	var rank func(query string) []registry.SearchHit
	if *words {
		index := registry.NewIndex(docs, assets.Vectors())
		rank = func(q string) []registry.SearchHit { return index.Search(q, *k) }
	} else {
		r, err := toolsearch.New(docs, toolsearch.Options{Weights: toolsearch.DefaultWeights(), CacheDir: *cache})
		if err != nil {
			fmt.Fprintf(stderr, "toolroute search: %v\n", err)
			return 1
		}
		rank = func(q string) []registry.SearchHit { return r.Search(q, *k) }
	}

	// The reader hands each line to the workers and, in input order, to
	// the writer, which waits for each answer in turn.
	type job struct {
		query string
		hits  chan []registry.SearchHit
	}
	ordered, todo := make(chan *job, 64), make(chan *job, 64)
	var readErr error
	go func() {
		defer close(ordered)
		defer close(todo)
		in := bufio.NewReader(stdin)
		for {
			line, err := in.ReadString('\n')
			if line == "" && err != nil {
				if err != io.EOF {
					readErr = err
				}
				return
			}
			j := &job{strings.TrimRight(line, "\r\n"), make(chan []registry.SearchHit, 1)}
			ordered <- j
			todo <- j
			if err != nil {
				return
			}
		}
	}()
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for j := range todo {
				var hits []registry.SearchHit
				if strings.TrimSpace(j.query) != "" {
					hits = rank(j.query)
				}
				j.hits <- hits
			}
		})
	}
	out := bufio.NewWriter(stdout)
	var writeErr error
	for j := range ordered {
		hits := <-j.hits
		if writeErr != nil {
			continue // drain, so that the reader and workers finish
		}
		if *asJSON {
			writeJSONHits(out, j.query, hits)
		} else {
			for i, h := range hits {
				if i > 0 {
					out.WriteByte('\t')
				}
				out.WriteString(h.Name)
			}
			out.WriteByte('\n')
		}
		// A line answered at once, for a person typing or a program
		// waiting on each answer.
		writeErr = out.Flush()
	}
	wg.Wait()
	if writeErr != nil {
		fmt.Fprintf(stderr, "toolroute search: %v\n", writeErr)
		return 1
	}
	if readErr != nil {
		fmt.Fprintf(stderr, "toolroute search: reading standard input: %v\n", readErr)
		return 1
	}
	return 0
}

// defaultSearchCache is the user's cache folder's toolroute folder, or ""
// where the system has none.
func defaultSearchCache() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "toolroute")
}

func writeJSONHits(w io.Writer, query string, hits []registry.SearchHit) {
	if hits == nil {
		hits = []registry.SearchHit{}
	}
	b, _ := json.Marshal(struct {
		Query string               `json:"query"`
		Tools []registry.SearchHit `json:"tools"`
	}{query, hits})
	w.Write(append(b, '\n'))
}
