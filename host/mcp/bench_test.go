package mcp

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/toolroute/toolroute/internal/checktest"
	"github.com/toolroute/toolroute/internal/mcptest"
	"github.com/toolroute/toolroute/registry"
)

// tenServers is ten configured stdio servers (the Go SDK test server).
func tenServers(b *testing.B) Config {
	cfg := Config{File: "mcp.json"}
	for i := range 10 {
		cfg.Servers = append(cfg.Servers, ServerConfig{Key: fmt.Sprintf("lab%d", i), Command: mcptest.TestServer(b, binDir), TimeoutSeconds: 60})
	}
	return cfg
}

// BenchmarkMCPStart measures the start of ten configured stdio servers
// until their tools are offered: eager starts each and waits for its
// handshake and tools/list; lazy (the default, their tools known from
// their last run) reads the cache file and starts none.
func BenchmarkMCPStart(b *testing.B) {
	cfg := tenServers(b)
	for _, eager := range []bool{true, false} {
		name := "lazy"
		if eager {
			name = "eager"
		}
		b.Run("servers=10/"+name, func(b *testing.B) {
			opts := Options{CacheFile: filepath.Join(b.TempDir(), CacheFile), Eager: eager}
			prime := Start(cfg, Options{CacheFile: opts.CacheFile, Eager: true})
			prime.Wait(context.Background())
			prime.Close()
			for b.Loop() {
				m := Start(cfg, opts)
				m.Wait(context.Background())
				if _, tools := m.Tools(checktest.Context(b), registry.Catalogue{}); len(tools) != 100 {
					b.Fatalf("%d tools offered", len(tools))
				}
				b.StopTimer()
				m.Close()
				b.StartTimer()
			}
		})
	}
}

// BenchmarkMCPFirstCall measures a tool's first call: on a server started
// at once (eager, connected before the call), and on one the call starts
// (lazy: the call waits for its process, handshake and tools/list). The
// difference is what lazy start adds to a conversation's first call of a
// server's tools.
func BenchmarkMCPFirstCall(b *testing.B) {
	cfg := Config{File: "mcp.json", Servers: []ServerConfig{{Key: "lab", Command: mcptest.TestServer(b, binDir), TimeoutSeconds: 60}}}
	for _, eager := range []bool{true, false} {
		name := "lazy"
		if eager {
			name = "eager"
		}
		b.Run(name, func(b *testing.B) {
			opts := Options{CacheFile: filepath.Join(b.TempDir(), CacheFile), Eager: eager}
			prime := Start(cfg, Options{CacheFile: opts.CacheFile, Eager: true})
			prime.Wait(context.Background())
			prime.Close()
			for b.Loop() {
				b.StopTimer()
				m := Start(cfg, opts)
				m.Wait(context.Background())
				_, tools := m.Tools(checktest.Context(b), registry.Catalogue{})
				var echo func(context.Context, []byte) (string, error)
				for _, t := range tools {
					if t.Tool.Name == "echo" {
						run := t.RunOutput
						echo = func(ctx context.Context, in []byte) (string, error) {
							out, err := run(ctx, in)
							return out.Text, err
						}
					}
				}
				b.StartTimer()
				if out, err := echo(checktest.Context(b), []byte(`{"text":"hi"}`)); err != nil || out != "hi" {
					b.Fatalf("echo: %q %v", out, err)
				}
				b.StopTimer()
				m.Close()
				b.StartTimer()
			}
		})
	}
}
