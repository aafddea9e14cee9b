package manifests_test

import (
	"encoding/base64"
	"encoding/json"
	"net/mail"
	"slices"
	"strings"
	"testing"

	"github.com/toolroute/toolroute/internal/fakegoogle"
)

func init() {
	errorProbes = append(errorProbes, errorProbe{"google_gmail", "gmail_search", `{}`})
}

const gmailScope = "https://www.googleapis.com/auth/gmail."

// gmailSent decodes the raw message of the last send or draft request and
// checks what every message the tools build must be: base64url, CRLF
// lines, ASCII headers, UTF-8 plain text in base64.
func gmailSent(t *testing.T, g *gtest) (raw string, threadID string) {
	t.Helper()
	var body struct {
		Raw      string `json:"raw"`
		ThreadID string `json:"threadId"`
		Message  *struct {
			Raw      string `json:"raw"`
			ThreadID string `json:"threadId"`
		} `json:"message"`
	}
	if err := json.Unmarshal(g.Last().Body, &body); err != nil {
		t.Fatalf("request body %s: %v", g.Last().Body, err)
	}
	if body.Message != nil {
		body.Raw, body.ThreadID = body.Message.Raw, body.Message.ThreadID
	}
	if strings.ContainsAny(body.Raw, "+/=") {
		t.Errorf("raw is not unpadded base64url: %s", body.Raw)
	}
	data, err := base64.RawURLEncoding.DecodeString(body.Raw)
	if err != nil {
		t.Fatalf("raw does not decode: %v", err)
	}
	raw = string(data)
	head, _, ok := strings.Cut(raw, "\r\n\r\n")
	if !ok || strings.Contains(strings.ReplaceAll(raw, "\r\n", ""), "\n") {
		t.Errorf("the message's lines do not all end in CRLF:\n%q", raw)
	}
	for _, r := range head {
		if r > 0x7e {
			t.Errorf("a non-ASCII header: %q", head)
			break
		}
	}
	for _, want := range []string{"MIME-Version: 1.0\r\n", "Content-Type: text/plain; charset=UTF-8\r\n", "Content-Transfer-Encoding: base64"} {
		if !strings.Contains(head, want) {
			t.Errorf("the headers lack %q:\n%s", want, head)
		}
	}
	return raw, body.ThreadID
}

// gmailStored is the message the fake stored last.
func gmailStored(g *gtest) *fakegoogle.GmailMessage {
	msgs := g.G.Gmail().Messages
	return msgs[len(msgs)-1]
}

func gmailAddresses(t *testing.T, header string) []string {
	t.Helper()
	if header == "" {
		return nil
	}
	list, err := mail.ParseAddressList(header)
	if err != nil {
		t.Fatalf("addresses %q: %v", header, err)
	}
	var out []string
	for _, a := range list {
		if a.Name != "" {
			out = append(out, a.Name+" <"+a.Address+">")
		} else {
			out = append(out, a.Address)
		}
	}
	return out
}

