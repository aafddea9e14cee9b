package manifests_test

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/toolroute/toolroute/internal/fakegoogle"
)

func init() {
	errorProbes = append(errorProbes, errorProbe{"google_docs", "docs_read", `{"document_id":"` + docsPlan + `"}`})
}

const (
	docsPlan    = "1q4PlnNotes7Hd2KxVbW9sYtR3eUfGjA6cZmLo0iQpE8"
	docsMeeting = "1mEetNg18Nov2026aQ3rT5yU7iO9pL2kJ4hG6fD8sA0z"
	docsRev1    = "ALBJ4LtQ0001xVmW8bN2cZ"
)

var docsCreatedID = regexp.MustCompile(`\(id: ([A-Za-z0-9_-]+)\)`)

// docsBatch decodes the last request as a batchUpdate of the document.
func docsBatch(t *testing.T, g *gtest, id string) (requests []map[string]any, revision string) {
	t.Helper()
	last := g.Last()
	if last.Method != "POST" || last.Path != "/v1/documents/"+id+":batchUpdate" || len(last.Query) != 0 {
		t.Fatalf("batchUpdate request: %s %s %v", last.Method, last.Path, last.Query)
	}
	var body struct {
		Requests     []map[string]any `json:"requests"`
		WriteControl struct {
			RequiredRevisionID string `json:"requiredRevisionId"`
		} `json:"writeControl"`
	}
	if err := json.Unmarshal(last.Body, &body); err != nil {
		t.Fatalf("batchUpdate body %s: %v", last.Body, err)
	}
	return body.Requests, body.WriteControl.RequiredRevisionID
}

// docsJSON renders a decoded value as compact JSON, for comparisons.
func docsJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestGoogleDocsRead(t *testing.T) {
	g := newGoogle(t)

	g.Call("docs_read", `{"document_id":"`+docsPlan+`"}`,
		`Document "Q4 Planning Notes" (id: `+docsPlan+`, revision: `+docsRev1+`)`,
		"Link: https://docs.google.com/document/d/"+docsPlan+"/edit",
		"Title: Q4 Planning Notes\nOwner: ada@example.com, updated 12 November 2026.\n# Goals\n- Ship the mobile beta by 30 November 2026\n- Hire two support engineers\n# Budget\n",
		"| Item | Cost |\n| Contractors | $12,000 |\n| Cloud hosting | $4,500 |\n\n## Next steps\n",
		"1. Review the budget with finance\n2. Send the plan to the leadership team\n",
		"[Questions](https://chat.example.com/q4-planning) about the plan go to the planning channel.")
	last := g.Last()
	if last.Method != "GET" || last.Path != "/v1/documents/"+docsPlan || !strings.Contains(last.Query.Get("fields"), "body.content(") {
		t.Errorf("read request: %s %s %v", last.Method, last.Path, last.Query)
	}

	// Indices as the API counts them: the title's paragraph starts at 1,
	// a table takes one index for itself, each row and each cell.
	g.Call("docs_read", `{"document_id":"https://docs.google.com/document/d/`+docsPlan+`/edit?tab=t.0","show_indices":true}`,
		"[1-19) Title: Q4 Planning Notes\n[19-69) Owner: ada@example.com",
		"[69-75) # Goals\n[75-116) - Ship the mobile beta by 30 November 2026\n[116-143) - Hire two support engineers\n[143-150) # Budget\n",
		"[150-212) table, 3 rows x 2 columns:\n| Item | Cost |",
		"[212-213) \n[213-224) ## Next steps\n[224-255) 1. Review the budget", "[292-345) [Questions](")
	if g.Last().Path != "/v1/documents/"+docsPlan {
		t.Errorf("a link was not turned into the id: %s", g.Last().Path)
	}

	g.Call("docs_read", `{"document_id":"`+docsMeeting+`"}`, `Document "Meeting notes 2026-11-18"`, "# Weekly sync\nAttendees: Ada, Grace, Linus",
		"## Action items\n- Grace: book the venue\n- Linus: draft the invite")

	// A long document is cut where asked.
	long := strings.Repeat("All work and no play. ", 100)
	out := g.Call("docs_create", `{"title":"Long","text":"`+long+`"}`, `Created the document "Long"`)
	id := docsCreatedID.FindStringSubmatch(out)[1]
	out = g.Call("docs_read", `{"document_id":"`+id+`","max_chars":500}`, "[… ", " more characters cut]")
	if len(out) > 800 {
		t.Errorf("the cut text is %d characters long", len(out))
	}

	g.Fail("docs_read", `{"document_id":"1nOsUcHdOcUmEnT"}`, "HTTP 404", "No document 1nOsUcHdOcUmEnT", "docs_create")
	g.Fail("docs_read", `{"document_id":" "}`, "Missing document_id")
}

