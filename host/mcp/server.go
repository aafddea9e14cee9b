package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolroute/toolroute/host"
	"github.com/toolroute/toolroute/internal/calltimer"
	"github.com/toolroute/toolroute/internal/elicit"
	"github.com/toolroute/toolroute/internal/safehttp"
	"github.com/toolroute/toolroute/registry/check"
)

// MaxTools is the most tools toolroute takes from one server: a server
// paging on without end is cut there.
const MaxTools = 1000

// State is where a server stands.
type State string

const (
	// Starting: its first start, or a start after it was down, has not
	// ended yet (after a fall, why still says why it was down).
	Starting State = "starting"
	// Connected: it listed its tools and takes calls.
	Connected State = "connected"
	// Down: it would not start, crashed, hung or sent garbage; toolroute
	// starts it again at RetryAt.
	Down State = "down"
	// Disabled: its entry says "disabled": true.
	Disabled State = "disabled"
	// Known: not started, its tools known from its last run (the cache
	// file); the first call of one of them starts it.
	Known State = "known"
	// NeedsAuthorization: it refused toolroute (HTTP 401, or 403 asking
	// for more scopes); toolroute starts it again once the auth file
	// holds new credentials for it (toolroute mcp login), not before.
	NeedsAuthorization State = "needs_authorization"
)

// server is one configured server and the goroutine that keeps it running.
type server struct {
	cfg  ServerConfig
	opts *hub
	// oauth sends an HTTP server the credentials of the auth file and
	// notes its refusals; nil for stdio.
	oauth *oauth
	stop  chan struct{}
	done  chan struct{}
	// started is closed when the first start has ended, either way.
	started chan struct{}

	mu sync.Mutex
	// sess is the running session; nil while down.
	sess     *session
	state    State
	why      string    // why it is down
	held     string    // the credentials it refused, when it needs authorization
	retryAt  time.Time // when it is started again
	failures int       // starts failed or sessions ended since the last long one
	upSince  time.Time
	// What the server said of itself, and its tools as last listed.
	info         *mcp.Implementation
	instructions string
	protocol     string
	tools        []*mcp.Tool
	listed       bool
	cached       bool // the tools above came from the cache file at Start

	// wakeOnce starts supervise, once: at Start, or at the first call of
	// a Known server; Close uses it to mark one never started done.
	wakeOnce sync.Once

	// progress are the calls running that pass on the server's progress,
	// by the progressToken toolroute gave each; calls counts them out.
	progress map[string]func(host.Progress)
	calls    uint64
	// running are the calls in progress, by a count of their own (runs):
	// a question the server asks goes to the user of one of them.
	running map[uint64]*running
	runs    uint64
	// heard are the params of the last questions read over stdio, as
	// sent: the SDK gives the handler the form as a map, which loses the
	// order its fields were written in.
	heard []json.RawMessage

	// refreshing serializes listing the tools again after list_changed.
	refreshing sync.Mutex
	// closing counts the sessions being closed in the background (a
	// process given time to exit, then killed): supervise waits for them
	// before it is done, so that stopping toolroute leaves no server
	// running, even one that hung.
	closing sync.WaitGroup
}

// session is one connection to a server: a process for stdio.
type session struct {
	cs     *mcp.ClientSession
	cmd    *exec.Cmd // nil over HTTP
	stderr *tail
	// ended is closed by end, once: the session is over, for whatever reason.
	ended chan struct{}
	// stale is set when the server said its tools changed and they were
	// not listed since.
	stale bool // guarded by server.mu
}

func newServer(cfg ServerConfig, opts *hub) *server {
	s := &server{cfg: cfg, opts: opts, stop: make(chan struct{}), done: make(chan struct{}), started: make(chan struct{}), state: Starting}
	if cfg.URL != "" {
		s.oauth = newOAuth(opts.AuthFile, cfg.Key, cfg.URL)
	}
	if cfg.Disabled {
		s.state = Disabled
		close(s.started)
		close(s.done)
	}
	return s
}

// wake starts the server, if it was not started yet and is not closed.
func (s *server) wake() {
	s.wakeOnce.Do(func() {
		s.mu.Lock()
		if s.state == Known {
			s.state = Starting
		}
		s.mu.Unlock()
		go s.supervise()
	})
}

