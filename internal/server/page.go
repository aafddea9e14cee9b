package server

import (
	"net/http"

	"github.com/toolroute/toolroute/assets"
)

// pageHTML is the page the edge worker serves too: one file,
// assets/page.html.
var pageHTML = assets.Page

// MinimalPage serves a small chat page at /: its turns run in the program,
// through the API, where the browser UI runs them in the page. The edge
// worker serves it too (web/apps/worker/build.mjs reads assets/page.html).
func MinimalPage(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/" {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	w.Write(pageHTML)
}
