package module

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/toolroute/toolroute/registry"
	"github.com/toolroute/toolroute/registry/session"
)

// DefaultRecycleMemory is the memory past which an instance is closed rather
// than reused: wasm/ABI.md's limit (Lifecycle). An instance's memory never
// shrinks, and what it keeps is a cache its sessions' logs rebuild.
const DefaultRecycleMemory = 256 << 20

// maxSessions bounds the sessions a Pool remembers an instance and a
// fingerprint for; each instance keeps fewer (session.MaxLogs).
const maxSessions = 4096

// Pool runs a Runtime's instances, each holding the current catalogue, and
// lends one for each call: an instance serves many turns at once (the
// module keeps up to 256 open), one call at a time, so a turn holds its
// instance only while the module works, never while the model or a tool
// does. A session's turns go to the instance that served its last turn,
// which keeps the session's state (wasm/ABI.md, "Sessions"), when it is
// still there. An instance that trapped, or whose memory grew past
// RecycleMemory, takes no new turns and is closed once its last turn is
// freed.
type Pool struct {
	rt            *Runtime
	recycleMemory uint32
	max           int

	mu  sync.Mutex
	all []*pooled
	// compiled is set once the instances on the interpreter are retired
	// (replaceInterpreted).
	compiled bool
	// stop is closed by Close.
	stop       chan struct{}
	catalogue  []byte
	generation int
	closed     bool
	// snap is an instance's state just after it loaded catalogue
	// generation snapGeneration, before any other call: new instances are
	// copies of it while that catalogue is current, so the catalogue is
	// decoded and checked twice (keepSnapshot) rather than once per
	// instance.
	snap           *snapshot
	snapGeneration int
	// loads and copies count the catalogues loaded into instances and the
	// instances made as copies of a snapshot.
	loads, copies int
	// report is what the module answered the first load of catalogue
	// generation reportGeneration: Report gives it without a load while
	// that catalogue is current.
	report           registry.BuildReport
	reportGeneration int
	// sessions is, for each session whose last turn ended with a cache
	// action, the instance that keeps its state and the fingerprint.
	sessions map[string]sessionState
	order    []string // sessions, oldest first
}

type sessionState struct {
	inst        *pooled
	fingerprint string
	messages    int
}

type pooled struct {
	*Instance
	// mu is held for one call, or while Acquire lends the instance.
	mu sync.Mutex
	// generation is the catalogue the instance has loaded; guarded by mu.
	generation int
	// fresh is true until the instance's first call, during which it may
	// load a catalogue; guarded by mu.
	fresh bool
	// turns counts the open turns and lends; retired stops new ones.
	// Both are guarded by Pool.mu.
	turns   int
	retired bool
	closed  bool
}

// PoolConfig configures a Pool.
type PoolConfig struct {
	// MaxInstances bounds the instances alive at once; 0 means 8. A new
	// instance is made while every instance has an open turn.
	MaxInstances int
	// RecycleMemory closes an instance whose memory grew past it, in bytes;
	// 0 means DefaultRecycleMemory.
	RecycleMemory uint32
}

// NewPool returns a pool of rt's instances. Set a catalogue before acquiring.
func NewPool(rt *Runtime, cfg PoolConfig) *Pool {
	if cfg.MaxInstances <= 0 {
		cfg.MaxInstances = 8
	}
	if cfg.RecycleMemory == 0 {
		cfg.RecycleMemory = DefaultRecycleMemory
	}
	p := &Pool{rt: rt, recycleMemory: cfg.RecycleMemory, max: cfg.MaxInstances, stop: make(chan struct{})}
	if rt.Interpreted() {
		go p.replaceWhenCompiled(rt.code.compiled)
	}
	return p
}