func TestGoogleDocsCreate(t *testing.T) {
	g := newGoogle(t)

	out := g.Call("docs_create", `{"title":"Launch plan","text":"Line one\r\nLine two"}`, `Created the document "Launch plan" (id: `, "Added 17 characters", "Link: https://docs.google.com/document/d/")
	id := docsCreatedID.FindStringSubmatch(out)[1]
	reqs := g.G.Requests()
	create := reqs[len(reqs)-2]
	if create.Method != "POST" || create.Path != "/v1/documents" || string(create.Body) != `{"title":"Launch plan"}` {
		t.Errorf("create request: %s %s %s", create.Method, create.Path, create.Body)
	}
	requests, _ := docsBatch(t, g, id)
	if got := docsJSON(requests); got != `[{"insertText":{"location":{"index":1},"text":"Line one\nLine two"}}]` {
		t.Errorf("requests = %s", got)
	}
	if got := g.G.Docs().Text(id); got != "Line one\nLine two\n" {
		t.Errorf("text = %q", got)
	}

	// Without text, one request; then appending fills the empty paragraph.
	out = g.Call("docs_create", `{"title":"Empty"}`, `Created the document "Empty"`)
	empty := docsCreatedID.FindStringSubmatch(out)[1]
	if g.Last().Path != "/v1/documents" {
		t.Errorf("a document without text was edited: %s", g.Last().Path)
	}
	g.Call("docs_append_text", `{"document_id":"`+empty+`","text":"First words"}`, "Added 1 paragraph at the end of document "+empty+" (index 1 to 12)")
	requests, rev := docsBatch(t, g, empty)
	if got := docsJSON(requests); got != `[{"insertText":{"endOfSegmentLocation":{},"text":"First words"}}]` || rev != docsRev1 {
		t.Errorf("requests = %s, revision %q", got, rev)
	}
	if got := g.G.Docs().Text(empty); got != "First words\n" {
		t.Errorf("text = %q", got)
	}

	g.Fail("docs_create", `{"title":""}`, "Missing title")

	// Read-only access reads but cannot write.
	g.Token(g.G.TokenWith("https://www.googleapis.com/auth/documents.readonly"))
	g.Call("docs_read", `{"document_id":"`+docsPlan+`"}`, "Q4 Planning Notes")
	g.Fail("docs_create", `{"title":"x"}`, "HTTP 403", "https://www.googleapis.com/auth/documents, or")
	g.Fail("docs_replace_text", `{"document_id":"`+docsPlan+`","find":"a","replace":"b"}`, "HTTP 403", "https://www.googleapis.com/auth/documents, or")
	g.Token(fakegoogle.Token)
}

