package host_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolroute/toolroute/host"
	"github.com/toolroute/toolroute/internal/fakemodel"
	"github.com/toolroute/toolroute/registry"
	"github.com/toolroute/toolroute/registry/session"
	"github.com/toolroute/toolroute/registry/wire"
)

// pluginTools are a few of MetaTool's tools (docs/development.md), with
// their descriptions, as host-native tools in two groups.
func pluginTools() ([]registry.Group, []host.NativeTool) {
	tool := func(name, group, desc string) host.NativeTool {
		return host.NativeTool{
			Tool: registry.Tool{Name: name, Description: desc, Group: group, Parameters: json.RawMessage(`{"properties":{"text":{"type":"string"}}}`)},
			Run:  func(ctx context.Context, in json.RawMessage) (string, error) { return "done: " + name, nil },
		}
	}
	return []registry.Group{
			{Name: "text", DisplayName: "Text", Description: "Tools for text"},
			{Name: "fun", DisplayName: "Fun", Description: "Games and apps"},
		}, []host.NativeTool{
			tool("chat_ocr", "text", "The best way to read text from from any document. Extract text from scanned PDFs, photos, and even handwriting."),
			tool("figlet", "text", "Utility for converting strings of text into ASCII fonts."),
			tool("word_cloud", "text", "Create word cloud images from text."),
			tool("speechki_tts", "text", "The easiest way to convert texts to ready-to-use audio — download link, audio player page, or embed!"),
			tool("sudoku", "fun", "This is a sudoku game. You use voice or text to play."),
			tool("app_builder", "fun", "AI-powered Text-to-App Generator turns your app idea into Android and iOS apps- just provide text input."),
		}
}

// searchResult is the text search_tools answered in a turn's events.
func searchResult(evs []host.Event) (call *session.Message, result string) {
	for _, ev := range evs {
		if ev.Type == host.EventMessage && ev.Message.ToolName == registry.SearchToolsName {
			if ev.Message.Type == session.ToolCall {
				call = ev.Message
			} else {
				result = ev.Message.Content
			}
		}
	}
	return call, result
}

// The Go host ranks search_tools as `toolroute search` does once it has
// embedded the catalogue: a query in other words than the tool's
// ("listen to it" for "convert texts to audio") finds the tool, which the
// module's BM25F and word vectors rank below others; the tool is loaded
// and runs, and a later turn, in a host that leaves the ranking to the
// module, restores it from the log.
func TestHostRanksSearchTools(t *testing.T) {
	const query = `{"query":"Ugh, too much text! Is there a way to listen to it instead?","limit":2}`
	groups, tools := pluginTools()

	// The module alone.
	model := fakemodel.New(fakemodel.OpenAI, fakemodel.ToolCall("search_tools", query), fakemodel.Text("Done."))
	defer model.Close()
	h := newHost(t, model, wire.OpenAI, host.Options{Groups: groups, Tools: tools, SearchTools: true, NoEncoderSearch: true, NoBuiltins: true})
	_, byModule := searchResult(send(t, h.Session("s"), "Read this to me"))
	if !strings.HasPrefix(byModule, "Found 2 tools") || strings.Contains(byModule, "speechki_tts") {
		t.Fatalf("the module's ranking: %q; want two tools and not speechki_tts, or the query no longer tells the rankings apart", byModule)
	}

	// The host, once ready.
	cache := t.TempDir()
	store := host.NewMemoryStore()
	model = fakemodel.New(fakemodel.OpenAI,
		fakemodel.ToolCall("search_tools", query),
		fakemodel.ToolCall("speechki_tts", `{"text":"a long text"}`),
		fakemodel.Text("Here is the audio."),
		fakemodel.ToolCall("speechki_tts", `{"text":"another"}`),
		fakemodel.Text("Again."),
	)
	defer model.Close()
	h = newHost(t, model, wire.OpenAI, host.Options{Groups: groups, Tools: tools, SearchTools: true, NoBuiltins: true, SearchCacheDir: cache, Store: store})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := h.WaitSearch(ctx); err != nil {
		t.Fatal(err)
	}
	evs := send(t, h.Session("s"), "Read this to me")
	call, result := searchResult(evs)
	if !strings.HasPrefix(result, "Found 2 tools for 'Ugh, too much text! Is there a way to listen to it instead?', loaded for the rest of this conversation:\n- speechki_tts (Text): The easiest way to convert texts to ready-to-use audio") {
		t.Errorf("the host's ranking: %q; want speechki_tts first", result)
	}
	if call == nil || call.Status != registry.StatusSuccess || len(call.Loaded) != 2 || call.Loaded[0] != "speechki_tts" {
		t.Errorf("the search's tool_call %+v: want success, loaded with speechki_tts first", call)
	}
	var ran []session.Call
	for _, ev := range evs {
		if ev.Type == host.EventToolCalls {
			ran = append(ran, ev.Calls...)
		}
	}
	if len(ran) != 2 || ran[0].Origin.Kind != registry.OriginSearch || ran[0].Search == nil || ran[1].Tool != "speechki_tts" {
		t.Errorf("the calls run: %+v; want the search, then speechki_tts", ran)
	}
	if ev := last(evs); ev.Type != host.EventDone || ev.Text != "Here is the audio." {
		t.Errorf("the turn ended with %+v", ev)
	}
	if files, _ := filepath.Glob(filepath.Join(cache, "use-*.vec")); len(files) != 1 {
		t.Errorf("the tools' vectors are not kept in the cache folder: %v", files)
	}

	// A later turn in a host that does not rank: restored from the log.
	later := newHost(t, model, wire.OpenAI, host.Options{Groups: groups, Tools: tools, SearchTools: true, NoEncoderSearch: true, NoBuiltins: true, Store: store})
	if ev := last(send(t, later.Session("s"), "Once more")); ev.Type != host.EventDone || ev.Text != "Again." {
		t.Fatalf("the later turn ended with %+v", ev)
	}
	reqs := model.Requests()
	if got := reqs[len(reqs)-2].ToolNames(); !slices.Contains(got, "speechki_tts") || slices.Contains(got, "figlet") {
		t.Errorf("the later turn's first call offers %v: want the tools found, not their group", got)
	}
}

