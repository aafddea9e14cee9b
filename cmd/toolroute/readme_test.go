package main

// The docs' commands, run: every toolroute command a code block of
// README.md or of a file under docs/ shows has a case here, run as the doc
// shows it, with a scripted provider where it calls a model; the output a
// block shows after a "$ " command is checked line by line. A command added
// to a doc without a case fails the test, naming it.

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/toolroute/toolroute/internal/fakegoogle"
	"github.com/toolroute/toolroute/internal/fakemodel"
	"github.com/toolroute/toolroute/internal/mcptest"
	"github.com/toolroute/toolroute/internal/safehttp"
	"github.com/toolroute/toolroute/internal/searcheval"
)

// readmeCommand is a toolroute command of a README code block.
type readmeCommand struct {
	// line is the command as written, without its comment or "$ ".
	line string
	// env are the VAR=value words before it; args its arguments.
	env, args []string
	// printf is the text a "printf '...' |" before it writes; printenv
	// the variable a "printenv NAME |" writes; from the file a "< FILE"
	// reads.
	printf, printenv, from string
	// output is what the block shows after a "$ " command, "..." lines
	// left out.
	output []string
}

// readmeCommands reads the toolroute commands of README.md's code blocks:
// every line of a sh block, and the "$ " lines of a plain one.
func readmeCommands(t *testing.T, readme string) (cmds []readmeCommand, tables [][]string) {
	t.Helper()
	var inBlock, shell bool
	var table []string
	var last *readmeCommand
	for _, line := range strings.Split(readme, "\n") {
		if fence, ok := strings.CutPrefix(strings.TrimSpace(line), "```"); ok {
			if inBlock && table != nil {
				tables = append(tables, table)
			}
			inBlock, shell, table, last = !inBlock, fence == "sh", nil, nil
			continue
		}
		if !inBlock {
			continue
		}
		if strings.HasPrefix(line, "scenario ") || table != nil {
			table = append(table, line)
			continue
		}
		text, prompt := strings.CutPrefix(line, "$ ")
		if !prompt && !shell {
			if last != nil && strings.TrimSpace(line) != "..." && strings.TrimSpace(line) != "" {
				last.output = append(last.output, line)
			}
			continue
		}
		if c, ok := parseCommand(t, text); ok {
			cmds = append(cmds, c)
			last = &cmds[len(cmds)-1]
		} else {
			last = nil
		}
	}
	return cmds, tables
}

// comment is a shell comment at the end of a line.
var comment = regexp.MustCompile(`\s+#\s.*$`)

// parseCommand reads a shell line running toolroute: ./toolroute,
// toolroute or go run ./cmd/toolroute, maybe after VAR=value words,
// a printf or a printenv piped in, maybe with "< FILE".
func parseCommand(t *testing.T, line string) (readmeCommand, bool) {
	line = strings.TrimSpace(comment.ReplaceAllString(line, ""))
	c := readmeCommand{line: line}
	segments := splitOutsideQuotes(line, '|')
	for i, seg := range segments {
		words := shellWords(t, seg)
		for len(words) > 0 && regexp.MustCompile(`^[A-Z_]+=`).MatchString(words[0]) {
			c.env = append(c.env, words[0])
			words = words[1:]
		}
		switch {
		case len(words) > 0 && (words[0] == "toolroute" || words[0] == "./toolroute"):
			words = words[1:]
		case len(words) > 2 && words[0] == "go" && words[1] == "run" && words[2] == "./cmd/toolroute":
			words = words[3:]
		default:
			continue
		}
		if i > 0 {
			prev := shellWords(t, segments[i-1])
			switch {
			case len(prev) == 2 && prev[0] == "printf":
				c.printf = strings.ReplaceAll(prev[1], `\n`, "\n")
			case len(prev) == 2 && prev[0] == "printenv":
				c.printenv = prev[1]
			default:
				t.Errorf("README: %q: what is piped into toolroute is neither printf nor printenv", line)
			}
		}
		for j, w := range words {
			if w == "<" && j+1 < len(words) {
				c.from = words[j+1]
				words = words[:j]
				break
			}
		}
		c.args = words
		return c, true
	}
	return c, false
}