// replaceWhenCompiled retires the instances on the interpreter once the
// compiled code is ready, rather than at the next turn: the
// interpreter's code, about 150 MB, goes with the last of them.
func (p *Pool) replaceWhenCompiled(compiled <-chan struct{}) {
	select {
	case <-compiled:
	case <-p.stop:
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.closed {
		p.replaceInterpreted(context.Background())
	}
}

// SetCatalogue makes catalogue (registry.Catalogue as JSON) the one every
// instance serves from now on: each instance loads it before its next
// call that needs it. It does not wait for an instance.
func (p *Pool) SetCatalogue(catalogue []byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.catalogue = append([]byte(nil), catalogue...)
	p.generation++
	p.snap = nil
	p.report = registry.BuildReport{}
}

// Report is the module's report of loading the current catalogue
// (toolroute_load's answer): the one an instance gave when it loaded it, or,
// when none has yet, that of an instance that loads it now, and stays in
// the pool for the next turn.
func (p *Pool) Report(ctx context.Context) (registry.BuildReport, error) {
	for {
		p.mu.Lock()
		rep, ok := p.report, p.reportGeneration == p.generation && p.catalogue != nil
		p.mu.Unlock()
		if ok {
			return rep, nil
		}
		// Lending an instance loads the current catalogue into it, which
		// records the report, unless a newer catalogue came in between:
		// then its report is the one to give.
		l, err := p.Acquire(ctx)
		if err != nil {
			return registry.BuildReport{}, err
		}
		p.Release(ctx, l)
		if err := ctx.Err(); err != nil {
			return registry.BuildReport{}, err
		}
	}
}

// loaded records the report of an instance's load of catalogue generation.
func (p *Pool) loaded(generation int, rep registry.BuildReport) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.loads++
	if generation == p.generation && p.reportGeneration != generation {
		p.report, p.reportGeneration = rep, generation
	}
}

// pick chooses an instance for a new turn or lend and counts it: the
// session's instance when it has one, else the one with the fewest open
// turns, or a new one while all have some and there is room.
func (p *Pool) pick(ctx context.Context, sessionID string) (*pooled, error) {
	p.mu.Lock()
	none := p.catalogue == nil
	p.mu.Unlock()
	if none {
		return nil, errors.New("module: no catalogue: call SetCatalogue first")
	}
	return p.pickAny(ctx, sessionID)
}

// pickAny is pick without a catalogue needed.
func (p *Pool) pickAny(ctx context.Context, sessionID string) (*pooled, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, errors.New("module: pool closed")
	}
	p.replaceInterpreted(ctx)
	if s, ok := p.sessions[sessionID]; ok && sessionID != "" && p.usable(s.inst) {
		s.inst.turns++
		return s.inst, nil
	}
	var best *pooled
	live := 0
	for _, i := range p.all {
		if p.usable(i) {
			live++
			if best == nil || i.turns < best.turns {
				best = i
			}
		}
	}
	if best == nil || (best.turns > 0 && live < p.max) {
		i, err := p.newInstance(ctx)
		switch {
		case err == nil:
			best = i
			p.all = append(p.all, best)
		case best == nil:
			return nil, err
		}
	}
	best.turns++
	return best, nil
}

// replaceInterpreted retires the instances that run on the interpreter
// once the runtime has compiled code (Runtime): each takes no new turn,
// and is closed now when it has none open, else when its last is freed;
// the instances made in its place run the compiled code. The sessions it
// kept send their whole log once to the next. The caller holds p.mu.
func (p *Pool) replaceInterpreted(ctx context.Context) {
	if p.compiled {
		return
	}
	if p.rt.Interpreted() {
		return
	}
	p.compiled = true
	kept := p.all[:0]
	for _, i := range p.all {
		if i.Interpreted() {
			i.retired = true
			if i.turns == 0 && !i.closed {
				i.closed = true
				i.Close(ctx)
				continue
			}
		}
		kept = append(kept, i)
	}
	clear(p.all[len(kept):])
	p.all = kept
	p.forgetClosed()
}

// forgetClosed forgets the sessions kept by instances that are closed.
// The caller holds p.mu.
func (p *Pool) forgetClosed() {
	order := p.order[:0]
	for _, id := range p.order {
		if p.sessions[id].inst.closed {
			delete(p.sessions, id)
			continue
		}
		order = append(order, id)
	}
	p.order = order
}