// known reports whether the server waits for a call to be started.
func (s *server) known() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.state == Known
}

// supervise starts the server and starts it again, with backoff, whenever
// its session ends, until stop.
func (s *server) supervise() {
	defer close(s.done)
	defer s.closing.Wait()
	for {
		s.mu.Lock()
		if s.state == Down {
			// Started again now: a call meanwhile says so, not a retry
			// time that has passed.
			s.state = Starting
		}
		s.mu.Unlock()
		sess, err := s.start()
		var refused *refusedError
		if errors.As(err, &refused) {
			s.refused(nil, refused.why, refused.held)
			s.opts.changed()
		}
		if err != nil && refused == nil {
			s.end(nil, err.Error())
			s.mu.Lock()
			listed := s.listed || s.cached
			s.mu.Unlock()
			if !listed {
				// Its group, without tools, says why: starting no more.
				s.opts.changed()
			}
		}
		s.startedOnce()
		if sess != nil {
			select {
			case <-sess.ended:
			case <-s.stop:
				s.end(sess, "toolroute stopped it")
				sess.close()
				return
			}
			s.closeLater(sess)
		}
		s.mu.Lock()
		wait := time.Until(s.retryAt)
		needsAuth, held := s.state == NeedsAuthorization, s.held
		s.mu.Unlock()
		if needsAuth {
			// Not started again until the user signs in.
			if !s.awaitCredentials(held) {
				return
			}
			continue
		}
		select {
		case <-time.After(wait):
		case <-s.stop:
			return
		}
	}
}

// refusedError is a start the server refused for want of authorization.
type refusedError struct {
	why  string
	held string // the credentials it was refused with
}

func (e *refusedError) Error() string { return e.why }

// refused marks sess over (nil: a start that failed) and the server in
// need of authorization, why.
func (s *server) refused(sess *session, why, held string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sess != nil {
		select {
		case <-sess.ended:
			return
		default:
			close(sess.ended)
		}
		if s.sess != sess {
			return
		}
	}
	s.sess, s.state, s.why, s.retryAt, s.held = nil, NeedsAuthorization, why, time.Time{}, held
}

// awaitCredentials waits until the auth file holds other credentials for
// the server than held (the user signed in), looking at the file's time
// every Options.AuthPoll; false when the server is stopped first.
func (s *server) awaitCredentials(held string) bool {
	// The file is read at the first tick whatever its time: the user may
	// have signed in while the refusal was on its way.
	stamp := "unread"
	tick := time.NewTicker(s.opts.authPoll())
	defer tick.Stop()
	for {
		select {
		case <-s.stop:
			return false
		case <-tick.C:
		}
		now := authStamp(s.opts.AuthFile)
		if now == stamp {
			continue
		}
		stamp = now
		f, err := readAuth(s.opts.AuthFile)
		if e, _ := f.find(s.cfg.Key, s.cfg.URL); err == nil && e.credentials() != held {
			s.mu.Lock()
			s.state = Starting
			s.mu.Unlock()
			return true
		}
	}
}

// credentials are those the auth file holds for the server now.
func (s *server) credentials() string {
	f, _ := readAuth(s.opts.AuthFile)
	e, _ := f.find(s.cfg.Key, s.cfg.URL)
	return e.credentials()
}

func (s *server) startedOnce() {
	select {
	case <-s.started:
	default:
		close(s.started)
	}
}

// The causes a start is cancelled with when it takes too long.
var (
	errStartup   = errors.New("mcp: the server's start-up took too long")
	errHandshake = errors.New("mcp: the handshake took too long")
)

