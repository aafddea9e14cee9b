package browser_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolroute/toolroute/internal/browser"
)

// WebRTC's UDP does not go through an HTTP proxy: a page gathering ICE
// candidates sent STUN requests to a loopback address the proxy would
// have refused. Chromium is told to send no UDP the proxy does not carry.
func TestWebRTCStaysInTheProxy(t *testing.T) {
	udp, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer udp.Close()
	var packets atomic.Int32
	go func() {
		buf := make([]byte, 2048)
		for {
			if _, _, err := udp.ReadFrom(buf); err != nil {
				return
			}
			packets.Add(1)
		}
	}()
	page := fmt.Sprintf(`<!doctype html><title>gathering</title><body><p id="out">gathering</p><script>
const pc = new RTCPeerConnection({iceServers: [{urls: "stun:%s"}]});
pc.createDataChannel("x");
const done = () => { document.getElementById("out").textContent = "gathered " + pc.iceGatheringState; };
pc.onicegatheringstatechange = () => { if (pc.iceGatheringState === "complete") done(); };
pc.createOffer().then((o) => pc.setLocalDescription(o));
</script></body>`, udp.LocalAddr())
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(page))
	}))
	defer site.Close()
	allowed := netip.MustParseAddrPort(strings.TrimPrefix(site.URL, "http://"))
	b, tool, problem := browser.New(browser.Options{Blocked: func(ap netip.AddrPort) bool { return ap != allowed }})
	if problem != "" {
		t.Skip(problem)
	}
	defer b.Close()
	ctx := context.Background()
	if _, err := tool.RunOutput(ctx, json.RawMessage(`{"action":"navigate","url":"`+site.URL+`"}`)); err != nil {
		t.Fatal(err)
	}
	// Gathering ends once every way to reach the STUN server was tried.
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(200 * time.Millisecond) {
		out, err := tool.RunOutput(ctx, json.RawMessage(`{"action":"text","selector":"#out"}`))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(out.Text, "gathered") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("ICE gathering did not end: %q", out.Text)
		}
	}
	if n := packets.Load(); n != 0 {
		t.Errorf("the page sent %d UDP packets to %s around the proxy", n, udp.LocalAddr())
	}
}