// newInstance makes an instance: a copy of the snapshot of the current
// catalogue when there is one, else a new one that loads it at its first
// call. The caller holds p.mu.
func (p *Pool) newInstance(ctx context.Context) (*pooled, error) {
	if p.snap != nil && p.snapGeneration == p.generation {
		if i, err := p.rt.restore(ctx, p.snap); err == nil {
			p.copies++
			return &pooled{Instance: i, generation: p.snapGeneration}, nil
		}
		// A copy that fails (memory over the limit) leaves a new instance
		// to load the catalogue itself.
	}
	i, err := p.rt.Instantiate(ctx)
	if err != nil {
		return nil, err
	}
	return &pooled{Instance: i, fresh: true}, nil
}

func (p *Pool) usable(i *pooled) bool {
	return i != nil && !i.retired && !i.closed && i.Broken() == nil
}

// lock takes the instance for a call, with the pool's catalogue loaded.
func (p *Pool) lock(ctx context.Context, inst *pooled) error {
	inst.mu.Lock()
	p.mu.Lock()
	catalogue, generation := p.catalogue, p.generation
	p.mu.Unlock()
	fresh := inst.fresh
	inst.fresh = false
	if inst.generation == generation {
		return nil
	}
	rep, err := inst.Load(ctx, catalogue)
	if err != nil {
		p.unlock(inst) // retires it if the load broke it
		return fmt.Errorf("module: loading the catalogue: %w", err)
	}
	inst.generation = generation
	p.loaded(generation, rep)
	if fresh && p.rt.clonable {
		p.keepSnapshot(inst)
	}
	return nil
}

// keepSnapshot makes the state of inst, a new instance that has just
// loaded the current catalogue and done nothing else, the one new
// instances copy, once the pool has needed a second instance. A pool that
// never needs one (a program with one conversation at a time) keeps no
// copy of an instance's memory it would never use, several megabytes of
// its peak; the second instance loads the catalogue itself, and later
// ones copy it. The caller holds inst.mu.
func (p *Pool) keepSnapshot(inst *pooled) {
	p.mu.Lock()
	need := p.generation == inst.generation && (p.snap == nil || p.snapGeneration != inst.generation) && len(p.all) > 1
	p.mu.Unlock()
	if !need {
		return
	}
	s, err := inst.snapshot()
	if err != nil {
		return // new instances load the catalogue themselves
	}
	p.mu.Lock()
	if p.generation == inst.generation {
		p.snap, p.snapGeneration = s, inst.generation
	}
	p.mu.Unlock()
}

// unlock ends a call: an instance that broke or grew too big takes no
// new turns.
func (p *Pool) unlock(inst *pooled) {
	retire := inst.Broken() != nil || inst.MemorySize() > p.recycleMemory
	inst.mu.Unlock()
	if retire {
		p.mu.Lock()
		inst.retired = true
		p.mu.Unlock()
	}
}

// done uncounts a turn or lend, closing a retired instance that has
// no more.
func (p *Pool) done(ctx context.Context, inst *pooled) {
	p.mu.Lock()
	defer p.mu.Unlock()
	inst.turns--
	// A broken instance was retired by unlock, under its mu: its
	// broken field is not read here, where a call may be writing it.
	if (inst.retired || p.closed) && inst.turns == 0 && !inst.closed {
		inst.closed = true
		inst.Close(ctx)
		for i, x := range p.all {
			if x == inst {
				p.all = append(p.all[:i], p.all[i+1:]...)
				break
			}
		}
		// The sessions it kept send their whole log to the next.
		order := p.order[:0]
		for _, id := range p.order {
			if p.sessions[id].inst == inst {
				delete(p.sessions, id)
				continue
			}
			order = append(order, id)
		}
		p.order = order
	}
}

// Lent is an instance lent by a Pool to one caller.
type Lent struct {
	*pooled
	pool *Pool
}

// Refresh loads the pool's current catalogue into the instance if it has an
// older one, and reports whether it did.
func (l *Lent) Refresh(ctx context.Context) (bool, error) {
	l.pool.mu.Lock()
	catalogue, generation := l.pool.catalogue, l.pool.generation
	l.pool.mu.Unlock()
	if l.generation == generation {
		return false, nil
	}
	rep, err := l.Load(ctx, catalogue)
	if err != nil {
		return false, fmt.Errorf("module: loading the catalogue: %w", err)
	}
	l.generation = generation
	l.pool.loaded(generation, rep)
	return true, nil
}