// splitOutsideQuotes splits s at sep where it stands outside quotes.
func splitOutsideQuotes(s string, sep rune) []string {
	var out []string
	var quote rune
	start := 0
	for i, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote == 0 && (r == '\'' || r == '"'):
			quote = r
		case quote == 0 && r == sep:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// shellWords splits a command into words as a shell does for the README's
// lines: single and double quotes, no expansions.
func shellWords(t *testing.T, s string) []string {
	var words []string
	var b strings.Builder
	var quote rune
	inWord := false
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			b.WriteRune(r)
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t':
			if inWord {
				words = append(words, b.String())
				b.Reset()
				inWord = false
			}
		default:
			b.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 {
		t.Errorf("README: an unclosed quote in %q", s)
	}
	if inWord {
		words = append(words, b.String())
	}
	return words
}

// readmeCase is how one README command is run and what it must do.
type readmeCase struct {
	// model scripts the provider, for a command that calls one.
	model []fakemodel.Reply
	// setup writes what the command reads, in the user's home.
	setup func(t *testing.T, u *user)
	// inRepo runs it in the repository's root, whose paths it names.
	inRepo bool
	// stdin is standard input when no printf gives it.
	stdin string
	// env sets the variables a printenv reads.
	env []string
	// how: "" runs it to its end; "serve" until it serves; "mcp" as an MCP
	// client; "google" in this process, against the OAuth fake.
	how  string
	code int
	// want is in its standard output, beside the README's own output.
	want []string
	// check checks what it left, such as a stored session.
	check func(t *testing.T, u *user)
	// metatool runs it with TOOLROUTE_METATOOL set, skipped when the
	// environment does not give MetaTool's data (docs/development.md).
	metatool bool
}

// readmeCases are the README's commands, by their line.
var readmeCases = map[string]readmeCase{
	"./toolroute chat": {model: []fakemodel.Reply{fakemodel.Text("It is noon.")}, stdin: "What time is it?\n",
		want: []string{"It is noon."}},
	"./toolroute chat --session work": {model: []fakemodel.Reply{fakemodel.Text("Noted.")}, stdin: "Remember this.\n",
		want: []string{"Noted."}, check: func(t *testing.T, u *user) {
			if msgs := u.messages("work"); len(msgs) != 2 || msgs[0].Content != "Remember this." {
				t.Errorf("the session work holds %+v", msgs)
			}
		}},
	"./toolroute serve --port 8377": {how: "serve", want: []string{"toolroute: serving on http://127.0.0.1:", "/?login="}},
	"./toolroute mcp":               {how: "mcp", want: []string{`"name":"load_tool_group"`, `"name":"js_eval"`}},
	"./toolroute tools":             {want: []string{"Core tools: sent on every model call", "config (Configuration): built-in, 17 tools, "}},
	`./toolroute call js_eval --params '{"code":"6 * 7"}'`: {want: []string{"42\n"}},
	"./toolroute tokens": {want: []string{"core only", "all groups loaded"}},
	"./toolroute check": {setup: func(t *testing.T, u *user) {
		writeTool(t, u.toolsDir(), "shout", `{"name":"shout","description":"Shout a text","parameters":{"properties":{"text":{"type":"string"}},"required":["text"]}}`, "function execute(p) { return p.text.toUpperCase(); }")
	}, want: []string{"Your tools folder, ", "/shout.json: 1 tool: shout", "1 manifest: 1 tool in 0 groups loaded; 0 errors, 0 warnings"}},
	"./toolroute search --tools tools.json < queries.txt": {setup: func(t *testing.T, u *user) {
		os.WriteFile(filepath.Join(u.home, "tools.json"), []byte(`[{"name":"weather_now","description":"The current weather in a city"},{"name":"send_mail","description":"Send an email to someone"}]`), 0o644)
		os.WriteFile(filepath.Join(u.home, "queries.txt"), []byte("what is the weather in Paris\nemail my boss\n"), 0o644)
	}, want: []string{"weather_now", "\nsend_mail"}},
	"./toolroute help":         {want: []string{"toolroute tools [--group G] [--json]", "APP FLAGS", "ROUTING FLAGS"}},
	"./toolroute google login": {how: "google", want: []string{"Connected " + fakegoogle.Email}},
	"printenv WEATHER_API_KEY | ./toolroute env set WEATHER_API_KEY": {env: []string{"WEATHER_API_KEY=wk-12345"},
		want: []string{"WEATHER_API_KEY set for the tools whose manifest lists it in env."}},
	"./toolroute policy set group google_gmail allow":                                                                                          {want: []string{"group google_gmail: allow"}},
	"GOOGLE_CLIENT_ID=... GOOGLE_CLIENT_SECRET=... toolroute google login":                                                                     {how: "google", want: []string{"Connected " + fakegoogle.Email}},
	"go run ./cmd/toolroute check testdata/manifests/mixed":                                                                                    {inRepo: true, code: 1},
	`printf 'What is the weather like in Paris tomorrow?\nstock price of Apple\n' | toolroute search --tools "$TOOLROUTE_METATOOL/tools.json"`: {metatool: true},
}

// docFile is a Markdown file of the documentation, its path from the
// repository's root.
type docFile struct {
	path, text string
}

// readDocs reads README.md, then every .md file under docs/ in lexical
// order: the documentation whose commands and flags the tests check.
func readDocs(t *testing.T, root string) []docFile {
	t.Helper()
	text, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	docs := []docFile{{"README.md", string(text)}}
	err = filepath.WalkDir(filepath.Join(root, "docs"), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".md") {
			return err
		}
		text, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		docs = append(docs, docFile{filepath.ToSlash(rel), string(text)})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return docs
}

// repoRoot is the repository's root, from this package's folder.
func repoRoot(t *testing.T) string {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

func TestREADMECommands(t *testing.T) {
	root := repoRoot(t)
	seen := map[string]bool{}
	var tables [][]string
	for _, doc := range readDocs(t, root) {
		cmds, tbls := readmeCommands(t, doc.text)
		tables = append(tables, tbls...)
		for _, c := range cmds {
			if seen[c.line] {
				continue
			}
			seen[c.line] = true
			rc, ok := readmeCases[c.line]
			if !ok {
				t.Errorf("%s shows %q, which has no case in readmeCases (readme_test.go): add one that runs it", doc.path, c.line)
				continue
			}
			t.Run(c.line, func(t *testing.T) { runREADMECommand(t, root, c, rc) })
		}
	}
	for line := range readmeCases {
		if !seen[line] {
			t.Errorf("readmeCases has %q, which no doc shows any more: remove it", line)
		}
	}
	if len(tables) == 0 {
		t.Fatal("no doc shows a toolroute tokens table")
	}
	// The first table is the built-in catalogue's, as toolroute tokens
	// prints it for a new user.
	t.Run("the tokens table", func(t *testing.T) {
		res := newUser(t, nil, "").run("", "tokens")
		if res.code != 0 {
			t.Fatalf("tokens: exit %d: %s", res.code, res.stderr)
		}
		for _, line := range tables[0] {
			if !strings.Contains(res.stdout, line+"\n") {
				t.Errorf("toolroute tokens does not print the doc's line\n%s\nit prints:\n%s", line, res.stdout)
			}
		}
	})
}

func runREADMECommand(t *testing.T, root string, c readmeCommand, rc readmeCase) {
	var model *fakemodel.Server
	if rc.model != nil {
		model = fakemodel.New(fakemodel.OpenAI, rc.model...)
		defer model.Close()
	}
	u := newUser(t, model, fakemodel.OpenAI)
	u.setenv(rc.env...)
	if rc.setup != nil {
		rc.setup(t, u)
	}
	dir := u.home
	if rc.inRepo {
		dir = root
	}
	stdin := rc.stdin
	switch {
	case c.printf != "":
		stdin = c.printf
	case c.printenv != "":
		for _, kv := range rc.env {
			if v, ok := strings.CutPrefix(kv, c.printenv+"="); ok {
				stdin = v + "\n"
			}
		}
	case c.from != "":
		b, err := os.ReadFile(filepath.Join(dir, c.from))
		if err != nil {
			t.Fatalf("%s: %v", c.from, err)
		}
		stdin = string(b)
	}
	if rc.metatool {
		// The shell expands the variable; this test has no shell.
		metatool := searcheval.Dir()
		if _, err := os.Stat(filepath.Join(metatool, "tools.json")); metatool == "" || err != nil {
			t.Skipf("no MetaTool data: set %s to run this command", searcheval.EnvDir)
		}
		for i, a := range c.args {
			c.args[i] = strings.ReplaceAll(a, "$"+searcheval.EnvDir, metatool)
		}
	}
	var res result
	switch rc.how {
	case "serve":
		res = readmeServe(t, u, c.args)
	case "mcp":
		res = readmeMCP(t, u, c.args)
	case "google":
		res = readmeGoogle(t, c)
	default:
		cmd := exec.Command(binary(t), c.args...)
		cmd.Env, cmd.Dir, cmd.Stdin = u.env, dir, strings.NewReader(stdin)
		var out, errOut strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errOut
		err := cmd.Run()
		res = result{stdout: out.String(), stderr: errOut.String(), code: cmd.ProcessState.ExitCode()}
		if _, ok := err.(*exec.ExitError); err != nil && !ok {
			t.Fatal(err)
		}
	}
	if res.code != rc.code {
		t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", res.code, rc.code, res.stdout, res.stderr)
	}
	mustContain(t, "its output", res.stdout, rc.want...)
	for _, line := range c.output {
		if !strings.Contains(res.stdout, line+"\n") {
			t.Errorf("it does not print the README's line\n%s\nit prints:\n%s", line, res.stdout)
		}
	}
	if rc.check != nil {
		rc.check(t, u)
	}
	if rc.want == nil && c.output == nil {
		t.Errorf("the case checks no output: give it want")
	}
}

// readmeServe starts serve until it says where it serves, then stops it
// with SIGTERM. A --port the README gives is replaced by a free one.
func readmeServe(t *testing.T, u *user, args []string) result {
	args = append([]string(nil), args...)
	for i := range args {
		if args[i] == "--port" && i+1 < len(args) {
			args[i+1] = strconv.Itoa(mcptest.FreePort(t))
		}
	}
	cmd := exec.Command(binary(t), args...)
	cmd.Env, cmd.Dir = u.env, u.home
	stdout, _ := cmd.StdoutPipe()
	var errOut strings.Builder
	cmd.Stderr = &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("serve printed nothing: %v\n%s", err, errOut.String())
	}
	cmd.Process.Signal(syscall.SIGTERM)
	cmd.Wait()
	return result{stdout: line, stderr: errOut.String(), code: cmd.ProcessState.ExitCode()}
}

// readmeMCP plays an MCP client over standard input and output:
// initialize, then tools/list; it closes standard input at the answer.
func readmeMCP(t *testing.T, u *user, args []string) result {
	cmd := exec.Command(binary(t), args...)
	cmd.Env, cmd.Dir = u.env, u.home
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	var errOut strings.Builder
	cmd.Stderr = &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	r := bufio.NewReader(out)
	var got strings.Builder
	answer := func(id int) {
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				t.Fatalf("no answer %d: %v\n%s", id, err, errOut.String())
			}
			got.WriteString(line)
			var m struct {
				ID int `json:"id"`
			}
			if json.Unmarshal([]byte(line), &m) == nil && m.ID == id {
				return
			}
		}
	}
	in.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"readme","version":"1"}}}` + "\n"))
	answer(1)
	in.Write([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" + `{"jsonrpc":"2.0","id":2,"method":"tools/list"}` + "\n"))
	answer(2)
	in.Close()
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(stopFailsafe):
		t.Fatal("mcp did not end at the end of its input")
	}
	return result{stdout: got.String(), stderr: errOut.String(), code: cmd.ProcessState.ExitCode()}
}

// readmeGoogle runs google login in this process against the OAuth fake,
// playing the browser (--no-browser added: a test opens none). The
// README's "..." values are the fake client's.
func readmeGoogle(t *testing.T, c readmeCommand) result {
	f := fakegoogle.NewOAuth(t)
	saved := googleClient
	googleClient = func() *safehttp.Client { return f.Client() }
	t.Cleanup(func() { googleClient = saved })
	t.Setenv("GOOGLE_ACCESS_TOKEN", "")
	t.Setenv("GOOGLE_REFRESH_TOKEN", "")
	t.Setenv("GOOGLE_CLIENT_ID", fakegoogle.OAuthClientID)
	t.Setenv("GOOGLE_CLIENT_SECRET", fakegoogle.OAuthClientSecret)
	for _, kv := range c.env {
		name, value, _ := strings.Cut(kv, "=")
		if value != "..." {
			t.Setenv(name, value)
		}
	}
	args := append(append([]string(nil), c.args...), "--no-browser", "--config-dir", t.TempDir())
	stdout, stderr, code := playGoogleLogin(t, f, args)
	return result{stdout: stdout, stderr: stderr, code: code}
}

// The commands the docs' prose shows in inline code, such as `toolroute
// tokens --catalogue FILE`: each names a command, and flags it has.
func TestREADMEInlineCommands(t *testing.T) {
	span := regexp.MustCompile("`((?:\\./)?toolroute [^`]+)`")
	flagName := regexp.MustCompile(`(?:^|\s|\[)(--?[a-z][a-z0-9-]*)`)
	flagsOf := map[string]string{}
	n := 0
	for _, doc := range readDocs(t, repoRoot(t)) {
		prose := regexp.MustCompile("(?s)```.*?```").ReplaceAllString(doc.text, "")
		for _, m := range span.FindAllStringSubmatch(prose, -1) {
			words := strings.Fields(m[1])
			if len(words) < 2 {
				continue
			}
			cmd := words[1]
			if _, ok := commandNamed(cmd); !ok {
				t.Errorf("%s shows `%s`: toolroute has no command %q", doc.path, m[1], cmd)
				continue
			}
			if _, ok := flagsOf[cmd]; !ok {
				var out strings.Builder
				run([]string{cmd, "--help"}, strings.NewReader(""), &out, &out)
				flagsOf[cmd] = out.String()
			}
			for _, f := range flagName.FindAllStringSubmatch(strings.Join(words[2:], " "), -1) {
				name := strings.TrimLeft(f[1], "-")
				if !strings.Contains(flagsOf[cmd], "\n  -"+name+" ") && !strings.Contains(flagsOf[cmd], "\n  -"+name+"\n") {
					t.Errorf("%s shows `%s`: toolroute %s has no flag %s", doc.path, m[1], cmd, f[1])
				}
			}
			n++
		}
	}
	if n < 10 {
		t.Errorf("only %d inline toolroute commands found: is the pattern right?", n)
	}
}