// start connects, lists the tools and makes the session the server's. A
// stdio server's handshake is timed from its first message (the answer to
// initialize): its process's start-up before that has Options.Startup, so
// that servers slow to start (many at once on a busy machine) are not
// reported down for it.
func (s *server) start() (*session, error) {
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	handshake := time.Duration(s.cfg.TimeoutSeconds) * time.Second
	heard := make(chan struct{}) // closed at the server's first message
	var heardOnce sync.Once
	first, firstCause := handshake, errHandshake
	if s.cfg.URL == "" {
		first, firstCause = s.opts.startup(), errStartup
	}
	go func() {
		timer := time.NewTimer(first)
		defer timer.Stop()
		cause, started := firstCause, heard
		for {
			select {
			case <-s.stop:
				cancel(nil)
				return
			case <-ctx.Done():
				return
			case <-timer.C:
				cancel(cause)
				return
			case <-started:
				started = nil // heard once
				if cause == errStartup {
					timer.Reset(handshake)
					cause = errHandshake
				}
			}
		}
	}()
	sess := &session{ended: make(chan struct{})}
	copts := &mcp.ClientOptions{
		// No roots or sampling: toolroute offers neither. Elicitation
		// (forms) only where someone can be asked (Options.Ask).
		Capabilities:           &mcp.ClientCapabilities{},
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { s.listChanged(sess, true) },
	}
	if s.opts.Ask {
		copts.ElicitationHandler = s.elicit
	}
	if s.cfg.URL != "" {
		// Over HTTP the connection cannot be wrapped (the SDK's has
		// methods of its own it looks for), so progress comes by the
		// handler, which a result may overtake: a call's last progress
		// can come after it, and is then dropped.
		copts.ProgressNotificationHandler = func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			s.progressed(req.Params)
		}
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "toolroute", Version: version()}, copts)
	var t mcp.Transport
	held := ""
	if s.cfg.URL != "" {
		u, _ := url.Parse(s.cfg.URL) // ParseConfig checked it
		s.oauth.reset()
		held = s.credentials()
		t = &mcp.StreamableClientTransport{Endpoint: s.cfg.URL, HTTPClient: &http.Client{Transport: headers{host: u.Host, values: s.cfg.Headers}},
			MaxEventSize: MaxAnswerBytes, OAuthHandler: s.oauth}
	} else {
		cmd := exec.Command(s.cfg.Command, s.cfg.Args...)
		cmd.Env = Env(os.Getenv, s.cfg.Env)
		cmd.Dir = s.cfg.Cwd
		sess.stderr = &tail{}
		cmd.Stderr = sess.stderr
		sess.cmd = cmd
		t = &watched{Transport: &mcp.CommandTransport{Command: cmd, TerminateDuration: s.opts.terminate()}, notice: func() { s.listChanged(sess, false) },
			first: func() { heardOnce.Do(func() { close(heard) }) }, progress: s.progressed, ask: s.heardAsk}
	}
	cs, err := client.Connect(ctx, t, nil)
	if err != nil && s.oauth != nil && s.oauth.refusal() != "" {
		return nil, &refusedError{why: s.oauth.refusal(), held: held}
	}
	if err != nil {
		// The SDK closes what it started, except on a few paths.
		if sess.cmd != nil && sess.cmd.Process != nil && sess.cmd.ProcessState == nil {
			sess.cmd.Process.Kill()
			go sess.cmd.Wait()
		}
		return nil, errors.New(s.startProblem(sess, err, context.Cause(ctx)))
	}
	sess.cs = cs
	s.mu.Lock()
	sess.stale = false
	s.mu.Unlock()
	tools, err := listTools(ctx, cs)
	if err != nil && s.oauth != nil && s.oauth.refusal() != "" {
		cs.Close()
		return nil, &refusedError{why: s.oauth.refusal(), held: held}
	}
	if err != nil {
		cs.Close()
		if errors.Is(context.Cause(ctx), errHandshake) {
			return nil, fmt.Errorf("it did not answer tools/list within %d s%s", s.cfg.TimeoutSeconds, sess.lastWords())
		}
		return nil, fmt.Errorf("its tools/list failed: %s", clip(err.Error(), 300)+sess.lastWords())
	}
	init := cs.InitializeResult()
	s.mu.Lock()
	s.sess, s.state, s.why, s.upSince = sess, Connected, "", time.Now()
	s.tools, s.listed = tools, true
	if init != nil {
		s.info, s.instructions, s.protocol = init.ServerInfo, init.Instructions, init.ProtocolVersion
	}
	entry := s.cacheEntry()
	// A list_changed that came while the tools were listed.
	stale := sess.stale
	s.mu.Unlock()
	s.opts.remember(entry)
	if stale {
		go s.refresh(sess)
	}
	go func() {
		err := cs.Wait()
		select {
		case <-sess.ended:
			return // ended by toolroute
		default:
		}
		sess.close()
		s.end(sess, s.problem(sess, err))
	}()
	s.opts.changed()
	return sess, nil
}

