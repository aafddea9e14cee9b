package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"sync"
	"syscall"

	"github.com/toolroute/toolroute/host"
	"github.com/toolroute/toolroute/host/store"
	"github.com/toolroute/toolroute/internal/app"
	"github.com/toolroute/toolroute/internal/termout"
	"github.com/toolroute/toolroute/registry"
	"github.com/toolroute/toolroute/registry/session"
	"github.com/toolroute/toolroute/registry/wire"
)

const chatHelp = `Commands:
  /clear    start a new session
  /tools    the tools the next model call sends, and the others
  /groups   the tool groups, and which this session loaded
  /usage    every model call of this session, by turn: its tokens and what it did
  /compact  summarise the earlier messages now; later calls send the summary instead
  /attach PATH  attach a file (an image, or a text file) to your next message; /attach lists them
  /detach   drop the files attached
  /help     these commands
  /quit     leave (so does the end of input; /exit too)
Anything else is a message to the model. Ctrl-C stops a running turn.
At a terminal, Up and Down bring back the lines sent before; Ctrl-D or
Ctrl-C at the prompt leaves.
`

func runChat(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("chat", stderr)
	var af appFlags
	af.register(fs)
	af.registerMCP(fs)
	af.registerRouting(fs)
	name := fs.String("session", "", "continue the session with this name, or start it (default: a new session)")
	agent := fs.String("agent", "", "talk to this stored agent (list_agents): its system prompt, model and tool groups; the session remembers it")
	askStdin := fs.Bool("ask-stdin", false, "when standard input is not a terminal, read the answers to approval questions (y, a or n, a line each) and to MCP servers' questions from it too")
	rest, err := parseArgs(fs, args)
	if err != nil {
		return exitFor(err)
	}
	if len(rest) > 0 {
		fmt.Fprintf(stderr, "toolroute chat: unexpected %q: messages come from standard input\n", rest[0])
		return 2
	}
	if *name != "" {
		if err := store.CheckSessionID(*name); err != nil {
			fmt.Fprintf(stderr, "toolroute chat: --session: %s\n", strings.TrimPrefix(err.Error(), "store: "))
			return 2
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	c := &chat{out: stdout, errOut: stderr, interactive: isTerminal(stdin), id: *name, lines: make(chan string)}
	c.setTerminal(stdin, stdout)
	if c.interactive || *askStdin {
		af.cfg.Approver = host.ApproverFunc(c.approve)
		// An MCP server may ask the user too, during its tool's call.
		af.cfg.MCP.Ask = true
	}
	// exec asks before every run: at the terminal, or with --ask-stdin.
	af.cfg.Exec = true
	af.cfg.Browser = true
	a, err := af.open(ctx, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "toolroute: %v\n", err)
		return 1
	}
	defer a.Close()
	c.a = a
	if c.id == "" {
		c.id = app.NewSessionID()
	}
	if *agent != "" {
		if err := a.SetSessionAgent(ctx, c.id, *agent); err != nil {
			fmt.Fprintf(stderr, "toolroute: %v\n", err)
			return 1
		}
	}
	return c.loop(ctx, stdin)
}

// chat is one terminal conversation.
type chat struct {
	a           *app.App
	out, errOut io.Writer
	interactive bool
	id          string
	failed      bool
	// lines are standard input's lines: messages, and answers to approval
	// questions while a turn runs.
	lines chan string

	// Per model call: whether text was streamed, and whether the output
	// stands at the start of a line.
	streamed, lineStart bool
	// calls are this run's model calls in the session, for /usage: what
	// the module said of each as it was made.
	calls []callNote
	// pendingCall is the model call made, whose reply has not come.
	pendingCall *callNote

	// At a terminal: tty is standard output when it is one, md renders
	// the reply streaming (nil when it is written as it comes: not a
	// terminal, NO_COLOR, TERM=dumb), ed edits the lines read (nil when
	// standard input and output are not both terminals), and stopTurn
	// stops the running turn.
	tty      *os.File
	render   bool
	md       *termout.Markdown
	ed       *lineEditor
	stopTurn context.CancelFunc
	// attached are the files for the next message (/attach).
	attached []session.Attachment
	// asking puts one MCP server's question to the user at a time.
	asking sync.Mutex
}

// callNote is one model call of this run, as its events told it.
type callNote struct {
	call    int
	routing session.Routing
	schema  *host.SchemaUsage
	// reply is the message the call logged: matched against the log.
	reply session.Message
}

// setTerminal finds what of standard input and output is a terminal.
// Anything that is not gets exactly what chat always wrote.
func (c *chat) setTerminal(stdin io.Reader, stdout io.Writer) {
	f, ok := stdout.(*os.File)
	if !ok || !isTerminal(f) {
		return
	}
	c.tty = f
	dumb := os.Getenv("TERM") == "dumb"
	// NO_COLOR (no-color.org): no escape sequences in the reply.
	c.render = !dumb && os.Getenv("NO_COLOR") == ""
	if in, ok := stdin.(*os.File); ok && c.interactive && !dumb {
		c.ed = newLineEditor(in, f, historyPath())
	}
}

// width is the terminal's width to wrap lines to, 0 when standard output
// is not a terminal.
func (c *chat) width() int {
	if c.tty == nil {
		return 0
	}
	w, _ := termout.Size(c.tty)
	return w
}

// println writes a line of chat's own (a card, a usage line) fitted to
// the terminal's width, its continuation rows indented; to anything but a
// terminal it writes s as it is.
func (c *chat) println(s string) {
	if w := c.width(); w > 0 {
		s = termout.Wrap(termout.Sanitize(s), w)
	}
	fmt.Fprintln(c.out, s)
}

func isTerminal(r any) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}

