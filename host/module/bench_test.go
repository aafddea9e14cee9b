package module

import (
	"context"
	"fmt"
	"testing"
)

// BenchmarkTurn is one turn with a tool call through the module.
func BenchmarkTurn(b *testing.B) {
	ctx := context.Background()
	inst := instance(b)
	if _, err := inst.Load(ctx, []byte(memCatalogue)); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		h, err := inst.TurnNew(ctx)
		if err != nil {
			b.Fatal(err)
		}
		start := fmt.Sprintf(`{"type":"start","user":"hi","settings":{"format":"openai","model":"m"}}`)
		for _, ev := range append([]string{start}, turnEvents...) {
			if _, err := inst.TurnEvent(ctx, h, []byte(ev)); err != nil {
				b.Fatal(err)
			}
		}
		inst.TurnFree(ctx, h)
	}
}