// listTools pages through tools/list, at most MaxTools.
func listTools(ctx context.Context, cs *mcp.ClientSession) ([]*mcp.Tool, error) {
	var tools []*mcp.Tool
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return nil, err
		}
		if len(tools) == MaxTools {
			return nil, fmt.Errorf("it lists more than %d tools", MaxTools)
		}
		tools = append(tools, t)
	}
	return tools, nil
}

// end marks sess over (nil: a start that failed) and the server down, and
// sets when it is started again: 1 s after the first failure, doubling up
// to the maximum; a session that stayed up that long starts the count
// again. A session ends once; the first reason given is kept.
func (s *server) end(sess *session, why string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sess != nil {
		select {
		case <-sess.ended:
			return
		default:
			close(sess.ended)
		}
		if s.sess != sess {
			return
		}
		if time.Since(s.upSince) >= s.opts.maxBackoff() {
			s.failures = 0
		}
	}
	delay := s.opts.minBackoff() << min(s.failures, 16)
	delay = min(delay, s.opts.maxBackoff())
	s.failures++
	s.sess, s.state, s.why, s.retryAt = nil, Down, why, time.Now().Add(delay)
}

// closeLater closes sess in the background, counted in s.closing.
func (s *server) closeLater(sess *session) {
	s.closing.Add(1)
	go func() {
		defer s.closing.Done()
		sess.close()
	}()
}

// close ends the session's connection, and its process.
func (sess *session) close() {
	if sess.cs != nil {
		sess.cs.Close()
	}
}

// listChanged is the server's notifications/tools/list_changed: the tools
// are listed again at the next call's end, or now. The stdio connection
// sees the notification as it is read (now false), before the result of a
// call it came ahead of, so that call returns only once the catalogue has
// the change.
func (s *server) listChanged(sess *session, now bool) {
	s.mu.Lock()
	sess.stale = true
	s.mu.Unlock()
	if now {
		go s.refresh(sess)
	}
}

// refresh lists the tools again if the server said they changed, and tells
// the host. A failed listing ends the session.
func (s *server) refresh(sess *session) {
	s.refreshing.Lock()
	defer s.refreshing.Unlock()
	s.mu.Lock()
	if s.sess != sess || !sess.stale {
		// Not yet the server's session: start looks at stale once it is.
		s.mu.Unlock()
		return
	}
	sess.stale = false
	s.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(s.cfg.TimeoutSeconds)*time.Second)
	defer cancel()
	tools, err := listTools(ctx, sess.cs)
	if err != nil {
		s.end(sess, "listing its tools again after it said they changed failed: "+clip(err.Error(), 300))
		s.closeLater(sess)
		return
	}
	s.mu.Lock()
	current := s.sess == sess
	var entry cacheEntry
	if current {
		s.tools = tools
		entry = s.cacheEntry()
	}
	s.mu.Unlock()
	if current {
		s.opts.remember(entry)
		s.opts.changed()
	}
}

// cacheEntry is what the cache file keeps of the server now; s.mu is held.
func (s *server) cacheEntry() cacheEntry {
	return cacheEntry{Key: s.cfg.Key, ConfigHash: configHash(s.cfg), ServerInfo: s.info, Instructions: s.instructions,
		Protocol: s.protocol, Tools: s.tools, ListedAt: time.Now().UTC()}
}

