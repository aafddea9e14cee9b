package session_test

import (
	"flag"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolroute/toolroute/internal/transcript"
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
