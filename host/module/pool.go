package module

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// DefaultRecycleMemory is the memory past which an instance is closed rather
// than reused.
const DefaultRecycleMemory = 256 << 20

// Pool lends instances of a Runtime, each holding the current catalogue, to
// one goroutine at a time. An instance that trapped is closed and replaced;
// one whose memory grew past RecycleMemory is closed and replaced.
type Pool struct {
	rt            *Runtime
	recycleMemory uint32
	slots         chan struct{}

	mu         sync.Mutex
	idle       []*pooled
	catalogue  []byte
	generation int
	closed     bool
}

type pooled struct {
	*Instance
	generation int
}

// PoolConfig configures a Pool.
type PoolConfig struct {
	// MaxInstances bounds the instances alive at once; Acquire waits for one
	// when all are lent. 0 means 8.
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
	return &Pool{rt: rt, recycleMemory: cfg.RecycleMemory, slots: make(chan struct{}, cfg.MaxInstances)}
}

// SetCatalogue makes catalogue (registry.Catalogue as JSON) the one every
// instance serves from now on: each instance loads it when next acquired, or
// when Refresh is called on it. It does not wait for an instance.
func (p *Pool) SetCatalogue(catalogue []byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.catalogue = append([]byte(nil), catalogue...)
	p.generation++
}

// Lent is an instance lent by a Pool.
type Lent struct {
	*pooled
	pool *Pool
}

// Refresh loads the pool's current catalogue into the instance if it has an
// older one, and reports whether it did. A turn open on the instance keeps
// its catalogue until it is sent a reload event.
func (l *Lent) Refresh(ctx context.Context) (bool, error) {
	l.pool.mu.Lock()
	catalogue, generation := l.pool.catalogue, l.pool.generation
	l.pool.mu.Unlock()
	if l.generation == generation {
		return false, nil
	}
	if _, err := l.Load(ctx, catalogue); err != nil {
		return false, fmt.Errorf("module: loading the catalogue: %w", err)
	}
	l.generation = generation
	return true, nil
}

// Acquire lends an instance with the current catalogue loaded, waiting while
// every instance is lent. Give it back with Release.
func (p *Pool) Acquire(ctx context.Context) (*Lent, error) {
	select {
	case p.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		<-p.slots
		return nil, errors.New("module: pool closed")
	}
	var inst *pooled
	if n := len(p.idle); n > 0 {
		inst, p.idle = p.idle[n-1], p.idle[:n-1]
	}
	catalogue, generation := p.catalogue, p.generation
	p.mu.Unlock()

	if catalogue == nil {
		<-p.slots
		return nil, errors.New("module: no catalogue: call SetCatalogue first")
	}
	if inst == nil {
		i, err := p.rt.Instantiate(ctx)
		if err != nil {
			<-p.slots
			return nil, err
		}
		inst = &pooled{Instance: i}
	}
	lent := &Lent{pooled: inst, pool: p}
	if inst.generation != generation {
		if _, err := inst.Load(ctx, catalogue); err != nil {
			inst.Close(ctx)
			<-p.slots
			return nil, fmt.Errorf("module: loading the catalogue: %w", err)
		}
		inst.generation = generation
	}
	return lent, nil
}

// Release gives an instance back: kept for reuse when healthy, closed when
// broken or grown past the memory limit.
func (p *Pool) Release(ctx context.Context, l *Lent) {
	defer func() { <-p.slots }()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed || l.Broken() != nil || l.MemorySize() > p.recycleMemory {
		l.Close(ctx)
		return
	}
	p.idle = append(p.idle, l.pooled)
}

// Close closes the idle instances; instances lent are closed when released.
func (p *Pool) Close(ctx context.Context) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	for _, i := range p.idle {
		i.Close(ctx)
	}
	p.idle = nil
}
