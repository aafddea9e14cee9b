package server

import (
	_ "embed"
	"net/http"
)

//go:embed page.html
var pageHTML []byte

// minimalPage is a small chat page on the API, until the browser UI.
func minimalPage(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/" {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Write(pageHTML)
}
