package session_test

import (
	"flag"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolroute/toolroute/internal/transcript"
	"github.com/toolroute/toolroute/registry/session"
)

var update = flag.Bool("update", false, "rewrite the golden actions in testdata/transcripts")

// TestTranscripts replays every golden transcript natively. The wasm module
// and the other hosts replay the same files and must give the same actions.
func TestTranscripts(t *testing.T) {
	paths, err := filepath.Glob("../../testdata/transcripts/*.txtar")
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) == 0 {
		t.Fatal("no transcripts found")
	}
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			f, err := transcript.Load(path)
			if err != nil {
				t.Fatal(err)
			}
			got, err := f.Replay(&transcript.Native{})
			if err != nil {
				t.Fatal(err)
			}
			if *update {
				if err := f.Rewrite(got); err != nil {
					t.Fatal(err)
				}
				return
			}
			if diff := cmp.Diff(string(f.Actions), string(got)); diff != "" {
				t.Errorf("actions (-want +got):\n%s", diff)
			}
		})
	}
}

// TestTranscriptsSessions replays every transcript as a host naming its
// sessions does: a turn that continues a session resumes the Log the last
// turn left (Logs), with only the messages logged since, and must give
// the same actions, request bodies byte for byte.
func TestTranscriptsSessions(t *testing.T) {
	paths, err := filepath.Glob("../../testdata/transcripts/*.txtar")
	if err != nil {
		t.Fatal(err)
	}
	resumed := 0
	defer func() {
		t.Logf("resumed %d", resumed)
		if resumed < 10 {
			t.Errorf("%d turns resumed a kept Log: the transcripts have more turns that continue a session", resumed)
		}
	}()
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			f, err := transcript.Load(path)
			if err != nil {
				t.Fatal(err)
			}
			d := &transcript.Native{Logs: &session.Logs{}}
			got, err := f.ReplaySessions(d)
			if err != nil {
				t.Fatal(err)
			}
			resumed += d.Resumed
			if diff := cmp.Diff(string(f.Actions), string(got)); diff != "" {
				t.Errorf("actions (-want +got):\n%s", diff)
			}
		})
	}
}