func TestGoogleGmailSearch(t *testing.T) {
	g := newGoogle(t)
	out := g.Call("gmail_search", `{}`, "6 messages, newest first:",
		"1. Conference talk proposal",
		"[unread] Q4 planning meeting notes\n   From: Grace Hopper <grace@example.com> | Date: Mon, 16 Nov 2026 09:12:44 -0800",
		"Id: "+fakegoogle.GmailMeetingID+" (thread "+fakegoogle.GmailMeetingID+") | Labels: IMPORTANT, Projects/Atlas, CATEGORY_PERSONAL, UNREAD, INBOX",
		"Hi Ada, Here are the notes from today's planning meeting", // the snippet's &#39; decoded
		"2. Café au lait — rendez-vous\n   From: José Álvarez <jose@example.com>",
		"Id: "+fakegoogle.GmailInvoiceID+" (thread "+fakegoogle.GmailInvoiceID+") | Labels: Receipts, CATEGORY_UPDATES, INBOX")
	if strings.Contains(out, "Lunch on Friday") || strings.Contains(out, "Content-Type") || strings.Contains(out, "&#39;") {
		t.Errorf("trash, raw MIME or HTML entities in the results:\n%s", out)
	}
	reqs := g.G.Requests()
	if r := reqs[0]; r.Method != "GET" || r.Path != "/gmail/v1/users/me/messages" || r.Query.Get("maxResults") != "10" || r.Query.Has("q") {
		t.Errorf("the list request: %s %s %v", r.Method, r.Path, r.Query)
	}
	meta := reqs[len(reqs)-1]
	if meta.Query.Get("format") != "metadata" || !slices.Equal(meta.Query["metadataHeaders"], []string{"From", "To", "Subject", "Date"}) ||
		!strings.HasPrefix(meta.Path, "/gmail/v1/users/me/messages/") {
		t.Errorf("the metadata request: %s %v", meta.Path, meta.Query)
	}

	g.Call("gmail_search", `{"query":"from:grace is:unread","max_results":5}`, "1 message matching \"from:grace is:unread\"", "[unread] Q4 planning meeting notes")
	if q := g.G.Requests()[len(reqs)].Query; q.Get("q") != "from:grace is:unread" || q.Get("maxResults") != "5" {
		t.Errorf("the search query: %v", q)
	}
	g.Call("gmail_search", `{"query":"label:receipts has:attachment"}`, "1 message", "Your invoice INV-2026-1142")
	g.Call("gmail_search", `{"query":"lunch"}`, `No messages match "lunch".`)
	g.Call("gmail_search", `{"query":"lunch","include_spam_trash":true}`, "1 message", "Lunch on Friday?", "Labels: TRASH, CATEGORY_PERSONAL")

	// Paging.
	out = g.Call("gmail_search", `{"query":"in:inbox","max_results":3}`, "3 messages", `(More match: call again with page_token "`)
	token := out[strings.Index(out, `page_token "`)+len(`page_token "`):]
	token = token[:strings.Index(token, `"`)]
	g.Call("gmail_search", `{"query":"in:inbox","max_results":3,"page_token":"`+token+`"}`, "1 message", "Q4 planning meeting notes")
	if g.G.Requests()[len(g.G.Requests())-3].Query.Get("pageToken") != token {
		t.Errorf("the page token was not sent")
	}

	g.Fail("gmail_search", `{"max_results":0}`, "max_results must be a whole number from 1 to 50")

	// Read-only access searches.
	g.Token(g.G.TokenWith(gmailScope + "readonly"))
	g.Call("gmail_search", `{"query":"subject:invoice"}`, "Your invoice INV-2026-1142")
}