// cliReference is docs/reference/cli.md as the program writes it: the
// general help, then each command's --help. go test -run TestCLIReference
// -update rewrites the file after a change to a command or a flag.
func cliReference() string {
	var b strings.Builder
	b.WriteString("# CLI reference\n\n")
	b.WriteString("Generated from the program: `go test ./cmd/toolroute -run TestCLIReference -update`\n")
	b.WriteString("rewrites this file, and the test fails while it differs from what the program prints.\n")
	b.WriteString("What each command is for, with examples, is in the guides: [chat](../users/chat.md),\n")
	b.WriteString("[tools and routing options](../users/routing.md), [MCP](../users/mcp.md),\n")
	b.WriteString("[writing tools](../authors/js-tools.md), [serve](../operators/serve.md).\n\n")
	b.WriteString("## toolroute help\n\n```\n")
	b.WriteString(usage())
	b.WriteString("```\n")
	for _, c := range commands {
		if c.name == "help" {
			continue
		}
		var out strings.Builder
		run([]string{c.name, "--help"}, strings.NewReader(""), &out, &out)
		fmt.Fprintf(&b, "\n## toolroute %s\n\n```\n%s", c.name, out.String())
		if !strings.HasSuffix(out.String(), "\n") {
			b.WriteString("\n")
		}
		b.WriteString("```\n")
	}
	return b.String()
}

