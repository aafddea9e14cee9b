// Package schematokens measures what tool routing saves: how many tokens the
// tool schemas cost per model call when every tool is sent, when only the core
// tools are, and when the core tools and one or every group are loaded.
//
// What is counted is the "tools" array of an OpenAI Chat Completions request
// body exactly as registry/wire encodes it, with the tokenizers of
// internal/tokens. A provider turns that array into its own prompt text before
// the model reads it, so the count is a measure of the schemas' size in
// tokens, not the provider's bill.
//
// The texts counted are the module's: an instance of it loads the catalogue
// and describes it (toolroute_describe's tools_json), so the counts are of
// what the module sends, with no registry built beside it. The package
// does no other I/O besides WriteText's writer.
package schematokens

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/toolroute/toolroute/internal/abi"
	"github.com/toolroute/toolroute/internal/module"
	"github.com/toolroute/toolroute/internal/tokens"
	"github.com/toolroute/toolroute/registry"
	"github.com/toolroute/toolroute/registry/session"
	"github.com/toolroute/toolroute/registry/wire"
)

// The scenario names. A group's scenario is CorePlus followed by the group's
// name.
const (
	AllTools        = "all tools"
	CoreOnly        = "core only"
	CorePlus        = "core + "
	AllGroupsLoaded = "all groups loaded"
)

// Report is what Measure counted.
type Report struct {
	// Format is the wire format whose tools array is counted: "openai".
	Format string `json:"format"`
	// Encodings are the tokenizers counted with, in the order of every
	// Tokens list.
	Encodings []string `json:"encodings"`
	// Scenarios are "all tools", "core only", "core + GROUP" for each
	// available group in the registry's order, then "all groups loaded".
	Scenarios []Scenario `json:"scenarios"`
	// Listing is the tool group listing that routing adds to the system
	// prompt; the "all tools" scenario has none.
	Listing Listing `json:"listing"`
	// Problems are the definitions the catalogue's build refused, as
	// registry.BuildReport describes them. No model call sends them, so they
	// are not counted; they are reported so a count is not mistaken for the
	// whole catalogue's.
	Problems []string `json:"problems,omitempty"`
}

// Scenario is the tools one model call sends and what their schemas cost.
type Scenario struct {
	Name string `json:"name"`
	// Groups are the groups loaded with load_tool_group, in load order; none
	// for "all tools", which sends every tool without routing.
	Groups []string `json:"groups"`
	// Tools are the tools sent, in the order they are sent.
	Tools []string `json:"tools"`
	// Bytes is the size of the tools array's JSON text.
	Bytes int `json:"bytes"`
	// Tokens is the tools array's token count in each of Report.Encodings.
	Tokens []Count `json:"tokens"`

	// toolsJSON is the counted text, kept for the golden tests.
	toolsJSON string
}

// Listing is the tool group listing of the system prompt and what it costs.
type Listing struct {
	Bytes  int     `json:"bytes"`
	Tokens []Count `json:"tokens"`

	// text is the counted text, kept for the golden tests.
	text string
}

// Count is a token count in one encoding.
type Count struct {
	Encoding string `json:"encoding"`
	Tokens   int    `json:"tokens"`
}

// Measure counts each scenario's tool schemas and the group listing of a
// catalogue, as the module (rt) registers and describes it: the texts are
// its describe's tools_json, byte for byte what a model call sends.
//
// The "all tools" scenario is every enabled tool in registration order,
// without the meta-tools: what a host that does not route would send. The
// routed scenarios are the active tools after a history that loaded their
// groups, which start with the core tools (the meta-tools included when
// they have something to load), as a session's model calls send them.
//
// # Notes
//
// The listing is the "Available Tool Groups" section of the system prompt
// alone: the skills section, which the prompt has whether or not tools are
// routed, is left out. It is the prompt of the same catalogue without its
// skills and with no base prompt, so the instance loads the catalogue
// twice.
//
// # Errors
//
// Measure fails when the module fails, or when a tools array cannot be
// counted; a catalogue with refused definitions is measured without them,
// and they are listed in Report.Problems.
func Measure(ctx context.Context, rt *module.Runtime, cat registry.Catalogue) (Report, error) {
	m, built, err := load(ctx, rt, cat)
	if err != nil {
		return Report{}, err
	}
	defer m.close()
	rep := Report{Format: string(wire.OpenAI), Encodings: tokens.Encodings(), Problems: problems(built)}

	d, err := m.describe(nil)
	if err != nil {
		return Report{}, err
	}
	var all []string
	for _, t := range d.Tools {
		if t.Enabled && t.Origin.Kind != registry.OriginMeta {
			all = append(all, t.Name)
		}
	}
	s, err := rep.scenario(AllTools, nil, all, d.ToolsJSON.All)
	if err != nil {
		return Report{}, err
	}
	rep.Scenarios = append(rep.Scenarios, s)
	if s, err = m.routed(rep, CoreOnly); err != nil {
		return Report{}, err
	}
	rep.Scenarios = append(rep.Scenarios, s)
	var groups []string
	for _, g := range d.Groups {
		if !g.Available {
			continue
		}
		groups = append(groups, g.Name)
		if s, err = m.routed(rep, CorePlus+g.Name, g.Name); err != nil {
			return Report{}, err
		}
		rep.Scenarios = append(rep.Scenarios, s)
	}
	if s, err = m.routed(rep, AllGroupsLoaded, groups...); err != nil {
		return Report{}, err
	}
	rep.Scenarios = append(rep.Scenarios, s)

	// The same catalogue without its skills has a system prompt made of the
	// group listing alone.
	cat.Skills = nil
	data, err := module.Marshal(cat)
	if err != nil {
		return Report{}, fmt.Errorf("schematokens: %w", err)
	}
	if _, err := m.inst.Load(ctx, data); err != nil {
		return Report{}, fmt.Errorf("schematokens: loading the catalogue without its skills: %w", err)
	}
	if d, err = m.describe(nil); err != nil {
		return Report{}, err
	}
	text := d.SystemPrompt
	counts, err := rep.count(text)
	if err != nil {
		return Report{}, err
	}
	rep.Listing = Listing{Bytes: len(text), Tokens: counts, text: text}
	return rep, nil
}

