package fakegoogle

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Google Forms API v1: https://developers.google.com/workspace/forms/api/reference/rest
//
// Forms keep their items with item and question ids; batchUpdate applies
// updateFormInfo, createItem and deleteItem and refuses the other kinds; the
// seeded form has responses keyed by question id.

const (
	formsScopeBody              = "https://www.googleapis.com/auth/forms.body"
	formsScopeBodyReadonly      = "https://www.googleapis.com/auth/forms.body.readonly"
	formsScopeResponsesReadonly = "https://www.googleapis.com/auth/forms.responses.readonly"
)

var (
	formsRead          = []string{driveScopeFull, driveScopeFile, driveScopeReadonly, formsScopeBody, formsScopeBodyReadonly}
	formsWrite         = []string{driveScopeFull, driveScopeFile, formsScopeBody}
	formsResponsesRead = []string{driveScopeFull, driveScopeFile, formsScopeResponsesReadonly}
)

// FormsForm is a Form resource.
type FormsForm struct {
	FormID          string               `json:"formId"`
	Info            formsInfo            `json:"info"`
	Settings        *formsSettings       `json:"settings,omitempty"`
	Items           []*FormsItem         `json:"items,omitempty"`
	RevisionID      string               `json:"revisionId"`
	ResponderURI    string               `json:"responderUri"`
	LinkedSheetID   string               `json:"linkedSheetId,omitempty"`
	PublishSettings *formsPublishSetting `json:"publishSettings,omitempty"`
}

type formsInfo struct {
	Title         string `json:"title,omitempty"`
	DocumentTitle string `json:"documentTitle,omitempty"`
	Description   string `json:"description,omitempty"`
}

type formsSettings struct {
	QuizSettings *struct {
		IsQuiz bool `json:"isQuiz,omitempty"`
	} `json:"quizSettings,omitempty"`
	EmailCollectionType string `json:"emailCollectionType,omitempty"`
}

type formsPublishSetting struct {
	PublishState struct {
		IsPublished          bool `json:"isPublished"`
		IsAcceptingResponses bool `json:"isAcceptingResponses"`
	} `json:"publishState"`
}

// FormsItem is an Item: the kinds the tools create and show.
type FormsItem struct {
	ItemID            string                  `json:"itemId,omitempty"`
	Title             string                  `json:"title,omitempty"`
	Description       string                  `json:"description,omitempty"`
	QuestionItem      *formsQuestionItem      `json:"questionItem,omitempty"`
	QuestionGroupItem *formsQuestionGroupItem `json:"questionGroupItem,omitempty"`
	PageBreakItem     *struct{}               `json:"pageBreakItem,omitempty"`
	TextItem          *struct{}               `json:"textItem,omitempty"`
}

type formsQuestionItem struct {
	Question formsQuestion `json:"question"`
}

type formsQuestionGroupItem struct {
	Questions []formsQuestion `json:"questions"`
	Grid      struct {
		Columns formsChoiceQuestion `json:"columns"`
	} `json:"grid"`
}

type formsQuestion struct {
	QuestionID     string               `json:"questionId,omitempty"`
	Required       bool                 `json:"required,omitempty"`
	ChoiceQuestion *formsChoiceQuestion `json:"choiceQuestion,omitempty"`
	TextQuestion   *struct {
		Paragraph bool `json:"paragraph,omitempty"`
	} `json:"textQuestion,omitempty"`
	ScaleQuestion *struct {
		Low       int    `json:"low"`
		High      int    `json:"high"`
		LowLabel  string `json:"lowLabel,omitempty"`
		HighLabel string `json:"highLabel,omitempty"`
	} `json:"scaleQuestion,omitempty"`
	DateQuestion *struct {
		IncludeTime bool `json:"includeTime,omitempty"`
		IncludeYear bool `json:"includeYear,omitempty"`
	} `json:"dateQuestion,omitempty"`
	TimeQuestion *struct {
		Duration bool `json:"duration,omitempty"`
	} `json:"timeQuestion,omitempty"`
	RowQuestion *struct {
		Title string `json:"title"`
	} `json:"rowQuestion,omitempty"`
}

type formsChoiceQuestion struct {
	Type    string `json:"type"`
	Options []struct {
		Value   string `json:"value,omitempty"`
		IsOther bool   `json:"isOther,omitempty"`
	} `json:"options"`
	Shuffle bool `json:"shuffle,omitempty"`
}

