package store

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestMemories(t *testing.T) { forBackends(t, testMemories) }

func testMemories(t *testing.T, be testBackend) {
	db := be.open(t)
	db.setClock(fakeClock(clockStart))
	ctx := t.Context()

	var saved []Memory
	for _, text := range []string{"The user is called Ada.", "Prefers metric units.", "Works on toolroute."} {
		m, err := db.SaveMemory(ctx, text)
		if err != nil {
			t.Fatal(err)
		}
		saved = append(saved, m)
	}
	want := []Memory{
		{ID: 1, Text: "The user is called Ada.", Created: clockStart},
		{ID: 2, Text: "Prefers metric units.", Created: clockStart.Add(time.Second)},
		{ID: 3, Text: "Works on toolroute.", Created: clockStart.Add(2 * time.Second)},
	}
	if diff := cmp.Diff(want, saved); diff != "" {
		t.Errorf("SaveMemory results (-want +got):\n%s", diff)
	}

	steps := []struct {
		name    string
		do      func() error
		wantErr error // errors.Is target, nil for success
		want    []Memory
	}{
		{"list", func() error { return nil }, nil, want},
		{"delete the middle one", func() error { return db.DeleteMemory(ctx, 2) }, nil, []Memory{want[0], want[2]}},
		{"delete it again", func() error { return db.DeleteMemory(ctx, 2) }, ErrNotFound, []Memory{want[0], want[2]}},
		{"delete the last one", func() error { return db.DeleteMemory(ctx, 3) }, nil, []Memory{want[0]}},
		{
			name: "ids are not reused",
			do: func() error {
				_, err := db.SaveMemory(ctx, "New.")
				return err
			},
			want: []Memory{want[0], {ID: 4, Text: "New.", Created: clockStart.Add(3 * time.Second)}},
		},
	}
	for _, step := range steps {
		t.Run(step.name, func(t *testing.T) {
			if err := step.do(); !errors.Is(err, step.wantErr) {
				t.Fatalf("error = %v, want %v", err, step.wantErr)
			}
			got, err := db.Memories(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(step.want, got); diff != "" {
				t.Errorf("Memories (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSaveMemoryEmpty(t *testing.T) { forBackends(t, testSaveMemoryEmpty) }

func testSaveMemoryEmpty(t *testing.T, be testBackend) {
	db := be.open(t)
	for _, text := range []string{"", " \n\t"} {
		if _, err := db.SaveMemory(t.Context(), text); err == nil || err.Error() != "store: save memory: empty text" {
			t.Errorf("SaveMemory(%q) = %v, want the empty text error", text, err)
		}
	}
	if got, err := db.Memories(t.Context()); err != nil || len(got) != 0 {
		t.Errorf("Memories = %v, %v; want none", got, err)
	}
}
