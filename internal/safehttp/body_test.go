package safehttp

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/toolroute/toolroute/internal/gzipbomb"
)

func TestReadAll(t *testing.T) {
	for _, tc := range []struct {
		name    string
		input   io.Reader
		limit   int64
		want    string
		wantErr string
	}{
		{"empty", strings.NewReader(""), 4, "", ""},
		{"under", strings.NewReader("abc"), 4, "abc", ""},
		{"at the cap", strings.NewReader("abcd"), 4, "abcd", ""},
		{"at the cap, a byte at a time", iotest.OneByteReader(strings.NewReader("abcd")), 4, "abcd", ""},
		{"at the cap, EOF with the data", iotest.DataErrReader(strings.NewReader("abcd")), 4, "abcd", ""},
		{"a byte over", strings.NewReader("abcde"), 4, "", "the body is over 4 bytes, the most toolroute reads of it: send less"},
		{"in KB", strings.NewReader(strings.Repeat("x", 2049)), 2 << 10, "", "the body is over 2 KB, the most toolroute reads of it: send less"},
		{"in MB", strings.NewReader(strings.Repeat("x", 1<<20+1)), 1 << 20, "", "the body is over 1 MB, the most toolroute reads of it: send less"},
		{"a reader's own error", iotest.ErrReader(errors.New("cut off")), 4, "", "cut off"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ReadAll(tc.input, tc.limit, "the body", "send less")
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("ReadAll = %q, %v; want the error %q", got, err, tc.wantErr)
				}
				return
			}
			if err != nil || string(got) != tc.want {
				t.Errorf("ReadAll = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

// LimitBody keeps failing once over, and counts the body as Go's
// transport hands it over: inflated. A gzip body of half a megabyte that
// inflates to 400 MB stops at the cap.
func TestLimitBodyCountsInflated(t *testing.T) {
	srv := httptest.NewServer(gzipbomb.Handler("text/plain", gzipbomb.Make("", "a", "", 400<<20)))
	defer srv.Close()
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	body := LimitBody(resp.Body, 8<<20, "the answer", "")
	defer body.Close()
	n, err := io.Copy(io.Discard, body)
	var tl *TooLargeError
	if n != 8<<20 || !errors.As(err, &tl) || tl.Limit != 8<<20 || err.Error() != "the answer is over 8 MB, the most toolroute reads of it" {
		t.Errorf("read %d bytes, then %v; want 8 MB, then the cap's error", n, err)
	}
	if _, err := body.Read(make([]byte, 1)); !errors.As(err, &tl) {
		t.Errorf("a read after the cap = %v, want the cap's error again", err)
	}
}