// Acquire lends an instance, with the current catalogue loaded, to the
// caller alone until Release. Turns use OpenTurn, which does not hold an
// instance between calls.
func (p *Pool) Acquire(ctx context.Context) (*Lent, error) {
	inst, err := p.pick(ctx, "")
	if err != nil {
		return nil, err
	}
	if err := p.lock(ctx, inst); err != nil {
		p.done(ctx, inst)
		return nil, err
	}
	return &Lent{pooled: inst, pool: p}, nil
}

// Check asks any of the pool's instances whether op's arguments pass
// (Instance.Check). Only model_call and offer read the catalogue: for
// them the instance loads the current one first; the others are answered
// by an instance as it is, and before the pool has a catalogue at all (a
// host asks mcp_catalogue while it makes its first).
func (p *Pool) Check(ctx context.Context, op string, args any) (CheckAnswer, error) {
	if op == "model_call" || op == "offer" {
		l, err := p.Acquire(ctx)
		if err != nil {
			return CheckAnswer{}, err
		}
		defer p.Release(ctx, l)
		return l.Check(ctx, op, args)
	}
	inst, err := p.pickAny(ctx, "")
	if err != nil {
		return CheckAnswer{}, err
	}
	defer p.done(ctx, inst)
	inst.mu.Lock()
	defer p.unlock(inst)
	return inst.Check(ctx, op, args)
}

// Release gives an instance back.
func (p *Pool) Release(ctx context.Context, l *Lent) {
	p.unlock(l.pooled)
	p.done(ctx, l.pooled)
}

// Close closes every instance, each once the call it is running (if any)
// returns: a turn still open fails at its next call, and nothing runs in
// an instance after Close, so the Runtime can be closed next. Closing an
// instance while a call runs in it would unmap the memory the call is
// using (a host shutting down while an MCP server's change reloads its
// catalogue on another goroutine crashed so).
func (p *Pool) Close(ctx context.Context) {
	p.mu.Lock()
	if !p.closed {
		close(p.stop)
	}
	p.closed = true
	p.snap = nil
	var closing []*pooled
	for _, i := range p.all {
		if !i.closed {
			i.closed = true
			closing = append(closing, i)
		}
	}
	p.all = nil
	p.mu.Unlock()
	// Each instance's mu is held for the length of a call (lock, Check):
	// taken here, it waits for the call running now. p.mu is not held, as
	// a call takes the instance's mu before the pool's.
	for _, i := range closing {
		i.mu.Lock()
		i.Close(ctx)
		i.mu.Unlock()
	}
}

// Trim closes the instances that have no open turn or lend, and forgets
// the sessions they kept; it returns how many it closed. An instance's
// memory never shrinks: it keeps what its busiest moment needed (the
// histories it was given, the sessions it keeps, the turns open at once),
// and the pool keeps as many instances as its busiest moment made, so a
// process quiet after a burst of load held the burst's instances (issue
// 34). The next turn gets a copy of the catalogue's snapshot, and a
// session whose state was kept sends its whole history once. Without a
// snapshot of the current catalogue, one idle instance is kept, so that
// the next turn does not load the catalogue again.
func (p *Pool) Trim(ctx context.Context) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	keepOne := p.snap == nil || p.snapGeneration != p.generation
	var kept []*pooled
	closed := 0
	for _, i := range p.all {
		if i.turns > 0 || (keepOne && p.usable(i)) {
			keepOne = keepOne && !p.usable(i)
			kept = append(kept, i)
			continue
		}
		i.closed = true
		i.Close(ctx)
		closed++
	}
	p.all = kept
	p.forgetClosed()
	return closed
}

// Turn is a turn open on one of a Pool's instances. Each method takes the
// instance for its call only. A Turn is not safe for concurrent use.
type Turn struct {
	pool    *Pool
	inst    *pooled
	handle  uint32
	session string
	// generation is the catalogue the module's turn uses.
	generation int
	freed      bool
}

