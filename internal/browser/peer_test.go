package browser

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// connectThrough asks the proxy at addr for a tunnel to target and gives
// the first line of its answer.
func connectThrough(addr, target string) (string, error) {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return "", err
	}
	defer c.Close()
	if _, err := io.WriteString(c, "CONNECT "+target+" HTTP/1.1\r\nHost: "+target+"\r\n\r\n"); err != nil {
		return "", err
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	return strings.TrimSpace(line), err
}

// The browser's proxy listens on loopback, where every local user can
// connect: it carries the connections of the user who runs toolroute, and
// refuses another user's (which it carried, as this program's).
func TestProxyServesItsUserAlone(t *testing.T) {
	if !ownConnections {
		t.Skip("this system cannot tell who connects")
	}
	target := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer target.Close()
	host := strings.TrimPrefix(target.URL, "http://")
	p, err := startProxy(func(netip.AddrPort) bool { return false })
	if err != nil {
		t.Fatal(err)
	}
	defer p.close()
	if line, err := connectThrough(p.addr, host); err != nil || !strings.HasPrefix(line, "HTTP/1.1 200") {
		t.Fatalf("this user's tunnel: %q, %v", line, err)
	}
	if os.Getuid() != 0 {
		t.Skip("another user's connection needs root to make")
	}
	// The test binary again, as nobody, connecting to the proxy.
	dir, err := os.MkdirTemp("", "proxy-peer-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	os.Chmod(dir, 0o755)
	self, _ := os.ReadFile(os.Args[0])
	bin := filepath.Join(dir, "client")
	if err := os.WriteFile(bin, self, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-test.run=^TestProxyClientHelper$")
	cmd.Env = []string{"PROXY_CLIENT=" + p.addr + " " + host}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the other user's client: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "answer: HTTP/1.1 403") {
		t.Errorf("another user's tunnel:\n%s", out)
	}
}

// TestProxyClientHelper is the other user's client of
// TestProxyServesItsUserAlone, run only by it.
func TestProxyClientHelper(t *testing.T) {
	addr, target, ok := strings.Cut(os.Getenv("PROXY_CLIENT"), " ")
	if !ok {
		t.Skip("run by TestProxyServesItsUserAlone")
	}
	line, err := connectThrough(addr, target)
	if err != nil {
		t.Fatal(err)
	}
	t.Log("answer: " + line)
	os.Stdout.WriteString("answer: " + line + "\n")
}