// FormsResponse is a FormResponse.
type FormsResponse struct {
	FormID            string                 `json:"formId,omitempty"`
	ResponseID        string                 `json:"responseId"`
	CreateTime        string                 `json:"createTime"`
	LastSubmittedTime string                 `json:"lastSubmittedTime"`
	RespondentEmail   string                 `json:"respondentEmail,omitempty"`
	Answers           map[string]formsAnswer `json:"answers,omitempty"`
}

type formsAnswer struct {
	QuestionID  string `json:"questionId"`
	TextAnswers struct {
		Answers []struct {
			Value string `json:"value"`
		} `json:"answers"`
	} `json:"textAnswers"`
}

// FormsState is the Forms service's data.
type FormsState struct {
	Forms     map[string]*FormsForm
	Responses map[string][]*FormsResponse // by form id
	revision  int
}

// FormsSeedID is the seeded form, "Team Offsite 2026 — RSVP", which has
// three responses.
const FormsSeedID = "1FpT7zW3kLr9QmX2vB6nH4sD8yC0aJ5eG1uK3oI7wE2q"

// Forms returns the Forms service's state.
func (s *Server) Forms() *FormsState {
	return State(s, "forms", func() *FormsState {
		st := &FormsState{Forms: map[string]*FormsForm{}, Responses: map[string][]*FormsResponse{}, revision: 42}
		// The seed is written as the API shows it.
		var f FormsForm
		if err := json.Unmarshal([]byte(formsSeed), &f); err != nil {
			panic(err)
		}
		st.Forms[f.FormID] = &f
		var responses []*FormsResponse
		if err := json.Unmarshal([]byte(formsSeedResponses), &responses); err != nil {
			panic(err)
		}
		st.Responses[f.FormID] = responses
		return st
	})
}

const formsSeed = `{
  "formId": "1FpT7zW3kLr9QmX2vB6nH4sD8yC0aJ5eG1uK3oI7wE2q",
  "info": {
    "title": "Team Offsite 2026 — RSVP",
    "documentTitle": "Offsite RSVP",
    "description": "Tell us whether you can join the offsite in Lisbon, 19–20 November 2026."
  },
  "settings": {"emailCollectionType": "VERIFIED"},
  "items": [
    {"itemId": "2a9c41f0", "title": "Full name",
     "questionItem": {"question": {"questionId": "4e7b0d13", "required": true, "textQuestion": {}}}},
    {"itemId": "6b1f3e92", "title": "Which day can you attend?",
     "questionItem": {"question": {"questionId": "0c5a8e27", "required": true, "choiceQuestion": {"type": "RADIO",
       "options": [{"value": "Thursday 19 November"}, {"value": "Friday 20 November"}, {"value": "Both days"}]}}}},
    {"itemId": "3d8e27a4", "title": "Dietary requirements", "description": "Tick all that apply.",
     "questionItem": {"question": {"questionId": "7f2c9b45", "choiceQuestion": {"type": "CHECKBOX",
       "options": [{"value": "Vegetarian"}, {"value": "Vegan"}, {"value": "Gluten-free"}, {"value": "No requirements"}, {"isOther": true}]}}}},
    {"itemId": "5c0d6f18", "title": "Travel", "description": "Only if you need us to book travel.", "pageBreakItem": {}},
    {"itemId": "1e4a7c39", "title": "How excited are you about the offsite?",
     "questionItem": {"question": {"questionId": "2b6d4a80", "scaleQuestion": {"low": 1, "high": 5, "lowLabel": "Not really", "highLabel": "Very"}}}},
    {"itemId": "7a3f1b56", "title": "Arrival date",
     "questionItem": {"question": {"questionId": "5d9e3c71", "dateQuestion": {"includeYear": true}}}},
    {"itemId": "4b2e8d07", "title": "Anything else we should know?",
     "questionItem": {"question": {"questionId": "6a1c7e94", "textQuestion": {"paragraph": true}}}}
  ],
  "revisionId": "00000042",
  "responderUri": "https://docs.google.com/forms/d/e/1FAIpQLSe7Yk3vR9mT2xW8pL4nB6hC0dZ5aG1sJ3uF7qK9oE2iV4wX/viewform",
  "publishSettings": {"publishState": {"isPublished": true, "isAcceptingResponses": true}}
}`

