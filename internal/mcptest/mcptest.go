// Package mcptest finds and starts the MCP servers toolroute's tests run
// against: the npm servers that `make mcp-servers` installs in
// testdata/mcp/node_modules, and the Go SDK server in ./testserver.
package mcptest

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Root is the repository's root folder, found from the working directory.
func Root(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("mcptest: no go.mod above the working directory")
		}
		dir = parent
	}
}

// NPMServer is the command line that starts an npm test server over stdio,
// such as NPMServer(t, "server-everything", "stdio"): node and the
// package's script. Without the packages installed, the test fails saying
// how to install them.
func NPMServer(t testing.TB, name string, args ...string) []string {
	t.Helper()
	script := filepath.Join(Root(t), "testdata", "mcp", "node_modules", "@modelcontextprotocol", name, "dist", "index.js")
	if _, err := os.Stat(script); err != nil {
		t.Fatalf("the npm MCP server %s is not installed (%v): run make mcp-servers (npm ci in testdata/mcp)", name, err)
	}
	return append([]string{Node(t), script}, args...)
}

// MinNodeMajor is the oldest Node.js major version toolroute's JS side
// runs on: the Makefile's NODE_MAJOR and the engines of the package.json
// files (TestNodeVersionsAgree).
const MinNodeMajor = 22

var (
	nodeOnce sync.Once
	nodePath string
	nodeErr  error
)

// Node is the node the tests run JS with: the one on PATH when it is
// MinNodeMajor or newer (make puts the one it installed first on PATH),
// else the one make installed in .tools/node (make node). Without either,
// the test fails saying how to get it.
func Node(t testing.TB) string {
	t.Helper()
	nodeOnce.Do(func() { nodePath, nodeErr = findNode(Root(t)) })
	if nodeErr != nil {
		t.Fatal(nodeErr)
	}
	return nodePath
}

func findNode(root string) (string, error) {
	var found []string
	candidates := []string{filepath.Join(root, ".tools", "node", "bin", "node")}
	if p, err := exec.LookPath("node"); err == nil {
		candidates = append([]string{p}, candidates...)
	}
	for _, node := range candidates {
		if _, err := os.Stat(node); err != nil {
			continue
		}
		out, err := exec.Command(node, "-p", "process.versions.node").Output()
		if err != nil {
			found = append(found, fmt.Sprintf("%s does not run (%v)", node, err))
			continue
		}
		version := strings.TrimSpace(string(out))
		major, _, _ := strings.Cut(version, ".")
		if n, err := strconv.Atoi(major); err == nil && n >= MinNodeMajor {
			return node, nil
		}
		found = append(found, fmt.Sprintf("%s is Node %s", node, version))
	}
	if len(found) == 0 {
		found = append(found, "node is not on PATH")
	}
	return "", fmt.Errorf("toolroute's tests need Node.js %d or newer, and %s: run them with make test, or run make node, which installs it into .tools/node", MinNodeMajor, strings.Join(found, "; "))
}

var (
	buildOnce sync.Once
	built     string
	buildErr  error
)

// TestServer builds the Go SDK test server into dir, once per test
// process, and returns its path.
func TestServer(t testing.TB, dir string) string {
	t.Helper()
	buildOnce.Do(func() {
		built = filepath.Join(dir, "mcp-testserver")
		cmd := exec.Command("go", "build", "-o", built, "./internal/mcptest/testserver")
		cmd.Dir = Root(t)
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("building the MCP test server: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return built
}

// FreePort is a TCP port free on 127.0.0.1 now.
func FreePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// StartHTTP starts an HTTP server process with env added to the test's
// environment, waits until port takes connections and stops the process
// when the test ends. Its output is kept for the failure message.
func StartHTTP(t testing.TB, port int, env []string, argv ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var lines []string
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			mu.Lock()
			lines = append(lines, sc.Text())
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return cmd
		}
		if time.Now().After(deadline) {
			mu.Lock()
			defer mu.Unlock()
			t.Fatalf("%s did not listen on %s within 30 s; it wrote:\n%s", strings.Join(argv, " "), addr, strings.Join(lines, "\n"))
		}
	}
}
