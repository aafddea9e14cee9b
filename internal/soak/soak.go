// Package soak loads a running `toolroute serve` as a day of use would, in
// rounds, and measures what its memory does between them: many sessions
// at once send turns of four kinds (a plain answer, a JS tool call, a turn
// stopped by its client, an approval its client abandons), new sessions
// replace old ones, and after each round of load the server idles; at the
// end of each idle, its resident memory (from /proc), its live heap and
// goroutines (from its --debug-addr profiles) are sampled. A process that
// gives back what a round took shows the same figures round after round.
//
// The model is a fakemodel server answering by what each request's last
// message asks for; the program is the real binary, started by Run.
package soak

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/toolroute/toolroute/internal/fakemodel"
)

// Config configures Run.
type Config struct {
	// Binary is the toolroute program.
	Binary string
	// Dir is an empty folder for the run: the home folder serve sees.
	Dir string
	// Env is the environment serve starts with; Run sets HOME, the XDG
	// folders and the provider's variables on top of it.
	Env []string
	// Sessions are the sessions sending turns at once: 64 by default.
	Sessions int
	// Rounds of load, each followed by an idle: 3 by default.
	Rounds int
	// Load and Idle are each round's time of load and of idling after
	// it: 80 s and 40 s by default.
	Load, Idle time.Duration
	// Think is the mean pause between a session's turns, each pause
	// drawn between none and twice it: 4 s by default, which gives
	// about a thousand turns a round at 64 sessions.
	Think time.Duration
	// TurnsPerSession is how many turns a session sends before it is
	// left for a new one (every other one deleted): 10 by default.
	TurnsPerSession int
	// ProfileDir, when set, gets a heap profile (heap-N.pb.gz, after a
	// collection) and a goroutine dump (goroutines-N.txt) at the start
	// (N = 0) and at the end of each round's idle.
	ProfileDir string
	// Log gets a line per sample; nil for none.
	Log io.Writer
}

func (c *Config) defaults() {
	if c.Sessions <= 0 {
		c.Sessions = 64
	}
	if c.Rounds <= 0 {
		c.Rounds = 3
	}
	if c.Load <= 0 {
		c.Load = 80 * time.Second
	}
	if c.Idle <= 0 {
		c.Idle = 40 * time.Second
	}
	if c.Think <= 0 {
		c.Think = 4 * time.Second
	}
	if c.TurnsPerSession <= 0 {
		c.TurnsPerSession = 10
	}
	if c.Log == nil {
		c.Log = io.Discard
	}
}

// Sample is what serve held at one moment.
type Sample struct {
	// RSS is the resident memory (VmRSS), in bytes, read before the
	// collection the heap profile makes.
	RSS int64
	// Heap is the live heap after a collection (HeapAlloc), HeapSys what
	// the heap holds from the system, both in bytes.
	Heap, HeapSys int64
	// Goroutines is their number.
	Goroutines int
}

// Round is one round of load and its idle.
type Round struct {
	// Turns counts the turns sent by kind: plain, tools, stopped,
	// abandoned; Failed the turns that ended otherwise than their kind
	// should (an error event, a refusal), which a sound run has none of.
	Plain, Tools, Stopped, Abandoned, Failed int
	// Sessions are the new sessions of the round.
	Sessions int
	// Peak is the highest RSS seen during the round's load, in bytes.
	Peak int64
	// After is serve at the end of the round's idle.
	After Sample
}

// Turns is the round's turns of every kind.
func (r Round) Turns() int { return r.Plain + r.Tools + r.Stopped + r.Abandoned + r.Failed }

// Report is a run's figures.
type Report struct {
	// Start is serve before any load, once it answers.
	Start  Sample
	Rounds []Round
	// FirstFailure is the first failed turn's story, if any.
	FirstFailure string
}

// The kinds of turn, by the first word of the user's message, which the
// model answers by.
const (
	kindPlain   = "plain"   // the model answers with text
	kindTools   = "tools"   // the model calls soak_work (JS), then answers
	kindStopM   = "stopm"   // the model holds its answer; the client leaves
	kindStopT   = "stopt"   // the model calls soak_slow; the client leaves during it
	kindApprove = "approve" // the model calls soak_send, which asks; the client leaves
)

var kinds = []string{kindPlain, kindTools, kindStopM, kindPlain, kindApprove, kindTools, kindStopT, kindPlain}