// loop reads messages until /quit or the end of input. Interrupts stop the
// running turn; at the prompt, they end the chat.
func (c *chat) loop(ctx context.Context, stdin io.Reader) int {
	lines := c.lines
	readErr := make(chan error, 1)
	if c.ed == nil {
		go func() {
			sc := bufio.NewScanner(stdin)
			sc.Buffer(make([]byte, 64*1024), 4<<20)
			for sc.Scan() {
				lines <- sc.Text()
			}
			readErr <- sc.Err()
			close(lines)
		}()
	}
	interrupts := make(chan os.Signal, 1)
	signal.Notify(interrupts, os.Interrupt)
	defer signal.Stop(interrupts)

	if _, _, note := c.a.Routing(); note != "" {
		fmt.Fprintf(c.errOut, "toolroute: %s\n", note)
	}
	if c.interactive {
		c.println(fmt.Sprintf("toolroute chat with %s", c.a.Provider))
		c.println(fmt.Sprintf("session %s; /help for commands", c.id))
	} else {
		fmt.Fprintf(c.errOut, "toolroute: session %s with %s\n", c.id, c.a.Provider)
	}
	for {
		var line string
		var ok bool
		if c.ed != nil {
			fmt.Fprintln(c.out)
			var err error
			line, err = c.ed.readLine(ctx, "you> ", true, interrupts)
			switch {
			case err == nil:
			case errors.Is(err, io.EOF), ctx.Err() != nil:
				// Ctrl-D or Ctrl-C at the prompt: the chat ends.
				return c.status()
			default:
				fmt.Fprintf(c.errOut, "toolroute: reading input: %v\n", err)
				return 1
			}
		} else {
			if c.interactive {
				fmt.Fprint(c.out, "\nyou> ")
			}
			select {
			case line, ok = <-lines:
			case <-interrupts:
				fmt.Fprintln(c.out)
				return c.status()
			case <-ctx.Done():
				return c.status()
			}
		}
		if c.ed == nil && !ok {
			if err := <-readErr; err != nil {
				fmt.Fprintf(c.errOut, "toolroute: reading input: %v\n", err)
				return 1
			}
			if c.interactive {
				fmt.Fprintln(c.out)
			}
			return c.status()
		}
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if strings.HasPrefix(line, "/") {
			if quit := c.command(ctx, line); quit {
				return c.status()
			}
			continue
		}
		if !c.interactive {
			fmt.Fprintf(c.out, "you> %s\n", line)
		}
		turnCtx, cancel := context.WithCancel(ctx)
		c.stopTurn = cancel
		stopped := make(chan struct{})
		go func() {
			select {
			case <-interrupts:
				cancel()
			case <-stopped:
			}
		}()
		c.send(turnCtx, line)
		close(stopped)
		cancel()
		if ctx.Err() != nil {
			return c.status()
		}
	}
}

func (c *chat) status() int {
	if c.failed {
		return 1
	}
	return 0
}

