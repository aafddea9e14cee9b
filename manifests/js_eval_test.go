package manifests_test

// js_eval, the built-in JS tool that runs a snippet the model wrote, as the
// program runs it: the host, the QuickJS runner and js_eval.js. The
// browser's and the worker's hosts run the same file (web/apps/chat/test, web/apps/worker/test).

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/toolroute/toolroute/host"
	"github.com/toolroute/toolroute/host/jsrun"
	"github.com/toolroute/toolroute/internal/fakegoogle"
	"github.com/toolroute/toolroute/internal/testcache"
	"github.com/toolroute/toolroute/registry"
	"github.com/toolroute/toolroute/registry/wire"
)

func TestJSEval(t *testing.T) {
	runner, err := jsrun.New(jsrun.Options{SandboxRoot: t.TempDir(), Google: &creds{token: "ya29.granted-token"}, Warm: 1, CacheDir: testcache.QuickJS(cacheDir)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(runner.Close)
	vars := map[string]string{"MAIL_KEY": "mk-secret-value", "OTHER": "other-value"}
	h, err := host.New(context.Background(), host.Options{
		Provider: &host.HTTPProvider{Wire: wire.OpenAI, BaseURL: "http://127.0.0.1:1/v1", ModelName: "unused"},
		JS:       runner,
		Env:      func(name string) (string, bool) { v, ok := vars[name]; return v, ok },
		Module:   moduleConfig(),
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close(context.Background()) })

	tests := []struct {
		name string
		// code and secrets are the call's arguments: toolroute call grants
		// the secrets asked for, as the user does at approval.
		code    any
		secrets []string
		want    string // the whole output, or the start of the error
		wantErr string // the error type
		wantEnd string // the end of the error
	}{
		{name: "a value as JSON", code: "[1, 2, 3].map(x => x * 2)", want: "[2,4,6]"},
		{name: "a string as is", code: "'a' + 'b'", want: "ab"},
		{name: "undefined is nothing", code: "var x = 1", want: ""},
		{name: "console after the value", code: "console.log('hi', 2, {a: 1}); console.warn('careful'); 6 * 7",
			want: "42\n\nConsole output:\nlog: hi 2 {\"a\":1}\nwarn: careful"},
		{name: "console alone", code: "console.error(new RangeError('x').message)", want: "\n\nConsole output:\nerror: x"},
		{name: "a promise is awaited", code: "(async () => { await null; console.info('waited'); return 'later'; })()",
			want: "later\n\nConsole output:\ninfo: waited"},
		{name: "a global script", code: "var a = 6; function b() { return 7; } const c = 1; a * b() * c", want: "42"},
		{name: "a syntax error", code: "1 +", wantErr: "execution_error", want: "SyntaxError"},
		{name: "a thrown error, then the console", code: "console.log('before'); throw new Error('boom')",
			wantErr: "execution_error", want: "Error: boom\n", wantEnd: "\n\nConsole output:\nlog: before"},
		{name: "code that is not a string", code: 7, wantErr: "execution_error", want: "TypeError: js_eval: code must be a string"},
		{name: "no variable unasked", code: "JSON.stringify(_env)", want: "{}"},
		{name: "a granted variable, redacted from the console", code: "console.log(_env.MAIL_KEY); [typeof _env.MAIL_KEY, typeof _env.OTHER].join(' ')",
			secrets: []string{"MAIL_KEY"}, want: "string undefined\n\nConsole output:\nlog: [redacted MAIL_KEY]"},
		{name: "no google bridge unasked", code: "(async () => await google.getAccessToken())()",
			wantErr: "execution_error", want: "Error: google: 'js_eval' may not use the Google account"},
		{name: "the google bridge granted", code: "(async () => (await google.getAccountEmail()) + ' ' + (await google.getAccessToken()).length)()",
			secrets: []string{"google"}, want: fakegoogle.Email + " 18"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := map[string]any{"code": tt.code}
			if tt.secrets != nil {
				args["secrets"] = tt.secrets
			}
			in, _ := json.Marshal(args)
			res, err := h.CallTool(context.Background(), "js_eval", in)
			if err != nil {
				t.Fatal(err)
			}
			if tt.wantErr == "" {
				if res.Status != registry.StatusSuccess || res.Output != tt.want {
					t.Errorf("got %s %q %q, want the output %q", res.Status, res.Output, res.Message, tt.want)
				}
				return
			}
			if res.Status != registry.StatusError || res.ErrorType != tt.wantErr ||
				!strings.HasPrefix(res.Message, tt.want) || !strings.HasSuffix(res.Message, tt.wantEnd) {
				t.Errorf("got %s %s %q, want a %s error starting %q and ending %q", res.Status, res.ErrorType, res.Message, tt.wantErr, tt.want, tt.wantEnd)
			}
		})
	}
}