func TestGoogleGmailRead(t *testing.T) {
	g := newGoogle(t)
	out := g.Call("gmail_read_message", `{"message_id":"`+fakegoogle.GmailMeetingID+`"}`,
		"Subject: Q4 planning meeting notes\nFrom: Grace Hopper <grace@example.com>\nTo: Ada Lovelace <ada@example.com>\n"+
			`Cc: Linus Torvalds <linus@example.com>, "Hamilton, Margaret" <margaret@example.com>`+"\nDate: Mon, 16 Nov 2026 09:12:44 -0800\n"+
			"Message id: 18c8f1d2a3b4c5d6 (thread 18c8f1d2a3b4c5d6)\nLabels: IMPORTANT, Projects/Atlas, CATEGORY_PERSONAL, UNREAD, INBOX\n\nHi Ada,\n\n",
		"- Hire two more engineers for the platform team\n- Budget review moves to Thursday\n\nLet me know if I missed anything.\n\nGrace")
	if strings.Contains(out, "<li>") || strings.Contains(out, "\r") || strings.Contains(out, "HTML body") {
		t.Errorf("the text/plain part was not the one shown:\n%s", out)
	}
	if r := g.Last(); r.Path != "/gmail/v1/users/me/messages/"+fakegoogle.GmailMeetingID || r.Query.Get("format") != "full" {
		t.Errorf("the read request: %s %v", r.Path, r.Query)
	}

	// Only HTML: turned into text, links kept, scripts and styles dropped.
	out = g.Call("gmail_read_message", `{"message_id":"`+fakegoogle.GmailDigestID+`"}`,
		"Subject: The Weekly Digest — November 20", "(The message has only an HTML body; shown as text.)",
		"This week in engines\n\nSteam & gears are back — read the full story (https://news.example.com/a/881).\n\n- Difference engines\n- Punched cards")
	if strings.Contains(out, "track()") || strings.Contains(out, "color:") || strings.Contains(out, "<p") || strings.Contains(out, "<a ") || strings.Contains(out, "&amp;") {
		t.Errorf("HTML left in the text:\n%s", out)
	}

	// An attachment: listed by name and size, the body still read.
	g.Call("gmail_read_message", `{"message_id":"`+fakegoogle.GmailInvoiceID+`"}`,
		"Labels: Receipts, CATEGORY_UPDATES, INBOX\nAttachments: INV-2026-1142.pdf (application/pdf, 142 B)",
		"Your invoice INV-2026-1142 for $49.00 is attached.")

	// RFC 2047 headers and a quoted-printable UTF-8 body.
	g.Call("gmail_read_message", `{"message_id":"`+fakegoogle.GmailCafeID+`"}`,
		"Subject: Café au lait — rendez-vous\nFrom: José Álvarez <jose@example.com>", "Bonjour Ada, on se retrouve au café samedi à 15h ?\n\nJosé")

	// A Latin-1 body, a long one cut, one too large to fetch.
	st := g.G.Gmail()
	if _, err := st.AddMessage("18cc0000000000a1", "18cc0000000000a1", []string{"INBOX"}, "MIME-Version: 1.0\nDate: Sun, 22 Nov 2026 08:00:00 +0000\n"+
		"Subject: Menu\nFrom: chef@example.com\nTo: ada@example.com\nContent-Type: text/plain; charset=ISO-8859-1\nContent-Transfer-Encoding: quoted-printable\n\nCr=E8me br=FBl=E9e au caf=E9\n"); err != nil {
		t.Fatal(err)
	}
	g.Call("gmail_read_message", `{"message_id":"18cc0000000000a1"}`, "Crème brûlée au café")
	long := strings.Repeat("All work and no play makes Ada a dull girl. ", 200)
	if _, err := st.AddMessage("18cc0000000000a2", "18cc0000000000a2", []string{"INBOX"}, "MIME-Version: 1.0\nDate: Sun, 22 Nov 2026 09:00:00 +0000\n"+
		"Subject: Long\nFrom: jack@example.com\nTo: ada@example.com\nContent-Type: text/plain; charset=UTF-8\n\n"+long+"\n"); err != nil {
		t.Fatal(err)
	}
	out = g.Call("gmail_read_message", `{"message_id":"18cc0000000000a2","max_chars":500}`, "All work and no play", "more characters cut]")
	if len(out) > 1000 {
		t.Errorf("the body was not cut: %d characters", len(out))
	}
	huge := strings.Repeat("Lorem ipsum dolor sit amet, consectetur adipiscing elit. ", 2500)
	if _, err := st.AddMessage("18cc0000000000a3", "18cc0000000000a3", []string{"INBOX"}, "MIME-Version: 1.0\nDate: Sun, 22 Nov 2026 10:00:00 +0000\n"+
		"Subject: Huge report\nFrom: reports@example.com\nTo: ada@example.com\nContent-Type: text/plain; charset=UTF-8\n\n"+huge+"\n"); err != nil {
		t.Fatal(err)
	}
	g.Call("gmail_read_message", `{"message_id":"18cc0000000000a3"}`, "Subject: Huge report", "too large to read here (over 100 KB)",
		"https://mail.google.com/mail/u/0/#all/18cc0000000000a3", "Lorem ipsum dolor sit amet")
	if r := g.Last(); r.Query.Get("format") != "metadata" {
		t.Errorf("no metadata fallback: %v", r.Query)
	}

	g.Fail("gmail_read_message", `{"message_id":"nope"}`, "HTTP 404", "No message nope: find message ids with gmail_search.")
	g.Fail("gmail_read_message", `{"message_id":" "}`, "Missing message_id")
	g.Fail("gmail_read_message", `{"message_id":"x","max_chars":10}`, "max_chars must be a whole number from 200 to 100000")
}