func TestGoogleDocsInsert(t *testing.T) {
	g := newGoogle(t)
	docs := g.G.Docs()

	// Appending after a normal paragraph starts a new one.
	g.Call("docs_append_text", `{"document_id":"`+docsPlan+`","text":"Decide on the venue\n"}`, "Added 1 paragraph at the end of document "+docsPlan)
	requests, rev := docsBatch(t, g, docsPlan)
	if got := docsJSON(requests); got != `[{"insertText":{"endOfSegmentLocation":{},"text":"\nDecide on the venue"}}]` || rev != docsRev1 {
		t.Errorf("requests = %s, revision %q", got, rev)
	}
	if !strings.HasSuffix(docs.Text(docsPlan), "planning channel.\nDecide on the venue\n") {
		t.Errorf("text = %q", docs.Text(docsPlan))
	}
	if p, _ := docs.Para(docsPlan, "Decide on the venue"); p.Named != "NORMAL_TEXT" || p.Link != "" {
		t.Errorf("appended paragraph: %+v", p)
	}

	// As a heading: the new paragraph's style is set over its range.
	g.Call("docs_append_text", `{"document_id":"`+docsPlan+`","text":"Appendix","style":"HEADING_2"}`, "Added 1 paragraph as HEADING_2")
	requests, _ = docsBatch(t, g, docsPlan)
	if len(requests) != 2 || docsJSON(requests[1]) != `{"updateParagraphStyle":{"fields":"namedStyleType","paragraphStyle":{"namedStyleType":"HEADING_2"},"range":{"endIndex":373,"startIndex":365}}}` {
		t.Errorf("requests = %s", docsJSON(requests))
	}
	if p, _ := docs.Para(docsPlan, "Appendix"); p.Named != "HEADING_2" {
		t.Errorf("Appendix is %s", p.Named)
	}
	if p, _ := docs.Para(docsPlan, "Decide on the venue"); p.Named != "NORMAL_TEXT" {
		t.Errorf("the paragraph before became %s", p.Named)
	}
	// After a heading, a normal paragraph is reset to normal text.
	g.Call("docs_append_text", `{"document_id":"`+docsPlan+`","text":"See the wiki.\nAnd the drive."}`, "Added 2 paragraphs at the end")
	requests, _ = docsBatch(t, g, docsPlan)
	if len(requests) != 2 || requests[1]["updateParagraphStyle"] == nil {
		t.Errorf("requests = %s", docsJSON(requests))
	}
	for _, text := range []string{"See the wiki.", "And the drive."} {
		if p, _ := docs.Para(docsPlan, text); p.Named != "NORMAL_TEXT" {
			t.Errorf("%s is %s", text, p.Named)
		}
	}

	// After a list item, the new paragraph leaves the list.
	g.Call("docs_append_text", `{"document_id":"`+docsMeeting+`","text":"Next sync on 25 November."}`, "Added 1 paragraph")
	requests, _ = docsBatch(t, g, docsMeeting)
	if len(requests) != 2 || requests[1]["deleteParagraphBullets"] == nil {
		t.Errorf("requests = %s", docsJSON(requests))
	}
	if p, _ := docs.Para(docsMeeting, "Next sync"); p.ListID != "" {
		t.Errorf("the appended paragraph is in list %s", p.ListID)
	}
	if p, _ := docs.Para(docsMeeting, "Linus: draft"); p.ListID != "kix.m3a1ctions" {
		t.Errorf("the last item left its list: %q", p.ListID)
	}
	g.Call("docs_read", `{"document_id":"`+docsMeeting+`"}`, "- Linus: draft the invite\nNext sync on 25 November.")

	// Under a heading, found ignoring case and a leading #.
	g.Call("docs_insert_text", `{"document_id":"`+docsPlan+`","text":"Win three pilot customers","after_heading":"# goals"}`,
		`Inserted 1 paragraph under the heading "Goals" in document `+docsPlan+" (index 75 to 100)")
	requests, rev = docsBatch(t, g, docsPlan)
	if docsJSON(requests) != `[{"insertText":{"location":{"index":74},"text":"\nWin three pilot customers"}},{"updateParagraphStyle":{"fields":"namedStyleType","paragraphStyle":{"namedStyleType":"NORMAL_TEXT"},"range":{"endIndex":100,"startIndex":75}}}]` || rev == "" {
		t.Errorf("requests = %s, revision %q", docsJSON(requests), rev)
	}
	if !strings.Contains(docs.Text(docsPlan), "Goals\nWin three pilot customers\nShip the mobile beta") {
		t.Errorf("text = %q", docs.Text(docsPlan))
	}
	if p, _ := docs.Para(docsPlan, "Win three"); p.Named != "NORMAL_TEXT" {
		t.Errorf("the inserted paragraph is %s", p.Named)
	}
	if p, _ := docs.Para(docsPlan, "Goals"); p.Named != "HEADING_1" {
		t.Errorf("the heading became %s", p.Named)
	}
	// A heading that is the document's last paragraph.
	g.Call("docs_append_text", `{"document_id":"`+docsPlan+`","text":"Glossary","style":"HEADING_2"}`, "Added 1 paragraph as HEADING_2")
	g.Call("docs_insert_text", `{"document_id":"`+docsPlan+`","text":"Ask finance.","after_heading":"Glossary"}`, `under the heading "Glossary"`)
	g.Call("docs_read", `{"document_id":"`+docsPlan+`"}`, "## Appendix\nSee the wiki.\nAnd the drive.\n## Glossary\nAsk finance.")
	if p, _ := docs.Para(docsPlan, "Ask finance."); p.Named != "NORMAL_TEXT" {
		t.Errorf("the paragraph under the last heading is %s", p.Named)
	}

	// At an index, as is.
	g.Call("docs_insert_text", `{"document_id":"`+docsPlan+`","text":"Draft: ","index":1}`, "Inserted 7 characters at index 1 of document "+docsPlan)
	requests, rev = docsBatch(t, g, docsPlan)
	if docsJSON(requests) != `[{"insertText":{"location":{"index":1},"text":"Draft: "}}]` || rev != "" {
		t.Errorf("requests = %s, revision %q", docsJSON(requests), rev)
	}
	if p, _ := docs.Para(docsPlan, "Draft: Q4 Planning Notes"); p.Named != "TITLE" {
		t.Errorf("the title is %s", p.Named)
	}
	// Into a table cell: the first cell's text started at 153, before 26
	// then 7 characters went in above the table.
	g.Call("docs_insert_text", `{"document_id":"`+docsPlan+`","text":"Budget ","index":186}`, "Inserted 7 characters at index 186")
	g.Call("docs_read", `{"document_id":"`+docsPlan+`"}`, "| Budget Item | Cost |")
	g.Fail("docs_insert_text", `{"document_id":"`+docsPlan+`","text":"x","index":100000}`, "HTTP 400", "must be less than the end index", "show_indices")
	g.Fail("docs_insert_text", `{"document_id":"`+docsPlan+`","text":"x","index":184}`, "HTTP 400", "inside the bounds of an existing paragraph")
	g.Fail("docs_insert_text", `{"document_id":"`+docsPlan+`","text":"x"}`, "Give exactly one of after_heading")
	g.Fail("docs_insert_text", `{"document_id":"`+docsPlan+`","text":"x","index":3,"after_heading":"Goals"}`, "Give exactly one of after_heading")
	g.Fail("docs_insert_text", `{"document_id":"`+docsPlan+`","text":"x","after_heading":"Risks"}`, `No heading "Risks"`, `its headings are "Draft: Q4 Planning Notes", "Goals"`)
	g.Fail("docs_insert_text", `{"document_id":"`+docsPlan+`","text":"\n","after_heading":"Goals"}`, "Missing text")
	g.Fail("docs_append_text", `{"document_id":"`+docsPlan+`","text":"x","style":"BIG"}`, "style must be one of")
	g.Fail("docs_append_text", `{"document_id":"1gOnE","text":"x"}`, "HTTP 404", "No document 1gOnE")
}