// call runs tools/call and maps its outcome for the model.
func (s *server) call(ctx context.Context, mcpName string, input json.RawMessage) (host.Output, error) {
	s.mu.Lock()
	sess := s.sess
	s.mu.Unlock()
	if sess == nil {
		// A Known server is started by this call, which waits for its
		// first start; one down was started and is not waited for.
		s.wake()
		select {
		case <-s.started:
		case <-s.stop:
		case <-ctx.Done():
			return host.Output{}, ctx.Err()
		}
		s.mu.Lock()
		sess = s.sess
		s.mu.Unlock()
		if sess == nil {
			return s.unavailable(ctx, false)
		}
	}
	timeout := time.Duration(s.cfg.TimeoutSeconds) * time.Second
	callCtx, restart, cancel := calltimer.New(ctx, timeout)
	defer cancel()
	run, done := s.track(callCtx)
	defer done()
	callCtx = context.WithValue(callCtx, runningKey{}, run)
	if len(input) == 0 {
		input = json.RawMessage(`{}`)
	}
	params := &mcp.CallToolParams{Name: mcpName, Arguments: input}
	if report := host.ProgressFrom(ctx); report != nil {
		// Whoever made the call wants its progress (the host, whose own
		// time for the call starts again with it; toolroute mcp's client;
		// a page): the server gets a token of toolroute's, unique among
		// its calls, and its notifications go back by it. Each starts the
		// call's time again, as in the JS hosts.
		defer s.follow(params, func(p host.Progress) {
			restart()
			report(p)
		})()
	}
	// A call ended early (the client's notifications/cancelled, a turn
	// stopped) ends callCtx, and the SDK tells the server with
	// notifications/cancelled.
	res, err := sess.cs.CallTool(callCtx, params)
	out := s.withAsked(run)
	we, rpcErr := rpcError(err)
	if err == nil || rpcErr {
		// A list_changed the server sent before its answer is in the
		// catalogue before the call returns.
		s.refresh(sess)
	}
	if err == nil {
		return out(toolResult(ctx, s.cfg.Key, mcpName, res))
	}
	if rpcErr {
		return out(outcome(ctx, check.MCPResult{Key: s.cfg.Key, MCPName: mcpName, RPCError: &check.MCPRPCError{Code: we.Code, Message: we.Message}}))
	}
	s.mu.Lock()
	asked := run.asked
	s.mu.Unlock()
	if asked && errors.Is(callCtx.Err(), context.DeadlineExceeded) {
		// The time went on the user's answer to the server's question:
		// not the server's fault either.
		q := host.Elicitation{Server: s.cfg.Key}
		return host.Output{}, toolError(elicit.Refusal(context.WithoutCancel(callCtx), q, check.UnaskedTimedOut, s.cfg.TimeoutSeconds), "timeout")
	}
	if ctx.Err() != nil {
		return host.Output{}, ctx.Err() // the turn was stopped: not the server's fault
	}
	if s.oauth != nil && s.oauth.refusal() != "" {
		// Refused (its token revoked, or scopes it wants more of): the
		// session is dropped, and started again once the user signs in.
		s.refused(sess, s.oauth.refusal(), s.credentials())
		s.opts.changed()
		return s.unavailable(ctx, false)
	}
	if errors.Is(callCtx.Err(), context.DeadlineExceeded) {
		s.end(sess, fmt.Sprintf("it did not answer a call of %s within %d s, so toolroute stopped it", mcpName, s.cfg.TimeoutSeconds))
		s.closeLater(sess)
		return s.unavailable(ctx, true)
	}
	// The connection broke or the answer was not MCP. A crashed process is
	// reported by the session's watcher with its exit status; wait a
	// little for it.
	select {
	case <-sess.ended:
	case <-time.After(2 * time.Second):
	}
	s.end(sess, s.problem(sess, err))
	s.closeLater(sess)
	return s.unavailable(ctx, true)
}

// follow gives a call a progressToken whose notifications go to report,
// until the returned func is called.
func (s *server) follow(params *mcp.CallToolParams, report func(host.Progress)) (done func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls++
	token := fmt.Sprintf("toolroute-%d", s.calls)
	if s.progress == nil {
		s.progress = map[string]func(host.Progress){}
	}
	s.progress[token] = report
	params.SetProgressToken(token)
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		delete(s.progress, token)
	}
}

// progressed passes a progress notification of the server on to the call
// it is about; one about no call running is dropped, as the spec says.
func (s *server) progressed(p *mcp.ProgressNotificationParams) {
	if p == nil {
		return
	}
	token, _ := p.ProgressToken.(string)
	s.mu.Lock()
	report := s.progress[token]
	s.mu.Unlock()
	if report != nil {
		report(host.Progress{Progress: p.Progress, Total: p.Total, Message: p.Message})
	}
}

// unavailable is the failure of a call the server cannot take: which
// server, why, when it is tried again and what to do (the module's words).
// midCall says the call broke off, so it may have taken effect.
func (s *server) unavailable(ctx context.Context, midCall bool) (host.Output, error) {
	s.mu.Lock()
	why, retry := s.why, time.Until(s.retryAt)
	if s.state == Starting {
		retry = 0 // being started again now
	}
	needsAuth := s.state == NeedsAuthorization
	s.mu.Unlock()
	return outcome(ctx, check.MCPResult{Key: s.cfg.Key, Unavailable: &check.MCPDown{Why: why, RetryMS: retry.Milliseconds(), MidCall: midCall, NeedsAuthorization: needsAuth}})
}