// command runs a slash command; it reports whether to quit.
func (c *chat) command(ctx context.Context, line string) bool {
	cmd, _, _ := strings.Cut(line, " ")
	switch cmd {
	case "/quit", "/exit":
		return true
	case "/help":
		fmt.Fprint(c.out, chatHelp)
	case "/clear":
		// The new session keeps the agent of the one cleared.
		agent, _ := c.a.SessionAgent(ctx, c.id)
		c.id = app.NewSessionID()
		c.calls = nil
		if agent != "" {
			if err := c.a.SetSessionAgent(ctx, c.id, agent); err != nil {
				fmt.Fprintf(c.errOut, "toolroute: %v\n", err)
			}
		}
		fmt.Fprintf(c.out, "[new session %s]\n", c.id)
	case "/tools":
		c.tools(ctx)
	case "/groups":
		c.groups(ctx)
	case "/usage":
		c.usage(ctx)
	case "/compact":
		c.compact(ctx)
	case "/attach":
		c.attach(line)
	case "/detach":
		c.detach()
	default:
		fmt.Fprintf(c.out, "unknown command %s: /help lists the commands\n", cmd)
	}
	return false
}

func (c *chat) tools(ctx context.Context) {
	d, err := c.a.Host.Describe(ctx, c.id)
	if err != nil {
		fmt.Fprintf(c.errOut, "toolroute: %v\n", err)
		return
	}
	c.println(fmt.Sprintf("Sent with each model call (%d): %s", len(d.Active), strings.Join(d.Active, ", ")))
	for _, g := range d.Groups {
		if !g.Available || slices.Contains(d.LoadedGroups, g.Name) {
			continue
		}
		c.println(fmt.Sprintf("In group %s, sent once loaded (%d): %s", g.Name, len(g.Tools), strings.Join(g.Tools, ", ")))
	}
	var disabled []string
	for _, t := range d.Tools {
		if !t.Enabled {
			disabled = append(disabled, t.Name)
		}
	}
	if len(disabled) > 0 {
		c.println(fmt.Sprintf("Disabled (%d): %s", len(disabled), strings.Join(disabled, ", ")))
	}
}

func (c *chat) groups(ctx context.Context) {
	d, err := c.a.Host.Describe(ctx, c.id)
	if err != nil {
		fmt.Fprintf(c.errOut, "toolroute: %v\n", err)
		return
	}
	if len(d.Groups) == 0 {
		fmt.Fprintln(c.out, "No tool groups.")
		return
	}
	for _, g := range d.Groups {
		state := fmt.Sprintf("%d tools", len(g.Tools))
		switch {
		case slices.Contains(d.LoadedGroups, g.Name):
			state += ", loaded"
		case !g.Available:
			state = "no enabled tools"
		}
		c.println(fmt.Sprintf("%s (%s): %s [%s]", g.Name, g.DisplayName, g.Description, state))
	}
}

// compact runs /compact: a model call summarises the earlier messages.
func (c *chat) compact(ctx context.Context) {
	for ev, err := range c.a.Host.Session(c.id).Compact(ctx) {
		switch {
		case err != nil:
			fmt.Fprintf(c.errOut, "toolroute: %v\n", err)
			c.failed = true
			return
		case ev.Type == host.EventMessage && ev.Message.Type == session.Summary:
			c.calls = append(c.calls, callNote{reply: *ev.Message})
			c.println(fmt.Sprintf("[summary]\n%s", ev.Message.Content))
		case ev.Type == host.EventDone:
			c.println(fmt.Sprintf("[%s]", ev.Text))
		case ev.Type == host.EventFailed:
			c.println(fmt.Sprintf("[compaction failed: %s]", ev.Failure.Message))
			c.failed = true
		}
	}
}

// send runs one turn, printing its events as they happen.
func (c *chat) send(ctx context.Context, text string) {
	c.lineStart = true
	files := c.attached
	c.attached = nil
	if c.a.Config.MCP.Ask {
		ctx = host.WithAsker(ctx, c)
	}
	for ev, err := range c.a.Host.Session(c.id).Send(ctx, text, files...) {
		if err != nil {
			c.newline()
			if errors.Is(err, context.Canceled) {
				fmt.Fprintln(c.out, "[stopped: what was done is kept]")
				return
			}
			fmt.Fprintf(c.errOut, "toolroute: %v\n", err)
			c.keepAttached(err, files)
			c.failed = true
			return
		}
		c.show(ev)
	}
}