// tools are the user's JS tools the model calls.
var tools = []struct{ name, manifest, code string }{
	{"soak_work", `{"name":"soak_work","description":"Build a list and measure it","parameters":{"type":"object","properties":{"n":{"type":"integer"}}}}`,
		`function execute(p) { const a = []; for (let i = 0; i < p.n; i++) a.push({i, s: "x".repeat(100) + i}); console.log("built", a.length); return JSON.stringify(a).length; }`},
	{"soak_slow", `{"name":"soak_slow","description":"Count for ten seconds","timeoutSeconds":20,"parameters":{"type":"object","properties":{}}}`,
		`function execute() { const end = Date.now() + 10000; let x = 0; while (Date.now() < end) x++; return x; }`},
	{"soak_send", `{"name":"soak_send","description":"Send a note","requiredPermissions":["send"],"parameters":{"type":"object","properties":{"text":{"type":"string"}}}}`,
		`function execute(p) { return "sent " + p.text; }`},
}

// respond is the model: it answers a request by its last message.
func respond(held <-chan struct{}) func(fakemodel.Request) fakemodel.Reply {
	return func(r fakemodel.Request) fakemodel.Reply {
		var body struct {
			Messages []struct {
				Role    string          `json:"role"`
				Content json.RawMessage `json:"content"`
			} `json:"messages"`
		}
		if err := json.Unmarshal(r.Body, &body); err != nil || len(body.Messages) == 0 {
			return fakemodel.Error(400, `{"error":{"message":"soak: no messages","type":"invalid_request_error"}}`)
		}
		last := body.Messages[len(body.Messages)-1]
		if last.Role == "tool" {
			return fakemodel.Text("The tool answered; that is all. " + strings.Repeat("Some words to keep. ", 20))
		}
		var text string
		json.Unmarshal(last.Content, &text)
		kind, n, _ := strings.Cut(text, " ")
		switch kind {
		case kindTools:
			return fakemodel.ToolCall("soak_work", `{"n":2000}`)
		case kindStopM:
			return fakemodel.Reply{Text: "never sent", Hold: held}
		case kindStopT:
			return fakemodel.ToolCall("soak_slow", `{}`)
		case kindApprove:
			return fakemodel.ToolCall("soak_send", `{"text":"note `+n+`"}`)
		}
		return fakemodel.Text("A plain answer to " + n + ". " + strings.Repeat("More words to keep in the log. ", 40))
	}
}

// Run starts serve in cfg.Dir with a model of its own, loads it in rounds
// and returns the figures. It stops serve before it returns.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	cfg.defaults()
	held := make(chan struct{})
	defer close(held)
	model := fakemodel.NewFunc(fakemodel.OpenAI, respond(held))
	defer model.Close()

	toolsDir := filepath.Join(cfg.Dir, ".config", "toolroute", "tools")
	if err := os.MkdirAll(toolsDir, 0o755); err != nil {
		return nil, err
	}
	for _, t := range tools {
		if err := os.WriteFile(filepath.Join(toolsDir, t.name+".json"), []byte(t.manifest), 0o644); err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(toolsDir, t.name+".js"), []byte(t.code), 0o644); err != nil {
			return nil, err
		}
	}
	token := "soak-" + strconv.FormatUint(rand.Uint64(), 36) + "-token"
	cmd := exec.Command(cfg.Binary, "serve", "--port", "0", "--token", token, "--debug-addr", "127.0.0.1:0")
	cmd.Dir = cfg.Dir
	cmd.Env = append(append([]string(nil), cfg.Env...),
		"HOME="+cfg.Dir,
		"XDG_CONFIG_HOME="+filepath.Join(cfg.Dir, ".config"),
		"XDG_DATA_HOME="+filepath.Join(cfg.Dir, ".local", "share"),
		"XDG_CACHE_HOME="+filepath.Join(cfg.Dir, ".cache"),
		"OPENAI_BASE_URL="+model.BaseURL(), "OPENAI_API_KEY=sk-soak")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	defer func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
	}()
	s := &soak{cfg: cfg, token: token, pid: cmd.Process.Pid,
		client: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: cfg.Sessions, MaxConnsPerHost: 0}}}
	lines := bufio.NewReader(stdout)
	for s.api == "" || s.debug == "" {
		line, err := lines.ReadString('\n')
		if err != nil {
			return nil, fmt.Errorf("soak: serve printed no address (%v): %s", err, stderr.String())
		}
		if _, rest, ok := strings.Cut(line, "serving on "); ok {
			s.api, _, _ = strings.Cut(rest, "/?")
		}
		if _, rest, ok := strings.Cut(line, "profiles on "); ok {
			s.debug, _, _ = strings.Cut(rest, " ")
		}
	}
	go io.Copy(io.Discard, lines)

	// soak_send asks by default (it sends); the rule says so again, so
	// that a user's rules elsewhere cannot change the load.
	if err := s.do(ctx, "PUT", "/api/policies", `{"tool":"soak_send","decision":"ask"}`, nil); err != nil {
		return nil, err
	}
	rep := &Report{}
	if rep.Start, err = s.sample(ctx, 0); err != nil {
		return nil, err
	}
	fmt.Fprintf(cfg.Log, "soak: start: %s\n", rep.Start)
	for i := 1; i <= cfg.Rounds; i++ {
		r, err := s.round(ctx, i)
		if err != nil {
			return nil, err
		}
		rep.Rounds = append(rep.Rounds, r)
		fmt.Fprintf(cfg.Log, "soak: round %d: %d turns (%d plain, %d tools, %d stopped, %d abandoned, %d failed), %d new sessions, peak RSS %d MiB; after %v idle: %s\n",
			i, r.Turns(), r.Plain, r.Tools, r.Stopped, r.Abandoned, r.Failed, r.Sessions, r.Peak>>20, cfg.Idle, r.After)
	}
	rep.FirstFailure = s.firstFailure()
	return rep, nil
}

