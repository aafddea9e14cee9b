package app

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/toolroute/toolroute/internal/fakegoogle"
	"github.com/toolroute/toolroute/internal/fakemodel"
	"github.com/toolroute/toolroute/internal/gzipbomb"
	"github.com/toolroute/toolroute/internal/safehttp"
)

// Google's token endpoint answering 400 MB gzipped into half a megabyte
// (a proxy in the way, say): the exchange fails naming the cap, not as a
// refused grant with an empty reason.
func TestGoogleAnswerCap(t *testing.T) {
	bomb := httptest.NewServer(gzipbomb.Handler("application/json", gzipbomb.Make(`{"access_token":"`, "a", `"}`, 400<<20)))
	defer bomb.Close()
	client := safehttp.New(safehttp.Options{Rewrites: []safehttp.Rewrite{{From: "https://oauth2.googleapis.com", To: bomb.URL}}})
	vars := map[string]string{"GOOGLE_REFRESH_TOKEN": fakegoogle.OAuthRefresh, "GOOGLE_CLIENT_ID": fakegoogle.OAuthClientID, "GOOGLE_CLIENT_SECRET": fakegoogle.OAuthClientSecret}
	_, err := NewGoogle(env(vars), client, "").AccessToken(context.Background())
	if want := "Google's answer is over 1 MB, the most toolroute reads of it"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("AccessToken = %v, want an error saying %q", err, want)
	}
}

// A scheduled task whose model call fails with a 401 echoing the key it
// was sent (the key in the environment, as users give it): the failure
// kept with the task shows the key redacted.
func TestScheduledFailureEchoingTheKey(t *testing.T) {
	const key = "sk-proj-Echo1234567890abcdef"
	model := fakemodel.New(fakemodel.OpenAI, fakemodel.Error(401, `{"error":{"message":"Incorrect API key provided: `+key+`.","type":"invalid_request_error"}}`))
	defer model.Close()
	cfg := testConfig(t)
	cfg.Provider, cfg.Model = "openai", "fake-1"
	cfg.Getenv = env(map[string]string{"OPENAI_BASE_URL": model.BaseURL(), "OPENAI_API_KEY": key})
	a := open(t, cfg)
	ctx := context.Background()
	if res, err := a.Host.CallTool(ctx, "schedule_task", []byte(`{"name":"daily","prompt":"Hello.","cron":"0 9 * * *"}`)); err != nil || res.Status != "success" {
		t.Fatalf("schedule_task = %+v, %v", res, err)
	}
	res, err := a.Host.CallTool(ctx, "run_scheduled_task", []byte(`{"name":"daily"}`))
	if err != nil {
		t.Fatal(err)
	}
	task, ok, err := a.Store.Task(ctx, "daily")
	if err != nil || !ok {
		t.Fatalf("the task: %v %v", ok, err)
	}
	for _, c := range []struct{ what, text string }{{"run_scheduled_task's result", res.Output + res.Message}, {"the stored task", task.JSON}} {
		if strings.Contains(c.text, key) || !strings.Contains(c.text, "Incorrect API key provided: [redacted OPENAI_API_KEY].") {
			t.Errorf("%s = %s, want the key redacted", c.what, c.text)
		}
	}
}
