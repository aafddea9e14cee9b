package termout

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mattn/go-runewidth"

	"github.com/toolroute/toolroute/internal/vtscreen"
)

func TestWrap(t *testing.T) {
	tests := []struct {
		name  string
		input string
		width int
		want  string
	}{
		{"fits", "→ get_time {}", 40, "→ get_time {}"},
		{"words", "[loaded group config: get_config, set_config, list_providers]", 30,
			"[loaded group config:\n  get_config, set_config,\n  list_providers]"},
		{"a long word breaks", `→ exec {"command":"echo one >> runs.txt"}`, 20,
			"→ exec\n  {\"command\":\"echo\n  one >> runs.txt\"}"},
		{"a word longer than a line", "← x: " + strings.Repeat("a", 30), 20, "← x:\n  " + strings.Repeat("a", 18) + "\n  " + strings.Repeat("a", 12)},
		{"indented lines keep their indent", "    call 1: 1,234 in, 56 out; called load_tool_group", 30,
			"    call 1: 1,234 in, 56 out;\n      called load_tool_group"},
		{"each line apart", "← read_file: one\n  two three four", 12, "← read_file:\n  one\n  two three\n    four"},
		{"wide characters", "漢字漢字漢字 漢字", 8, "漢字漢字\n  漢字\n  漢字"},
		{"no width", "anything at all", 0, "anything at all"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Wrap(tt.input, tt.width)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Wrap(%q, %d) (-want +got):\n%s", tt.input, tt.width, diff)
			}
			if tt.width > 0 {
				for _, l := range strings.Split(got, "\n") {
					if w := runewidth.StringWidth(l); w > tt.width {
						t.Errorf("line %q is %d columns, over %d", l, w, tt.width)
					}
				}
			}
		})
	}
}

func TestSanitize(t *testing.T) {
	got := Sanitize("a\x1b]0;title\x07b\tc\r\nd\u009be")
	if want := "a]0;titleb    c\nde"; got != want {
		t.Errorf("Sanitize = %q, want %q", got, want)
	}
}

const reply = "# Plan\n" +
	"Some **bold**, *italic*, `code` and a [link](https://example.org/a) in a paragraph long enough to wrap.\n" +
	"\n" +
	"- one\n" +
	"- two\n" +
	"  - nested\n" +
	"3. third\n" +
	"> quoted\n" +
	"\n" +
	"```go\n" +
	"fmt.Println(\"**not bold**\")\n" +
	"```\n" +
	"| Name | Size |\n" +
	"|:-----|-----:|\n" +
	"| a | 1 |\n" +
	"| bbbb | 22 |\n" +
	"\n" +
	"End with no newline"

var wantScreen = []string{
	"Plan",
	"Some bold, italic, code and a link",
	"(https://example.org/a) in a paragraph long",
	"enough to wrap.",
	"",
	"• one",
	"• two",
	"  ◦ nested",
	"3. third",
	"│ quoted",
	"",
	"  go",
	"  fmt.Println(\"**not bold**\")",
	"Name │ Size",
	"─────┼─────",
	"a    │    1",
	"bbbb │   22",
	"",
	"End with no newline",
}

// The reply streamed in pieces of every size leaves the same screen as
// whole: each line shown as it comes is replaced by its rendering.
func TestMarkdownStreamed(t *testing.T) {
	for _, size := range []int{1, 2, 3, 7, 64, len(reply)} {
		t.Run(strconv.Itoa(size), func(t *testing.T) {
			var out strings.Builder
			m := NewMarkdown(&out, 44, 24)
			for i := 0; i < len(reply); i += size {
				m.Write(reply[i:min(i+size, len(reply))])
			}
			m.Flush()
			if diff := cmp.Diff(wantScreen, vtscreen.Lines(44, out.String())); diff != "" {
				t.Errorf("screen (-want +got):\n%s\noutput: %q", diff, out.String())
			}
		})
	}
}

// What the styles are: the heading, bold, italic, code and the link.
func TestMarkdownStyles(t *testing.T) {
	var out strings.Builder
	m := NewMarkdown(&out, 80, 24)
	m.Write("# Plan\nSome **bold**, *italic*, `code`, ~~gone~~ and [a link](https://example.org).\n")
	m.Flush()
	want := "\x1b[1;4;35mPlan\x1b[0m\n" +
		"Some \x1b[1mbold\x1b[0m, \x1b[3mitalic\x1b[0m, \x1b[36mcode\x1b[0m, \x1b[9mgone\x1b[0m and \x1b[4ma link\x1b[0m \x1b[2m(https://example.org)\x1b[0m.\n"
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("output (-want +got):\n%s", diff)
	}
}

// A table wider than the terminal wraps its cells within their columns.
func TestMarkdownNarrowTable(t *testing.T) {
	var out strings.Builder
	m := NewMarkdown(&out, 24, 24)
	m.Write("| Tool | What it does |\n|---|---|\n| exec | runs a command on the user's machine |\n")
	m.Flush()
	got := vtscreen.Lines(24, out.String())
	want := []string{
		"Tool │ What it does",
		"─────┼──────────────────",
		"exec │ runs a command on",
		"     │ the user's",
		"     │ machine",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("screen (-want +got):\n%s", diff)
	}
}

// A reply cannot drive the terminal: escape sequences in it are dropped,
// in text and in code.
func TestMarkdownSanitizes(t *testing.T) {
	var out strings.Builder
	m := NewMarkdown(&out, 80, 24)
	m.Write("a\x1b[2Jb\n```\nc\x1b]0;x\x07d\n```\n")
	m.Flush()
	if strings.Contains(out.String(), "\x1b[2J") || strings.Contains(out.String(), "\x1b]") {
		t.Errorf("the output keeps the reply's escape sequences: %q", out.String())
	}
}

// A line longer than the screen stops showing raw once it fills it, so
// all that was shown can still be erased.
func TestMarkdownLongLine(t *testing.T) {
	var out strings.Builder
	m := NewMarkdown(&out, 20, 5)
	long := strings.Repeat("word ", 60)
	for i := 0; i < len(long); i += 5 {
		m.Write(long[i : i+5])
	}
	m.Write("\n")
	m.Flush()
	got := vtscreen.Lines(20, out.String())
	if len(got) != 15 {
		t.Fatalf("%d rows, want the 300 characters in 15:\n%s", len(got), strings.Join(got, "\n"))
	}
	for _, l := range got {
		if l != "word word word word" {
			t.Errorf("row %q", l)
		}
	}
}

// ours are the escape sequences Markdown writes itself.
var ours = regexp.MustCompile(`\x1b\[[0-9;]*[mAJ]`)

// Whatever a reply holds and however it is cut, rendering it neither
// panics nor lets a control character of the reply through.
func FuzzMarkdown(f *testing.F) {
	f.Add(reply, 3)
	f.Add("| a | b |\n|---|---|\n| \x1b[2J | `x\x07` |\n", 1)
	f.Add("```\n\x1b]0;t\x07\n```\n- \x9b2J\n> *q*\n", 5)
	f.Fuzz(func(t *testing.T, text string, size int) {
		size = max(size%64, 1)
		var out strings.Builder
		m := NewMarkdown(&out, 40, 0)
		for i := 0; i < len(text); i += size {
			m.Write(text[i:min(i+size, len(text))])
		}
		m.Flush()
		for _, r := range ours.ReplaceAllString(out.String(), "") {
			if isControl(r) && r != '\r' {
				t.Fatalf("control character %U in the output of %q:\n%q", r, text, out.String())
			}
		}
	})
}
