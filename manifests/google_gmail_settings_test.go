package manifests_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/toolroute/toolroute/internal/fakegoogle"
)

func init() {
	errorProbes = append(errorProbes, errorProbe{"google_gmail_settings", "gmail_list_filters", `{}`})
}

// gmailBody decodes the last request's JSON body.
func gmailBody(t *testing.T, g *gtest) map[string]any {
	t.Helper()
	var body map[string]any
	if err := json.Unmarshal(g.Last().Body, &body); err != nil {
		t.Fatalf("request body %q: %v", g.Last().Body, err)
	}
	return body
}

func gmailJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestGoogleGmailSettingsFilters(t *testing.T) {
	g := newGoogle(t)
	g.Call("gmail_list_filters", `{}`, "1 filter:\n- id "+fakegoogle.GmailFilterSeedID+": when from billing@example.com → apply the label Receipts, skip the inbox (archive it)")
	if r := g.G.Requests()[0]; r.Method != "GET" || r.Path != "/gmail/v1/users/me/settings/filters" {
		t.Errorf("the list request: %s %s", r.Method, r.Path)
	}

	out := g.Call("gmail_create_filter", `{"from":"news@example.com","subject":"digest","add_labels":["projects/atlas"],"star":true,"archive":true,"mark_read":true}`,
		"Created the filter ANe1BmjFlt", `when from news@example.com, subject has "digest" → apply the label Projects/Atlas, star it, skip the inbox (archive it), mark it as read`)
	r := g.Last()
	want := `{"criteria":{"from":"news@example.com","subject":"digest"},"action":{"addLabelIds":["` + fakegoogle.GmailAtlasID + `","STARRED"],"removeLabelIds":["INBOX","UNREAD"]}}`
	if r.Method != "POST" || r.Path != "/gmail/v1/users/me/settings/filters" || string(r.Body) != want {
		t.Errorf("the create request: %s %s %s", r.Method, r.Path, r.Body)
	}
	st := g.G.Gmail()
	created := st.Filters[len(st.Filters)-1]
	if !strings.Contains(out, created.ID) {
		t.Errorf("the output lacks the id %s: %s", created.ID, out)
	}

	g.Call("gmail_create_filter", `{"has_attachment":true,"larger_than_mb":5,"forward_to":"ada.archive@example.com","never_spam":true}`,
		"when has an attachment, larger than 5 MB → never send it to spam, forward it to ada.archive@example.com")
	if body := gmailBody(t, g); gmailJSON(body["criteria"]) != `{"hasAttachment":true,"size":5242880,"sizeComparison":"larger"}` ||
		gmailJSON(body["action"]) != `{"forward":"ada.archive@example.com","removeLabelIds":["SPAM"]}` {
		t.Errorf("the create body: %s", g.Last().Body)
	}
	g.Fail("gmail_create_filter", `{"from":"x@example.com","forward_to":"stranger@example.com"}`, "HTTP 400", "not a verified forwarding address", "gmail_get_forwarding")
	g.Fail("gmail_create_filter", `{"archive":true}`, "needs at least one condition")
	g.Fail("gmail_create_filter", `{"from":"x@example.com"}`, "needs at least one action")
	g.Fail("gmail_create_filter", `{"from":"x@example.com","add_labels":["Nope"]}`, `No label "Nope"`, "gmail_create_label")
	g.Fail("gmail_create_filter", `{"from":"x@example.com","trash":true,"larger_than_mb":1,"smaller_than_mb":2}`, "not both")

	g.Call("gmail_list_filters", `{}`, "3 filters:", "when from news@example.com")
	g.Call("gmail_delete_filter", `{"filter_id":"`+created.ID+`"}`, "Deleted the filter "+created.ID+".")
	if r := g.Last(); r.Method != "DELETE" || r.Path != "/gmail/v1/users/me/settings/filters/"+created.ID || st.Filter(created.ID) != nil {
		t.Errorf("the delete request: %s %s", r.Method, r.Path)
	}
	g.Fail("gmail_delete_filter", `{"filter_id":"nope"}`, "HTTP 404", "No filter nope: find filter ids with gmail_list_filters.")

	// Read-only access lists filters but may not make one.
	g.Token(g.G.TokenWith(gmailScope+"readonly", gmailScope+"labels"))
	g.Call("gmail_list_filters", `{}`, "2 filters:")
	g.Fail("gmail_create_filter", `{"from":"a@example.com","star":true}`, "HTTP 403", gmailScope+"settings.basic,")
}