func TestCLIReference(t *testing.T) {
	path := filepath.Join(repoRoot(t), "docs", "reference", "cli.md")
	want := cliReference()
	if *update {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("docs/reference/cli.md is not what the program prints: run go test ./cmd/toolroute -run TestCLIReference -update\n%s", cmp.Diff(want, string(got)))
	}
}

// routesIn are the "METHOD /api/..." routes a source file registers,
// found by pattern: serve's mux (prefix "") and the worker's switch
// (prefix "/api", its cases leaving it out).
func routesIn(t *testing.T, path string, pattern *regexp.Regexp, prefix string) map[string]bool {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	routes := map[string]bool{}
	for _, m := range pattern.FindAllStringSubmatch(string(src), -1) {
		routes[m[1]+" "+prefix+m[2]] = true
	}
	if len(routes) < 10 {
		t.Fatalf("only %d routes found in %s: is the pattern right?", len(routes), path)
	}
	return routes
}

// docRoute is a route as docs/reference/http.md writes it, in code: the
// method, then the path up to a space, a query or the span's end.
var docRoute = regexp.MustCompile("`(GET|POST|PUT|PATCH|DELETE) (/api/[^ `?]*)")

// docRoutes are the routes a piece of the doc names.
func docRoutes(text string) map[string]bool {
	routes := map[string]bool{}
	for _, m := range docRoute.FindAllStringSubmatch(text, -1) {
		routes[m[1]+" "+m[2]] = true
	}
	return routes
}

