package manifests_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/toolroute/toolroute/host"
	"github.com/toolroute/toolroute/host/jsrun"
	"github.com/toolroute/toolroute/internal/fakegoogle"
	"github.com/toolroute/toolroute/internal/testcache"
	"github.com/toolroute/toolroute/internal/testwait"
)

// A Drive upload and download as tool files written for other agent hosts
// make them
// with uploadMultipart and downloadToFile (a metadata part and a media
// part; alt=media), against the fake Drive, which reads uploads as Google
// documents them (multipart/related): a PNG goes up from the sandbox folder
// and comes back byte for byte.
func TestDriveTransfersAgainstFake(t *testing.T) {
	png, err := base64.StdEncoding.DecodeString("iVBORw0KGgoAAAANSUhEUgAAAAQAAAAECAYAAACp8Z5+AAAAM0lEQVR4nBXKMQEAMAjEwMipCERUzo+Iwh9Np1sOaA69V6NQvaeaq1GIIw5N/hjHODT6APpeGVmqCh9qAAAAAElFTkSuQmCC")
	if err != nil {
		t.Fatal(err)
	}
	g := fakegoogle.New(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "pic.png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
	runner, err := jsrun.New(jsrun.Options{SandboxRoot: dir, Fetch: jsrun.FetchOptions{Rewrites: g.Rewrites()}, Google: &creds{token: fakegoogle.Token}, Warm: 1, CacheDir: testcache.QuickJS(cacheDir)})
	if err != nil {
		t.Fatal(err)
	}
	defer runner.Close()
	res := runner.Run(checked(t), host.JSCall{
		Tool: "drive_round_trip", SourceRef: "test.js", Function: "execute", Params: json.RawMessage(`{}`), Timeout: testwait.Failsafe, Google: true,
		Source: []byte(`async function execute() {
			const headers = { Authorization: "Bearer " + (await google.getAccessToken()) };
			const up = await uploadMultipart("https://www.googleapis.com/upload/drive/v3/files?uploadType=multipart&fields=id,name,mimeType", [
				{ name: "metadata", contentType: "application/json; charset=UTF-8", content: JSON.stringify({ name: "pic.png" }) },
				{ name: "file", contentType: "image/png", filePath: "pic.png" },
			], headers);
			if (!up.ok) throw new Error(up.error + ": " + up.body);
			const file = JSON.parse(up.body);
			const down = await downloadToFile("https://www.googleapis.com/drive/v3/files/" + file.id + "?alt=media", "back/pic.png", headers);
			return { name: file.name, mimeType: file.mimeType, down };
		}`),
	})
	if res.Status != "success" {
		t.Fatalf("%s: %s", res.ErrorType, res.Message)
	}
	want := `{"name":"pic.png","mimeType":"image/png","down":{"success":true,"path":"back/pic.png","size":108,"error":null,"status":200}}`
	if res.Output != want {
		t.Errorf("result %s\nwant %s", res.Output, want)
	}
	back, err := os.ReadFile(filepath.Join(dir, "back", "pic.png"))
	if err != nil || !bytes.Equal(back, png) {
		t.Errorf("downloaded %x, %v; want the PNG uploaded", back, err)
	}
}
