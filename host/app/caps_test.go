package app

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/toolroute/toolroute/host/internal/gzipbomb"
	"github.com/toolroute/toolroute/host/safehttp"
	"github.com/toolroute/toolroute/internal/fakegoogle"
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