func (c *chat) show(ev host.Event) {
	switch ev.Type {
	case host.EventModelCall:
		c.streamed = false
		if c.md != nil {
			// Each reply is rendered on its own.
			c.newline()
			c.md = nil
		}
		c.pendingCall = &callNote{call: ev.Call, routing: ev.Routing, schema: ev.Schema}
	case host.EventText:
		c.streamed = true
		c.print(ev.Text)
	case host.EventMessage:
		c.message(ev.Message)
	case host.EventGroupLoaded:
		c.newline()
		if ev.Group.Query != "" {
			added := strings.Join(ev.Group.Added, ", ")
			if added == "" {
				added = "all already loaded"
			}
			line := fmt.Sprintf("[search_tools %q loaded: %s", ev.Group.Query, added)
			if len(ev.Group.Unloaded) > 0 {
				line += "; unloaded to fit the tool budget: " + strings.Join(ev.Group.Unloaded, ", ")
			}
			c.println(line + "]")
			break
		}
		if len(ev.Group.Added) == 0 && len(ev.Group.Unloaded) > 0 {
			c.println(fmt.Sprintf("[unloaded group %s: %s]", ev.Group.Name, strings.Join(ev.Group.Unloaded, ", ")))
			break
		}
		line := fmt.Sprintf("[loaded group %s: %s", ev.Group.Name, strings.Join(ev.Group.Added, ", "))
		if len(ev.Group.Unloaded) > 0 {
			line += "; unloaded to fit the tool budget: " + strings.Join(ev.Group.Unloaded, ", ")
		}
		c.println(line + "]")
	case host.EventRetry:
		c.newline()
		// The module's sentence, as every host shows it.
		c.println(fmt.Sprintf("[%s]", strings.TrimSuffix(ev.Retry.Message, ".")))
	case host.EventDone:
		c.newline()
		c.turnUsage(ev)
	case host.EventFailed:
		c.newline()
		c.failed = true
		msg := "the turn failed"
		if ev.Failure != nil {
			msg = c.a.Hint(ev.Failure.Message)
		}
		c.println(fmt.Sprintf("error: %s", msg))
		c.turnUsage(ev)
	}
}

// turnUsage prints the line after a turn: its tokens, and what its last
// model call spent on tool schemas.
func (c *chat) turnUsage(ev host.Event) {
	var u wire.Usage
	if ev.Usage != nil {
		u = *ev.Usage
	}
	line := fmt.Sprintf("[tokens: %s in%s, %s out, %s", thousands(u.InputTokens), cachedNote(u), thousands(u.OutputTokens),
		plural(len(ev.ModelCalls), "model call"))
	if n := len(ev.ModelCalls); n > 0 && ev.ModelCalls[n-1].Schema != nil {
		line += "; schemas of the last call: " + schemaLine(ev.ModelCalls[n-1].Schema)
	}
	c.println(line + "]")
}

// usage is /usage: the session's tokens, summed from its log, and each of
// its model calls by turn, with what the call did and, for the calls of
// this run, what the module counted of its tool schemas.
func (c *chat) usage(ctx context.Context) {
	msgs, err := c.a.Host.Session(c.id).Messages(ctx)
	if err != nil {
		fmt.Fprintf(c.errOut, "toolroute: %v\n", err)
		return
	}
	total, _ := session.UsageOf(msgs)
	calls := loggedCalls(msgs)
	c.println(fmt.Sprintf("Session %s: %s, %s tokens in%s, %s out.", c.id, plural(len(calls), "model call"),
		thousands(total.InputTokens), cachedNote(total), thousands(total.OutputTokens)))
	_, used, note := c.a.Routing()
	if note != "" {
		c.println(fmt.Sprintf("Routing: %s (%s).", used, note))
	} else {
		c.println(fmt.Sprintf("Routing: %s.", used))
	}
	// This run's calls are the log's last ones, unless another process
	// wrote to the session since: each is matched by the reply it logged.
	notes := make([]*callNote, len(calls))
	for i, j := len(calls)-1, len(c.calls)-1; i >= 0 && j >= 0; i, j = i-1, j-1 {
		if !sameReply(msgs[calls[i].at], c.calls[j].reply) {
			break
		}
		notes[i] = &c.calls[j]
	}
	turn := -1
	for i, lc := range calls {
		if lc.turn != turn {
			turn = lc.turn
			if lc.turn > 0 {
				c.println(fmt.Sprintf("  turn %d: %s", lc.turn, shorten(firstLine(msgs[lc.userAt].Content), 60)))
			}
		}
		m := msgs[lc.at]
		line := fmt.Sprintf("    call %d:", lc.call)
		if m.Type == session.Summary {
			line = "    compaction:"
		}
		if m.Usage != nil {
			line += fmt.Sprintf(" %s in%s, %s out;", thousands(m.Usage.InputTokens), cachedNote(*m.Usage), thousands(m.Usage.OutputTokens))
		} else {
			line += " no usage reported;"
		}
		line += " " + lc.did
		if n := notes[i]; n != nil {
			if n.routing != "" && n.routing != session.RoutingClassic {
				line += fmt.Sprintf("; %s routing", n.routing)
			}
			if n.schema != nil {
				line += "; schemas " + schemaLine(n.schema)
			}
		}
		c.println(line)
	}
}