func (x Sample) String() string {
	return fmt.Sprintf("RSS %d MiB, live heap %d MiB (of %d), %d goroutines", x.RSS>>20, x.Heap>>20, x.HeapSys>>20, x.Goroutines)
}

type soak struct {
	cfg        Config
	token      string
	pid        int
	client     *http.Client
	api, debug string // serve's base URL, the profiles' (ending in /)

	// counts of the round running: by kind, then failed, then sessions
	plain, tools, stopped, abandoned, failed, sessions atomic.Int64
	mu                                                 sync.Mutex
	failure                                            string
}

func (s *soak) fail(story string) {
	s.failed.Add(1)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.failure == "" {
		s.failure = story
	}
}

func (s *soak) firstFailure() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.failure
}

// round loads serve for cfg.Load, then lets it idle for cfg.Idle, and
// samples it.
func (s *soak) round(ctx context.Context, n int) (Round, error) {
	for _, c := range []*atomic.Int64{&s.plain, &s.tools, &s.stopped, &s.abandoned, &s.failed, &s.sessions} {
		c.Store(0)
	}
	load, cancel := context.WithTimeout(ctx, s.cfg.Load)
	defer cancel()
	var wg sync.WaitGroup
	for i := range s.cfg.Sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.session(load, n, i)
		}()
	}
	var peak int64
	tick := time.NewTicker(time.Second)
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
watch:
	for {
		select {
		case <-tick.C:
			if rss, err := s.rss(); err == nil {
				peak = max(peak, rss)
			}
		case <-done:
			break watch
		}
	}
	tick.Stop()
	select {
	case <-time.After(s.cfg.Idle):
	case <-ctx.Done():
		return Round{}, ctx.Err()
	}
	after, err := s.sample(ctx, n)
	if err != nil {
		return Round{}, err
	}
	return Round{Plain: int(s.plain.Load()), Tools: int(s.tools.Load()), Stopped: int(s.stopped.Load()), Abandoned: int(s.abandoned.Load()),
		Failed: int(s.failed.Load()), Sessions: int(s.sessions.Load()), Peak: peak, After: after}, nil
}

// session is one of the sessions at once: turns of each kind in turn,
// with pauses, a new session every cfg.TurnsPerSession turns, until ctx
// ends. The turn running then is let finish: the round's load ends with
// its turns.
func (s *soak) session(ctx context.Context, round, slot int) {
	rng := rand.New(rand.NewPCG(uint64(round), uint64(slot)))
	// The sessions start spread over the first pause.
	if !sleep(ctx, time.Duration(rng.Int64N(int64(s.cfg.Think)))) {
		return
	}
	id, turns := "", 0
	for k := slot; ctx.Err() == nil; k++ {
		if id == "" || turns == s.cfg.TurnsPerSession {
			if id != "" && k%2 == 0 {
				if err := s.do(context.WithoutCancel(ctx), "DELETE", "/api/sessions/"+id, "", nil); err != nil {
					s.fail("deleting " + id + ": " + err.Error())
				}
			}
			var created struct {
				ID string `json:"id"`
			}
			if err := s.do(context.WithoutCancel(ctx), "POST", "/api/sessions", "{}", &created); err != nil {
				s.fail("a new session: " + err.Error())
				return
			}
			id, turns = created.ID, 0
			s.sessions.Add(1)
		}
		s.turn(context.WithoutCancel(ctx), id, kinds[k%len(kinds)], fmt.Sprintf("%d-%d-%d", round, slot, k))
		turns++
		if !sleep(ctx, time.Duration(rng.Int64N(2*int64(s.cfg.Think)))) {
			return
		}
	}
}