// startProblem says why a start failed: the command, the handshake or the
// URL, with what the process last wrote to stderr. cause is why the
// start's context ended, if it did.
func (s *server) startProblem(sess *session, err, cause error) string {
	var exitErr *exec.ExitError
	switch {
	case errors.Is(cause, errStartup):
		return fmt.Sprintf("it did not answer the MCP handshake within %d s of being started, so toolroute stopped it%s", int(s.opts.startup()/time.Second), sess.lastWords())
	case errors.Is(cause, errHandshake):
		return fmt.Sprintf("it did not complete the MCP handshake within %d s%s", s.cfg.TimeoutSeconds, sess.lastWords())
	case s.cfg.URL != "":
		return fmt.Sprintf("it could not be reached at %s: %s", s.cfg.URL, clip(err.Error(), 300))
	case errors.Is(err, exec.ErrNotFound) || errors.Is(err, os.ErrNotExist) || errors.Is(err, os.ErrPermission):
		return fmt.Sprintf("it could not be started: %s (check \"command\" in its entry)", clip(err.Error(), 300))
	case !closedByPeer(err):
		return "it answered the MCP handshake with something that is not MCP: " + clip(err.Error(), 300) + sess.lastWords()
	case sess.cmd != nil && sess.cmd.ProcessState != nil:
		return fmt.Sprintf("it exited during the MCP handshake (%s)%s", sess.cmd.ProcessState, sess.lastWords())
	case errors.As(err, &exitErr):
		return fmt.Sprintf("it exited during the MCP handshake (%s)%s", exitErr, sess.lastWords())
	}
	return "the MCP handshake failed: " + clip(err.Error(), 300) + sess.lastWords()
}

// closedByPeer reports whether a connection ended because the other side
// closed it (its process exited), rather than because what it sent could
// not be read: its output ended, or writing to it found the pipe broken
// (a process that exits at once may be gone before the handshake is
// written). The SDK gives the reason only as text.
func closedByPeer(err error) bool {
	var exitErr *exec.ExitError
	return err == nil || errors.Is(err, io.EOF) || errors.Is(err, syscall.EPIPE) || errors.As(err, &exitErr) ||
		strings.HasSuffix(err.Error(), "EOF") || strings.HasSuffix(err.Error(), "broken pipe")
}

// problem says why a session broke: a call's error, or the one its end
// came with.
func (s *server) problem(sess *session, err error) string {
	switch {
	case s.cfg.URL != "" && err != nil && strings.HasSuffix(err.Error(), "session not found"):
		return "it no longer knows toolroute's session (it was restarted)"
	case s.cfg.URL != "" && err != nil:
		return "the request to it failed: " + clip(sdkError(err), 300)
	case !closedByPeer(err):
		return "it sent something that is not MCP: " + clip(sdkError(err), 300) + sess.lastWords()
	case sess.cmd != nil && sess.cmd.ProcessState != nil:
		return fmt.Sprintf("it exited (%s)%s", sess.cmd.ProcessState, sess.lastWords())
	}
	return "it closed the connection" + sess.lastWords()
}

// lastWords is the end of what the process wrote to stderr, for messages.
func (sess *session) lastWords() string {
	if sess.stderr == nil {
		return ""
	}
	if w := sess.stderr.last(); w != "" {
		return fmt.Sprintf("; it wrote: %q", w)
	}
	return ""
}

// sdkPrefix is how the SDK starts the errors of a request.
var sdkPrefix = regexp.MustCompile(`^((calling|sending) "[^"]*": |rejected by transport: )+`)

// sdkError is an error's text without the SDK's prefixes.
func sdkError(err error) string {
	return sdkPrefix.ReplaceAllString(err.Error(), "")
}

// clip cuts s to n bytes (at a character boundary) with an ellipsis.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !isRuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

// tail keeps the end of what a process writes to stderr.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

const tailSize = 4096

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > tailSize {
		t.buf = slices.Clone(t.buf[len(t.buf)-tailSize:])
	}
	return len(p), nil
}