// loggedCall is a model call found in a session's log.
type loggedCall struct {
	// at is its reply's index in the log, userAt its turn's user message's
	// (turn 0: none, a compaction before the first turn).
	at, userAt int
	turn, call int
	// did says what the reply did.
	did string
}

// loggedCalls lists a log's model calls: each assistant message (its tool
// calls follow it) and each compaction's summary.
func loggedCalls(msgs []session.Message) []loggedCall {
	var out []loggedCall
	turn, userAt, call := 0, 0, 0
	for i, m := range msgs {
		switch m.Type {
		case session.User:
			turn, userAt, call = turn+1, i, 0
		case session.Summary:
			out = append(out, loggedCall{at: i, userAt: userAt, turn: turn, did: "summarised the earlier messages"})
		case session.Assistant:
			call++
			var tools []string
			for _, next := range msgs[i+1:] {
				if next.Type == session.ToolCall {
					tools = append(tools, next.ToolName)
				} else if next.Type == session.Assistant || next.Type == session.User || next.Type == session.Summary {
					break
				}
			}
			var did []string
			if strings.TrimSpace(m.Content) != "" {
				did = append(did, fmt.Sprintf("replied (%s)", plural(len([]rune(m.Content)), "character")))
			}
			if len(tools) > 0 {
				did = append(did, "called "+strings.Join(tools, ", "))
			}
			if len(did) == 0 {
				did = []string{"an empty reply"}
			}
			out = append(out, loggedCall{at: i, userAt: userAt, turn: turn, call: call, did: strings.Join(did, " and ")})
		}
	}
	return out
}

// sameReply says whether a logged message is the reply a call of this run
// logged.
func sameReply(logged, noted session.Message) bool {
	if logged.Type != noted.Type || logged.Content != noted.Content || (logged.Usage == nil) != (noted.Usage == nil) {
		return false
	}
	return logged.Usage == nil || *logged.Usage == *noted.Usage
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " […]"
	}
	return s
}

func schemaLine(s *host.SchemaUsage) string {
	line := fmt.Sprintf("%s core tools + %s listing", thousands(s.CoreTools), thousands(s.GroupListing))
	for _, g := range s.LoadedGroups {
		line += fmt.Sprintf(" + %s %s", thousands(g.Tokens), g.Group)
	}
	return line + fmt.Sprintf(" = %s o200k tokens", thousands(s.Total()))
}

func cachedNote(u wire.Usage) string {
	if u.CachedTokens == 0 {
		return ""
	}
	return fmt.Sprintf(" (%s cached)", thousands(u.CachedTokens))
}