// OpenTurn opens a turn of session sessionID ("" for none) on the
// instance that served the session's last turn when it can, else on the
// least busy instance.
func (p *Pool) OpenTurn(ctx context.Context, sessionID string) (*Turn, error) {
	inst, err := p.pick(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	if err := p.lock(ctx, inst); err != nil {
		p.done(ctx, inst)
		return nil, err
	}
	h, err := inst.TurnNew(ctx)
	generation := inst.generation
	p.unlock(inst)
	if err != nil {
		p.done(ctx, inst)
		return nil, err
	}
	return &Turn{pool: p, inst: inst, handle: h, session: sessionID, generation: generation}, nil
}

// Fingerprint is the fingerprint of the session's state that the turn's
// instance keeps, and how many messages of the log it covers: "" when it
// keeps none.
func (t *Turn) Fingerprint() (string, int) {
	t.pool.mu.Lock()
	defer t.pool.mu.Unlock()
	if s, ok := t.pool.sessions[t.session]; ok && s.inst == t.inst && t.session != "" {
		return s.fingerprint, s.messages
	}
	return "", 0
}

// Remember records the state of the session that the turn's instance
// keeps, from the turn's cache action; nil forgets it (the log stored is
// not what the module logged).
func (t *Turn) Remember(c *session.Cache) {
	p := t.pool
	p.mu.Lock()
	defer p.mu.Unlock()
	if t.session == "" {
		return
	}
	if _, ok := p.sessions[t.session]; ok {
		for i, s := range p.order {
			if s == t.session {
				p.order = append(p.order[:i], p.order[i+1:]...)
				break
			}
		}
		delete(p.sessions, t.session)
	}
	if c == nil {
		return
	}
	if p.sessions == nil {
		p.sessions = map[string]sessionState{}
	}
	p.sessions[t.session] = sessionState{inst: t.inst, fingerprint: c.Fingerprint, messages: c.Messages}
	p.order = append(p.order, t.session)
	if len(p.order) > maxSessions {
		delete(p.sessions, p.order[0])
		p.order = p.order[1:]
	}
}

// Event feeds the turn one event (session.Event as JSON) and returns its
// actions.
func (t *Turn) Event(ctx context.Context, event []byte) ([]session.Action, error) {
	if err := t.take(ctx); err != nil {
		return nil, err
	}
	defer t.pool.unlock(t.inst)
	return t.inst.TurnActions(ctx, t.handle, event)
}

// Chunk feeds the turn raw bytes of a streamed response.
func (t *Turn) Chunk(ctx context.Context, data []byte) ([]session.Action, error) {
	if err := t.take(ctx); err != nil {
		return nil, err
	}
	defer t.pool.unlock(t.inst)
	return t.inst.TurnChunkActions(ctx, t.handle, data)
}

// Body takes the request body of the turn's last call_model action.
func (t *Turn) Body(ctx context.Context) ([]byte, error) {
	if err := t.take(ctx); err != nil {
		return nil, err
	}
	defer t.pool.unlock(t.inst)
	return t.inst.TurnBody(ctx, t.handle)
}

// Refresh loads the pool's current catalogue into the instance if it has
// an older one, and reports whether the turn's catalogue is older than
// the pool's: then send the turn a reload event.
func (t *Turn) Refresh(ctx context.Context) (bool, error) {
	if err := t.take(ctx); err != nil {
		return false, err
	}
	changed := t.inst.generation != t.generation
	t.generation = t.inst.generation
	t.pool.unlock(t.inst)
	return changed, nil
}

// take locks the turn's instance for a call, loading a newer catalogue
// first (open turns keep theirs until a reload event).
func (t *Turn) take(ctx context.Context) error {
	if t.freed {
		return errors.New("module: the turn was freed")
	}
	return t.pool.lock(ctx, t.inst)
}

// Free closes the turn.
func (t *Turn) Free(ctx context.Context) error {
	if t.freed {
		return nil
	}
	t.freed = true
	defer t.pool.done(ctx, t.inst)
	if err := t.pool.lock(ctx, t.inst); err != nil {
		return err
	}
	defer t.pool.unlock(t.inst)
	return t.inst.TurnFree(ctx, t.handle)
}