// measurer is an instance of the module with a catalogue loaded.
type measurer struct {
	ctx  context.Context
	inst *module.Instance
}

// load makes an instance of rt and loads cat into it.
func load(ctx context.Context, rt *module.Runtime, cat registry.Catalogue) (*measurer, registry.BuildReport, error) {
	data, err := module.Marshal(cat)
	if err != nil {
		return nil, registry.BuildReport{}, fmt.Errorf("schematokens: %w", err)
	}
	inst, err := rt.Instantiate(ctx)
	if err != nil {
		return nil, registry.BuildReport{}, fmt.Errorf("schematokens: %w", err)
	}
	built, err := inst.Load(ctx, data)
	if err != nil {
		inst.Close(ctx)
		return nil, registry.BuildReport{}, fmt.Errorf("schematokens: loading the catalogue: %w", err)
	}
	return &measurer{ctx: ctx, inst: inst}, built, nil
}

func (m *measurer) close() { m.inst.Close(m.ctx) }

// describe is the module's description, with the tools' JSON, of a
// session whose history loaded these groups in this order.
func (m *measurer) describe(groups []string) (abi.Description, error) {
	history, err := loads(groups)
	if err != nil {
		return abi.Description{}, err
	}
	d, err := m.inst.Describe(m.ctx, abi.DescribeRequest{ToolsJSON: true, History: history})
	if err != nil {
		return abi.Description{}, fmt.Errorf("schematokens: describing the catalogue: %w", err)
	}
	if d.ToolsJSON == nil {
		return abi.Description{}, errors.New("schematokens: the module's description has no tools_json")
	}
	return d, nil
}

// loads is a history whose load_tool_group calls loaded the groups, in
// this order: what a session that loaded them has in its log.
func loads(groups []string) (json.RawMessage, error) {
	var history []session.Message
	for i, g := range groups {
		id := "call_" + strconv.Itoa(i)
		input, err := json.Marshal(map[string]string{"group_name": g})
		if err != nil {
			return nil, err
		}
		history = append(history,
			session.Message{Type: session.ToolCall, ToolCallID: id, ToolName: registry.LoadToolGroupName,
				ToolInput: string(input), Status: registry.StatusSuccess},
			session.Message{Type: session.ToolResult, ToolCallID: id, ToolName: registry.LoadToolGroupName,
				Content: "Loaded.", Status: registry.StatusSuccess})
	}
	if history == nil {
		return nil, nil
	}
	return module.Marshal(history)
}

// routed is the scenario of a model call once the groups are loaded, in
// this order; it fails for a group that is not loaded (none of that name
// with an enabled tool).
func (m *measurer) routed(r Report, name string, groups ...string) (Scenario, error) {
	d, err := m.describe(groups)
	if err != nil {
		return Scenario{}, err
	}
	for _, g := range groups {
		if !slices.Contains(d.LoadedGroups, g) {
			return Scenario{}, fmt.Errorf("schematokens: no group %q with enabled tools", g)
		}
	}
	return r.scenario(name, d.LoadedGroups, d.Active, d.ToolsJSON.Active)
}

// problems lists what a build refused; warnings are left out.
func problems(b registry.BuildReport) []string {
	var out []string
	for _, m := range b.Manifests {
		for _, p := range m.Skipped {
			out = append(out, p.Error())
		}
	}
	return append(out, b.Errors...)
}

// scenario counts the tools array text that sends the tools named.
func (r Report) scenario(name string, groups, tools []string, text string) (Scenario, error) {
	counts, err := r.count(text)
	if err != nil {
		return Scenario{}, fmt.Errorf("schematokens: %s: %w", name, err)
	}
	if groups == nil {
		groups = []string{}
	}
	if tools == nil {
		tools = []string{}
	}
	return Scenario{Name: name, Groups: groups, Tools: tools, Bytes: len(text), Tokens: counts, toolsJSON: text}, nil
}