func TestGoogleGmailThread(t *testing.T) {
	g := newGoogle(t)
	out := g.Call("gmail_get_thread", `{"thread_id":"`+fakegoogle.GmailMeetingID+`"}`,
		"Thread 18c8f1d2a3b4c5d6: Q4 planning meeting notes, 2 messages",
		"--- 1/2 | id: 18c8f1d2a3b4c5d6 | From: Grace Hopper <grace@example.com> | Date: Mon, 16 Nov 2026 09:12:44 -0800",
		"- Ship the billing migration by December 4",
		"--- 2/2 | id: 18c8f4e7b9a0c1d2 | From: Ada Lovelace <ada@example.com>",
		"Labels: SENT\nThanks Grace, that looks complete. I'll take the billing migration.\n[quoted text hidden]")
	if strings.Contains(out, "> Hi Ada") || strings.Contains(out, "wrote:") {
		t.Errorf("the quoted text was not hidden:\n%s", out)
	}
	if r := g.G.Requests()[0]; r.Path != "/gmail/v1/users/me/threads/"+fakegoogle.GmailMeetingID || r.Query.Get("format") != "full" {
		t.Errorf("the thread request: %s %v", r.Path, r.Query)
	}
	g.Call("gmail_get_thread", `{"thread_id":"`+fakegoogle.GmailInvoiceID+`","max_chars_per_message":200}`, "1 message", "Attachments: INV-2026-1142.pdf")
	g.Fail("gmail_get_thread", `{"thread_id":"nope"}`, "HTTP 404", "No thread nope: find thread ids with gmail_search")
}

