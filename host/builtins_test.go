package host_test

import (
	"context"
	"strings"
	"testing"

	"github.com/toolroute/toolroute/host"
	"github.com/toolroute/toolroute/registry/wire"
)

// Options.Builtins takes the names BuiltinFiles gives, and refuses others
// before anything starts, naming those it takes.
func TestBuiltinsNamesChecked(t *testing.T) {
	names := host.BuiltinFiles()
	for _, want := range []string{"config", "get_current_time", "google_gmail", "write_file"} {
		if !strings.Contains(","+strings.Join(names, ",")+",", ","+want+",") {
			t.Errorf("BuiltinFiles %v lacks %s", names, want)
		}
	}
	_, err := host.New(context.Background(), host.Options{
		Provider: host.ProviderFunc{Wire: wire.OpenAI, ModelName: "m"},
		Builtins: []string{"get_current_time", "gmail"},
	})
	if err == nil || !strings.Contains(err.Error(), `Options.Builtins names "gmail", which is no built-in manifest: use one of config, create_agent, get_current_time,`) {
		t.Errorf("error %v", err)
	}
}
