package module

import (
	"bytes"
	"context"
	"testing"
)

// wholeTurn is one turn of 5 events with a tool call, as a host drives it:
// the start, a load, a tool call, its result, the answer, each model
// call's body taken.
func wholeTurn(tb testing.TB, inst *Instance) {
	ctx := context.Background()
	h := startTurn(tb, inst, []byte(`{"type":"start","user":"hi","settings":{"format":"openai","model":"m"}}`))
	for _, ev := range turnEvents {
		acts, err := inst.TurnEvent(ctx, h, []byte(ev))
		if err != nil {
			tb.Fatal(err)
		}
		if bytes.Contains(acts, []byte(`"type":"call_model"`)) {
			if _, err := inst.TurnBody(ctx, h); err != nil {
				tb.Fatal(err)
			}
		}
	}
	if err := inst.TurnFree(ctx, h); err != nil {
		tb.Fatal(err)
	}
}

// BenchmarkTurn is one whole turn of 5 events (wholeTurn), through the
// module and natively through abi.Guest.
func BenchmarkTurn(b *testing.B) {
	b.Run("wasm", func(b *testing.B) {
		inst := instance(b)
		if _, err := inst.Load(context.Background(), []byte(memCatalogue)); err != nil {
			b.Fatal(err)
		}
		clock := newCPUClock(b)
		defer clock.report()
		for b.Loop() {
			wholeTurn(b, inst)
		}
	})
	b.Run("native", func(b *testing.B) {
		g := nativeGuest(b)
		start := []byte(`{"type":"start","user":"hi","settings":{"format":"openai","model":"m"}}`)
		clock := newCPUClock(b)
		defer clock.report()
		for b.Loop() {
			h := nativeTurn(b, g)
			nativeEvent(b, g, h, start)
			for _, ev := range turnEvents {
				nativeEvent(b, g, h, []byte(ev))
			}
			g.TurnFree(h)
		}
	})
}

// BenchmarkCheck is what a host pays per operation to ask the module about
// its arguments (toolroute_check): on an instance it holds, and through
// the pool (Acquire, the call, Release), as the Go host's operations do.
func BenchmarkCheck(b *testing.B) {
	ctx := context.Background()
	args := map[string]string{"name": "weather_lookup"}
	b.Run("instance", func(b *testing.B) {
		inst := instance(b)
		for b.Loop() {
			if _, err := inst.Check(ctx, "tool_name", args); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("pool", func(b *testing.B) {
		p := NewPool(runtime(b), PoolConfig{MaxInstances: 1})
		p.SetCatalogue([]byte(`{}`))
		defer p.Close(ctx)
		for b.Loop() {
			if _, err := p.Check(ctx, "tool_name", args); err != nil {
				b.Fatal(err)
			}
		}
	})
}