const formsSeedResponses = `[
  {"responseId": "ACYDBNi7Qm2xT9pL4vR8kW3nB6hF0dZ5aG1sJ3uE7qK9oY2iC4wX",
   "createTime": "2026-11-10T09:14:22.318Z", "lastSubmittedTime": "2026-11-10T09:14:22.318911Z",
   "respondentEmail": "grace@example.com",
   "answers": {
     "4e7b0d13": {"questionId": "4e7b0d13", "textAnswers": {"answers": [{"value": "Grace Hopper"}]}},
     "0c5a8e27": {"questionId": "0c5a8e27", "textAnswers": {"answers": [{"value": "Both days"}]}},
     "7f2c9b45": {"questionId": "7f2c9b45", "textAnswers": {"answers": [{"value": "Vegetarian"}, {"value": "Gluten-free"}]}},
     "2b6d4a80": {"questionId": "2b6d4a80", "textAnswers": {"answers": [{"value": "5"}]}},
     "5d9e3c71": {"questionId": "5d9e3c71", "textAnswers": {"answers": [{"value": "2026-11-18"}]}},
     "6a1c7e94": {"questionId": "6a1c7e94", "textAnswers": {"answers": [{"value": "I'll bring the projector."}]}}
   }},
  {"responseId": "ACYDBNj3Lk8wQ5rT1xV7mP2nC9hG4dB6aF0sK3uE8yZ1oW5iR7tX",
   "createTime": "2026-11-11T16:40:05.902Z", "lastSubmittedTime": "2026-11-11T16:40:05.902447Z",
   "respondentEmail": "alan@example.com",
   "answers": {
     "4e7b0d13": {"questionId": "4e7b0d13", "textAnswers": {"answers": [{"value": "Alan Turing"}]}},
     "0c5a8e27": {"questionId": "0c5a8e27", "textAnswers": {"answers": [{"value": "Thursday 19 November"}]}},
     "7f2c9b45": {"questionId": "7f2c9b45", "textAnswers": {"answers": [{"value": "No requirements"}]}},
     "2b6d4a80": {"questionId": "2b6d4a80", "textAnswers": {"answers": [{"value": "4"}]}}
   }},
  {"responseId": "ACYDBNh5Vb2nM8kR4tW1xQ7pL3cF9dG6aJ0sE2uY5oZ8iK1wT4rX",
   "createTime": "2026-11-12T08:02:47.120Z", "lastSubmittedTime": "2026-11-13T10:21:09.554120Z",
   "respondentEmail": "katherine@example.com",
   "answers": {
     "4e7b0d13": {"questionId": "4e7b0d13", "textAnswers": {"answers": [{"value": "Katherine Johnson"}]}},
     "0c5a8e27": {"questionId": "0c5a8e27", "textAnswers": {"answers": [{"value": "Friday 20 November"}]}},
     "7f2c9b45": {"questionId": "7f2c9b45", "textAnswers": {"answers": [{"value": "Pescatarian"}]}},
     "2b6d4a80": {"questionId": "2b6d4a80", "textAnswers": {"answers": [{"value": "3"}]}},
     "5d9e3c71": {"questionId": "5d9e3c71", "textAnswers": {"answers": [{"value": "2026-11-19"}]}}
   }}
]`

func (st *FormsState) bump(f *FormsForm) {
	st.revision++
	f.RevisionID = fmt.Sprintf("%08d", st.revision)
}

// formsIDs lists the item and question ids in use.
func formsIDs(f *FormsForm) map[string]bool {
	used := map[string]bool{}
	for _, it := range f.Items {
		used[it.ItemID] = true
		if it.QuestionItem != nil {
			used[it.QuestionItem.Question.QuestionID] = true
		}
		if it.QuestionGroupItem != nil {
			for _, q := range it.QuestionGroupItem.Questions {
				used[q.QuestionID] = true
			}
		}
	}
	return used
}

// formsNewID makes an id shaped as Forms makes them: 8 hex digits.
func formsNewID(s *Server, used map[string]bool) string {
	for {
		n, _ := strconv.Atoi(strings.TrimPrefix(s.NewID("n"), "n"))
		id := fmt.Sprintf("%08x", uint32(n)*2654435761)
		if !used[id] {
			used[id] = true
			return id
		}
	}
}

