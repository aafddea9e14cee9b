package main

import (
	"bufio"
	"bytes"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolroute/toolroute/internal/fakegoogle"
	"github.com/toolroute/toolroute/internal/safehttp"
)

// toolroute google login, status and logout, in process, against the OAuth
// fake: the test plays the user's browser.
func TestGoogleCommand(t *testing.T) {
	f := fakegoogle.NewOAuth(t)
	saved := googleClient
	googleClient = func() *safehttp.Client { return f.Client() }
	defer func() { googleClient = saved }()
	t.Setenv("GOOGLE_ACCESS_TOKEN", "")
	t.Setenv("GOOGLE_REFRESH_TOKEN", "")
	dir := t.TempDir()

	printed, errText, code := playGoogleLogin(t, f, []string{"google", "login", "--config-dir", dir, "--client-id", fakegoogle.OAuthClientID,
		"--client-secret", fakegoogle.OAuthClientSecret, "--no-browser"})
	if code != 0 {
		t.Fatalf("login: exit %d\n%s%s", code, printed, errText)
	}
	mustContain(t, "login's output", printed, "Open this address in a browser", "Connected "+fakegoogle.Email+"; the Google tools use it from now on")
	file := filepath.Join(dir, "google.json")
	if info, err := os.Stat(file); err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("google.json: %v %v", info, err)
	}

	var stdout, stderr bytes.Buffer
	if code := run([]string{"google", "status", "--config-dir", dir}, nil, &stdout, &stderr); code != 0 || !strings.Contains(stdout.String(), "Connected: "+fakegoogle.Email) {
		t.Errorf("status: exit %d, %q %q", code, stdout.String(), stderr.String())
	}
	stdout.Reset()
	if code := run([]string{"google", "logout", "--config-dir", dir}, nil, &stdout, &stderr); code != 0 || !strings.Contains(stdout.String(), "Disconnected "+fakegoogle.Email) {
		t.Errorf("logout: exit %d, %q %q", code, stdout.String(), stderr.String())
	}
	if r := f.Revoked(); len(r) != 1 || r[0] != fakegoogle.OAuthRefresh {
		t.Errorf("revoked %v", r)
	}
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Errorf("google.json is still there: %v", err)
	}
	stdout.Reset()
	if code := run([]string{"google", "status", "--config-dir", dir}, nil, &stdout, &stderr); code != 1 || !strings.Contains(stdout.String(), "run toolroute google login") {
		t.Errorf("status after logout: exit %d, %q", code, stdout.String())
	}
	stderr.Reset()
	t.Setenv("GOOGLE_CLIENT_ID", "")
	t.Setenv("GOOGLE_CLIENT_SECRET", "")
	if code := run([]string{"google", "login", "--config-dir", dir, "--no-browser"}, nil, &stdout, &stderr); code != 1 || !strings.Contains(stderr.String(), "Desktop app") {
		t.Errorf("login without a client: exit %d, %q", code, stderr.String())
	}
	if code := run([]string{"google", "dance"}, nil, &stdout, &stderr); code != 2 {
		t.Errorf("an unknown subcommand: exit %d", code)
	}
}

// playGoogleLogin runs toolroute google login in this process against the
// OAuth fake (googleClient must reach it), playing the user's browser: it
// consents at the address login prints. args must have --no-browser.
func playGoogleLogin(t *testing.T, f *fakegoogle.OAuth, args []string) (stdout, stderr string, code int) {
	t.Helper()
	out, in := io.Pipe()
	var errOut bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- run(args, strings.NewReader(""), in, &errOut)
		in.Close()
	}()
	sc := bufio.NewScanner(out)
	var printed strings.Builder
	for sc.Scan() {
		line := sc.Text()
		printed.WriteString(line + "\n")
		if u, ok := strings.CutPrefix(strings.TrimSpace(line), "https://accounts.google.com/"); ok {
			f.Consent(t, "https://accounts.google.com/"+u, "code="+url.QueryEscape(fakegoogle.OAuthCode))
		}
	}
	code = <-done
	return printed.String(), errOut.String(), code
}