// sortedDiff is what a has and b has not, sorted.
func sortedDiff(a, b map[string]bool) []string {
	var out []string
	for k := range a {
		if !b[k] {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// docs/reference/http.md against the program: every route serve's mux
// registers is in the doc's tables and every route they name is
// registered; the worker's section names exactly the routes serve has and
// the worker has not, and those the worker adds.
func TestHTTPReference(t *testing.T) {
	root := repoRoot(t)
	text, err := os.ReadFile(filepath.Join(root, "docs", "reference", "http.md"))
	if err != nil {
		t.Fatal(err)
	}
	serveDoc, workerDoc, ok := strings.Cut(string(text), "\n## The edge worker\n")
	if !ok {
		t.Fatal("docs/reference/http.md has no section \"The edge worker\"")
	}
	lacks, adds, ok := strings.Cut(workerDoc, "\nIt adds:\n")
	if !ok {
		t.Fatal("docs/reference/http.md's worker section has no \"It adds:\" list")
	}
	serve := routesIn(t, filepath.Join(root, "internal", "server", "server.go"),
		regexp.MustCompile(`mux\.HandleFunc\("(GET|POST|PUT|PATCH|DELETE) (/api/[^"]*)"`), "")
	worker := routesIn(t, filepath.Join(root, "web", "apps", "worker", "api.js"),
		regexp.MustCompile(`case "(GET|POST|PUT|PATCH|DELETE) (/[^"]*)":`), "/api")
	documented := docRoutes(serveDoc)
	for _, r := range sortedDiff(serve, documented) {
		t.Errorf("serve answers %s, which docs/reference/http.md does not list: add a row", r)
	}
	for _, r := range sortedDiff(documented, serve) {
		t.Errorf("docs/reference/http.md lists %s, which serve does not answer", r)
	}
	if got, want := sortedDiff(docRoutes(lacks), nil), sortedDiff(serve, worker); !slices.Equal(got, want) {
		t.Errorf("the doc says the worker lacks %v; it lacks %v", got, want)
	}
	if got, want := sortedDiff(docRoutes(adds), nil), sortedDiff(worker, serve); !slices.Equal(got, want) {
		t.Errorf("the doc says the worker adds %v; it adds %v", got, want)
	}
}

// Every relative link of the docs (README.md, docs/, and the documents
// that link into them) names a file or folder of the repository: a doc
// moved or renamed breaks no reader's way.
func TestDocLinks(t *testing.T) {
	root := repoRoot(t)
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	docs := readDocs(t, root)
	for _, path := range []string{"SECURITY.md", "wasm/ABI.md", "web/packages/toolroute/README.md", "web/apps/chat/README.md", "web/apps/worker/README.md"} {
		text, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(path)))
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, docFile{path, string(text)})
	}
	n := 0
	for _, doc := range docs {
		prose := regexp.MustCompile("(?s)```.*?```").ReplaceAllString(doc.text, "")
		for _, m := range link.FindAllStringSubmatch(prose, -1) {
			target, _, _ := strings.Cut(m[1], "#")
			if target == "" || strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			n++
			path := filepath.Join(root, filepath.Dir(filepath.FromSlash(doc.path)), filepath.FromSlash(target))
			if _, err := os.Stat(path); err != nil {
				t.Errorf("%s links to %s, which does not exist", doc.path, m[1])
			}
		}
	}
	if n < 20 {
		t.Errorf("only %d relative links found: is the pattern right?", n)
	}
}