func TestGoogleGmailSettingsLabels(t *testing.T) {
	g := newGoogle(t)
	g.Call("gmail_list_labels", `{}`, "User labels (2):\n- Projects/Atlas (id: "+fakegoogle.GmailAtlasID+"): 1 message, 1 unread; shown in the label list when it has unread mail\n"+
		"- Receipts (id: "+fakegoogle.GmailReceiptsID+"): 1 message\nSystem labels:", "- INBOX: 4 messages, 2 unread", "- SENT: 1 message\n", "- TRASH: 1 message")
	gets := 0
	for _, r := range g.G.Requests() {
		if strings.HasPrefix(r.Path, "/gmail/v1/users/me/labels/") {
			gets++
		}
	}
	if gets != 15 {
		t.Errorf("%d label fetches for the counts, want 15 (every label but CHAT)", gets)
	}
	n := len(g.G.Requests())
	out := g.Call("gmail_list_labels", `{"counts":false}`, "- Receipts (id: "+fakegoogle.GmailReceiptsID+")\n")
	if len(g.G.Requests()) != n+1 || strings.Contains(out, "message") {
		t.Errorf("counts were fetched anyway:\n%s", out)
	}

	g.Call("gmail_create_label", `{"name":" Travel / 2026 ","show_in_label_list":"hide","show_in_message_list":false}`, `Created the label "Travel/2026" (id: Label_`)
	if r := g.Last(); r.Method != "POST" || r.Path != "/gmail/v1/users/me/labels" ||
		string(r.Body) != `{"name":"Travel/2026","labelListVisibility":"labelHide","messageListVisibility":"hide"}` {
		t.Errorf("the create request: %s %s %s", r.Method, r.Path, r.Body)
	}
	st := g.G.Gmail()
	if l := st.LabelNamed("Travel/2026"); l == nil || l.Type != "user" || l.LabelListVisibility != "labelHide" {
		t.Errorf("stored label: %+v", l)
	}
	g.Fail("gmail_create_label", `{"name":"receipts"}`, "HTTP 409", "conflicts")
	g.Fail("gmail_create_label", `{"name":"x","show_in_label_list":"sometimes"}`, "show_in_label_list must be show, show_if_unread or hide")
	g.Fail("gmail_create_label", `{"name":"/"}`, "A label name must not be empty")

	g.Call("gmail_update_label", `{"label":"receipts","new_name":"Bills","show_in_message_list":false}`,
		`Updated the label "Receipts", now "Bills" (id: `+fakegoogle.GmailReceiptsID+"); shown in the label list; hidden in the message list.")
	if r := g.Last(); r.Method != "PATCH" || r.Path != "/gmail/v1/users/me/labels/"+fakegoogle.GmailReceiptsID || string(r.Body) != `{"name":"Bills","messageListVisibility":"hide"}` {
		t.Errorf("the update request: %s %s %s", r.Method, r.Path, r.Body)
	}
	g.Call("gmail_update_label", `{"label":"`+fakegoogle.GmailAtlasID+`","show_in_label_list":"show"}`, `Updated the label "Projects/Atlas"`)
	g.Fail("gmail_update_label", `{"label":"INBOX","new_name":"Mail"}`, "INBOX is a system label")
	g.Fail("gmail_update_label", `{"label":"Bills"}`, "Nothing to change")
	g.Fail("gmail_update_label", `{"label":"Receipts","new_name":"x"}`, `No label "Receipts"`, "Bills")

	g.Call("gmail_delete_label", `{"label":"Bills"}`, `Deleted the label "Bills" (id: `+fakegoogle.GmailReceiptsID+")")
	if r := g.Last(); r.Method != "DELETE" || r.Path != "/gmail/v1/users/me/labels/"+fakegoogle.GmailReceiptsID {
		t.Errorf("the delete request: %s %s", r.Method, r.Path)
	}
	if st.Label(fakegoogle.GmailReceiptsID) != nil || slices.Contains(st.Message(fakegoogle.GmailInvoiceID).LabelIDs, fakegoogle.GmailReceiptsID) {
		t.Errorf("the label survived its deletion")
	}
	g.Fail("gmail_delete_label", `{"label":"TRASH"}`, "TRASH is a system label")
	g.Fail("gmail_delete_label", `{"label":"nope"}`, `No label "nope"`)

	// gmail.labels manages labels; read-only lists them only.
	g.Token(g.G.TokenWith(gmailScope + "labels"))
	g.Call("gmail_create_label", `{"name":"Scoped"}`, `Created the label "Scoped"`)
	g.Token(g.G.TokenWith(gmailScope + "readonly"))
	g.Call("gmail_list_labels", `{"counts":false}`, "Scoped")
	g.Fail("gmail_delete_label", `{"label":"Scoped"}`, "HTTP 403", gmailScope+"labels,")
}

