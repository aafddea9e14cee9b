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