func TestGoogleGmailSend(t *testing.T) {
	g := newGoogle(t)
	subject := "Café et réunion — un sujet assez long pour demander plusieurs mots encodés"
	out := g.Call("gmail_send", `{"to":["José Álvarez <jose@example.com>","Hamilton, Margaret <margaret@example.com>"],"cc":["grace@example.com"],`+
		`"bcc":["audit@example.com"],"subject":"`+subject+`","body":"Bonjour José,\nà demain.\n\nAda"}`,
		`Sent "`+subject+`" to José Álvarez <jose@example.com>, "Hamilton, Margaret" <margaret@example.com>, grace@example.com, audit@example.com (message id: `)
	r := g.Last()
	if r.Method != "POST" || r.Path != "/gmail/v1/users/me/messages/send" || len(r.Query) != 0 {
		t.Errorf("the send request: %s %s %v", r.Method, r.Path, r.Query)
	}
	raw, thread := gmailSent(t, g)
	if thread != "" || !strings.Contains(raw, "Subject: =?UTF-8?B?") || !strings.Contains(raw, "?=\r\n =?UTF-8?B?") {
		t.Errorf("the subject is not split into RFC 2047 encoded-words (thread %q):\n%s", thread, raw)
	}
	if !strings.Contains(raw, `"Hamilton, Margaret" <margaret@example.com>`) {
		t.Errorf("a display name with a comma is not quoted:\n%s", raw)
	}
	m := gmailStored(g)
	if m.Header("Subject") != subject || m.Text() != "Bonjour José,\r\nà demain.\r\n\r\nAda" || !slices.Equal(m.LabelIDs, []string{"SENT"}) {
		t.Errorf("stored: subject %q, body %q, labels %v", m.Header("Subject"), m.Text(), m.LabelIDs)
	}
	if to := gmailAddresses(t, m.Header("To")); !slices.Equal(to, []string{"José Álvarez <jose@example.com>", "Hamilton, Margaret <margaret@example.com>"}) {
		t.Errorf("To = %q", to)
	}
	if m.Header("Cc") != "grace@example.com" || m.Header("Bcc") != "audit@example.com" || !strings.Contains(out, m.ID) {
		t.Errorf("Cc %q, Bcc %q, id %s in %s", m.Header("Cc"), m.Header("Bcc"), m.ID, out)
	}

	// A single address string, an ASCII subject, no header injection.
	g.Call("gmail_send", `{"to":"grace@example.com, linus@example.com","subject":"Hi\r\nBcc: evil@example.com","body":"x"}`, `Sent "Hi Bcc: evil@example.com"`)
	m = gmailStored(g)
	if m.Header("Subject") != "Hi Bcc: evil@example.com" || m.Header("Bcc") != "" || m.Header("To") != "grace@example.com, linus@example.com" {
		t.Errorf("stored: subject %q, Bcc %q, To %q", m.Header("Subject"), m.Header("Bcc"), m.Header("To"))
	}

	g.Fail("gmail_send", `{"to":["not-an-address"],"subject":"x","body":"y"}`, `to: "not-an-address" is not an e-mail address`)
	g.Fail("gmail_send", `{"to":[],"subject":"x","body":"y"}`, "No recipient")
	g.Fail("gmail_send", `{"to":["a@example.com"],"subject":" ","body":"y"}`, "Missing subject")

	// gmail.send alone may send; read-only may not.
	g.Token(g.G.TokenWith(gmailScope + "send"))
	g.Call("gmail_send", `{"to":["grace@example.com"],"subject":"Scoped","body":"ok"}`, `Sent "Scoped"`)
	g.Token(g.G.TokenWith(gmailScope + "readonly"))
	g.Fail("gmail_send", `{"to":["grace@example.com"],"subject":"x","body":"y"}`, "HTTP 403", gmailScope+"send,")
}