func TestGoogleGmailSettingsForwarding(t *testing.T) {
	g := newGoogle(t)
	g.Call("gmail_get_forwarding", `{}`, "Automatic forwarding: off.\nForwarding addresses:\n- ada.archive@example.com (verified)")

	g.Call("gmail_add_forwarding_address", `{"email":"grace.home@example.com"}`, "Added grace.home@example.com as a forwarding address, pending", "gmail_update_auto_forwarding")
	if r := g.Last(); r.Method != "POST" || r.Path != "/gmail/v1/users/me/settings/forwardingAddresses" || string(r.Body) != `{"forwardingEmail":"grace.home@example.com"}` {
		t.Errorf("the add request: %s %s %s", r.Method, r.Path, r.Body)
	}
	g.Fail("gmail_add_forwarding_address", `{"email":"grace.home@example.com"}`, "HTTP 409")
	g.Fail("gmail_add_forwarding_address", `{"email":"grace"}`, "email must be an e-mail address")
	g.Call("gmail_get_forwarding", `{}`, "- grace.home@example.com (pending: waiting for its owner to confirm)")

	g.Call("gmail_update_auto_forwarding", `{"enabled":true,"email":"ada.archive@example.com","disposition":"archive"}`,
		"Updated. Automatic forwarding: on, all new mail goes to ada.archive@example.com; archive Gmail's copy.")
	if r := g.Last(); r.Method != "PUT" || r.Path != "/gmail/v1/users/me/settings/autoForwarding" ||
		string(r.Body) != `{"enabled":true,"emailAddress":"ada.archive@example.com","disposition":"archive"}` {
		t.Errorf("the update request: %s %s %s", r.Method, r.Path, r.Body)
	}
	g.Call("gmail_get_forwarding", `{}`, "Automatic forwarding: on, all new mail goes to ada.archive@example.com; archive Gmail's copy.")
	n := len(g.G.Requests())
	g.Fail("gmail_update_auto_forwarding", `{"enabled":true,"email":"grace.home@example.com"}`, "grace.home@example.com is not verified yet")
	g.Fail("gmail_update_auto_forwarding", `{"enabled":true,"email":"linus@example.com"}`, "not a forwarding address yet", "gmail_add_forwarding_address")
	g.Fail("gmail_update_auto_forwarding", `{"enabled":true,"disposition":"shred"}`, "disposition must be leave_in_inbox, archive, trash or mark_read")
	for _, r := range g.G.Requests()[n:] {
		if r.Method == "PUT" {
			t.Errorf("a refused change was sent: %s", r.Body)
		}
	}
	g.Call("gmail_update_auto_forwarding", `{"enabled":false}`, "Updated. Automatic forwarding: off.")
	if string(g.Last().Body) != `{"enabled":false,"emailAddress":"ada.archive@example.com","disposition":"archive"}` {
		t.Errorf("the disable body: %s", g.Last().Body)
	}
	if st := g.G.Gmail(); st.AutoForwarding.Enabled {
		t.Errorf("still forwarding")
	}

	// Forwarding changes need gmail.settings.sharing.
	g.Token(g.G.TokenWith(gmailScope + "settings.basic"))
	g.Call("gmail_get_forwarding", `{}`, "Automatic forwarding: off.")
	g.Fail("gmail_add_forwarding_address", `{"email":"new@example.com"}`, "HTTP 403", gmailScope+"settings.sharing,", "domain-wide delegation")
}

