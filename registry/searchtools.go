package registry

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/toolroute/toolroute/registry/wordvec"
)

// SearchToolsName is the meta-tool that finds tools by what they do and
// loads exactly those: a tool-level load, beside load_tool_group's
// group-level one. The turn engine offers it when a session's settings ask
// for it; it is not among CoreTools.
const SearchToolsName = "search_tools"

// Search limits: how many tools a search loads when the call does not say,
// and at most.
const (
	DefaultSearchLimit = 5
	MaxSearchLimit     = 10
)

// SearchToolsTool is the search_tools meta-tool's definition.
func SearchToolsTool() Tool {
	return Tool{
		Name: SearchToolsName,
		Description: "Search every tool of every tool group by what it does, and load the best matches for the rest of this conversation. " +
			"Use it when you need a tool you do not have and do not know its group; describe the task in plain words. " +
			"It loads only the tools it returns, not their whole groups.",
		Parameters:     json.RawMessage(`{"type":"object","properties":{"query":{"type":"string","description":"What the tool should do, in plain words, such as \"send an email\" or \"convert a PDF page to an image\""},"limit":{"type":"integer","minimum":1,"maximum":10,"description":"How many tools to load, 5 if left out"}},"required":["query"]}`),
		Required:       []string{"query"},
		TimeoutSeconds: 5,
		Origin:         Origin{Kind: OriginMeta},
	}
}

// searchIndex is the index of the registry's enabled group tools, built at
// the first search after a change, and the word vectors it uses. Concurrent
// readers may each build it; they build the same index.
type searchIndex struct {
	ix   atomic.Pointer[Index]
	vecs atomic.Pointer[wordvec.Vectors]
}

func (r *Registry) index() *Index {
	if ix := r.search.ix.Load(); ix != nil {
		return ix
	}
	ix := NewIndex(r.SearchDocs(), r.search.vecs.Load())
	r.search.ix.Store(ix)
	return ix
}

// SetWordVectors gives search_tools word vectors to rank with beside BM25F
// (package wordvec's english table, as every host passes it); nil takes
// them away. Without them a search finds only tools that share a word with
// the query.
func (r *Registry) SetWordVectors(v *wordvec.Vectors) {
	r.search.vecs.Store(v)
	r.changed()
}

// changed forgets what was computed from the catalogue.
func (r *Registry) changed() {
	r.search.ix.Store(nil)
	r.memo.Store(nil)
}

// SearchTools runs the search_tools meta-tool on a call's arguments: the
// enabled group tools that best match the query, best first, and a result
// listing them with their group and what each does. active says which tools
// the conversation has already; they are listed as such. An empty result is
// a failure saying what to try instead.
func (r *Registry) SearchTools(args json.RawMessage, active func(name string) bool) (Result, []Tool) {
	query, limit, fail := ParseSearchArgs(args)
	if fail != nil {
		return *fail, nil
	}
	var names []string
	for _, h := range r.index().Search(query, limit) {
		names = append(names, h.Name)
	}
	return r.SearchFound(query, names, limit, active)
}

// ParseSearchArgs reads a search_tools call's arguments: its query,
// trimmed, and its limit (DefaultSearchLimit when left out). fail, when
// not nil, is the result the model reads for arguments that are not
// right; the search does not run.
func ParseSearchArgs(args json.RawMessage) (query string, limit int, fail *Result) {
	var in struct {
		Query *string         `json:"query"`
		Limit json.RawMessage `json:"limit"`
	}
	bad := func(r Result) (string, int, *Result) { return "", 0, &r }
	if json.Unmarshal(args, &in) != nil {
		return bad(Failure("invalid_arguments", `The arguments for 'search_tools' are not a JSON object: send {"query": "what the tool should do"}.`))
	}
	if in.Query == nil {
		return bad(Failure("missing_parameter", "Required parameter 'query' is missing."))
	}
	query = strings.TrimSpace(*in.Query)
	if query == "" {
		return bad(Failure("invalid_arguments", "The query of 'search_tools' is empty: say in plain words what the tool should do."))
	}
	limit = DefaultSearchLimit
	if len(in.Limit) > 0 && string(in.Limit) != "null" {
		var n float64
		if json.Unmarshal(in.Limit, &n) != nil || n != float64(int(n)) || n < 1 || n > MaxSearchLimit {
			return bad(Failure("invalid_arguments", fmt.Sprintf("The limit of 'search_tools' must be a whole number from 1 to %d, or left out for %d.", MaxSearchLimit, DefaultSearchLimit)))
		}
		limit = int(n)
	}
	return query, limit, nil
}

