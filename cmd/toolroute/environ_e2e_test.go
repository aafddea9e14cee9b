package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
)

// A command exec runs, approved, cannot read the program's environment or
// memory: an approved `cat /proc/$PPID/environ` printed the provider's key
// (and reversed, past the redaction of results). The program runs as a
// user other than root here (nobody, when the test runs as root), as
// users run it.
func TestExecCannotReadTheProgram(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("/proc is Linux's")
	}
	const key = "sk-secret-key-0123456789"
	dir, err := os.MkdirTemp("", "toolroute-environ-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	home := filepath.Join(dir, "home")
	os.MkdirAll(home, 0o700)
	bin := filepath.Join(dir, "toolroute")
	data, err := os.ReadFile(binary(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	os.Chmod(dir, 0o755)
	var attr *syscall.SysProcAttr
	if os.Getuid() == 0 {
		if err := os.Chown(home, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		attr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	}
	for _, c := range []string{
		`cat /proc/$PPID/environ | tr '\0' '\n' | rev`,
		`a=$(head -1 /proc/$PPID/maps | cut -d- -f1); echo read $(dd if=/proc/$PPID/mem bs=1 count=16 skip=$((0x$a)) 2>/dev/null | wc -c)`,
	} {
		cmd := exec.Command(bin, "call", "exec", "--params", `{"command":"`+strings.ReplaceAll(strings.ReplaceAll(c, `\`, `\\`), `"`, `\"`)+`; echo done"}`)
		cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + home, "XDG_CONFIG_HOME=" + home + "/.config",
			"XDG_DATA_HOME=" + home + "/.local/share", "XDG_CACHE_HOME=" + home + "/.cache", "OPENAI_API_KEY=" + key}
		cmd.Dir = home
		cmd.SysProcAttr = attr
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		cmd.Run()
		reversed := []rune(key)
		for i, j := 0, len(reversed)-1; i < j; i, j = i+1, j-1 {
			reversed[i], reversed[j] = reversed[j], reversed[i]
		}
		if strings.Contains(out.String(), "0123456789") || strings.Contains(out.String(), string(reversed)) || !strings.Contains(out.String(), "done") {
			t.Errorf("%s:\n%s", c, out.String())
		}
		if strings.Contains(out.String(), "read 16") {
			t.Errorf("the command read the program's memory:\n%s", out.String())
		}
	}
}
