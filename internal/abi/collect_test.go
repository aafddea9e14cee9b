package abi

import (
	"runtime"
	"testing"
)

// TestCollect: a call that moved CollectAt bytes or more is followed by a
// collection; a smaller one is left to the collector's own pace.
func TestCollect(t *testing.T) {
	tests := []struct {
		name string
		n    int
		want bool
	}{
		{name: "a stream's chunk", n: 4 << 10, want: false},
		{name: "just under", n: CollectAt - 1, want: false},
		{name: "a long history", n: CollectAt, want: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			got := Collect(tt.n)
			runtime.ReadMemStats(&after)
			if got != tt.want || (after.NumForcedGC > before.NumForcedGC) != tt.want {
				t.Errorf("Collect(%d) = %v with %d forced collections, want %v", tt.n, got, after.NumForcedGC-before.NumForcedGC, tt.want)
			}
		})
	}
}