// WaitSearch returns at once for a host that does not rank; a cache
// folder that cannot be made costs only the keeping of the vectors.
func TestWaitSearch(t *testing.T) {
	groups, tools := pluginTools()
	model := fakemodel.New(fakemodel.OpenAI)
	defer model.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, opts := range []host.Options{{}, {SearchTools: true, NoEncoderSearch: true}} {
		opts.Groups, opts.Tools, opts.NoBuiltins = groups, tools, true
		off := newHost(t, model, wire.OpenAI, opts)
		quick, stop := context.WithCancel(ctx)
		stop() // only a wait that need not wait returns nil
		if err := off.WaitSearch(quick); err != nil {
			t.Errorf("a host that does not rank (%+v) waits: %v", opts, err)
		}
	}
	blocked := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(blocked, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	h := newHost(t, model, wire.OpenAI, host.Options{Groups: groups, Tools: tools, SearchTools: true, NoBuiltins: true, SearchCacheDir: filepath.Join(blocked, "sub")})
	if err := h.WaitSearch(ctx); err != nil {
		t.Fatal(err)
	}
}

// pluginSource is a ToolSource, as an MCP server is, whose tools change.
type pluginSource struct {
	mu    sync.Mutex
	tools []host.NativeTool
}

func (p *pluginSource) Tools(context.Context, registry.Catalogue) ([]registry.Group, []host.NativeTool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return nil, p.tools
}

// A change of the catalogue (an MCP server's list, a manifest) embeds the
// new tools again: after Reload the host's search finds a tool that was
// not there.
func TestHostSearchAfterReload(t *testing.T) {
	groups, tools := pluginTools()
	speech := tools[3]
	src := &pluginSource{}
	model := fakemodel.New(fakemodel.OpenAI)
	defer model.Close()
	h := newHost(t, model, wire.OpenAI, host.Options{Groups: groups, Tools: slices.Delete(slices.Clone(tools), 3, 4), ToolSources: []host.ToolSource{src},
		SearchTools: true, NoBuiltins: true, SearchCacheDir: t.TempDir()})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	search := func(session string) string {
		t.Helper()
		if err := h.WaitSearch(ctx); err != nil {
			t.Fatal(err)
		}
		model.Add(fakemodel.ToolCall("search_tools", `{"query":"Ugh, too much text! Is there a way to listen to it instead?","limit":1}`), fakemodel.Text("Done."))
		_, result := searchResult(send(t, h.Session(session), "Read this to me"))
		return result
	}
	if got := search("before"); strings.Contains(got, "speechki_tts") {
		t.Fatalf("found a tool not in the catalogue: %q", got)
	}
	src.mu.Lock()
	src.tools = []host.NativeTool{speech}
	src.mu.Unlock()
	if err := h.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	if got := search("after"); !strings.Contains(got, "- speechki_tts (Text)") {
		t.Errorf("after the reload the search answered %q, want speechki_tts", got)
	}
}