func TestGoogleDocsReplace(t *testing.T) {
	g := newGoogle(t)
	docs := g.G.Docs()

	// In a table cell too.
	g.Call("docs_replace_text", `{"document_id":"`+docsPlan+`","find":"$12,000","replace":"$14,000"}`, `Replaced 1 occurrence of "$12,000" with "$14,000" in document `+docsPlan)
	requests, rev := docsBatch(t, g, docsPlan)
	if docsJSON(requests) != `[{"replaceAllText":{"containsText":{"matchCase":true,"text":"$12,000"},"replaceText":"$14,000"}}]` || rev != "" {
		t.Errorf("requests = %s, revision %q", docsJSON(requests), rev)
	}
	g.Call("docs_read", `{"document_id":"`+docsPlan+`"}`, "| Contractors | $14,000 |")

	g.Call("docs_replace_text", `{"document_id":"`+docsPlan+`","find":"november","replace":"Nov.","match_case":false}`, "Replaced 2 occurrences")
	if text := docs.Text(docsPlan); !strings.Contains(text, "updated 12 Nov. 2026") || !strings.Contains(text, "by 30 Nov. 2026") {
		t.Errorf("text = %q", text)
	}
	// The replacement keeps the style of what it replaced.
	g.Call("docs_replace_text", `{"document_id":"`+docsPlan+`","find":"Owner:","replace":"Owners:"}`, "Replaced 1 occurrence")
	if p, _ := docs.Para(docsPlan, "Owners:"); !p.Bold {
		t.Error("the replacement lost the bold style")
	}
	// Case matters by default; Google leaves a zero count out.
	g.Call("docs_replace_text", `{"document_id":"`+docsPlan+`","find":"GOALS","replace":"Aims"}`, `No occurrence of "GOALS"`, "try match_case false")
	g.Call("docs_replace_text", `{"document_id":"`+docsPlan+`","find":"the plan ","replace":""}`, "Replaced 2 occurrences")
	if text := docs.Text(docsPlan); !strings.Contains(text, "Send to the leadership team") {
		t.Errorf("text = %q", text)
	}
	g.Fail("docs_replace_text", `{"document_id":"`+docsPlan+`","find":" ","replace":"x"}`, "Missing find")
	g.Fail("docs_replace_text", `{"document_id":"1gOnE","find":"a","replace":"b"}`, "HTTP 404", "No document 1gOnE")
}