func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// turn sends one turn of a kind and reads its stream as far as the kind
// goes: to its end, or to the event after which its client leaves.
func (s *soak) turn(ctx context.Context, id, kind, n string) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	body, _ := json.Marshal(map[string]string{"text": kind + " " + n})
	req, _ := http.NewRequestWithContext(ctx, "POST", s.api+"/api/sessions/"+id+"/messages", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+s.token)
	resp, err := s.client.Do(req)
	if err != nil {
		s.fail(kind + " turn: " + err.Error())
		return
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		s.fail(fmt.Sprintf("%s turn: HTTP %d %s", kind, resp.StatusCode, b))
		return
	}
	// The event after which the client leaves, for the kinds that leave.
	leaveAt := map[string]string{kindStopM: "model_call", kindStopT: "tool_calls", kindApprove: "approval"}[kind]
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	var event string
	for sc.Scan() {
		line := sc.Text()
		if ev, ok := strings.CutPrefix(line, "event: "); ok {
			event = ev
			continue
		}
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			continue
		}
		switch {
		case leaveAt != "" && event == leaveAt && (kind != kindStopT || strings.Contains(data, "soak_slow")):
			if kind == kindApprove {
				s.abandoned.Add(1)
			} else {
				s.stopped.Add(1)
			}
			return // cancel closes the stream: the client is gone
		case event == "done" && leaveAt == "":
			if kind == kindTools {
				s.tools.Add(1)
			} else {
				s.plain.Add(1)
			}
			return
		case event == "done" || event == "failed" || event == "error":
			s.fail(fmt.Sprintf("%s turn of session %s: %s %s", kind, id, event, data))
			return
		}
	}
	s.fail(fmt.Sprintf("%s turn of session %s: the stream ended without done (%v)", kind, id, sc.Err()))
}

// do sends an API request and decodes its JSON answer into out, if any.
func (s *soak) do(ctx context.Context, method, path, body string, out any) error {
	req, err := http.NewRequestWithContext(ctx, method, s.api+path, strings.NewReader(body))
	if err != nil {
		return err
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Authorization", "Bearer "+s.token)
	resp, err := s.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("%s %s: HTTP %d %s", method, path, resp.StatusCode, data)
	}
	if out != nil {
		return json.Unmarshal(data, out)
	}
	return nil
}

// get fetches one of the profiles.
func (s *soak) get(ctx context.Context, path string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, "GET", s.debug+path, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+s.token)
	resp, err := s.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err == nil && resp.StatusCode != http.StatusOK {
		err = fmt.Errorf("soak: %s: HTTP %d %s", path, resp.StatusCode, data)
	}
	return data, err
}

// rss is serve's resident memory now, from /proc.
func (s *soak) rss() (int64, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10, err
		}
	}
	return 0, errors.New("soak: no VmRSS in /proc/PID/status")
}

// sample reads serve's RSS, then its live heap after a collection and its
// goroutines, writing the profiles to cfg.ProfileDir as number n.
func (s *soak) sample(ctx context.Context, n int) (Sample, error) {
	var x Sample
	var err error
	if x.RSS, err = s.rss(); err != nil {
		return x, err
	}
	// debug=1 ends with the runtime's MemStats, read after the collection
	// gc=1 asks for.
	text, err := s.get(ctx, "heap?gc=1&debug=1")
	if err != nil {
		return x, err
	}
	stat := func(name string) int64 {
		_, rest, _ := strings.Cut(string(text), "\n# "+name+" = ")
		v, _ := strconv.ParseInt(strings.Fields(rest + " 0")[0], 10, 64)
		return v
	}
	x.Heap, x.HeapSys = stat("HeapAlloc"), stat("HeapSys")
	gr, err := s.get(ctx, "goroutine?debug=1")
	if err != nil {
		return x, err
	}
	_, total, _ := strings.Cut(string(gr), "goroutine profile: total ")
	x.Goroutines, _ = strconv.Atoi(strings.Fields(total + " 0")[0])
	if s.cfg.ProfileDir != "" {
		heap, err := s.get(ctx, "heap")
		if err != nil {
			return x, err
		}
		if err := os.WriteFile(filepath.Join(s.cfg.ProfileDir, fmt.Sprintf("heap-%d.pb.gz", n)), heap, 0o644); err != nil {
			return x, err
		}
		if err := os.WriteFile(filepath.Join(s.cfg.ProfileDir, fmt.Sprintf("heap-%d.txt", n)), text, 0o644); err != nil {
			return x, err
		}
		if smaps, err := os.ReadFile(fmt.Sprintf("/proc/%d/smaps", s.pid)); err == nil {
			os.WriteFile(filepath.Join(s.cfg.ProfileDir, fmt.Sprintf("smaps-%d.txt", n)), smaps, 0o644)
		}
		dump, err := s.get(ctx, "goroutine?debug=2")
		if err != nil {
			return x, err
		}
		if err := os.WriteFile(filepath.Join(s.cfg.ProfileDir, fmt.Sprintf("goroutines-%d.txt", n)), dump, 0o644); err != nil {
			return x, err
		}
	}
	return x, nil
}
