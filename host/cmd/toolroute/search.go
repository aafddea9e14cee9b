package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/toolroute/toolroute/registry"
	"github.com/toolroute/toolroute/registry/wordvec/english"
)

// runSearch ranks the tools of a tool list for each query of standard input,
// one query a line: the names of the best -k, tab-separated, one line per
// query, a blank line for a blank query (or one that matches nothing), so
// that line n of the output answers line n of the input. This is how the
// ranking is measured (make bench) and judged, on any tool list.
func runSearch(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	flags := newFlagSet("search", stderr)
	tools := flags.String("tools", "", "the tool list: a JSON array of objects with \"name\" and \"description\" (required)")
	k := flags.Int("k", 5, "how many tools to print for each query")
	asJSON := flags.Bool("json", false, "print each query's answer as a JSON object {\"query\", \"tools\": [{\"name\", \"score\"}]}")
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
	index := registry.NewIndex(docs, english.Vectors())

	in := bufio.NewReader(stdin)
	out := bufio.NewWriter(stdout)
	for {
		line, readErr := in.ReadString('\n')
		if line == "" && readErr != nil {
			if readErr != io.EOF {
				fmt.Fprintf(stderr, "toolroute search: reading standard input: %v\n", readErr)
				out.Flush()
				return 1
			}
			break
		}
		query := strings.TrimRight(line, "\r\n")
		var hits []registry.SearchHit
		if strings.TrimSpace(query) != "" {
			hits = index.Search(query, *k)
		}
		if *asJSON {
			writeJSONHits(out, query, hits)
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
		if err := out.Flush(); err != nil {
			fmt.Fprintf(stderr, "toolroute search: %v\n", err)
			return 1
		}
		if readErr != nil {
			break
		}
	}
	return 0
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