func TestGoogleDocsFormat(t *testing.T) {
	g := newGoogle(t)
	docs := g.G.Docs()
	para := func(text string) fakegoogle.DocsParaInfo {
		t.Helper()
		p, ok := docs.Para(docsPlan, text)
		if !ok {
			t.Fatalf("no paragraph holds %q", text)
		}
		return p
	}

	// Part of a paragraph: only the match changes.
	g.Call("docs_format_text", `{"document_id":"`+docsPlan+`","find":"support","bold":true}`, `Formatted "support" in document `+docsPlan+": bold (index 125-132)")
	requests, rev := docsBatch(t, g, docsPlan)
	if docsJSON(requests) != `[{"updateTextStyle":{"fields":"bold","range":{"endIndex":132,"startIndex":125},"textStyle":{"bold":true}}}]` || rev != docsRev1 {
		t.Errorf("requests = %s, revision %q", docsJSON(requests), rev)
	}
	if !para("support").Bold {
		t.Error("support is not bold")
	}
	if para("Hire two").Bold {
		t.Error("Hire two became bold")
	}

	// Several formats, a table cell, a later occurrence.
	g.Call("docs_format_text", `{"document_id":"`+docsPlan+`","find":"Cloud hosting","italic":true,"underline":true}`, "italic, underline")
	if p := para("Cloud hosting"); !p.Italic || !p.Underline {
		t.Error("the cell is not italic and underlined")
	}
	g.Call("docs_format_text", `{"document_id":"`+docsPlan+`","find":"2026","occurrence":2,"strikethrough":true}`, "index 111-115")
	requests, _ = docsBatch(t, g, docsPlan)
	if docsJSON(requests) != `[{"updateTextStyle":{"fields":"strikethrough","range":{"endIndex":115,"startIndex":111},"textStyle":{"strikethrough":true}}}]` {
		t.Errorf("requests = %s", docsJSON(requests))
	}
	g.Call("docs_format_text", `{"document_id":"`+docsPlan+`","find":"2026","all":true,"italic":true}`, "Formatted 2 occurrences", "index 63-67, index 111-115")
	g.Fail("docs_format_text", `{"document_id":"`+docsPlan+`","find":"2026","occurrence":3,"bold":true}`, `"2026" occurs 2 times`)

	// Links: set, shown by docs_read, removed.
	g.Call("docs_format_text", `{"document_id":"`+docsPlan+`","find":"leadership team","link_url":"https://example.com/leads"}`, "linked to https://example.com/leads")
	if link := para("leadership team").Link; link != "https://example.com/leads" {
		t.Errorf("link = %q", link)
	}
	g.Call("docs_read", `{"document_id":"`+docsPlan+`"}`, "2. Send the plan to the [leadership team](https://example.com/leads)")
	g.Call("docs_format_text", `{"document_id":"`+docsPlan+`","find":"Questions","link_url":""}`, "link removed")
	requests, _ = docsBatch(t, g, docsPlan)
	if docsJSON(requests) != `[{"updateTextStyle":{"fields":"link","range":{"endIndex":301,"startIndex":292},"textStyle":{}}}]` {
		t.Errorf("requests = %s", docsJSON(requests))
	}
	if link := para("Questions").Link; link != "" {
		t.Errorf("link = %q", link)
	}

	// Paragraph styles, matched ignoring case; bold removed.
	g.Call("docs_format_text", `{"document_id":"`+docsPlan+`","find":"NEXT STEPS","match_case":false,"paragraph_style":"HEADING_1","bold":false}`, "not bold, paragraphs as HEADING_1")
	requests, _ = docsBatch(t, g, docsPlan)
	if len(requests) != 2 || docsJSON(requests[1]) != `{"updateParagraphStyle":{"fields":"namedStyleType","paragraphStyle":{"namedStyleType":"HEADING_1"},"range":{"endIndex":223,"startIndex":213}}}` {
		t.Errorf("requests = %s", docsJSON(requests))
	}
	if p := para("Next steps"); p.Named != "HEADING_1" || p.Bold {
		t.Errorf("Next steps: %+v", p)
	}
	g.Call("docs_read", `{"document_id":"`+docsPlan+`"}`, "\n# Next steps\n")

	g.Fail("docs_format_text", `{"document_id":"`+docsPlan+`","find":"Goals"}`, "Nothing to do")
	g.Fail("docs_format_text", `{"document_id":"`+docsPlan+`","find":"Goals","link_url":"javascript:alert(1)"}`, "link_url must be an http, https or mailto URL")
	g.Fail("docs_format_text", `{"document_id":"`+docsPlan+`","find":"Goals","paragraph_style":"HEADING_9"}`, "paragraph_style must be one of")
	g.Fail("docs_format_text", `{"document_id":"`+docsPlan+`","find":"goals","bold":true}`, `"goals" is not in document`, "try match_case false")
	g.Fail("docs_format_text", `{"document_id":"1gOnE","find":"a","bold":true}`, "HTTP 404", "No document 1gOnE")
}