func TestGoogleGmailReply(t *testing.T) {
	g := newGoogle(t)
	out := g.Call("gmail_reply", `{"message_id":"`+fakegoogle.GmailMeetingID+`","body":"Thanks, all clear.","reply_all":true}`,
		`Replied "Re: Q4 planning meeting notes" to Grace Hopper <grace@example.com>, cc Linus Torvalds <linus@example.com>, "Hamilton, Margaret" <margaret@example.com> in thread 18c8f1d2a3b4c5d6`)
	reqs := g.G.Requests()
	if q := reqs[0].Query; q.Get("format") != "metadata" || !slices.Contains(q["metadataHeaders"], "Message-ID") || !slices.Contains(q["metadataHeaders"], "References") {
		t.Errorf("the original was fetched with %v", q)
	}
	raw, thread := gmailSent(t, g)
	if thread != fakegoogle.GmailMeetingID {
		t.Errorf("threadId = %q", thread)
	}
	for _, want := range []string{"In-Reply-To: <CAJ8pKx7Qm2vT5nE1rW0aZ@mail.example.com>\r\n", "References: <CAJ8pKx7Qm2vT5nE1rW0aZ@mail.example.com>\r\n",
		"Subject: Re: Q4 planning meeting notes\r\n"} {
		if !strings.Contains(raw, want) {
			t.Errorf("the reply lacks %q:\n%s", want, raw)
		}
	}
	m := gmailStored(g)
	if to, cc := gmailAddresses(t, m.Header("To")), gmailAddresses(t, m.Header("Cc")); !slices.Equal(to, []string{"Grace Hopper <grace@example.com>"}) ||
		!slices.Equal(cc, []string{"Linus Torvalds <linus@example.com>", "Hamilton, Margaret <margaret@example.com>"}) {
		t.Errorf("To %q, Cc %q", to, cc)
	}
	if m.ThreadID != fakegoogle.GmailMeetingID || m.Text() != "Thanks, all clear." || !strings.Contains(out, m.ID) {
		t.Errorf("stored in thread %s with %q", m.ThreadID, m.Text())
	}

	// The sender only, by default.
	g.Call("gmail_reply", `{"message_id":"`+fakegoogle.GmailMeetingID+`","body":"Just you."}`, `to Grace Hopper <grace@example.com> in thread`)
	if m := gmailStored(g); m.Header("Cc") != "" {
		t.Errorf("a reply to the sender has Cc %q", m.Header("Cc"))
	}

	// A reply to the user's own message goes to its recipients; as a draft.
	g.Call("gmail_reply", `{"message_id":"`+fakegoogle.GmailMeetingReply+`","body":"One more thing.","draft":true}`,
		`Saved a reply draft "Re: Q4 planning meeting notes" to Grace Hopper <grace@example.com> in thread 18c8f1d2a3b4c5d6 (draft id: r`, "gmail_send_draft")
	r := g.Last()
	if r.Path != "/gmail/v1/users/me/drafts" {
		t.Errorf("the draft went to %s", r.Path)
	}
	raw, thread = gmailSent(t, g)
	if thread != fakegoogle.GmailMeetingID || !strings.Contains(raw, "In-Reply-To: <CAF3kq9Zr8sYw2Lm4pN@mail.gmail.com>\r\n") ||
		!strings.Contains(raw, "References: <CAJ8pKx7Qm2vT5nE1rW0aZ@mail.example.com>\r\n <CAF3kq9Zr8sYw2Lm4pN@mail.gmail.com>\r\n") {
		t.Errorf("the draft reply (thread %q):\n%s", thread, raw)
	}
	if m := gmailStored(g); !slices.Equal(m.LabelIDs, []string{"DRAFT"}) || g.G.Gmail().Drafts[len(g.G.Gmail().Drafts)-1].Message != m {
		t.Errorf("the reply draft was not stored as a draft: %v", m.LabelIDs)
	}

	// Encoded sender and subject come back encoded.
	g.Call("gmail_reply", `{"message_id":"`+fakegoogle.GmailCafeID+`","body":"Oui, à samedi !"}`, `Replied "Re: Café au lait — rendez-vous" to José Álvarez <jose@example.com>`)
	m = gmailStored(g)
	if m.Header("Subject") != "Re: Café au lait — rendez-vous" || m.Header("To") != "José Álvarez <jose@example.com>" || m.Text() != "Oui, à samedi !" {
		t.Errorf("stored: subject %q, To %q, body %q", m.Header("Subject"), m.Header("To"), m.Text())
	}

	g.Fail("gmail_reply", `{"message_id":"missing","body":"x"}`, "HTTP 404", "No message missing: find message ids with gmail_search.")
	g.Fail("gmail_reply", `{"message_id":"`+fakegoogle.GmailMeetingID+`","body":""}`, "Missing body")
}

