package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// serve and mcp --http serve the runtime's profiles with --debug-addr, on
// another loopback port, behind the API's token: refused without it, a
// heap profile with it. Off without the flag; never on a public address.
func TestDebugAddr(t *testing.T) {
	u := newUser(t, nil, "")
	const token = "debug-token-0123456789"
	for _, c := range []struct {
		name string
		args []string
	}{
		{"serve", []string{"serve", "--port", "0", "--token", token, "--debug-addr", "127.0.0.1:0"}},
		{"mcp --http", []string{"mcp", "--http", "--port", "0", "--token", token, "--debug-addr", "127.0.0.1:0"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			cmd := exec.Command(binary(t), c.args...)
			cmd.Env, cmd.Dir = u.env, u.home
			stdout, _ := cmd.StdoutPipe()
			var errOut lockedBuffer
			cmd.Stderr = &errOut
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				cmd.Process.Signal(os.Interrupt)
				cmd.Wait()
			})
			lines := bufio.NewReader(stdout)
			var base string
			for base == "" {
				line, err := lines.ReadString('\n')
				if err != nil {
					t.Fatalf("no line names the profiles: %v\n%s", err, errOut.String())
				}
				if _, rest, ok := strings.Cut(line, "profiles on "); ok {
					base, _, _ = strings.Cut(rest, " ")
				}
			}
			go io.Copy(io.Discard, lines)
			if !strings.HasPrefix(base, "http://127.0.0.1:") || !strings.HasSuffix(base, "/debug/pprof/") {
				t.Fatalf("the profiles are at %q", base)
			}
			get := func(auth string) (*http.Response, []byte) {
				t.Helper()
				req, _ := http.NewRequest("GET", base+"heap", nil)
				if auth != "" {
					req.Header.Set("Authorization", auth)
				}
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				defer resp.Body.Close()
				body, _ := io.ReadAll(resp.Body)
				return resp, body
			}
			if resp, body := get(""); resp.StatusCode != http.StatusUnauthorized || !strings.Contains(string(body), "token") {
				t.Errorf("without the token: HTTP %d %s", resp.StatusCode, body)
			}
			if resp, _ := get("Bearer not-" + token); resp.StatusCode != http.StatusUnauthorized {
				t.Errorf("with another token: HTTP %d", resp.StatusCode)
			}
			resp, body := get("Bearer " + token)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("with the token: HTTP %d %s", resp.StatusCode, body)
			}
			zr, err := gzip.NewReader(bytes.NewReader(body))
			if err != nil {
				t.Fatalf("not a gzipped profile: %v", err)
			}
			if raw, _ := io.ReadAll(zr); !bytes.Contains(raw, []byte("inuse_space")) {
				t.Errorf("not a heap profile: %.200q", raw)
			}
		})
	}

	t.Run("refused", func(t *testing.T) {
		for _, c := range []struct {
			args []string
			code int
			want string
		}{
			{[]string{"serve", "--port", "0", "--token", token, "--debug-addr", "0.0.0.0:0"}, 1, "--debug-addr: server: the profiles are served on a loopback address alone"},
			{[]string{"mcp", "--http", "--port", "0", "--token", token, "--debug-addr", "192.0.2.1:6060"}, 1, "--debug-addr: server: the profiles are served on a loopback address alone"},
			{[]string{"mcp", "--debug-addr", "127.0.0.1:0"}, 2, "--debug-addr goes with --http"},
		} {
			if r := u.run("", c.args...); r.code != c.code || !strings.Contains(r.stderr, c.want) {
				t.Errorf("%q: exit %d, %s; want exit %d, %q", c.args, r.code, r.stderr, c.code, c.want)
			}
		}
	})

	r := u.run("", "help", "serve")
	mustContain(t, "toolroute help serve", r.stdout, "--debug-addr", "/debug/pprof/", "API's token")
}
