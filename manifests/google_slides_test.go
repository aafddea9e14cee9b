package manifests_test

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/toolroute/toolroute/internal/fakegoogle"
)

func init() {
	errorProbes = append(errorProbes, errorProbe{"google_slides", "slides_read", `{"presentation_id":"` + slidesDeck + `"}`})
}

const (
	slidesDeck = "1pQ4rEvW8kLm2NbX5cZt7YhUj3GsDf6Aq9PoIu0Ty1Re"
	slidesRev1 = "k7Rm2xQv0001Pb9WcT"
	// The seed deck's slides.
	slidesHighlights = "g31a2b3c4d5_0_0"
	slidesBudget     = "g31a2b3c4d5_0_10"
	slidesQuestions  = "g31a2b3c4d5_0_20"
)

var slidesNewID = regexp.MustCompile(`\(id: ([A-Za-z0-9_:-]+)\)`)

// slidesBatch decodes the last request as a batchUpdate of the
// presentation.
func slidesBatch(t *testing.T, g *gtest, id string) (requests string, revision string) {
	t.Helper()
	last := g.Last()
	if last.Method != "POST" || last.Path != "/v1/presentations/"+id+":batchUpdate" || len(last.Query) != 0 {
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
	b, _ := json.Marshal(body.Requests)
	return string(b), body.WriteControl.RequiredRevisionID
}

func TestGoogleSlidesRead(t *testing.T) {
	g := newGoogle(t)

	g.Call("slides_read", `{"presentation_id":"`+slidesDeck+`"}`,
		`Presentation "Q4 Product Review" (id: `+slidesDeck+`, revision: `+slidesRev1+`), 4 slides`,
		"Link: https://docs.google.com/presentation/d/"+slidesDeck+"/edit",
		"Slide 1 (id: p, layout TITLE)\n  CENTERED_TITLE (id: i0): Q4 Product Review\n  SUBTITLE (id: i1): Mobile team, 20 November 2026\n  Speaker notes (id: i3): Welcome everyone; keep the intros short.\n",
		"Slide 2 (id: "+slidesHighlights+", layout TITLE_AND_BODY)\n  TITLE (id: g31a2b3c4d5_1_0): Highlights\n  BODY (id: g31a2b3c4d5_1_1):\n    Mobile beta shipped to 2,000 testers\n    Crash rate down 40%\n    Support backlog cleared\n  Speaker notes (id: g31a2b3c4d5_1_3): none\n",
		"Slide 3 (id: "+slidesBudget+", layout TITLE_ONLY)\n  TITLE (id: g31a2b3c4d5_2_0): Budget\n  Table (id: g31a2b3c4d5_2_5, 3x2):\n    | Item | Cost |\n    | Contractors | $12,000 |\n    | Cloud hosting | $4,500 |\n",
		"Slide 4 (id: "+slidesQuestions+", layout SECTION_HEADER)\n  TITLE (id: g31a2b3c4d5_3_0): Questions?\n  Text box (id: g31a2b3c4d5_3_5): Send questions to ada@example.com\n")
	last := g.Last()
	if last.Method != "GET" || last.Path != "/v1/presentations/"+slidesDeck || !strings.HasPrefix(last.Query.Get("fields"), "presentationId,title,revisionId,") {
		t.Errorf("read request: %s %s %v", last.Method, last.Path, last.Query)
	}
	g.Call("slides_read", `{"presentation_id":"https://docs.google.com/presentation/d/`+slidesDeck+`/edit#slide=id.p","max_chars":500}`, "Slide 1 (id: p", " more characters cut]")
	g.Fail("slides_read", `{"presentation_id":"1nOpReSeNtAtIoN"}`, "HTTP 404", "No presentation 1nOpReSeNtAtIoN", "slides_create")

	// Read-only access reads but cannot change.
	g.Token(g.G.TokenWith("https://www.googleapis.com/auth/presentations.readonly"))
	g.Call("slides_read", `{"presentation_id":"`+slidesDeck+`"}`, "Q4 Product Review")
	g.Fail("slides_replace_text", `{"presentation_id":"`+slidesDeck+`","find":"a","replace":"b"}`, "HTTP 403", "https://www.googleapis.com/auth/presentations, or")
	g.Fail("slides_create", `{"title":"x"}`, "HTTP 403", "https://www.googleapis.com/auth/presentations, or")
	g.Token(fakegoogle.Token)
}

func TestGoogleSlidesCreate(t *testing.T) {
	g := newGoogle(t)
	slides := g.G.Slides()

	out := g.Call("slides_create", `{"title":"Team offsite"}`, `Created the presentation "Team offsite" (id: `,
		"Its title slide (id: p) has the empty text boxes CENTERED_TITLE (id: i0), SUBTITLE (id: i1): fill them with slides_set_text.",
		"Link: https://docs.google.com/presentation/d/")
	id := slidesNewID.FindStringSubmatch(out)[1]
	if last := g.Last(); last.Method != "POST" || last.Path != "/v1/presentations" || string(last.Body) != `{"title":"Team offsite"}` {
		t.Errorf("create request: %s %s %s", last.Method, last.Path, last.Body)
	}
	// An empty placeholder gets text without a delete first.
	g.Call("slides_set_text", `{"presentation_id":"`+id+`","object_id":"i0","text":"Offsite 2026"}`, "Set the text of i0 on slide 1 (12 characters).")
	if reqs, rev := slidesBatch(t, g, id); reqs != `[{"insertText":{"insertionIndex":0,"objectId":"i0","text":"Offsite 2026"}}]` || rev != slidesRev1 {
		t.Errorf("requests = %s, revision %q", reqs, rev)
	}
	if text, _ := slides.Shape(id, "i0"); text != "Offsite 2026" {
		t.Errorf("i0 = %q", text)
	}
	g.Call("slides_read", `{"presentation_id":"`+id+`"}`, "1 slide\n", "CENTERED_TITLE (id: i0): Offsite 2026\n  SUBTITLE (id: i1): (empty)\n  Speaker notes (id: i3): none")
	g.Fail("slides_create", `{"title":" "}`, "Missing title")
}

func TestGoogleSlidesAddSlide(t *testing.T) {
	g := newGoogle(t)
	slides := g.G.Slides()

	out := g.Call("slides_add_slide", `{"presentation_id":"`+slidesDeck+`","position":2,"title":"Roadmap","body":"Q1: payments\nQ2: search","notes":"Keep it short"}`,
		"Added a TITLE_AND_BODY slide at position 2 (id: ", "Text boxes: TITLE (id: ", "Filled in: title, body, speaker notes.")
	id := slidesNewID.FindStringSubmatch(out)[1]
	reqs := g.G.Requests()
	create, page := reqs[len(reqs)-3], reqs[len(reqs)-2]
	if create.Path != "/v1/presentations/"+slidesDeck+":batchUpdate" ||
		string(create.Body) != `{"requests":[{"createSlide":{"slideLayoutReference":{"predefinedLayout":"TITLE_AND_BODY"},"insertionIndex":1}}]}` {
		t.Errorf("create slide: %s %s", create.Path, create.Body)
	}
	if page.Method != "GET" || page.Path != "/v1/presentations/"+slidesDeck+"/pages/"+id || page.Query.Get("fields") == "" {
		t.Errorf("page request: %s %s %v", page.Method, page.Path, page.Query)
	}
	var body struct {
		Requests []struct {
			InsertText struct {
				ObjectID       string `json:"objectId"`
				InsertionIndex *int   `json:"insertionIndex"`
				Text           string `json:"text"`
			} `json:"insertText"`
		} `json:"requests"`
	}
	json.Unmarshal(g.Last().Body, &body)
	if len(body.Requests) != 3 {
		t.Fatalf("fill requests: %s", g.Last().Body)
	}
	for i, want := range []string{"Roadmap", "Q1: payments\nQ2: search", "Keep it short"} {
		in := body.Requests[i].InsertText
		if in.Text != want || in.InsertionIndex == nil || *in.InsertionIndex != 0 {
			t.Errorf("request %d: %+v", i, in)
		}
		if text, ok := slides.Shape(slidesDeck, in.ObjectID); !ok || text != want {
			t.Errorf("%s holds %q", in.ObjectID, text)
		}
	}
	if ids := slides.SlideIDs(slidesDeck); len(ids) != 5 || ids[1] != id {
		t.Errorf("slides = %v", ids)
	}
	g.Call("slides_read", `{"presentation_id":"`+slidesDeck+`"}`, "5 slides", "Slide 2 (id: "+id+", layout TITLE_AND_BODY)\n  TITLE (id: ",
		"): Roadmap\n  BODY (id: ", "):\n    Q1: payments\n    Q2: search\n  Speaker notes (id: ", "): Keep it short\nSlide 3 (id: "+slidesHighlights)

	// A title slide takes the body as its subtitle; a layout without a body
	// says so; no position means the end.
	g.Call("slides_add_slide", `{"presentation_id":"`+slidesDeck+`","layout":"TITLE","title":"Part two","body":"Plans for 2027"}`,
		"Added a TITLE slide at the end", "CENTERED_TITLE (id: ", "SUBTITLE (id: ", "Filled in: title, body.")
	g.Call("slides_read", `{"presentation_id":"`+slidesDeck+`"}`, "Slide 6 (id: ", "layout TITLE)\n  CENTERED_TITLE (id: ", "): Part two\n  SUBTITLE (id: ", "): Plans for 2027\n")
	g.Call("slides_add_slide", `{"presentation_id":"`+slidesDeck+`","layout":"TITLE_ONLY","title":"Timeline","body":"Soon"}`,
		"Filled in: title.", "The TITLE_ONLY layout has no place for the body")
	g.Call("slides_add_slide", `{"presentation_id":"`+slidesDeck+`","layout":"BLANK"}`, "Added a BLANK slide at the end")
	if last := g.Last(); last.Method != "GET" {
		t.Errorf("an empty slide was filled: %s %s", last.Method, last.Body)
	}
	if n := len(slides.SlideIDs(slidesDeck)); n != 8 {
		t.Errorf("%d slides", n)
	}
	g.Fail("slides_add_slide", `{"presentation_id":"`+slidesDeck+`","position":20}`, "HTTP 400", "The position may be past the end")
	g.Fail("slides_add_slide", `{"presentation_id":"`+slidesDeck+`","layout":"FANCY"}`, "layout must be one of")
	g.Fail("slides_add_slide", `{"presentation_id":"1gOnE"}`, "HTTP 404", "No presentation 1gOnE")
}

func TestGoogleSlidesText(t *testing.T) {
	g := newGoogle(t)
	slides := g.G.Slides()

	// Text there is goes first.
	g.Call("slides_set_text", `{"presentation_id":"`+slidesDeck+`","object_id":"g31a2b3c4d5_1_0","text":"Highlights of Q4"}`, "Set the text of g31a2b3c4d5_1_0 on slide 2")
	reqs, rev := slidesBatch(t, g, slidesDeck)
	if reqs != `[{"deleteText":{"objectId":"g31a2b3c4d5_1_0","textRange":{"type":"ALL"}}},{"insertText":{"insertionIndex":0,"objectId":"g31a2b3c4d5_1_0","text":"Highlights of Q4"}}]` || rev != slidesRev1 {
		t.Errorf("requests = %s, revision %q", reqs, rev)
	}
	if text, _ := slides.Shape(slidesDeck, "g31a2b3c4d5_1_0"); text != "Highlights of Q4" {
		t.Errorf("title = %q", text)
	}
	// Speaker notes that do not exist yet.
	g.Call("slides_set_text", `{"presentation_id":"`+slidesDeck+`","object_id":"g31a2b3c4d5_1_3","text":"Mention the beta numbers"}`, "in the speaker notes of slide 2")
	if reqs, _ := slidesBatch(t, g, slidesDeck); reqs != `[{"insertText":{"insertionIndex":0,"objectId":"g31a2b3c4d5_1_3","text":"Mention the beta numbers"}}]` {
		t.Errorf("requests = %s", reqs)
	}
	g.Call("slides_read", `{"presentation_id":"`+slidesDeck+`"}`, "Speaker notes (id: g31a2b3c4d5_1_3): Mention the beta numbers")
	g.Call("slides_set_text", `{"presentation_id":"`+slidesDeck+`","object_id":"g31a2b3c4d5_3_5","text":""}`, "Emptied g31a2b3c4d5_3_5 on slide 4.")
	if reqs, _ := slidesBatch(t, g, slidesDeck); reqs != `[{"deleteText":{"objectId":"g31a2b3c4d5_3_5","textRange":{"type":"ALL"}}}]` {
		t.Errorf("requests = %s", reqs)
	}
	g.Call("slides_set_text", `{"presentation_id":"`+slidesDeck+`","object_id":"g31a2b3c4d5_3_5","text":""}`, "is empty already")
	g.Fail("slides_set_text", `{"presentation_id":"`+slidesDeck+`","object_id":"g31a2b3c4d5_2_5","text":"x"}`, "is a table: change its text with slides_replace_text")
	g.Fail("slides_set_text", `{"presentation_id":"`+slidesDeck+`","object_id":"nope1","text":"x"}`, "No text box nope1", "slides_read")

	// Everywhere, tables included.
	g.Call("slides_replace_text", `{"presentation_id":"`+slidesDeck+`","find":"$12,000","replace":"$14,000"}`, `Replaced 1 occurrence of "$12,000" with "$14,000" in presentation `+slidesDeck)
	reqs, rev = slidesBatch(t, g, slidesDeck)
	if reqs != `[{"replaceAllText":{"containsText":{"matchCase":true,"text":"$12,000"},"replaceText":"$14,000"}}]` || rev != "" {
		t.Errorf("requests = %s, revision %q", reqs, rev)
	}
	g.Call("slides_read", `{"presentation_id":"`+slidesDeck+`"}`, "| Contractors | $14,000 |")
	g.Call("slides_replace_text", `{"presentation_id":"`+slidesDeck+`","find":"CRASH RATE","replace":"Crash count","match_case":false}`, "Replaced 1 occurrence")
	if text, _ := slides.Shape(slidesDeck, "g31a2b3c4d5_1_1"); !strings.Contains(text, "\nCrash count down 40%\n") {
		t.Errorf("body = %q", text)
	}
	// On some slides only.
	g.Call("slides_replace_text", `{"presentation_id":"`+slidesDeck+`","find":"Budget","replace":"Costs","slide_ids":["`+slidesHighlights+`"]}`,
		`No occurrence of "Budget" on 1 slide in presentation `+slidesDeck)
	reqs, _ = slidesBatch(t, g, slidesDeck)
	if reqs != `[{"replaceAllText":{"containsText":{"matchCase":true,"text":"Budget"},"pageObjectIds":["`+slidesHighlights+`"],"replaceText":"Costs"}}]` {
		t.Errorf("requests = %s", reqs)
	}
	g.Call("slides_replace_text", `{"presentation_id":"`+slidesDeck+`","find":"Budget","replace":"Costs","slide_ids":["`+slidesBudget+`"]}`, "Replaced 1 occurrence", "on 1 slide")
	g.Fail("slides_replace_text", `{"presentation_id":"`+slidesDeck+`","find":"a","replace":"b","slide_ids":["gone1"]}`, "HTTP 400", "Check slide_ids with slides_read")
	g.Fail("slides_replace_text", `{"presentation_id":"`+slidesDeck+`","find":"","replace":"b"}`, "Missing find")
}

func TestGoogleSlidesArrange(t *testing.T) {
	g := newGoogle(t)
	slides := g.G.Slides()

	out := g.Call("slides_duplicate_slide", `{"presentation_id":"`+slidesDeck+`","slide_id":"`+slidesHighlights+`"}`,
		"Copied slide 2 (id: "+slidesHighlights+") as slide 3 (id: ")
	copyID := slidesNewID.FindAllStringSubmatch(out, -1)[1][1]
	reqs, rev := slidesBatch(t, g, slidesDeck)
	if reqs != `[{"duplicateObject":{"objectId":"`+slidesHighlights+`"}}]` || rev != slidesRev1 {
		t.Errorf("requests = %s, revision %q", reqs, rev)
	}
	if ids := slides.SlideIDs(slidesDeck); len(ids) != 5 || ids[2] != copyID {
		t.Errorf("slides = %v", ids)
	}
	g.Call("slides_read", `{"presentation_id":"`+slidesDeck+`"}`, "Slide 3 (id: "+copyID+", layout TITLE_AND_BODY)\n  TITLE (id: ", "): Highlights\n")

	// Later, then earlier: Google counts the insertion index before the move.
	g.Call("slides_move_slide", `{"presentation_id":"`+slidesDeck+`","slide_id":"p","position":3}`, "Moved slide p from position 1 to 3 of 5.")
	if reqs, _ := slidesBatch(t, g, slidesDeck); reqs != `[{"updateSlidesPosition":{"insertionIndex":3,"slideObjectIds":["p"]}}]` {
		t.Errorf("requests = %s", reqs)
	}
	if ids := slides.SlideIDs(slidesDeck); !slices.Equal(ids, []string{slidesHighlights, copyID, "p", slidesBudget, slidesQuestions}) {
		t.Errorf("slides = %v", ids)
	}
	g.Call("slides_move_slide", `{"presentation_id":"`+slidesDeck+`","slide_id":"`+slidesQuestions+`","position":1}`, "from position 5 to 1 of 5")
	if reqs, _ := slidesBatch(t, g, slidesDeck); reqs != `[{"updateSlidesPosition":{"insertionIndex":0,"slideObjectIds":["`+slidesQuestions+`"]}}]` {
		t.Errorf("requests = %s", reqs)
	}
	if ids := slides.SlideIDs(slidesDeck); !slices.Equal(ids, []string{slidesQuestions, slidesHighlights, copyID, "p", slidesBudget}) {
		t.Errorf("slides = %v", ids)
	}
	g.Call("slides_move_slide", `{"presentation_id":"`+slidesDeck+`","slide_id":"p","position":4}`, "is at position 4 already")
	g.Fail("slides_move_slide", `{"presentation_id":"`+slidesDeck+`","slide_id":"p","position":6}`, "position must be a whole number from 1 to 5")

	g.Call("slides_delete_slide", `{"presentation_id":"`+slidesDeck+`","slide_id":"`+copyID+`"}`, "Deleted slide 3 (id: "+copyID+"); 4 slides remain.")
	reqs, rev = slidesBatch(t, g, slidesDeck)
	if reqs != `[{"deleteObject":{"objectId":"`+copyID+`"}}]` || rev == slidesRev1 || rev == "" {
		t.Errorf("requests = %s, revision %q", reqs, rev)
	}
	if ids := slides.SlideIDs(slidesDeck); slices.Contains(ids, copyID) || len(ids) != 4 {
		t.Errorf("slides = %v", ids)
	}
	for _, tool := range []string{"slides_delete_slide", "slides_duplicate_slide"} {
		g.Fail(tool, `{"presentation_id":"`+slidesDeck+`","slide_id":"g31a2b3c4d5_1_0"}`, "No slide g31a2b3c4d5_1_0 in presentation", "slides_read lists the slides")
	}
	g.Fail("slides_delete_slide", `{"presentation_id":"1gOnE","slide_id":"p"}`, "HTTP 404", "No presentation 1gOnE")
}