func TestGoogleGmailDrafts(t *testing.T) {
	g := newGoogle(t)
	g.Call("gmail_create_draft", `{"subject":"Notes","body":"To be continued"}`, `Saved the draft "Notes" (draft id: r`, "Send it with gmail_send_draft.")
	if r := g.Last(); r.Method != "POST" || r.Path != "/gmail/v1/users/me/drafts" {
		t.Errorf("the draft request: %s %s", r.Method, r.Path)
	}
	raw, _ := gmailSent(t, g)
	if strings.Contains(raw, "\r\nTo:") || strings.HasPrefix(raw, "To:") {
		t.Errorf("a draft without recipients has a To header:\n%s", raw)
	}
	noRecipients := g.G.Gmail().Drafts[len(g.G.Gmail().Drafts)-1].ID

	g.Call("gmail_create_draft", `{"to":["linus@example.com"],"subject":"Ünïcödé","body":"ç"}`, `Saved the draft "Ünïcödé" to linus@example.com`)
	if m := gmailStored(g); m.Header("Subject") != "Ünïcödé" || m.Text() != "ç" || !slices.Equal(m.LabelIDs, []string{"DRAFT"}) {
		t.Errorf("stored draft: %q %q %v", m.Header("Subject"), m.Text(), m.LabelIDs)
	}

	g.Call("gmail_list_drafts", `{}`, "3 drafts:", "- Ünïcödé | to: linus@example.com | draft id: r",
		"- Conference talk proposal | to: Linus Torvalds <linus@example.com> | draft id: "+fakegoogle.GmailDraftID+" | message id: "+fakegoogle.GmailDraftMsgID+
			"\n  Linus, here is a first outline", "- Notes | to: nobody yet")
	if r := g.Last(); !strings.HasPrefix(r.Path, "/gmail/v1/users/me/drafts/r") || r.Query.Get("format") != "metadata" {
		t.Errorf("the draft fetch: %s %v", r.Path, r.Query)
	}
	g.Call("gmail_list_drafts", `{"query":"subject:conference","max_results":5}`, "1 draft:", "Conference talk proposal")
	if q := g.G.Requests()[len(g.G.Requests())-2].Query; q.Get("q") != "subject:conference" || q.Get("maxResults") != "5" {
		t.Errorf("the drafts query: %v", q)
	}

	g.Call("gmail_send_draft", `{"draft_id":"`+fakegoogle.GmailDraftID+`"}`, "Sent the draft "+fakegoogle.GmailDraftID+" (message id: "+fakegoogle.GmailDraftMsgID)
	if r := g.Last(); r.Path != "/gmail/v1/users/me/drafts/send" || string(r.Body) != `{"id":"`+fakegoogle.GmailDraftID+`"}` {
		t.Errorf("the draft send: %s %s", r.Path, r.Body)
	}
	if st := g.G.Gmail(); st.Draft(fakegoogle.GmailDraftID) != nil || !slices.Equal(st.Message(fakegoogle.GmailDraftMsgID).LabelIDs, []string{"SENT"}) {
		t.Errorf("the sent draft is still a draft")
	}
	g.Fail("gmail_send_draft", `{"draft_id":"`+fakegoogle.GmailDraftID+`"}`, "HTTP 404", "No draft "+fakegoogle.GmailDraftID+": find draft ids with gmail_list_drafts.")
	g.Fail("gmail_send_draft", `{"draft_id":"`+noRecipients+`"}`, "HTTP 400", "no recipients")

	// gmail.compose drafts; read-only lists but may not draft.
	g.Token(g.G.TokenWith(gmailScope + "compose"))
	g.Call("gmail_create_draft", `{"body":"scoped"}`, "Saved the draft")
	g.Token(g.G.TokenWith(gmailScope + "readonly"))
	g.Call("gmail_list_drafts", `{}`, "drafts:")
	g.Fail("gmail_create_draft", `{"body":"x"}`, "HTTP 403", gmailScope+"compose,")
}

