package store

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSettings(t *testing.T) { forBackends(t, testSettings) }

func testSettings(t *testing.T, be testBackend) {
	db := be.open(t)
	ctx := t.Context()
	for _, s := range []Setting{
		{"model", "gpt"},
		{"env.PATH", "/bin"},
		{"env.HOME", "/home/ada"},
		{"env.", "odd but allowed"},
		{"envy", "green"},
		{"tool.fetch.enabled", "true"},
		{"empty", ""},
		{"100%", "percent"},
		{"é.key", "accent"},
		{"model", "claude"}, // replaces gpt
	} {
		must(t, db.SetSetting(ctx, s.Key, s.Value))
	}
	must(t, db.DeleteSetting(ctx, "tool.fetch.enabled"))
	must(t, db.DeleteSetting(ctx, "never.set"))

	t.Run("Setting", func(t *testing.T) {
		tests := []struct {
			key, want string
			ok        bool
		}{
			{"model", "claude", true},
			{"env.HOME", "/home/ada", true},
			{"empty", "", true},
			{"tool.fetch.enabled", "", false},
			{"missing", "", false},
			{"MODEL", "", false},
		}
		for _, tt := range tests {
			t.Run(tt.key, func(t *testing.T) {
				got, ok, err := db.Setting(ctx, tt.key)
				if err != nil || got != tt.want || ok != tt.ok {
					t.Errorf("Setting(%q) = %q, %v, %v; want %q, %v, nil", tt.key, got, ok, err, tt.want, tt.ok)
				}
			})
		}
	})

	t.Run("Settings", func(t *testing.T) {
		tests := []struct {
			prefix string
			want   []Setting
		}{
			{"", []Setting{
				{"100%", "percent"}, {"empty", ""}, {"env.", "odd but allowed"}, {"env.HOME", "/home/ada"},
				{"env.PATH", "/bin"}, {"envy", "green"}, {"model", "claude"}, {"é.key", "accent"},
			}},
			{"env.", []Setting{{"env.", "odd but allowed"}, {"env.HOME", "/home/ada"}, {"env.PATH", "/bin"}}},
			{"env", []Setting{{"env.", "odd but allowed"}, {"env.HOME", "/home/ada"}, {"env.PATH", "/bin"}, {"envy", "green"}}},
			{"é", []Setting{{"é.key", "accent"}}},
			{"100%", []Setting{{"100%", "percent"}}},
			{"%", nil},
			{"_", nil},
			{"*", nil},
			{"tool.", nil},
			{"model.x", nil},
		}
		for _, tt := range tests {
			t.Run(tt.prefix, func(t *testing.T) {
				got, err := db.Settings(ctx, tt.prefix)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("Settings(%q) (-want +got):\n%s", tt.prefix, diff)
				}
			})
		}
	})

	if err := db.SetSetting(ctx, "", "x"); err == nil || err.Error() != "store: set setting: empty key" {
		t.Errorf("SetSetting with an empty key = %v, want the empty key error", err)
	}
}