// count counts text in every encoding of the report.
func (r Report) count(text string) ([]Count, error) {
	counts := make([]Count, len(r.Encodings))
	for i, enc := range r.Encodings {
		n, err := tokens.Count(enc, text)
		if err != nil {
			return nil, err
		}
		counts[i] = Count{Encoding: enc, Tokens: n}
	}
	return counts, nil
}

// WriteText writes the report for people: a title, a table of the scenarios
// with their tool count, bytes and tokens in each encoding, the group
// listing's cost, and what "core only" saves against "all tools" in
// o200k_base tokens.
func (r Report) WriteText(w io.Writer) error {
	var b strings.Builder
	b.WriteString("Tool schema tokens per model call: the tools array of an OpenAI Chat Completions request.\n\n")

	header := append([]string{"scenario", "tools", "bytes"}, r.Encodings...)
	rows := [][]string{header}
	for _, s := range r.Scenarios {
		row := []string{s.Name, strconv.Itoa(len(s.Tools)), strconv.Itoa(s.Bytes)}
		for _, enc := range r.Encodings {
			row = append(row, strconv.Itoa(tokensIn(s.Tokens, enc)))
		}
		rows = append(rows, row)
	}
	writeTable(&b, rows)

	if r.Listing.Bytes == 0 {
		b.WriteString("\nRouted calls send no group listing: no group has an enabled tool.\n")
	} else {
		fmt.Fprintf(&b, "\nRouted calls also send the group listing in the system prompt: %d bytes", r.Listing.Bytes)
		for _, enc := range r.Encodings {
			fmt.Fprintf(&b, ", %d %s", tokensIn(r.Listing.Tokens, enc), enc)
		}
		b.WriteString(" tokens.\n")
	}
	b.WriteString(r.saving())
	b.WriteByte('\n')
	for i, p := range r.Problems {
		if i == 0 {
			fmt.Fprintf(&b, "\nNot counted, refused by the catalogue (%d):\n", len(r.Problems))
		}
		b.WriteString("  " + p + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// saving says how many o200k_base tokens "core only" saves against "all
// tools", with and without the group listing.
func (r Report) saving() string {
	enc := tokens.O200kBase
	all, okAll := r.find(AllTools)
	core, okCore := r.find(CoreOnly)
	if !okAll || !okCore {
		return "No saving to report: the report lacks the \"all tools\" or \"core only\" scenario."
	}
	a, c := tokensIn(all.Tokens, enc), tokensIn(core.Tokens, enc)
	l := tokensIn(r.Listing.Tokens, enc)
	if a == 0 {
		return "No saving to report: \"all tools\" sends no tool schemas."
	}
	pct := func(n int) string {
		p := float64(a-n) / float64(a) * 100
		if p < 0 {
			return fmt.Sprintf("costs %.1f%% more than", -p)
		}
		return fmt.Sprintf("saves %.1f%% of", p)
	}
	return fmt.Sprintf("\"core only\" %s the %s tokens of \"all tools\" (%d against %d); with the group listing, it %s them (%d).",
		pct(c), enc, c, a, pct(c+l), c+l)
}

// find returns the scenario of that name.
func (r Report) find(name string) (Scenario, bool) {
	i := slices.IndexFunc(r.Scenarios, func(s Scenario) bool { return s.Name == name })
	if i < 0 {
		return Scenario{}, false
	}
	return r.Scenarios[i], true
}

// tokensIn returns the count for an encoding, 0 when it is missing.
func tokensIn(counts []Count, enc string) int {
	for _, c := range counts {
		if c.Encoding == enc {
			return c.Tokens
		}
	}
	return 0
}

// writeTable writes rows as aligned columns two spaces apart: the first
// column left-aligned, the others, which hold numbers, right-aligned.
func writeTable(b *strings.Builder, rows [][]string) {
	var widths []int
	for _, row := range rows {
		for i, cell := range row {
			if i == len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], len([]rune(cell)))
		}
	}
	for _, row := range rows {
		var line strings.Builder
		for i, cell := range row {
			pad := strings.Repeat(" ", widths[i]-len([]rune(cell)))
			switch {
			case i == 0:
				line.WriteString(cell + pad)
			default:
				line.WriteString("  " + pad + cell)
			}
		}
		b.WriteString(strings.TrimRight(line.String(), " ") + "\n")
	}
}

// Loaded counts what a model call sends once these groups are loaded, in
// this order: the core tools and the groups' tools, as the module (rt)
// describes them.
func Loaded(ctx context.Context, rt *module.Runtime, cat registry.Catalogue, name string, groups ...string) (Scenario, error) {
	m, _, err := load(ctx, rt, cat)
	if err != nil {
		return Scenario{}, err
	}
	defer m.close()
	return m.routed(Report{Encodings: tokens.Encodings()}, name, groups...)
}
