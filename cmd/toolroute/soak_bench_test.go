package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"testing"

	"github.com/toolroute/toolroute/internal/soak"
)

var (
	soakProfiles = flag.String("soak.profiles", "", "BenchmarkServeMemory: write serve's heap profiles and goroutine dumps to this folder")
	soakLoad     = flag.Duration("soak.load", 0, "BenchmarkServeMemory: each round's load (default 80s)")
	soakIdle     = flag.Duration("soak.idle", 0, "BenchmarkServeMemory: each round's idle after it (default 40s)")
)

// BenchmarkServeMemory loads one `toolroute serve` as issue 34 did: 64
// sessions sending turns (plain answers, JS tool calls, turns their client
// stops, approvals it abandons) for 80 s, then 40 s idle, three times, and
// reports serve's resident memory at the end of each idle, and its live
// heap and goroutines then. A process that gives back what a round took
// shows the same figures in each round. Each op is a whole run of about
// six minutes: run it with -benchtime 1x.
func BenchmarkServeMemory(b *testing.B) {
	bin := binary(b)
	u := newUser(b, nil, "")
	for b.Loop() {
		dir := b.TempDir()
		rep, err := soak.Run(context.Background(), soak.Config{Binary: bin, Dir: dir, Env: u.env, Load: *soakLoad, Idle: *soakIdle, ProfileDir: *soakProfiles, Log: os.Stderr})
		if err != nil {
			b.Fatal(err)
		}
		if rep.FirstFailure != "" {
			b.Fatalf("turns failed; the first: %s", rep.FirstFailure)
		}
		b.ReportMetric(float64(rep.Start.RSS), "rss-at-start-bytes")
		b.ReportMetric(float64(rep.Start.Heap), "live-heap-at-start-bytes")
		b.ReportMetric(float64(rep.Start.Goroutines), "goroutines-at-start")
		turns, sessions := 0, 0
		for i, r := range rep.Rounds {
			b.ReportMetric(float64(r.After.RSS), fmt.Sprintf("rss-after-round-%d-bytes", i+1))
			b.ReportMetric(float64(r.After.Heap), fmt.Sprintf("live-heap-after-round-%d-bytes", i+1))
			b.ReportMetric(float64(r.After.Goroutines), fmt.Sprintf("goroutines-after-round-%d", i+1))
			b.ReportMetric(float64(r.Peak), fmt.Sprintf("peak-rss-round-%d-bytes", i+1))
			turns += r.Turns()
			sessions += r.Sessions
		}
		b.ReportMetric(float64(turns)/float64(len(rep.Rounds)), "turns/round")
		b.ReportMetric(float64(sessions)/float64(len(rep.Rounds)), "new-sessions/round")
	}
}