func TestGoogleGmailOrganize(t *testing.T) {
	g := newGoogle(t)
	st := g.G.Gmail()
	g.Call("gmail_modify_labels", `{"message_ids":["`+fakegoogle.GmailMeetingID+`"],"add_labels":["receipts","STARRED"],"remove_labels":["Projects/Atlas"]}`,
		"Changed the labels of 1 message:\n- 18c8f1d2a3b4c5d6: labels now IMPORTANT, CATEGORY_PERSONAL, UNREAD, INBOX, Receipts, STARRED")
	if r := g.Last(); r.Path != "/gmail/v1/users/me/messages/"+fakegoogle.GmailMeetingID+"/modify" ||
		string(r.Body) != `{"addLabelIds":["`+fakegoogle.GmailReceiptsID+`","STARRED"],"removeLabelIds":["`+fakegoogle.GmailAtlasID+`"]}` {
		t.Errorf("the modify request: %s %s", r.Path, r.Body)
	}
	g.Fail("gmail_modify_labels", `{"message_ids":["`+fakegoogle.GmailMeetingID+`"],"add_labels":["Nope"]}`, `No label "Nope".`, "Receipts", "gmail_create_label")
	g.Fail("gmail_modify_labels", `{"message_ids":["`+fakegoogle.GmailMeetingID+`"]}`, "Nothing to change")
	g.Fail("gmail_modify_labels", `{"message_ids":[],"add_labels":["STARRED"]}`, "Missing message_ids")

	g.Call("gmail_archive", `{"message_ids":["`+fakegoogle.GmailMeetingID+`","nope","`+fakegoogle.GmailDigestID+`"]}`,
		"Archived (removed from the inbox) 2 messages:\n- 18c8f1d2a3b4c5d6: labels now", "Not found (find ids with gmail_search): nope")
	if r := g.Last(); string(r.Body) != `{"removeLabelIds":["INBOX"]}` {
		t.Errorf("the archive request: %s", r.Body)
	}
	if slices.Contains(st.Message(fakegoogle.GmailMeetingID).LabelIDs, "INBOX") || slices.Contains(st.Message(fakegoogle.GmailDigestID).LabelIDs, "INBOX") {
		t.Errorf("still in the inbox")
	}
	g.Fail("gmail_archive", `{"message_ids":["nope"]}`, "HTTP 404", "no message nope")

	g.Call("gmail_mark_read", `{"message_ids":["`+fakegoogle.GmailMeetingID+`"]}`, "Marked as read 1 message")
	if string(g.Last().Body) != `{"removeLabelIds":["UNREAD"]}` || slices.Contains(st.Message(fakegoogle.GmailMeetingID).LabelIDs, "UNREAD") {
		t.Errorf("mark read: %s", g.Last().Body)
	}
	g.Call("gmail_mark_read", `{"message_ids":["`+fakegoogle.GmailMeetingID+`"],"unread":true}`, "Marked as unread 1 message", "UNREAD")
	if string(g.Last().Body) != `{"addLabelIds":["UNREAD"]}` {
		t.Errorf("mark unread: %s", g.Last().Body)
	}

	g.Call("gmail_trash", `{"message_ids":["`+fakegoogle.GmailCafeID+`"]}`, "Moved to the trash", "- 18ca1b2c3d4e5f60 (thread 18ca1b2c3d4e5f60)")
	if r := g.Last(); r.Method != "POST" || r.Path != "/gmail/v1/users/me/messages/"+fakegoogle.GmailCafeID+"/trash" || len(r.Body) != 0 {
		t.Errorf("the trash request: %s %s %q", r.Method, r.Path, r.Body)
	}
	g.Call("gmail_search", `{"query":"café"}`, `No messages match "café".`)
	g.Call("gmail_trash", `{"message_ids":["`+fakegoogle.GmailCafeID+`"],"undo":true}`, "Restored from the trash 1 message")
	if g.Last().Path != "/gmail/v1/users/me/messages/"+fakegoogle.GmailCafeID+"/untrash" || slices.Contains(st.Message(fakegoogle.GmailCafeID).LabelIDs, "TRASH") {
		t.Errorf("untrash: %s %v", g.Last().Path, st.Message(fakegoogle.GmailCafeID).LabelIDs)
	}
	g.Fail("gmail_trash", `{"message_ids":["nope"]}`, "HTTP 404", "no message nope")

	// Read-only access may not change mail.
	g.Token(g.G.TokenWith(gmailScope + "readonly"))
	g.Fail("gmail_archive", `{"message_ids":["`+fakegoogle.GmailInvoiceID+`"]}`, "HTTP 403", gmailScope+"modify,")
}