// formsCheckQuestion checks a question as createItem takes it.
func formsCheckQuestion(c *Call, i int, q *formsQuestion) bool {
	kinds := 0
	for _, set := range []bool{q.ChoiceQuestion != nil, q.TextQuestion != nil, q.ScaleQuestion != nil, q.DateQuestion != nil, q.TimeQuestion != nil, q.RowQuestion != nil} {
		if set {
			kinds++
		}
	}
	if kinds != 1 {
		return c.Bad("requests[%d].createItem: a question needs exactly one kind, not %d", i, kinds)
	}
	if q.QuestionID != "" {
		return c.Bad("requests[%d].createItem: the tools leave questionId to Google", i)
	}
	if cq := q.ChoiceQuestion; cq != nil {
		if !slices.Contains([]string{"RADIO", "CHECKBOX", "DROP_DOWN"}, cq.Type) {
			return c.Bad("requests[%d].createItem: choiceQuestion.type %q is not RADIO, CHECKBOX or DROP_DOWN", i, cq.Type)
		}
		if len(cq.Options) == 0 {
			c.Invalid(fmt.Sprintf("Invalid requests[%d].createItem: choiceQuestion.options must not be empty", i))
			return false
		}
		seen := map[string]bool{}
		for _, o := range cq.Options {
			if o.IsOther {
				if cq.Type == "DROP_DOWN" {
					c.Invalid(fmt.Sprintf("Invalid requests[%d].createItem: a DROP_DOWN question cannot have an \"other\" option", i))
					return false
				}
				continue
			}
			if o.Value == "" || seen[o.Value] {
				c.Invalid(fmt.Sprintf("Invalid requests[%d].createItem: option values must be non-empty and unique: %q", i, o.Value))
				return false
			}
			seen[o.Value] = true
		}
	}
	if sq := q.ScaleQuestion; sq != nil && (sq.Low < 0 || sq.Low > 1 || sq.High < 2 || sq.High > 10) {
		c.Invalid(fmt.Sprintf("Invalid requests[%d].createItem: a scale runs from 0 or 1 to 2 through 10, not %d to %d", i, sq.Low, sq.High))
		return false
	}
	return true
}

