package manifests_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/toolroute/toolroute/internal/fakegoogle"
)

const formsSeed = fakegoogle.FormsSeedID

func init() {
	errorProbes = append(errorProbes, errorProbe{"google_forms", "forms_get", `{"form_id":"` + formsSeed + `"}`})
}

// formsArgs builds a tool's arguments on the seeded form.
func formsArgs(t *testing.T, args map[string]any) string {
	t.Helper()
	if _, ok := args["form_id"]; !ok {
		args["form_id"] = formsSeed
	}
	b, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// formsBatch checks that the last request was a batchUpdate of the form
// and returns its body.
func formsBatch(t *testing.T, g *gtest, id string) map[string]any {
	t.Helper()
	last := g.Last()
	if last.Method != "POST" || last.Path != "/v1/forms/"+id+":batchUpdate" {
		t.Errorf("not a batchUpdate of %s: %s %s", id, last.Method, last.Path)
	}
	var body map[string]any
	if err := json.Unmarshal(last.Body, &body); err != nil {
		t.Fatalf("body %s: %v", last.Body, err)
	}
	return body
}

func TestGoogleFormsGet(t *testing.T) {
	g := newGoogle(t)
	g.Call("forms_get", formsArgs(t, map[string]any{}),
		`Form "Team Offsite 2026 — RSVP" (id: `+formsSeed+`)`,
		"File name in Drive: Offsite RSVP",
		"Description: Tell us whether you can join the offsite in Lisbon, 19–20 November 2026.",
		"Edit: https://docs.google.com/forms/d/"+formsSeed+"/edit",
		"Responder link: https://docs.google.com/forms/d/e/1FAIpQLSe7Yk3vR9mT2xW8pL4nB6hC0dZ5aG1sJ3uF7qK9oE2iV4wX/viewform",
		"Status: published, accepting responses",
		"Respondents' email addresses: collected (verified Google accounts)",
		"7 items (the number is the position forms_add_question's index takes):",
		"0. [short answer, required] Full name (itemId: 2a9c41f0, questionId: 4e7b0d13)",
		"1. [multiple choice, required] Which day can you attend? (itemId: 6b1f3e92, questionId: 0c5a8e27)\n   Options: Thursday 19 November | Friday 20 November | Both days",
		"2. [checkboxes] Dietary requirements (itemId: 3d8e27a4, questionId: 7f2c9b45)\n   Tick all that apply.\n   Options: Vegetarian | Vegan | Gluten-free | No requirements | Other (free text)",
		"3. [section] Travel (itemId: 5c0d6f18)\n   Only if you need us to book travel.",
		"4. [scale 1–5 (Not really … Very)] How excited are you about the offsite? (itemId: 1e4a7c39, questionId: 2b6d4a80)",
		"5. [date] Arrival date (itemId: 7a3f1b56, questionId: 5d9e3c71)",
		"6. [paragraph] Anything else we should know? (itemId: 4b2e8d07, questionId: 6a1c7e94)")
	if last := g.Last(); last.Method != "GET" || last.Path != "/v1/forms/"+formsSeed || len(last.Query) != 0 {
		t.Errorf("get request: %s %s %v", last.Method, last.Path, last.Query)
	}
	g.Call("forms_get", `{"form_id":"https://docs.google.com/forms/d/`+formsSeed+`/edit"}`, "Team Offsite 2026")
	g.Fail("forms_get", `{"form_id":"https://docs.google.com/forms/d/e/1FAIpQLSe7Yk3vR9mT2xW8pL4nB6hC0dZ5aG1sJ3uF7qK9oE2iV4wX/viewform"}`, "responder link", "edit link")
	g.Fail("forms_get", `{"form_id":"1NoSuchForm"}`, "HTTP 404", "No form 1NoSuchForm", "drive_search")
	g.Fail("forms_get", `{"form_id":"a form"}`, "form_id must be a form's id")
}

func TestGoogleFormsEdit(t *testing.T) {
	g := newGoogle(t)
	out := g.Call("forms_create", `{"title":"Workshop feedback","description":"Two minutes, promise.","document_title":"Feedback — Nov workshop"}`,
		`Created the form "Workshop feedback" (id: `, "Edit: https://docs.google.com/forms/d/", "Responder link: https://docs.google.com/forms/d/e/",
		"Description set.", "add them with forms_add_question")
	reqs := g.G.Requests()
	create, describe := reqs[len(reqs)-2], reqs[len(reqs)-1]
	if create.Method != "POST" || create.Path != "/v1/forms" || string(create.Body) != `{"info":{"title":"Workshop feedback","documentTitle":"Feedback — Nov workshop"}}` {
		t.Errorf("create request: %s %s %s", create.Method, create.Path, create.Body)
	}
	id := strings.SplitN(strings.SplitN(out, "(id: ", 2)[1], ")", 2)[0]
	if describe.Path != "/v1/forms/"+id+":batchUpdate" ||
		string(describe.Body) != `{"requests":[{"updateFormInfo":{"info":{"description":"Two minutes, promise."},"updateMask":"description"}}]}` {
		t.Errorf("description request: %s %s", describe.Path, describe.Body)
	}
	g.Call("forms_get", `{"form_id":"`+id+`"}`, "Description: Two minutes, promise.", "Respondents' email addresses: not collected", "No items yet")
	g.Call("forms_create", `{"title":"Quick poll"}`, `Created the form "Quick poll"`)
	if last := g.Last(); last.Path != "/v1/forms" || string(last.Body) != `{"info":{"title":"Quick poll"}}` {
		t.Errorf("a form without a description made %s %s", last.Path, last.Body)
	}

	// Questions of each kind, at the end by default.
	g.Call("forms_add_question", `{"form_id":"`+id+`","title":"Which session did you attend?","type":"multiple_choice","options":["Morning","Afternoon"],"required":true,"other_option":true}`,
		`Added the multiple choice question "Which session did you attend?" at position 0 (itemId: `, "The form has 1 item now.")
	body := formsBatch(t, g, id)
	if got, _ := json.Marshal(body); string(got) != `{"requests":[{"createItem":{"item":{"questionItem":{"question":{"choiceQuestion":{"options":[{"value":"Morning"},{"value":"Afternoon"},{"isOther":true}],"type":"RADIO"},"required":true}},"title":"Which session did you attend?"},"location":{"index":0}}}],"writeControl":{"requiredRevisionId":"00000044"}}` {
		t.Errorf("createItem body = %s", got)
	}
	reqs = g.G.Requests()
	if look := reqs[len(reqs)-2]; look.Method != "GET" || look.Query.Get("fields") != "revisionId,items(itemId)" {
		t.Errorf("the count was read with %s %v", look.Method, look.Query)
	}
	g.Call("forms_add_question", `{"form_id":"`+id+`","title":"How useful was it?","type":"scale","scale_low":0,"scale_high":10,"low_label":"Not at all","high_label":"Very","description":"Be honest."}`,
		`Added the scale 0–10 (Not at all … Very) question "How useful was it?" at position 1`)
	body = formsBatch(t, g, id)
	if got, _ := json.Marshal(body["requests"]); string(got) != `[{"createItem":{"item":{"description":"Be honest.","questionItem":{"question":{"scaleQuestion":{"high":10,"highLabel":"Very","low":0,"lowLabel":"Not at all"}}},"title":"How useful was it?"},"location":{"index":1}}}]` {
		t.Errorf("scale createItem = %s", got)
	}
	g.Call("forms_add_question", `{"form_id":"`+id+`","title":"Your name","type":"short_answer","index":0}`, `Added the short answer question "Your name" at position 0`)
	g.Call("forms_add_question", `{"form_id":"`+id+`","title":"When can we call?","type":"date","include_time":true}`, `Added the date and time question`)
	g.Call("forms_add_question", `{"form_id":"`+id+`","title":"Anything else?","type":"paragraph"}`, `Added the paragraph question`)
	g.Call("forms_add_question", `{"form_id":"`+id+`","title":"Topics for next time","type":"checkboxes","options":["APIs","Testing"]}`, `Added the checkboxes question`)
	g.Call("forms_add_question", `{"form_id":"`+id+`","title":"Team","type":"dropdown","options":["Red","Blue"]}`, `Added the dropdown question`)
	g.Call("forms_add_question", `{"form_id":"`+id+`","title":"Start time","type":"time"}`, `Added the time question`, "The form has 8 items now.")
	g.Call("forms_get", `{"form_id":"`+id+`"}`,
		"0. [short answer] Your name",
		"1. [multiple choice, required] Which session did you attend?",
		"   Options: Morning | Afternoon | Other (free text)",
		"2. [scale 0–10 (Not at all … Very)] How useful was it?",
		"   Be honest.",
		"3. [date and time] When can we call?",
		"4. [paragraph] Anything else?",
		"5. [checkboxes] Topics for next time",
		"6. [dropdown] Team",
		"   Options: Red | Blue",
		"7. [time] Start time")

	// Arguments are checked before anything is sent.
	before := len(g.G.Requests())
	g.Fail("forms_add_question", `{"form_id":"`+id+`","title":"Pick","type":"checkboxes"}`, "needs options")
	g.Fail("forms_add_question", `{"form_id":"`+id+`","title":"Pick","type":"dropdown","options":["a","a"]}`, "given twice")
	g.Fail("forms_add_question", `{"form_id":"`+id+`","title":"Pick","type":"dropdown","options":["a"],"other_option":true}`, "cannot have an \"Other\"")
	g.Fail("forms_add_question", `{"form_id":"`+id+`","title":"Name","type":"short_answer","options":["a"]}`, "options are for multiple_choice")
	g.Fail("forms_add_question", `{"form_id":"`+id+`","title":"Rate","type":"scale","scale_high":11}`, "scale_high must be")
	g.Fail("forms_add_question", `{"form_id":"`+id+`","title":"Rate","type":"rating"}`, "type must be one of")
	if n := len(g.G.Requests()); n != before {
		t.Errorf("refused questions made %d requests", n-before)
	}
	g.Fail("forms_add_question", `{"form_id":"`+id+`","title":"Late","type":"short_answer","index":9}`, "index 9 is past the end: the form has 8 items, so the index is 0 to 8")
	g.Fail("forms_add_question", `{"form_id":"1Gone","title":"x","type":"short_answer"}`, "HTTP 404", "No form 1Gone")

	// Title and description.
	g.Call("forms_update_info", formsArgs(t, map[string]any{"title": "Offsite RSVP (final)", "description": ""}),
		`Updated the title to "Offsite RSVP (final)" and the description (now empty) of the form `+formsSeed+".")
	body = formsBatch(t, g, formsSeed)
	if got, _ := json.Marshal(body); string(got) != `{"requests":[{"updateFormInfo":{"info":{"description":"","title":"Offsite RSVP (final)"},"updateMask":"title,description"}}]}` {
		t.Errorf("updateFormInfo body = %s", got)
	}
	out = g.Call("forms_get", formsArgs(t, map[string]any{}), `Form "Offsite RSVP (final)"`)
	if strings.Contains(out, "Description:") {
		t.Errorf("the description stayed:\n%s", out)
	}
	g.Fail("forms_update_info", formsArgs(t, map[string]any{}), "Nothing to change")
	g.Fail("forms_update_info", formsArgs(t, map[string]any{"title": " "}), "title must not be empty")

	// Deleting finds the position from the itemId.
	g.Call("forms_delete_item", formsArgs(t, map[string]any{"item_id": "7a3f1b56"}),
		`Deleted the item "Arrival date" (itemId: 7a3f1b56) from position 5; the form has 6 items now.`)
	body = formsBatch(t, g, formsSeed)
	if got, _ := json.Marshal(body); !strings.HasPrefix(string(got), `{"requests":[{"deleteItem":{"location":{"index":5}}}],"writeControl":{"requiredRevisionId":"`) {
		t.Errorf("deleteItem body = %s", got)
	}
	out = g.Call("forms_get", formsArgs(t, map[string]any{}), "5. [paragraph] Anything else we should know?")
	if strings.Contains(out, "Arrival date") {
		t.Errorf("the item stayed:\n%s", out)
	}
	g.Fail("forms_delete_item", formsArgs(t, map[string]any{"item_id": "7a3f1b56"}), "No item 7a3f1b56 in the form", "forms_get lists the items")
}

func TestGoogleFormsResponses(t *testing.T) {
	g := newGoogle(t)
	out := g.Call("forms_list_responses", formsArgs(t, map[string]any{}),
		`3 responses to "Team Offsite 2026 — RSVP", newest first:`,
		"Response ACYDBNh5Vb2nM8kR4tW1xQ7pL3cF9dG6aJ0sE2uY5oZ8iK1wT4rX: submitted 2026-11-13 10:21 UTC (first 2026-11-12 08:02 UTC) by katherine@example.com\n"+
			"  Full name: Katherine Johnson\n"+
			"  Which day can you attend?: Friday 20 November\n"+
			"  Dietary requirements: Pescatarian\n"+
			"  How excited are you about the offsite?: 3\n"+
			"  Arrival date: 2026-11-19\n",
		"Response ACYDBNi7Qm2xT9pL4vR8kW3nB6hF0dZ5aG1sJ3uE7qK9oY2iC4wX: submitted 2026-11-10 09:14 UTC by grace@example.com\n"+
			"  Full name: Grace Hopper\n  Which day can you attend?: Both days\n  Dietary requirements: Vegetarian, Gluten-free\n",
		"  Anything else we should know?: I'll bring the projector.")
	if strings.Index(out, "katherine@") > strings.Index(out, "alan@") || strings.Index(out, "alan@") > strings.Index(out, "grace@") {
		t.Errorf("not newest first:\n%s", out)
	}
	reqs := g.G.Requests()
	form, list := reqs[len(reqs)-2], reqs[len(reqs)-1]
	if form.Path != "/v1/forms/"+formsSeed || !strings.HasPrefix(form.Query.Get("fields"), "info(title),items(") {
		t.Errorf("titles request: %s %v", form.Path, form.Query)
	}
	if list.Path != "/v1/forms/"+formsSeed+"/responses" || list.Query.Get("pageSize") != "20" || list.Query.Get("filter") != "" {
		t.Errorf("responses request: %s %v", list.Path, list.Query)
	}

	g.Call("forms_list_responses", formsArgs(t, map[string]any{"submitted_after": "2026-11-11", "max_results": 1}),
		"1 response submitted since 2026-11-11", "by alan@example.com", `More responses: call again with page_token "page-1".`)
	if q := g.Last().Query; q.Get("filter") != "timestamp >= 2026-11-11T00:00:00Z" || q.Get("pageSize") != "1" {
		t.Errorf("filtered query: %v", q)
	}
	out = g.Call("forms_list_responses", formsArgs(t, map[string]any{"submitted_after": "2026-11-11", "max_results": 1, "page_token": "page-1"}), "by katherine@example.com")
	if strings.Contains(out, "More responses") || g.Last().Query.Get("pageToken") != "page-1" {
		t.Errorf("last page: %v\n%s", g.Last().Query, out)
	}
	g.Call("forms_list_responses", formsArgs(t, map[string]any{"submitted_after": "2026-11-13T10:00:00+01:00"}), "1 response", "katherine@")
	if q := g.Last().Query; q.Get("filter") != "timestamp >= 2026-11-13T09:00:00Z" {
		t.Errorf("offset filter: %v", q)
	}
	g.Call("forms_list_responses", formsArgs(t, map[string]any{"submitted_after": "2026-12-01"}), `No responses submitted since 2026-12-01 to "Team Offsite 2026 — RSVP".`)
	g.Fail("forms_list_responses", formsArgs(t, map[string]any{"submitted_after": "last week"}), "submitted_after must be a date")
	g.Fail("forms_list_responses", formsArgs(t, map[string]any{"max_results": 500}), "max_results must be")

	g.Call("forms_get_response", formsArgs(t, map[string]any{"response_id": "ACYDBNj3Lk8wQ5rT1xV7mP2nC9hG4dB6aF0sK3uE8yZ1oW5iR7tX"}),
		"Form: Team Offsite 2026 — RSVP\nResponse ACYDBNj3Lk8wQ5rT1xV7mP2nC9hG4dB6aF0sK3uE8yZ1oW5iR7tX: submitted 2026-11-11 16:40 UTC by alan@example.com",
		"  Full name: Alan Turing", "  Dietary requirements: No requirements", "  How excited are you about the offsite?: 4")
	if p := g.Last().Path; p != "/v1/forms/"+formsSeed+"/responses/ACYDBNj3Lk8wQ5rT1xV7mP2nC9hG4dB6aF0sK3uE8yZ1oW5iR7tX" {
		t.Errorf("get response path %s", p)
	}
	g.Fail("forms_get_response", formsArgs(t, map[string]any{"response_id": "ACYDBNnope"}), "HTTP 404", "No response ACYDBNnope", "forms_list_responses")

	// A deleted question's answers stay, under its id.
	g.Call("forms_delete_item", formsArgs(t, map[string]any{"item_id": "4b2e8d07"}), `Deleted the item "Anything else we should know?"`)
	g.Call("forms_get_response", formsArgs(t, map[string]any{"response_id": "ACYDBNi7Qm2xT9pL4vR8kW3nB6hF0dZ5aG1sJ3uE7qK9oY2iC4wX"}),
		"  Question 6a1c7e94 (no longer in the form): I'll bring the projector.")

	// Responses only: the answers come under question ids.
	g.Token(g.G.TokenWith("https://www.googleapis.com/auth/forms.responses.readonly"))
	g.Call("forms_list_responses", formsArgs(t, map[string]any{}), "3 responses, newest first:",
		"(Question titles are not shown: the account has not granted reading the form itself, https://www.googleapis.com/auth/forms.body.readonly.)",
		"  Question 4e7b0d13: Grace Hopper")
	g.Fail("forms_get", formsArgs(t, map[string]any{}), "HTTP 403", "https://www.googleapis.com/auth/forms.body.readonly")
	g.Token(fakegoogle.Token)
}

// A read-only grant reads the form but cannot change it, and the refusal
// names the scope changing needs; responses need their own scope.
func TestGoogleFormsReadonly(t *testing.T) {
	g := newGoogle(t)
	g.Token(g.G.TokenWith("https://www.googleapis.com/auth/forms.body.readonly"))
	g.Call("forms_get", formsArgs(t, map[string]any{}), "Full name")
	g.Fail("forms_update_info", formsArgs(t, map[string]any{"title": "x"}), "HTTP 403", "https://www.googleapis.com/auth/forms.body, or")
	g.Fail("forms_add_question", formsArgs(t, map[string]any{"title": "x", "type": "short_answer"}), "HTTP 403", "auth/forms.body, or")
	g.Fail("forms_list_responses", formsArgs(t, map[string]any{}), "HTTP 403", "https://www.googleapis.com/auth/forms.responses.readonly")
	g.Fail("forms_create", `{"title":"x"}`, "HTTP 403", "auth/forms.body, or")
	g.Token(fakegoogle.Token)
}