// thousands writes n with commas: 12,345.
func thousands(n int) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return "-" + thousands(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// message prints what a committed message adds to what was streamed.
func (c *chat) message(m *session.Message) {
	switch m.Type {
	case session.Assistant:
		if c.pendingCall != nil {
			c.pendingCall.reply = *m
			c.calls = append(c.calls, *c.pendingCall)
			c.pendingCall = nil
		}
		if !c.streamed && m.Content != "" {
			c.print(m.Content)
		}
	case session.ToolCall:
		c.newline()
		c.println(fmt.Sprintf("→ %s %s", m.ToolName, shorten(m.ToolInput, 300)))
	case session.ToolResult:
		c.newline()
		if m.Status == registry.StatusSuccess {
			c.println(fmt.Sprintf("← %s: %s", m.ToolName, shorten(m.Content, 500)))
		} else {
			c.println(fmt.Sprintf("← %s failed (%s): %s", m.ToolName, m.ErrorType, shorten(m.Content, 500)))
		}
	case session.Summary:
		c.newline()
		c.println("[the conversation neared the model's context window: its earlier messages were summarised; the log keeps them all]")
	}
}

func (c *chat) print(s string) {
	if s == "" {
		return
	}
	if c.render {
		if c.md == nil {
			w, h := termout.Size(c.tty)
			c.md = termout.NewMarkdown(c.out, w, h)
		}
		c.md.Write(s)
		c.lineStart = false
		return
	}
	if c.tty != nil {
		// NO_COLOR: as it comes, but still unable to drive the terminal.
		s = termout.Sanitize(s)
	}
	fmt.Fprint(c.out, s)
	c.lineStart = strings.HasSuffix(s, "\n")
}

// newline ends the reply's text before what chat writes of its own: at a
// terminal, the markdown held is rendered.
func (c *chat) newline() {
	if c.md != nil {
		c.md.Flush()
		c.lineStart = true
		return
	}
	if !c.lineStart {
		fmt.Fprintln(c.out)
		c.lineStart = true
	}
}

// approve asks at the terminal whether each call may run: y (once), a
// (for the rest of the session) or n. The end of input, or an answer
// that is none of these twice, is no.
func (c *chat) approve(ctx context.Context, _ string, calls []session.Call) ([]session.Approval, error) {
	out := make([]session.Approval, 0, len(calls))
	for _, call := range calls {
		c.newline()
		what := ""
		if len(call.RequiredPermissions) > 0 {
			what = " (" + strings.Join(call.RequiredPermissions, ", ") + ")"
		}
		c.println(fmt.Sprintf("? %s %s%s", call.Tool, shorten(string(call.Input), 600), what))
		question := "  Allow it? [y] once, [a] always in this session, [n] no: "
		if len(call.Secrets) > 0 {
			// Yes grants every secret asked for: the question names them.
			c.println(fmt.Sprintf("  It asks to read your secrets: %s.", host.DescribeSecrets(call.Secrets)))
			question = "  Allow it with them? [y] once, [a] always in this session, [n] no: "
		}
		answer := session.AnswerDeny
	ask:
		for try := 0; try < 2; try++ {
			var line string
			var ok bool
			if c.ed != nil {
				var err error
				line, err = c.ed.readLine(ctx, question, false, nil)
				switch {
				case err == nil:
					ok = true
				case ctx.Err() != nil:
					return nil, ctx.Err()
				case errors.Is(err, io.EOF) && c.ed.interrupted():
					// Ctrl-C stops the turn, as it does while the turn runs.
					c.stopTurn()
					return nil, context.Canceled
				case !errors.Is(err, io.EOF):
					return nil, err
				}
			} else {
				fmt.Fprint(c.out, question)
				select {
				case line, ok = <-c.lines:
				case <-ctx.Done():
					return nil, ctx.Err()
				}
			}
			if !ok {
				fmt.Fprintln(c.out)
				break ask
			}
			if !c.interactive {
				fmt.Fprintln(c.out, line)
			}
			switch strings.ToLower(strings.TrimSpace(line)) {
			case "y", "yes":
				answer = session.AnswerOnce
				break ask
			case "a", "always":
				answer = session.AnswerSession
				break ask
			case "n", "no":
				break ask
			}
		}
		if answer == session.AnswerDeny {
			c.println(fmt.Sprintf("  %s will not run.", call.Tool))
		}
		a := session.Approval{ID: call.ID, Answer: answer}
		if answer != session.AnswerDeny {
			a.Grant = call.Secrets
		}
		out = append(out, a)
	}
	c.lineStart = true
	return out, nil
}

// shorten keeps the start of a long text on a few lines.
func shorten(s string, max int) string {
	s = strings.TrimSpace(s)
	lines := strings.Split(s, "\n")
	cut := false
	if len(lines) > 6 {
		lines, cut = lines[:6], true
	}
	s = strings.Join(lines, "\n  ")
	if r := []rune(s); len(r) > max {
		s, cut = string(r[:max]), true
	}
	if cut {
		s += " […]"
	}
	return s
}