func init() {
	register("forms.googleapis.com", func(s *Server, r *Router) {
		st := s.Forms()
		form := func(c *Call, id string) *FormsForm {
			f := st.Forms[id]
			if f == nil {
				c.NotFound()
			}
			return f
		}

		r.Handle("POST /v1/forms", formsWrite, func(c *Call) {
			// forms.create copies info.title and info.documentTitle only;
			// anything else is refused, so the tools must not send it.
			var in struct {
				Info     formsInfo       `json:"info"`
				Items    json.RawMessage `json:"items"`
				Settings json.RawMessage `json:"settings"`
			}
			if !c.Params(nil, "unpublished") || !c.Decode(&in) {
				return
			}
			if in.Info.Description != "" || in.Items != nil || in.Settings != nil {
				c.Bad("forms.create takes info.title and info.documentTitle only; set the rest with batchUpdate")
				return
			}
			if in.Info.Title == "" {
				c.Invalid("Invalid form: info.title is required")
				return
			}
			id := "1Fq" + strings.Repeat("x", 30) + s.NewID("F")
			f := &FormsForm{FormID: id, Info: formsInfo{Title: in.Info.Title, DocumentTitle: cmp.Or(in.Info.DocumentTitle, in.Info.Title)},
				Settings:     &formsSettings{EmailCollectionType: "DO_NOT_COLLECT"},
				ResponderURI: "https://docs.google.com/forms/d/e/1FAIpQLSf" + strings.Repeat("z", 40) + id[len(id)-5:] + "/viewform"}
			f.PublishSettings = &formsPublishSetting{}
			f.PublishSettings.PublishState.IsPublished = c.Query.Get("unpublished") != "true"
			f.PublishSettings.PublishState.IsAcceptingResponses = f.PublishSettings.PublishState.IsPublished
			st.bump(f)
			st.Forms[id] = f
			c.JSON(f)
		})

		r.Handle("GET /v1/forms/{id}", formsRead, func(c *Call) {
			if !c.Params(nil, "fields") {
				return
			}
			if f := form(c, c.Path("id")); f != nil {
				c.Partial(f, nil)
			}
		})

		r.Handle("POST /v1/forms/{id}", formsWrite, func(c *Call) {
			id, ok := c.CustomMethod("id", "batchUpdate")
			if !ok {
				return
			}
			var in struct {
				IncludeFormInResponse bool                         `json:"includeFormInResponse"`
				Requests              []map[string]json.RawMessage `json:"requests"`
				WriteControl          *writeControl                `json:"writeControl"`
			}
			if !c.Params(nil) || !c.Decode(&in) {
				return
			}
			old := form(c, id)
			if old == nil {
				return
			}
			if len(in.Requests) == 0 {
				c.Bad("requests is required")
				return
			}
			if !in.WriteControl.check(c, old.RevisionID, "form") {
				return
			}
			// The batch applies whole or not at all: work on a copy.
			var f FormsForm
			b, _ := json.Marshal(old)
			json.Unmarshal(b, &f)
			replies := []any{}
			for i, req := range in.Requests {
				if len(req) != 1 {
					c.Bad("requests[%d] must hold exactly one kind of request, not %d", i, len(req))
					return
				}
				for kind, raw := range req {
					switch kind {
					case "updateFormInfo":
						var u struct {
							Info       formsInfo `json:"info"`
							UpdateMask string    `json:"updateMask"`
						}
						if err := sheetsStrict(raw, &u); err != nil {
							c.Bad("requests[%d].updateFormInfo does not fit: %v", i, err)
							return
						}
						if u.UpdateMask == "" {
							c.Bad("requests[%d].updateFormInfo: updateMask is required", i)
							return
						}
						mask := strings.Split(u.UpdateMask, ",")
						for _, m := range mask {
							if m != "title" && m != "description" && m != "*" {
								c.Bad("requests[%d].updateFormInfo: updateMask names %q, not title or description", i, m)
								return
							}
						}
						if u.Info.DocumentTitle != "" {
							c.Bad("requests[%d].updateFormInfo: info.documentTitle is output only", i)
							return
						}
						has := func(m string) bool { return slices.Contains(mask, m) || slices.Contains(mask, "*") }
						if u.Info.Title != "" && !has("title") || u.Info.Description != "" && !has("description") {
							c.Bad("requests[%d].updateFormInfo: info sets a field the updateMask %q leaves out, which Google ignores", i, u.UpdateMask)
							return
						}
						if has("title") {
							if u.Info.Title == "" {
								c.Invalid(fmt.Sprintf("Invalid requests[%d].updateFormInfo: info.title must not be empty", i))
								return
							}
							f.Info.Title = u.Info.Title
						}
						if has("description") {
							f.Info.Description = u.Info.Description
						}
						replies = append(replies, map[string]any{})
					case "createItem":
						var ci struct {
							Item     FormsItem `json:"item"`
							Location *struct {
								Index *int `json:"index"`
							} `json:"location"`
						}
						if err := sheetsStrict(raw, &ci); err != nil {
							c.Bad("requests[%d].createItem does not fit: %v", i, err)
							return
						}
						if ci.Location == nil || ci.Location.Index == nil {
							c.Bad("requests[%d].createItem: location.index is required", i)
							return
						}
						at := *ci.Location.Index
						if at < 0 || at > len(f.Items) {
							c.Invalid(fmt.Sprintf("Invalid requests[%d].createItem: index %d is out of bounds; the form has %d items.", i, at, len(f.Items)))
							return
						}
						it := ci.Item
						if it.QuestionGroupItem != nil || it.TextItem != nil {
							c.Bad("requests[%d].createItem: the tools create questions and sections only", i)
							return
						}
						if (it.QuestionItem != nil) == (it.PageBreakItem != nil) {
							c.Bad("requests[%d].createItem: an item needs exactly one kind", i)
							return
						}
						if it.Title == "" && it.QuestionItem != nil {
							c.Invalid(fmt.Sprintf("Invalid requests[%d].createItem: a question needs a title", i))
							return
						}
						used := formsIDs(&f)
						if it.ItemID != "" && used[it.ItemID] {
							c.Invalid(fmt.Sprintf("Invalid requests[%d].createItem: item ID %s is already in use", i, it.ItemID))
							return
						}
						if it.ItemID == "" {
							it.ItemID = formsNewID(s, used)
						}
						reply := map[string]any{"itemId": it.ItemID}
						if it.QuestionItem != nil {
							if !formsCheckQuestion(c, i, &it.QuestionItem.Question) {
								return
							}
							it.QuestionItem.Question.QuestionID = formsNewID(s, used)
							reply["questionId"] = []string{it.QuestionItem.Question.QuestionID}
						}
						f.Items = slices.Insert(f.Items, at, &it)
						replies = append(replies, map[string]any{"createItem": reply})
					case "deleteItem":
						var di struct {
							Location struct {
								Index *int `json:"index"`
							} `json:"location"`
						}
						if err := sheetsStrict(raw, &di); err != nil {
							c.Bad("requests[%d].deleteItem does not fit: %v", i, err)
							return
						}
						if di.Location.Index == nil {
							c.Bad("requests[%d].deleteItem: location.index is required", i)
							return
						}
						at := *di.Location.Index
						if at < 0 || at >= len(f.Items) {
							c.Invalid(fmt.Sprintf("Invalid requests[%d].deleteItem: index %d is out of bounds; the form has %d items.", i, at, len(f.Items)))
							return
						}
						f.Items = slices.Delete(f.Items, at, at+1)
						replies = append(replies, map[string]any{})
					default:
						c.Bad("requests[%d]: the fake does not serve %q requests", i, kind)
						return
					}
				}
			}
			st.bump(&f)
			st.Forms[id] = &f
			out := map[string]any{"replies": replies, "writeControl": map[string]any{"requiredRevisionId": f.RevisionID}}
			if in.IncludeFormInResponse {
				out["form"] = &f
			}
			c.JSON(out)
		})

		r.Handle("GET /v1/forms/{id}/responses", formsResponsesRead, func(c *Call) {
			if !c.Params(nil, "filter", "pageSize", "pageToken") {
				return
			}
			f := form(c, c.Path("id"))
			if f == nil {
				return
			}
			var after time.Time
			inclusive := false
			if filter := c.Query.Get("filter"); filter != "" {
				var op, ts string
				if _, err := fmt.Sscanf(filter, "timestamp %s %s", &op, &ts); err != nil || (op != ">" && op != ">=") {
					c.Bad("filter %q is not \"timestamp > T\" or \"timestamp >= T\"", filter)
					return
				}
				t, err := time.Parse(time.RFC3339Nano, ts)
				if err != nil || !strings.HasSuffix(ts, "Z") {
					c.Bad("filter %q: the timestamp must be RFC 3339 in UTC (Z)", filter)
					return
				}
				after, inclusive = t, op == ">="
			}
			size := 5000
			if v := c.Query.Get("pageSize"); v != "" {
				n, err := strconv.Atoi(v)
				if err != nil || n < 0 {
					c.Bad("pageSize %q is not a number 0 or more", v)
					return
				}
				if n > 0 {
					size = min(n, 5000)
				}
			}
			start := 0
			if tok := c.Query.Get("pageToken"); tok != "" {
				n, err := strconv.Atoi(strings.TrimPrefix(tok, "page-"))
				if err != nil || !strings.HasPrefix(tok, "page-") {
					c.Invalid("Invalid page token.")
					return
				}
				start = n
			}
			var list []*FormsResponse
			for _, resp := range st.Responses[f.FormID] {
				t, _ := time.Parse(time.RFC3339Nano, resp.LastSubmittedTime)
				if !after.IsZero() && (t.Before(after) || t.Equal(after) && !inclusive) {
					continue
				}
				// The list leaves formId out, as Google's does.
				r := *resp
				r.FormID = ""
				list = append(list, &r)
			}
			out := map[string]any{}
			if start < len(list) {
				page := list[start:]
				if len(page) > size {
					page = page[:size]
					out["nextPageToken"] = fmt.Sprintf("page-%d", start+size)
				}
				out["responses"] = page
			}
			c.JSON(out)
		})

		r.Handle("GET /v1/forms/{id}/responses/{response}", formsResponsesRead, func(c *Call) {
			if !c.Params(nil) {
				return
			}
			f := form(c, c.Path("id"))
			if f == nil {
				return
			}
			for _, resp := range st.Responses[f.FormID] {
				if resp.ResponseID == c.Path("response") {
					r := *resp
					r.FormID = f.FormID
					c.JSON(&r)
					return
				}
			}
			c.NotFound()
		})
	})
}