// last is the last non-empty line written, at most 300 bytes.
func (t *tail) last() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := strings.Split(strings.TrimSpace(string(t.buf)), "\n")
	return clip(strings.TrimSpace(lines[len(lines)-1]), 300)
}

// InheritedEnv are the variables of toolroute's environment a stdio server
// gets, as the official SDKs pass them: not the provider's key or any other
// secret the process holds.
var InheritedEnv = []string{"HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "TMPDIR", "LANG"}

// Env is a stdio server's environment: InheritedEnv from getenv, then the
// entry's env, sorted by name.
func Env(getenv func(string) string, extra map[string]string) []string {
	vars := map[string]string{}
	for _, k := range InheritedEnv {
		if v := getenv(k); v != "" {
			vars[k] = v
		}
	}
	for k, v := range extra {
		vars[k] = v
	}
	keys := make([]string, 0, len(vars))
	for k := range vars {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = k + "=" + vars[k]
	}
	return out
}

// MaxAnswerBytes bounds what toolroute reads of one answer of an MCP server
// over HTTP, decoded: a JSON body, an error's body, or one event of an
// event stream (the SDK's MaxEventSize, its default). A stream is read
// event by event, and may last the session, so it has no bound of its own.
const MaxAnswerBytes = 16 << 20

// headers is an HTTP transport adding the entry's headers (a token, often)
// to the requests to the server's own host, not to one a redirect leads to.
// It caps the bodies it returns at MaxAnswerBytes, but a stream's: the SDK
// reads a JSON body, and an error's of any type, whole, however long.
type headers struct {
	host   string
	values map[string]string
}

func (h headers) RoundTrip(r *http.Request) (*http.Response, error) {
	if len(h.values) > 0 && r.URL.Host == h.host {
		r = r.Clone(r.Context())
		for k, v := range h.values {
			r.Header.Set(k, v)
		}
	}
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err != nil {
		return resp, err
	}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt != "text/event-stream" || resp.StatusCode/100 != 2 {
		resp.Body = safehttp.LimitBody(resp.Body, MaxAnswerBytes, "the MCP server's answer",
			"no tool's result is this long: check the server, or its URL in mcp.json")
	}
	return resp, nil
}

// watched is a transport whose connection reports a tools/list_changed
// notification as soon as it is read, ahead of the messages after it.
// It reports the first message read too (first): the server has started.
// A progress notification is passed on as it is read (progress), so that
// it reaches toolroute mcp's client before the call's result: the SDK
// hands notifications to their handlers apart from the results, which can
// overtake them.
type watched struct {
	mcp.Transport
	notice, first func()
	progress      func(*mcp.ProgressNotificationParams)
	ask           func(json.RawMessage)
}

func (w *watched) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := w.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &watchedConn{Connection: c, notice: w.notice, first: w.first, progress: w.progress, ask: w.ask}, nil
}

type watchedConn struct {
	mcp.Connection
	notice, first func()
	progress      func(*mcp.ProgressNotificationParams)
	ask           func(json.RawMessage)
}

func (c *watchedConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if err == nil && c.first != nil {
		c.first()
	}
	if req, ok := msg.(*jsonrpc.Request); ok && err == nil && req.Method == "notifications/tools/list_changed" {
		c.notice()
	}
	if req, ok := msg.(*jsonrpc.Request); ok && err == nil && req.Method == "elicitation/create" && c.ask != nil {
		c.ask(req.Params)
	}
	if resp, ok := msg.(*jsonrpc.Response); ok && err == nil && c.ask != nil && bytes.Contains(resp.Result, []byte(`"inputRequests"`)) {
		// From 2026-07-28 a server asks in its call's result (SEP-2322).
		var res struct {
			InputRequests map[string]struct {
				Method string          `json:"method"`
				Params json.RawMessage `json:"params"`
			} `json:"inputRequests"`
		}
		if json.Unmarshal(resp.Result, &res) == nil {
			for _, ir := range res.InputRequests {
				if ir.Method == "elicitation/create" {
					c.ask(ir.Params)
				}
			}
		}
	}
	if req, ok := msg.(*jsonrpc.Request); ok && err == nil && req.Method == "notifications/progress" {
		var p mcp.ProgressNotificationParams
		if json.Unmarshal(req.Params, &p) == nil {
			c.progress(&p)
		}
	}
	return msg, err
}

// version is toolroute's version as the build records it.
func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "devel"
}