func TestGoogleGmailSettingsSignature(t *testing.T) {
	g := newGoogle(t)
	g.Call("gmail_get_signature", `{}`, "Signatures:\nada@example.com (Ada Lovelace), primary, default:\n  Ada Lovelace\n  Analytical Engines Ltd.\n"+
		"ada@engines.example.com (Ada (Engines)):\n  (no signature)")
	g.Call("gmail_get_signature", `{"send_as_email":"ADA@engines.example.com"}`, "Signature of ada@engines.example.com (Ada (Engines)):\n  (no signature)")

	g.Call("gmail_update_signature", `{"signature":"Ada L.\nEngines & <Co>"}`, "Updated the signature of ada@example.com (Ada Lovelace), primary, default:\n  Ada L.\n  Engines & <Co>")
	if r := g.Last(); r.Method != "PATCH" || r.Path != "/gmail/v1/users/me/settings/sendAs/"+fakegoogle.Email || string(r.Body) != `{"signature":"Ada L.<br>Engines &amp; &lt;Co&gt;"}` {
		t.Errorf("the update request: %s %s %s", r.Method, r.Path, r.Body)
	}
	if reqs := g.G.Requests(); reqs[len(reqs)-2].Path != "/gmail/v1/users/me/settings/sendAs" {
		t.Errorf("the primary address was not looked up: %s", reqs[len(reqs)-2].Path)
	}
	g.Call("gmail_update_signature", `{"send_as_email":"ada@engines.example.com","signature":"<b>Ada</b> — <a href=\"https://engines.example.com\">Engines</a><script>x()</script>"}`,
		"Updated the signature of ada@engines.example.com", "Ada — Engines (https://engines.example.com)")
	if st := g.G.Gmail(); st.SendAs[1].Signature != `<b>Ada</b> — <a href="https://engines.example.com">Engines</a>` {
		t.Errorf("stored signature %q", st.SendAs[1].Signature)
	}
	g.Call("gmail_update_signature", `{"signature":""}`, "ada@example.com (Ada Lovelace), primary, default:\n  (no signature)")
	g.Fail("gmail_update_signature", `{"send_as_email":"someone@example.com","signature":"x"}`, "No send-as address someone@example.com", "ada@engines.example.com")

	g.Token(g.G.TokenWith(gmailScope + "readonly"))
	g.Call("gmail_get_signature", `{}`, "Signatures:")
	g.Fail("gmail_update_signature", `{"signature":"x"}`, "HTTP 403", gmailScope+"settings.basic,")
}

func TestGoogleGmailSettingsVacation(t *testing.T) {
	g := newGoogle(t)
	g.Call("gmail_get_vacation", `{}`, "Vacation responder: off\nSubject: Out of office\nMessage: I am away and will reply when I am back.\n"+
		"Period: from 2026-07-01 00:00 UTC until 2026-07-08 00:00 UTC\nAnswers: everyone who writes")

	g.Call("gmail_update_vacation", `{"enabled":true,"subject":"Away for Thanksgiving","message":"Back on December 1.","start":"2026-11-25","end":"2026-11-30","contacts_only":true}`,
		"Updated. Vacation responder: on\nSubject: Away for Thanksgiving\nMessage: Back on December 1.\nPeriod: from 2026-11-25 00:00 UTC until 2026-12-01 00:00 UTC\nAnswers: only the user's contacts")
	r := g.Last()
	want := `{"enableAutoReply":true,"responseSubject":"Away for Thanksgiving","responseBodyPlainText":"Back on December 1.","restrictToContacts":true,` +
		`"restrictToDomain":false,"startTime":"1795564800000","endTime":"1796083200000"}`
	if r.Method != "PUT" || r.Path != "/gmail/v1/users/me/settings/vacation" || string(r.Body) != want {
		t.Errorf("the update request: %s %s\n%s\nwant %s", r.Method, r.Path, r.Body, want)
	}

	// Off again: the rest is kept.
	g.Call("gmail_update_vacation", `{"enabled":false}`, "Vacation responder: off\nSubject: Away for Thanksgiving")
	if v := g.G.Gmail().Vacation; v.EnableAutoReply || v.ResponseSubject != "Away for Thanksgiving" || v.StartTime != "1795564800000" || !v.RestrictToContacts {
		t.Errorf("stored: %+v", v)
	}
	g.Call("gmail_update_vacation", `{"enabled":true,"start":"2026-12-24T09:00:00+01:00","end":"","contacts_only":false}`,
		"Vacation responder: on", "Period: from 2026-12-24 08:00 UTC with no end", "Answers: everyone who writes")
	if body := gmailBody(t, g); body["startTime"] != "1798099200000" || body["endTime"] != nil {
		t.Errorf("the update body: %s", g.Last().Body)
	}

	g.Fail("gmail_update_vacation", `{"enabled":true,"start":"next week"}`, "start must be a date as YYYY-MM-DD")
	g.Fail("gmail_update_vacation", `{"enabled":true,"start":"2026-12-10","end":"2026-12-01"}`, "end must come after start")
	g.Call("gmail_update_vacation", `{"enabled":false,"subject":"","message":""}`, "Vacation responder: off")
	g.Fail("gmail_update_vacation", `{"enabled":true}`, "give a subject or a message")

	g.Token(g.G.TokenWith(gmailScope + "readonly"))
	g.Call("gmail_get_vacation", `{}`, "Vacation responder: off")
	g.Fail("gmail_update_vacation", `{"enabled":false}`, "HTTP 403", gmailScope+"settings.basic,")
}