// SearchCandidates names the tools a search may find, in registration
// order: the enabled tools of the groups, those SearchDocs ranks.
func (r *Registry) SearchCandidates() []string {
	var out []string
	for _, t := range r.filter(func(t Tool) bool { return t.Group != "" }) {
		out = append(out, t.Name)
	}
	return out
}

// SearchFound is search_tools' answer for the tools a ranking found for
// query, best first: the first limit of names that are search candidates
// (SearchCandidates), each once, and the result listing them (see
// SearchTools). Other names (unknown, disabled, core tools) are dropped;
// when none is left the result is not_found.
func (r *Registry) SearchFound(query string, names []string, limit int, active func(name string) bool) (Result, []Tool) {
	var found []Tool
	for _, name := range names {
		if len(found) == limit {
			break
		}
		t, ok := r.Tool(name)
		if !ok || t.Group == "" || slices.ContainsFunc(found, func(f Tool) bool { return f.Name == name }) {
			continue
		}
		found = append(found, t)
	}
	if len(found) == 0 {
		return Failure("not_found", fmt.Sprintf(
			"No tool matches '%s'. Try other words for what the tool should do, or load a tool group listed in the system prompt with load_tool_group.",
			Shorten(query, 100))), nil
	}
	var b strings.Builder
	noun := "tools"
	if len(found) == 1 {
		noun = "tool"
	}
	fmt.Fprintf(&b, "Found %d %s for '%s', loaded for the rest of this conversation:", len(found), noun, Shorten(query, 100))
	for _, t := range found {
		g, _ := r.Group(t.Group)
		fmt.Fprintf(&b, "\n- %s (%s): %s", t.Name, g.DisplayName, firstSentence(t.Description, 200))
		if active != nil && active(t.Name) {
			b.WriteString(" (already loaded)")
		}
	}
	return Success(b.String()), found
}

// firstSentence is the start of a description up to its first sentence's
// end or line break, at most max runes.
func firstSentence(s string, max int) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if i := strings.Index(s, ". "); i >= 0 {
		s = s[:i+1]
	}
	return Shorten(s, max)
}

// Shorten keeps the first max characters (code points) of a long text,
// marking the cut with "…": how the texts the model and the user read
// quote a name or a query someone else wrote.
func Shorten(s string, max int) string {
	if r := []rune(s); len(r) > max {
		return string(r[:max]) + "…"
	}
	return s
}

// UnloadToolGroupName is the meta-tool that takes a loaded group's tools
// off the list. The turn engine offers it when a session has a tool budget.
const UnloadToolGroupName = "unload_tool_group"

// UnloadToolGroupTool is the unload_tool_group meta-tool's definition.
func UnloadToolGroupTool() Tool {
	return Tool{
		Name: UnloadToolGroupName,
		Description: "Unload a tool group you no longer need: its tools leave your list from your next step, which keeps each request small. " +
			"Load it again with load_tool_group if you need it later.",
		Parameters:     json.RawMessage(`{"type":"object","properties":{"group_name":{"type":"string","description":"The name of the loaded tool group to unload"}},"required":["group_name"]}`),
		Required:       []string{"group_name"},
		TimeoutSeconds: 5,
		Origin:         Origin{Kind: OriginMeta},
	}
}
