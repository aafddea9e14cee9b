package fakegoogle

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"html"
	"io"
	"mime"
	"mime/quotedprintable"
	"net/http"
	"net/mail"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Gmail API v1: https://developers.google.com/workspace/gmail/api/reference/rest
//
// Messages are kept as RFC 2822 text and served as Gmail serves them: the
// MIME tree parsed into payload parts, each leaf's content decoded from its
// transfer encoding and given as base64url body data, attachments as an
// attachmentId and a size. A message a tool sends or drafts is decoded from
// its raw base64url form and checked as Gmail's MTA would read it: CRLF
// lines, ASCII headers (RFC 2047 encoded-words for the rest), parseable
// addresses, a charset for non-ASCII text, and the headers Gmail threads by.

const (
	scopeGmailFull            = "https://mail.google.com/"
	scopeGmailModify          = "https://www.googleapis.com/auth/gmail.modify"
	scopeGmailReadonly        = "https://www.googleapis.com/auth/gmail.readonly"
	scopeGmailMetadata        = "https://www.googleapis.com/auth/gmail.metadata"
	scopeGmailCompose         = "https://www.googleapis.com/auth/gmail.compose"
	scopeGmailSend            = "https://www.googleapis.com/auth/gmail.send"
	scopeGmailLabels          = "https://www.googleapis.com/auth/gmail.labels"
	scopeGmailSettingsBasic   = "https://www.googleapis.com/auth/gmail.settings.basic"
	scopeGmailSettingsSharing = "https://www.googleapis.com/auth/gmail.settings.sharing"
)

// The scopes each method's reference lists.
var (
	gmailReadScopes         = []string{scopeGmailFull, scopeGmailModify, scopeGmailReadonly, scopeGmailMetadata}
	gmailModifyScopes       = []string{scopeGmailFull, scopeGmailModify}
	gmailSendScopes         = []string{scopeGmailFull, scopeGmailModify, scopeGmailCompose, scopeGmailSend}
	gmailComposeScopes      = []string{scopeGmailFull, scopeGmailModify, scopeGmailCompose}
	gmailDraftReadScopes    = []string{scopeGmailFull, scopeGmailModify, scopeGmailCompose, scopeGmailReadonly}
	gmailLabelReadScopes    = []string{scopeGmailFull, scopeGmailModify, scopeGmailReadonly, scopeGmailLabels, scopeGmailMetadata}
	gmailLabelWriteScopes   = []string{scopeGmailFull, scopeGmailModify, scopeGmailLabels}
	gmailSettingsReadScopes = []string{scopeGmailFull, scopeGmailModify, scopeGmailReadonly, scopeGmailSettingsBasic}
	gmailBasicScopes        = []string{scopeGmailSettingsBasic}
	gmailSharingScopes      = []string{scopeGmailSettingsSharing}
	gmailSendAsWriteScopes  = []string{scopeGmailSettingsBasic, scopeGmailSettingsSharing}
)

// GmailHeader is a MessagePartHeader.
type GmailHeader struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// GmailBody is a MessagePartBody.
type GmailBody struct {
	AttachmentID string `json:"attachmentId,omitempty"`
	Size         int    `json:"size"`
	Data         string `json:"data,omitempty"`
}

// GmailPart is a MessagePart: the payload of a message or one of its parts.
type GmailPart struct {
	PartID   string        `json:"partId"`
	MimeType string        `json:"mimeType"`
	Filename string        `json:"filename"`
	Headers  []GmailHeader `json:"headers"`
	Body     GmailBody     `json:"body"`
	Parts    []*GmailPart  `json:"parts,omitempty"`

	content []byte // a leaf's decoded content
	charset string
}

// GmailMessage is a message as the fake keeps it.
type GmailMessage struct {
	ID, ThreadID string
	LabelIDs     []string
	Raw          []byte // RFC 2822 with CRLF lines
	Payload      *GmailPart
	InternalDate int64 // milliseconds since the epoch
	HistoryID    string
}

// GmailDraft is a draft and its message.
type GmailDraft struct {
	ID      string
	Message *GmailMessage
}

// GmailLabelColor is a label's color.
type GmailLabelColor struct {
	TextColor       string `json:"textColor"`
	BackgroundColor string `json:"backgroundColor"`
}

// GmailLabel is a Label resource.
type GmailLabel struct {
	ID                    string           `json:"id"`
	Name                  string           `json:"name"`
	MessageListVisibility string           `json:"messageListVisibility,omitempty"`
	LabelListVisibility   string           `json:"labelListVisibility,omitempty"`
	Type                  string           `json:"type"`
	Color                 *GmailLabelColor `json:"color,omitempty"`
}

// GmailFilterCriteria is a filter's matching criteria.
type GmailFilterCriteria struct {
	From           string `json:"from,omitempty"`
	To             string `json:"to,omitempty"`
	Subject        string `json:"subject,omitempty"`
	Query          string `json:"query,omitempty"`
	NegatedQuery   string `json:"negatedQuery,omitempty"`
	HasAttachment  bool   `json:"hasAttachment,omitempty"`
	ExcludeChats   bool   `json:"excludeChats,omitempty"`
	Size           int    `json:"size,omitempty"`
	SizeComparison string `json:"sizeComparison,omitempty"`
}

// GmailFilterAction is what a filter does.
type GmailFilterAction struct {
	AddLabelIDs    []string `json:"addLabelIds,omitempty"`
	RemoveLabelIDs []string `json:"removeLabelIds,omitempty"`
	Forward        string   `json:"forward,omitempty"`
}

// GmailFilter is a Filter resource.
type GmailFilter struct {
	ID       string               `json:"id"`
	Criteria *GmailFilterCriteria `json:"criteria"`
	Action   *GmailFilterAction   `json:"action"`
}

// GmailForwardingAddress is a ForwardingAddress resource.
type GmailForwardingAddress struct {
	ForwardingEmail    string `json:"forwardingEmail"`
	VerificationStatus string `json:"verificationStatus"`
}

// GmailAutoForwarding is the AutoForwarding setting.
type GmailAutoForwarding struct {
	Enabled      bool   `json:"enabled"`
	EmailAddress string `json:"emailAddress,omitempty"`
	Disposition  string `json:"disposition,omitempty"`
}

// GmailSendAs is a SendAs resource.
type GmailSendAs struct {
	SendAsEmail        string `json:"sendAsEmail"`
	DisplayName        string `json:"displayName"`
	ReplyToAddress     string `json:"replyToAddress,omitempty"`
	Signature          string `json:"signature"`
	IsPrimary          bool   `json:"isPrimary,omitempty"`
	IsDefault          bool   `json:"isDefault,omitempty"`
	TreatAsAlias       bool   `json:"treatAsAlias,omitempty"`
	VerificationStatus string `json:"verificationStatus,omitempty"`
}

// GmailVacation is the VacationSettings resource; int64 times are JSON
// strings of epoch milliseconds, as Google writes int64.
type GmailVacation struct {
	EnableAutoReply       bool   `json:"enableAutoReply"`
	ResponseSubject       string `json:"responseSubject,omitempty"`
	ResponseBodyPlainText string `json:"responseBodyPlainText,omitempty"`
	ResponseBodyHTML      string `json:"responseBodyHtml,omitempty"`
	RestrictToContacts    bool   `json:"restrictToContacts"`
	RestrictToDomain      bool   `json:"restrictToDomain"`
	StartTime             string `json:"startTime,omitempty"`
	EndTime               string `json:"endTime,omitempty"`
}

// GmailState is the Gmail service's data.
type GmailState struct {
	Messages       []*GmailMessage
	Drafts         []*GmailDraft
	Labels         []*GmailLabel
	Filters        []*GmailFilter
	Forwarding     []*GmailForwardingAddress
	AutoForwarding GmailAutoForwarding
	SendAs         []*GmailSendAs
	Vacation       GmailVacation
	history        int
	clock          time.Time // the Date of the next message sent
}

// Seed ids, for the tests.
const (
	GmailMeetingID    = "18c8f1d2a3b4c5d6" // multipart/alternative, INBOX UNREAD, thread with GmailMeetingReplyID
	GmailMeetingReply = "18c8f4e7b9a0c1d2" // Ada's reply, SENT
	GmailInvoiceID    = "18c9a2b3c4d5e6f7" // multipart/mixed with a PDF attachment
	GmailDigestID     = "18c9f0a1b2c3d4e5" // text/html only
	GmailCafeID       = "18ca1b2c3d4e5f60" // RFC 2047 subject and sender, quoted-printable body
	GmailLunchID      = "18c7e2d3c4b5a697" // in TRASH
	GmailDraftID      = "r7412356890123456789"
	GmailDraftMsgID   = "18ca3c4d5e6f7081"
	GmailReceiptsID   = "Label_3842017569284310157"
	GmailAtlasID      = "Label_5920184736201948375"
	GmailFilterSeedID = "ANe1BmjQx7Lw2m4pZ0c9ksYwZQ"
)

// Gmail returns the Gmail service's state.
func (s *Server) Gmail() *GmailState {
	return State(s, "gmail", gmailSeed)
}

func gmailSeed() *GmailState {
	st := &GmailState{history: 981234, clock: time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)}
	for _, id := range []string{"CHAT", "SENT", "INBOX", "IMPORTANT", "TRASH", "DRAFT", "SPAM", "CATEGORY_FORUMS", "CATEGORY_UPDATES",
		"CATEGORY_PERSONAL", "CATEGORY_PROMOTIONS", "CATEGORY_SOCIAL", "STARRED", "UNREAD"} {
		l := &GmailLabel{ID: id, Name: id, Type: "system"}
		if !strings.HasPrefix(id, "CATEGORY_") && id != "CHAT" {
			l.MessageListVisibility, l.LabelListVisibility = "hide", "labelShow"
		}
		if id == "UNREAD" || id == "IMPORTANT" || id == "CHAT" {
			l.MessageListVisibility, l.LabelListVisibility = "", ""
		}
		st.Labels = append(st.Labels, l)
	}
	st.Labels = append(st.Labels,
		&GmailLabel{ID: GmailReceiptsID, Name: "Receipts", Type: "user", MessageListVisibility: "show", LabelListVisibility: "labelShow"},
		&GmailLabel{ID: GmailAtlasID, Name: "Projects/Atlas", Type: "user", MessageListVisibility: "show", LabelListVisibility: "labelShowIfUnread",
			Color: &GmailLabelColor{TextColor: "#ffffff", BackgroundColor: "#4a86e8"}})

	add := func(id, thread string, labels []string, raw string) *GmailMessage {
		m, err := gmailNewMessage(id, thread, labels, []byte(strings.ReplaceAll(raw, "\n", "\r\n")))
		if err != nil {
			panic("fakegoogle: gmail seed " + id + ": " + err.Error())
		}
		st.history += 17
		m.HistoryID = strconv.Itoa(st.history)
		st.Messages = append(st.Messages, m)
		return m
	}
	add(GmailLunchID, GmailLunchID, []string{"TRASH", "CATEGORY_PERSONAL"}, `MIME-Version: 1.0
Date: Thu, 12 Nov 2026 11:20:03 -0800
Message-ID: <CAH2r5mtLunch0x9Fq@mail.example.com>
Subject: Lunch on Friday?
From: Linus Torvalds <linus@example.com>
To: Ada Lovelace <ada@example.com>
Content-Type: text/plain; charset="UTF-8"

Want to grab lunch on Friday at the noodle place?

Linus
`)
	add(GmailMeetingID, GmailMeetingID, []string{"IMPORTANT", GmailAtlasID, "CATEGORY_PERSONAL", "UNREAD", "INBOX"}, `Delivered-To: ada@example.com
Received: by 2002:a05:7300:5c2a:b0:1a1:9f3c:8e21 with SMTP id m42csp1208734dyc;
        Mon, 16 Nov 2026 09:12:45 -0800 (PST)
MIME-Version: 1.0
Date: Mon, 16 Nov 2026 09:12:44 -0800
Message-ID: <CAJ8pKx7Qm2vT5nE1rW0aZ@mail.example.com>
Subject: Q4 planning meeting notes
From: Grace Hopper <grace@example.com>
To: Ada Lovelace <ada@example.com>
Cc: Linus Torvalds <linus@example.com>, "Hamilton, Margaret" <margaret@example.com>
Content-Type: multipart/alternative; boundary="000000000000a1b2c3d4e5f60718"

--000000000000a1b2c3d4e5f60718
Content-Type: text/plain; charset="UTF-8"

Hi Ada,

Here are the notes from today's planning meeting:

- Ship the billing migration by December 4
- Hire two more engineers for the platform team
- Budget review moves to Thursday

Let me know if I missed anything.

Grace

--000000000000a1b2c3d4e5f60718
Content-Type: text/html; charset="UTF-8"
Content-Transfer-Encoding: quoted-printable

<div dir=3D"ltr">Hi Ada,<br><br>Here are the notes from today&#39;s planning =
meeting:<ul><li>Ship the billing migration by December 4</li><li>Hire two mor=
e engineers for the platform team</li><li>Budget review moves to Thursday</li=
></ul>Let me know if I missed anything.<br><br>Grace</div>

--000000000000a1b2c3d4e5f60718--
`)
	add(GmailMeetingReply, GmailMeetingID, []string{"SENT"}, `MIME-Version: 1.0
Date: Mon, 16 Nov 2026 10:03:17 -0800
References: <CAJ8pKx7Qm2vT5nE1rW0aZ@mail.example.com>
In-Reply-To: <CAJ8pKx7Qm2vT5nE1rW0aZ@mail.example.com>
Message-ID: <CAF3kq9Zr8sYw2Lm4pN@mail.gmail.com>
Subject: Re: Q4 planning meeting notes
From: Ada Lovelace <ada@example.com>
To: Grace Hopper <grace@example.com>
Cc: Linus Torvalds <linus@example.com>
Content-Type: text/plain; charset="UTF-8"

Thanks Grace, that looks complete. I'll take the billing migration.

On Mon, Nov 16, 2026 at 9:12 AM Grace Hopper <grace@example.com> wrote:
> Hi Ada,
>
> Here are the notes from today's planning meeting:
`)
	pdf := base64.StdEncoding.EncodeToString([]byte("%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n" +
		"2 0 obj << /Type /Pages /Kids [] /Count 0 >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n"))
	var wrapped []string
	for len(pdf) > 76 {
		wrapped, pdf = append(wrapped, pdf[:76]), pdf[76:]
	}
	wrapped = append(wrapped, pdf)
	add(GmailInvoiceID, GmailInvoiceID, []string{GmailReceiptsID, "CATEGORY_UPDATES", "INBOX"}, `MIME-Version: 1.0
Date: Wed, 18 Nov 2026 14:30:00 +0000
Message-ID: <0100018c9a2b3c4d-inv1142@email.example.com>
Subject: Your invoice INV-2026-1142
From: Example Billing <billing@example.com>
To: ada@example.com
Content-Type: multipart/mixed; boundary="mixed_7f3a"

--mixed_7f3a
Content-Type: multipart/alternative; boundary="alt_7f3a"

--alt_7f3a
Content-Type: text/plain; charset=utf-8
Content-Transfer-Encoding: 7bit

Hello Ada,

Your invoice INV-2026-1142 for $49.00 is attached. It will be charged on
December 1, 2026.

Thanks, Example Billing
--alt_7f3a
Content-Type: text/html; charset=utf-8
Content-Transfer-Encoding: 7bit

<p>Hello Ada,</p><p>Your invoice <b>INV-2026-1142</b> for $49.00 is attached.</p>
--alt_7f3a--

--mixed_7f3a
Content-Type: application/pdf; name="INV-2026-1142.pdf"
Content-Disposition: attachment; filename="INV-2026-1142.pdf"
Content-Transfer-Encoding: base64

`+strings.Join(wrapped, "\n")+`
--mixed_7f3a--
`)
	add(GmailDigestID, GmailDigestID, []string{"CATEGORY_PROMOTIONS", "UNREAD", "INBOX"}, `MIME-Version: 1.0
Date: Fri, 20 Nov 2026 07:00:00 +0000
Message-ID: <digest-2026-11-20.4411@news.example.com>
Subject: =?UTF-8?Q?The_Weekly_Digest_=E2=80=94_November_20?=
From: The Weekly Digest <news@example.com>
To: ada@example.com
List-Unsubscribe: <https://news.example.com/unsubscribe?u=ada>
Content-Type: text/html; charset=UTF-8
Content-Transfer-Encoding: 8bit

<html><head><style>p { color: #333; }</style></head><body>
<h1>This week&nbsp;in engines</h1>
<p>Steam &amp; gears are back — read <a href="https://news.example.com/a/881">the full story</a>.</p>
<ul><li>Difference engines</li><li>Punched cards</li></ul>
<script>track();</script>
</body></html>
`)
	add(GmailCafeID, GmailCafeID, []string{"STARRED", "CATEGORY_PERSONAL", "INBOX"}, `MIME-Version: 1.0
Date: Sat, 21 Nov 2026 08:45:10 +0100
Message-ID: <5f1c2b3a-cafe-4d4e-9f00-aa11bb22cc33@example.com>
Subject: `+mime.BEncoding.Encode("UTF-8", "Café au lait — rendez-vous")+`
From: `+mime.QEncoding.Encode("UTF-8", "José Álvarez")+` <jose@example.com>
To: Ada Lovelace <ada@example.com>
Content-Type: text/plain; charset=UTF-8
Content-Transfer-Encoding: quoted-printable

Bonjour Ada, on se retrouve au caf=C3=A9 samedi =C3=A0 15h ?

Jos=C3=A9
`)
	d := add(GmailDraftMsgID, GmailDraftMsgID, []string{"DRAFT"}, `MIME-Version: 1.0
Date: Sat, 21 Nov 2026 09:30:00 +0000
Message-ID: <CAdraft7412356890@mail.gmail.com>
Subject: Conference talk proposal
From: Ada Lovelace <ada@example.com>
To: Linus Torvalds <linus@example.com>
Content-Type: text/plain; charset="UTF-8"

Linus, here is a first outline of the talk: notes on the analytical engine.
`)
	st.Drafts = []*GmailDraft{{ID: GmailDraftID, Message: d}}

	st.Filters = []*GmailFilter{{ID: GmailFilterSeedID,
		Criteria: &GmailFilterCriteria{From: "billing@example.com"},
		Action:   &GmailFilterAction{AddLabelIDs: []string{GmailReceiptsID}, RemoveLabelIDs: []string{"INBOX"}}}}
	st.Forwarding = []*GmailForwardingAddress{{ForwardingEmail: "ada.archive@example.com", VerificationStatus: "accepted"}}
	st.SendAs = []*GmailSendAs{
		{SendAsEmail: Email, DisplayName: "Ada Lovelace", Signature: `<div dir="ltr">Ada Lovelace<br>Analytical Engines Ltd.</div>`,
			IsPrimary: true, IsDefault: true},
		{SendAsEmail: "ada@engines.example.com", DisplayName: "Ada (Engines)", TreatAsAlias: true, VerificationStatus: "accepted"},
	}
	st.Vacation = GmailVacation{ResponseSubject: "Out of office", ResponseBodyPlainText: "I am away and will reply when I am back.",
		StartTime: "1782864000000", EndTime: "1783468800000"}
	return st
}

// AddMessage stores a message given as RFC 2822 text (LF line ends are
// turned into CRLF), for tests that need one the seed lacks.
func (st *GmailState) AddMessage(id, thread string, labels []string, raw string) (*GmailMessage, error) {
	m, err := gmailNewMessage(id, thread, labels, []byte(strings.ReplaceAll(strings.ReplaceAll(raw, "\r\n", "\n"), "\n", "\r\n")))
	if err != nil {
		return nil, err
	}
	st.bump(m)
	st.Messages = append(st.Messages, m)
	return m, nil
}

// gmailNewMessage parses raw into a message.
func gmailNewMessage(id, thread string, labels []string, raw []byte) (*GmailMessage, error) {
	p, err := gmailParsePart(raw, "")
	if err != nil {
		return nil, err
	}
	m := &GmailMessage{ID: id, ThreadID: thread, LabelIDs: labels, Raw: raw, Payload: p}
	if d, err := mail.ParseDate(m.Header("Date")); err == nil {
		m.InternalDate = d.UnixMilli()
	}
	n := 0
	m.walk(func(p *GmailPart) {
		if p.Filename != "" {
			n++
			p.Body = GmailBody{AttachmentID: fmt.Sprintf("ANGjdJ8%s%02dKq3vWZbT0pXy", id, n), Size: len(p.content)}
		}
	})
	return m, nil
}

// gmailParsePart parses an RFC 2822 message or MIME part.
func gmailParsePart(raw []byte, partID string) (*GmailPart, error) {
	var head, body []byte
	if bytes.HasPrefix(raw, []byte("\r\n")) {
		body = raw[2:]
	} else {
		var ok bool
		head, body, ok = bytes.Cut(raw, []byte("\r\n\r\n"))
		if !ok {
			head, body = bytes.TrimSuffix(raw, []byte("\r\n")), nil
		}
	}
	p := &GmailPart{PartID: partID, MimeType: "text/plain", Headers: []GmailHeader{}}
	for _, line := range strings.Split(string(head), "\r\n") {
		if line == "" {
			continue
		}
		if line[0] == ' ' || line[0] == '\t' {
			if len(p.Headers) == 0 {
				return nil, fmt.Errorf("a continuation line before any header: %q", line)
			}
			p.Headers[len(p.Headers)-1].Value += line
			continue
		}
		name, value, ok := strings.Cut(line, ":")
		if !ok || name == "" || strings.ContainsAny(name, " \t") {
			return nil, fmt.Errorf("a header line without a name: %q", line)
		}
		p.Headers = append(p.Headers, GmailHeader{Name: name, Value: strings.TrimLeft(value, " \t")})
	}
	ct := p.header("Content-Type")
	params := map[string]string{}
	if ct != "" {
		mt, ps, err := mime.ParseMediaType(ct)
		if err != nil {
			return nil, fmt.Errorf("Content-Type %q: %v", ct, err)
		}
		p.MimeType, params = mt, ps
	}
	if strings.HasPrefix(p.MimeType, "multipart/") {
		if params["boundary"] == "" {
			return nil, fmt.Errorf("%s without a boundary", p.MimeType)
		}
		parts, err := gmailSplitMultipart(body, params["boundary"])
		if err != nil {
			return nil, err
		}
		for i, raw := range parts {
			id := strconv.Itoa(i)
			if partID != "" {
				id = partID + "." + id
			}
			child, err := gmailParsePart(raw, id)
			if err != nil {
				return nil, fmt.Errorf("part %s: %v", id, err)
			}
			p.Parts = append(p.Parts, child)
		}
		return p, nil
	}
	switch cte := strings.ToLower(strings.TrimSpace(p.header("Content-Transfer-Encoding"))); cte {
	case "base64":
		clean := strings.Map(func(r rune) rune {
			if r == '\r' || r == '\n' || r == ' ' || r == '\t' {
				return -1
			}
			return r
		}, string(body))
		b, err := base64.StdEncoding.DecodeString(clean)
		if err != nil {
			return nil, fmt.Errorf("a base64 body that does not decode: %v", err)
		}
		p.content = b
	case "quoted-printable":
		b, err := io.ReadAll(quotedprintable.NewReader(bytes.NewReader(body)))
		if err != nil {
			return nil, fmt.Errorf("a quoted-printable body that does not decode: %v", err)
		}
		p.content = b
	case "", "7bit", "8bit", "binary":
		p.content = body
	default:
		return nil, fmt.Errorf("unknown Content-Transfer-Encoding %q", cte)
	}
	p.charset = strings.ToLower(params["charset"])
	if fn := gmailDispositionFilename(p.header("Content-Disposition")); fn != "" {
		p.Filename = fn
	} else if params["name"] != "" {
		p.Filename = gmailDecodeWords(params["name"])
	}
	p.Body = GmailBody{Size: len(p.content)}
	if len(p.content) > 0 {
		p.Body.Data = base64.URLEncoding.EncodeToString(p.content)
	}
	return p, nil
}

func gmailDispositionFilename(cd string) string {
	if cd == "" {
		return ""
	}
	_, ps, err := mime.ParseMediaType(cd)
	if err != nil {
		return ""
	}
	return gmailDecodeWords(ps["filename"])
}

// gmailSplitMultipart returns the parts between a multipart body's
// delimiter lines.
func gmailSplitMultipart(body []byte, boundary string) ([][]byte, error) {
	delim := "--" + boundary
	var parts [][]byte
	var cur []string
	in := false
	for _, line := range strings.Split(string(body), "\r\n") {
		t := strings.TrimRight(line, " \t")
		switch {
		case t == delim:
			if in {
				parts = append(parts, []byte(strings.Join(cur, "\r\n")))
			}
			cur, in = nil, true
		case t == delim+"--":
			if !in {
				return nil, fmt.Errorf("a closing boundary %q before any part", delim+"--")
			}
			return append(parts, []byte(strings.Join(cur, "\r\n"))), nil
		case in:
			cur = append(cur, line)
		}
	}
	return nil, fmt.Errorf("no closing boundary %q", delim+"--")
}

func gmailDecodeWords(s string) string {
	d, err := new(mime.WordDecoder).DecodeHeader(s)
	if err != nil {
		return s
	}
	return d
}

func (p *GmailPart) header(name string) string {
	for _, h := range p.Headers {
		if strings.EqualFold(h.Name, name) {
			return h.Value
		}
	}
	return ""
}

func (m *GmailMessage) walk(f func(p *GmailPart)) {
	var rec func(p *GmailPart)
	rec = func(p *GmailPart) {
		f(p)
		for _, c := range p.Parts {
			rec(c)
		}
	}
	rec(m.Payload)
}

// Header returns a top-level header, RFC 2047 encoded-words decoded, as
// Gmail gives header values.
func (m *GmailMessage) Header(name string) string {
	return gmailDecodeWords(m.Payload.header(name))
}

// Text returns the message's first text/plain content that is not an
// attachment, or its first text/html one.
func (m *GmailMessage) Text() string {
	if p := m.leaf("text/plain"); p != nil {
		return string(p.content)
	}
	if p := m.leaf("text/html"); p != nil {
		return string(p.content)
	}
	return ""
}

func (m *GmailMessage) leaf(mimeType string) *GmailPart {
	var found *GmailPart
	m.walk(func(p *GmailPart) {
		if found == nil && p.MimeType == mimeType && p.Filename == "" && len(p.Parts) == 0 {
			found = p
		}
	})
	return found
}

var (
	gmailTagRE   = regexp.MustCompile(`(?is)<(script|style)\b.*?</(script|style)>|<[^>]*>`)
	gmailSpaceRE = regexp.MustCompile(`\s+`)
)

// plain is the message's text for snippets and search.
func (m *GmailMessage) plain() string {
	t := ""
	if p := m.leaf("text/plain"); p != nil {
		t = string(p.content)
	} else if p := m.leaf("text/html"); p != nil {
		t = html.UnescapeString(gmailTagRE.ReplaceAllString(string(p.content), " "))
	}
	return strings.TrimSpace(gmailSpaceRE.ReplaceAllString(t, " "))
}

// Snippet is the start of the text, HTML-escaped as Gmail's snippets are.
func (m *GmailMessage) Snippet() string {
	t := []rune(m.plain())
	if len(t) > 160 {
		t = t[:160]
	}
	r := strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&#39;")
	return r.Replace(strings.TrimSpace(string(t)))
}

func (m *GmailMessage) has(label string) bool { return slices.Contains(m.LabelIDs, label) }

func (m *GmailMessage) filenames() []string {
	var out []string
	m.walk(func(p *GmailPart) {
		if p.Filename != "" {
			out = append(out, p.Filename)
		}
	})
	return out
}

// gmailJSON is the Message resource in one of the formats.
func (m *GmailMessage) gmailJSON(format string, headers []string) map[string]any {
	out := map[string]any{"id": m.ID, "threadId": m.ThreadID}
	if len(m.LabelIDs) > 0 {
		out["labelIds"] = m.LabelIDs
	}
	out["snippet"] = m.Snippet()
	out["sizeEstimate"] = len(m.Raw)
	out["historyId"] = m.HistoryID
	out["internalDate"] = strconv.FormatInt(m.InternalDate, 10)
	switch format {
	case "minimal":
	case "raw":
		out["raw"] = base64.URLEncoding.EncodeToString(m.Raw)
	case "metadata":
		hs := []GmailHeader{}
		for _, h := range m.Payload.Headers {
			if len(headers) == 0 || slices.ContainsFunc(headers, func(n string) bool { return strings.EqualFold(n, h.Name) }) {
				hs = append(hs, GmailHeader{h.Name, gmailDecodeWords(h.Value)})
			}
		}
		out["payload"] = map[string]any{"partId": "", "mimeType": m.Payload.MimeType, "filename": "", "headers": hs, "body": map[string]int{"size": 0}}
	default:
		out["payload"] = gmailDecodedPart(m.Payload)
	}
	return out
}

// gmailDecodedPart copies a part with its header values decoded.
func gmailDecodedPart(p *GmailPart) *GmailPart {
	c := *p
	c.Headers = make([]GmailHeader, len(p.Headers))
	for i, h := range p.Headers {
		c.Headers[i] = GmailHeader{h.Name, gmailDecodeWords(h.Value)}
	}
	c.Parts = nil
	for _, sub := range p.Parts {
		c.Parts = append(c.Parts, gmailDecodedPart(sub))
	}
	return &c
}

// Message returns a message by id, or nil.
func (st *GmailState) Message(id string) *GmailMessage {
	return first(st.Messages, func(m *GmailMessage) bool { return m.ID == id })
}

// Draft returns a draft by id, or nil.
func (st *GmailState) Draft(id string) *GmailDraft {
	return first(st.Drafts, func(d *GmailDraft) bool { return d.ID == id })
}

// Label returns a label by id, or nil.
func (st *GmailState) Label(id string) *GmailLabel {
	return first(st.Labels, func(l *GmailLabel) bool { return l.ID == id })
}

// LabelNamed returns a label by name, or nil.
func (st *GmailState) LabelNamed(name string) *GmailLabel {
	return first(st.Labels, func(l *GmailLabel) bool { return strings.EqualFold(l.Name, name) })
}

// Filter returns a filter by id, or nil.
func (st *GmailState) Filter(id string) *GmailFilter {
	return first(st.Filters, func(f *GmailFilter) bool { return f.ID == id })
}

func (st *GmailState) thread(id string) []*GmailMessage {
	var out []*GmailMessage
	for _, m := range st.Messages {
		if m.ThreadID == id {
			out = append(out, m)
		}
	}
	slices.SortStableFunc(out, func(a, b *GmailMessage) int { return int(a.InternalDate - b.InternalDate) })
	return out
}

func (st *GmailState) bump(m *GmailMessage) {
	st.history += 3
	m.HistoryID = strconv.Itoa(st.history)
}

// gmailTokens splits a search query into terms, keeping quoted phrases.
func gmailTokens(q string) []string {
	var out []string
	var cur strings.Builder
	quoted := false
	for _, r := range q {
		switch {
		case r == '"':
			quoted = !quoted
		case (r == ' ' || r == '\t') && !quoted:
			if cur.Len() > 0 {
				out = append(out, cur.String())
				cur.Reset()
			}
		default:
			cur.WriteRune(r)
		}
	}
	if cur.Len() > 0 {
		out = append(out, cur.String())
	}
	return out
}

func gmailLabelKey(s string) string {
	return strings.NewReplacer("/", "-", " ", "-").Replace(strings.ToLower(s))
}

func gmailQueryDate(v string) (int64, bool) {
	for _, layout := range []string{"2006/01/02", "2006-01-02", "2006/1/2"} {
		if t, err := time.Parse(layout, v); err == nil {
			return t.UnixMilli(), true
		}
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		return n * 1000, true
	}
	return 0, false
}

// matches reports whether a message matches one search term (the Gmail
// operators the fake knows; any other term is searched as text).
func (st *GmailState) matches(m *GmailMessage, term string) bool {
	op, val, ok := strings.Cut(term, ":")
	contains := func(s string) bool { return strings.Contains(strings.ToLower(s), strings.ToLower(val)) }
	if ok {
		switch strings.ToLower(op) {
		case "from":
			return contains(m.Header("From"))
		case "to":
			return contains(m.Header("To")) || contains(m.Header("Cc")) || contains(m.Header("Bcc"))
		case "cc":
			return contains(m.Header("Cc"))
		case "subject":
			return contains(m.Header("Subject"))
		case "is":
			switch strings.ToLower(val) {
			case "unread":
				return m.has("UNREAD")
			case "read":
				return !m.has("UNREAD")
			case "starred":
				return m.has("STARRED")
			case "important":
				return m.has("IMPORTANT")
			}
		case "in":
			v := strings.ToUpper(val)
			if v == "ANYWHERE" {
				return true
			}
			if v == "DRAFTS" {
				v = "DRAFT"
			}
			return m.has(v)
		case "category":
			return m.has("CATEGORY_" + strings.ToUpper(val))
		case "label":
			for _, id := range m.LabelIDs {
				if l := st.Label(id); l != nil && (gmailLabelKey(l.Name) == gmailLabelKey(val) || strings.EqualFold(l.ID, val)) {
					return true
				}
			}
			return false
		case "has":
			if strings.EqualFold(val, "attachment") {
				return len(m.filenames()) > 0
			}
		case "filename":
			return slices.ContainsFunc(m.filenames(), func(f string) bool { return contains(f) })
		case "after", "before":
			d, ok := gmailQueryDate(val)
			if !ok {
				return false
			}
			if strings.EqualFold(op, "after") {
				return m.InternalDate >= d
			}
			return m.InternalDate < d
		}
	}
	val = term
	return contains(m.Header("Subject")) || contains(m.Header("From")) || contains(m.Header("To")) || contains(m.plain()) ||
		slices.ContainsFunc(m.filenames(), func(f string) bool { return contains(f) })
}

// search lists the messages matching a query, newest first.
func (st *GmailState) search(q string, labelIDs []string, spamTrash bool) []*GmailMessage {
	terms := gmailTokens(q)
	for _, t := range terms {
		lt := strings.ToLower(strings.TrimPrefix(t, "-"))
		if lt == "in:trash" || lt == "in:spam" || lt == "in:anywhere" {
			spamTrash = true
		}
	}
	var out []*GmailMessage
	for _, m := range st.Messages {
		if !spamTrash && (m.has("TRASH") || m.has("SPAM")) {
			continue
		}
		ok := true
		for _, l := range labelIDs {
			ok = ok && m.has(l)
		}
		for _, t := range terms {
			if neg, found := strings.CutPrefix(t, "-"); found && neg != "" {
				ok = ok && !st.matches(m, neg)
			} else {
				ok = ok && st.matches(m, t)
			}
		}
		if ok {
			out = append(out, m)
		}
	}
	slices.SortStableFunc(out, func(a, b *GmailMessage) int { return int(b.InternalDate - a.InternalDate) })
	return out
}

// gmailPage cuts a list to maxResults from the pageToken's offset.
func (c *Call) gmailPage(n, def, limit int) (start, end int, next string, ok bool) {
	max := def
	if v := c.Query.Get("maxResults"); v != "" {
		m, err := strconv.Atoi(v)
		if err != nil || m < 1 || m > limit {
			return 0, 0, "", c.Bad("maxResults %q is not 1 to %d", v, limit)
		}
		max = m
	}
	if v := c.Query.Get("pageToken"); v != "" {
		o, err := strconv.Atoi(v)
		if err != nil || o < 0 || o > n {
			return 0, 0, "", c.Bad("pageToken %q was not given by a previous page", v)
		}
		start = o
	}
	end = min(start+max, n)
	if end < n {
		next = fmt.Sprintf("%020d", end)
	}
	return start, end, next, true
}

// gmailFormat reads the format parameter.
func (c *Call) gmailFormat(allowed ...string) (string, bool) {
	f := c.Query.Get("format")
	if f == "" {
		return "full", true
	}
	if !slices.Contains(allowed, f) {
		return "", c.Bad("format %q is not one of %v", f, allowed)
	}
	if len(c.Query["metadataHeaders"]) > 0 && f != "metadata" {
		return "", c.Bad("metadataHeaders is for format=metadata, not %q", f)
	}
	return f, true
}

var gmailMessageIDRE = regexp.MustCompile(`^<[^<>@\s]+@[^<>@\s]+>$`)

// gmailAccept decodes and checks a raw message a tool sends or drafts,
// and returns it stored with the headers Gmail adds. It answers the
// request itself when the message is refused.
func (c *Call) gmailAccept(st *GmailState, raw, threadID string, draft bool) *GmailMessage {
	if raw == "" {
		c.Bad("the message has no raw field")
		return nil
	}
	if strings.ContainsAny(raw, "+/") {
		c.Bad("raw is not base64url: it has + or /, the standard alphabet; use - and _")
		return nil
	}
	data, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(raw, "="))
	if err != nil {
		c.Bad("raw does not decode as base64url: %v", err)
		return nil
	}
	for i, line := range bytes.Split(data, []byte("\r\n")) {
		if bytes.ContainsAny(line, "\r\n") {
			c.Bad("line %d of the message has a bare CR or LF: RFC 2822 lines end in CRLF", i+1)
			return nil
		}
		if len(line) > 998 {
			c.Bad("line %d of the message is %d characters: RFC 2822 allows 998", i+1, len(line))
			return nil
		}
	}
	p, err := gmailParsePart(data, "")
	if err != nil {
		c.Bad("the message does not parse: %v", err)
		return nil
	}
	for _, h := range p.Headers {
		for i := 0; i < len(h.Value); i++ {
			if h.Value[i] >= 0x80 {
				c.Bad("the %s header has raw non-ASCII bytes (%q): encode it as RFC 2047 encoded-words", h.Name, h.Value)
				return nil
			}
		}
	}
	if v := p.header("MIME-Version"); strings.TrimSpace(v) != "1.0" {
		c.Bad("MIME-Version is %q, not 1.0", v)
		return nil
	}
	recipients := 0
	for _, name := range []string{"To", "Cc", "Bcc", "From", "Reply-To"} {
		v := p.header(name)
		if strings.TrimSpace(v) == "" {
			continue
		}
		list, err := mail.ParseAddressList(v)
		if err != nil {
			c.Bad("the %s header %q does not parse as addresses: %v", name, v, err)
			return nil
		}
		if name == "To" || name == "Cc" || name == "Bcc" {
			recipients += len(list)
		}
	}
	if recipients == 0 && !draft {
		c.Bad("the message has no recipient in To, Cc or Bcc")
		return nil
	}
	subject, err := new(mime.WordDecoder).DecodeHeader(p.header("Subject"))
	if err != nil {
		c.Bad("the Subject %q does not decode: %v", p.header("Subject"), err)
		return nil
	}
	var bad string
	var walk func(p *GmailPart)
	walk = func(p *GmailPart) {
		for _, sub := range p.Parts {
			walk(sub)
		}
		if len(p.Parts) > 0 || !strings.HasPrefix(p.MimeType, "text/") || bad != "" {
			return
		}
		ascii := !slices.ContainsFunc(p.content, func(b byte) bool { return b >= 0x80 })
		switch {
		case p.header("Content-Type") == "":
			bad = "a text part without a Content-Type"
		case !ascii && p.charset == "":
			bad = "non-ASCII text without a charset in its Content-Type"
		case (p.charset == "utf-8" || p.charset == "utf8") && !utf8.Valid(p.content):
			bad = "text declared UTF-8 that is not valid UTF-8"
		case !ascii && !slices.Contains([]string{"base64", "quoted-printable", "8bit"}, strings.ToLower(p.header("Content-Transfer-Encoding"))):
			bad = "non-ASCII text sent as 7bit: use base64, quoted-printable or 8bit"
		}
	}
	walk(p)
	if bad != "" {
		c.Bad("%s", bad)
		return nil
	}
	if threadID != "" {
		thread := st.thread(threadID)
		if len(thread) == 0 {
			c.NotFound()
			return nil
		}
		// Gmail threads a message only when its In-Reply-To and References
		// name a message of the thread and its subject matches.
		irt := strings.TrimSpace(p.header("In-Reply-To"))
		if !gmailMessageIDRE.MatchString(irt) {
			c.Bad("In-Reply-To %q is not one <message-id>: Gmail would not thread the reply", irt)
			return nil
		}
		found := slices.ContainsFunc(thread, func(m *GmailMessage) bool { return strings.TrimSpace(m.Header("Message-ID")) == irt })
		if !found {
			c.Bad("In-Reply-To %s is the Message-ID of no message of thread %s", irt, threadID)
			return nil
		}
		if !slices.Contains(strings.Fields(p.header("References")), irt) {
			c.Bad("References %q does not end with the In-Reply-To id %s", p.header("References"), irt)
			return nil
		}
		norm := func(s string) string {
			s = strings.TrimSpace(s)
			for {
				l := strings.ToLower(s)
				if strings.HasPrefix(l, "re:") || strings.HasPrefix(l, "fw:") {
					s = strings.TrimSpace(s[3:])
				} else if strings.HasPrefix(l, "fwd:") {
					s = strings.TrimSpace(s[4:])
				} else {
					return s
				}
			}
		}
		if norm(subject) != norm(thread[0].Header("Subject")) {
			c.Bad("the subject %q does not match the thread's %q: Gmail would start a new thread", subject, thread[0].Header("Subject"))
			return nil
		}
	}
	id := c.S.NewID("18cb00000000")
	// Gmail adds what the sender left out.
	var extra strings.Builder
	if p.header("From") == "" {
		fmt.Fprintf(&extra, "From: Ada Lovelace <%s>\r\n", Email)
	}
	if p.header("Date") == "" {
		st.clock = st.clock.Add(time.Minute)
		fmt.Fprintf(&extra, "Date: %s\r\n", st.clock.Format(time.RFC1123Z))
	}
	if p.header("Message-ID") == "" {
		fmt.Fprintf(&extra, "Message-ID: <CAgmail%s@mail.gmail.com>\r\n", id)
	}
	if threadID == "" {
		threadID = id
	}
	label := "SENT"
	if draft {
		label = "DRAFT"
	}
	m, err := gmailNewMessage(id, threadID, []string{label}, append([]byte(extra.String()), data...))
	if err != nil {
		c.Bad("the message does not parse: %v", err)
		return nil
	}
	st.bump(m)
	return m
}

// gmailLabelIDs checks that label ids exist.
func (c *Call) gmailLabelIDs(st *GmailState, ids []string) bool {
	for _, id := range ids {
		if st.Label(id) == nil {
			return c.Bad("no label with id %q: resolve label names to ids with labels.list", id)
		}
	}
	return true
}

// gmailLabelInput is the writable part of a label.
type gmailLabelInput struct {
	ID                    *string          `json:"id"`
	Name                  *string          `json:"name"`
	MessageListVisibility *string          `json:"messageListVisibility"`
	LabelListVisibility   *string          `json:"labelListVisibility"`
	Type                  *string          `json:"type"`
	Color                 *GmailLabelColor `json:"color"`
}

func (c *Call) gmailApplyLabel(st *GmailState, l *GmailLabel, in gmailLabelInput) bool {
	if in.Name != nil {
		name := strings.TrimSpace(*in.Name)
		if name == "" {
			c.Invalid("Invalid label name")
			return false
		}
		if other := st.LabelNamed(name); other != nil && other != l || slices.ContainsFunc(st.Labels, func(s *GmailLabel) bool {
			return s.Type == "system" && strings.EqualFold(s.ID, name)
		}) {
			writeError(c.W, http.StatusConflict, "ALREADY_EXISTS", "Label name exists or conflicts", "duplicate")
			return false
		}
		l.Name = name
	}
	if v := in.MessageListVisibility; v != nil {
		if *v != "show" && *v != "hide" {
			return c.Bad("messageListVisibility %q is not show or hide", *v)
		}
		l.MessageListVisibility = *v
	}
	if v := in.LabelListVisibility; v != nil {
		if !slices.Contains([]string{"labelShow", "labelShowIfUnread", "labelHide"}, *v) {
			return c.Bad("labelListVisibility %q is not labelShow, labelShowIfUnread or labelHide", *v)
		}
		l.LabelListVisibility = *v
	}
	if in.Color != nil {
		l.Color = in.Color
	}
	return true
}

// gmailDraftJSON is a Draft resource with its message in a format.
func gmailDraftJSON(d *GmailDraft, format string, headers []string) map[string]any {
	return map[string]any{"id": d.ID, "message": d.Message.gmailJSON(format, headers)}
}

// gmailMessageRef is the short form list answers use.
func gmailMessageRef(m *GmailMessage) map[string]string {
	return map[string]string{"id": m.ID, "threadId": m.ThreadID}
}

// gmailRawInput is a message as send and drafts take it.
type gmailRawInput struct {
	ID       string   `json:"id"`
	ThreadID string   `json:"threadId"`
	Raw      string   `json:"raw"`
	LabelIDs []string `json:"labelIds"`
}

func init() {
	register("gmail.googleapis.com", func(s *Server, r *Router) {
		st := s.Gmail()
		const u = "/gmail/v1/users/me"

		// Messages.
		r.Handle("GET "+u+"/messages", gmailReadScopes, func(c *Call) {
			if !c.Params(nil, "q", "maxResults", "pageToken", "labelIds", "includeSpamTrash") {
				return
			}
			spamTrash := c.Query.Get("includeSpamTrash") == "true"
			if !c.gmailLabelIDs(st, c.Query["labelIds"]) {
				return
			}
			found := st.search(c.Query.Get("q"), c.Query["labelIds"], spamTrash)
			start, end, next, ok := c.gmailPage(len(found), 100, 500)
			if !ok {
				return
			}
			out := map[string]any{"resultSizeEstimate": len(found)}
			if end > start {
				refs := []map[string]string{}
				for _, m := range found[start:end] {
					refs = append(refs, gmailMessageRef(m))
				}
				out["messages"] = refs
			}
			if next != "" {
				out["nextPageToken"] = next
			}
			c.JSON(out)
		})
		r.Handle("GET "+u+"/messages/{id}", gmailReadScopes, func(c *Call) {
			if !c.Params(nil, "format", "metadataHeaders") {
				return
			}
			f, ok := c.gmailFormat("full", "metadata", "minimal", "raw")
			if !ok {
				return
			}
			m := st.Message(c.Path("id"))
			if m == nil {
				c.NotFound()
				return
			}
			c.JSON(m.gmailJSON(f, c.Query["metadataHeaders"]))
		})
		r.Handle("POST "+u+"/messages/send", gmailSendScopes, func(c *Call) {
			var in gmailRawInput
			if !c.Params(nil) || !c.Decode(&in) {
				return
			}
			if in.ID != "" || len(in.LabelIDs) > 0 {
				c.Bad("messages.send takes raw and threadId only")
				return
			}
			m := c.gmailAccept(st, in.Raw, in.ThreadID, false)
			if m == nil {
				return
			}
			st.Messages = append(st.Messages, m)
			c.JSON(map[string]any{"id": m.ID, "threadId": m.ThreadID, "labelIds": m.LabelIDs})
		})
		r.Handle("POST "+u+"/messages/{id}/modify", gmailModifyScopes, func(c *Call) {
			var in struct {
				AddLabelIDs    []string `json:"addLabelIds"`
				RemoveLabelIDs []string `json:"removeLabelIds"`
			}
			if !c.Params(nil) || !c.Decode(&in) {
				return
			}
			if len(in.AddLabelIDs)+len(in.RemoveLabelIDs) == 0 {
				c.Bad("neither addLabelIds nor removeLabelIds")
				return
			}
			if !c.gmailLabelIDs(st, in.AddLabelIDs) || !c.gmailLabelIDs(st, in.RemoveLabelIDs) {
				return
			}
			for _, id := range append(slices.Clone(in.AddLabelIDs), in.RemoveLabelIDs...) {
				if id == "DRAFT" || id == "SENT" || id == "CHAT" {
					c.Invalid("Invalid label: " + id)
					return
				}
			}
			m := st.Message(c.Path("id"))
			if m == nil {
				c.NotFound()
				return
			}
			m.LabelIDs = slices.DeleteFunc(m.LabelIDs, func(l string) bool { return slices.Contains(in.RemoveLabelIDs, l) })
			for _, l := range in.AddLabelIDs {
				if !m.has(l) {
					m.LabelIDs = append(m.LabelIDs, l)
				}
			}
			st.bump(m)
			c.JSON(m.gmailJSON("minimal", nil))
		})
		for _, action := range []string{"trash", "untrash"} {
			r.Handle("POST "+u+"/messages/{id}/"+action, gmailModifyScopes, func(c *Call) {
				if !c.Params(nil) {
					return
				}
				if len(c.Body) > 0 {
					c.Bad("%s takes no body", action)
					return
				}
				m := st.Message(c.Path("id"))
				if m == nil {
					c.NotFound()
					return
				}
				m.LabelIDs = slices.DeleteFunc(m.LabelIDs, func(l string) bool { return l == "TRASH" })
				if action == "trash" {
					m.LabelIDs = append(m.LabelIDs, "TRASH")
				}
				st.bump(m)
				c.JSON(m.gmailJSON("minimal", nil))
			})
		}

		// Threads.
		r.Handle("GET "+u+"/threads/{id}", gmailReadScopes, func(c *Call) {
			if !c.Params(nil, "format", "metadataHeaders") {
				return
			}
			f, ok := c.gmailFormat("full", "metadata", "minimal")
			if !ok {
				return
			}
			msgs := st.thread(c.Path("id"))
			if len(msgs) == 0 {
				c.NotFound()
				return
			}
			out := []map[string]any{}
			for _, m := range msgs {
				out = append(out, m.gmailJSON(f, c.Query["metadataHeaders"]))
			}
			c.JSON(map[string]any{"id": c.Path("id"), "historyId": msgs[len(msgs)-1].HistoryID, "messages": out})
		})

		// Drafts.
		r.Handle("GET "+u+"/drafts", gmailDraftReadScopes, func(c *Call) {
			if !c.Params(nil, "maxResults", "pageToken", "q", "includeSpamTrash") {
				return
			}
			var list []*GmailDraft
			for _, d := range slices.Backward(st.Drafts) {
				ok := true
				for _, t := range gmailTokens(c.Query.Get("q")) {
					ok = ok && st.matches(d.Message, t)
				}
				if ok {
					list = append(list, d)
				}
			}
			start, end, next, ok := c.gmailPage(len(list), 100, 500)
			if !ok {
				return
			}
			out := map[string]any{"resultSizeEstimate": len(list)}
			if end > start {
				items := []map[string]any{}
				for _, d := range list[start:end] {
					items = append(items, map[string]any{"id": d.ID, "message": gmailMessageRef(d.Message)})
				}
				out["drafts"] = items
			}
			if next != "" {
				out["nextPageToken"] = next
			}
			c.JSON(out)
		})
		r.Handle("GET "+u+"/drafts/{id}", gmailDraftReadScopes, func(c *Call) {
			if !c.Params(nil, "format") {
				return
			}
			f, ok := c.gmailFormat("full", "metadata", "minimal", "raw")
			if !ok {
				return
			}
			d := st.Draft(c.Path("id"))
			if d == nil {
				c.NotFound()
				return
			}
			c.JSON(gmailDraftJSON(d, f, nil))
		})
		r.Handle("POST "+u+"/drafts", gmailComposeScopes, func(c *Call) {
			var in struct {
				Message *gmailRawInput `json:"message"`
			}
			if !c.Params(nil) || !c.Decode(&in) {
				return
			}
			if in.Message == nil {
				c.Bad("a draft without a message")
				return
			}
			m := c.gmailAccept(st, in.Message.Raw, in.Message.ThreadID, true)
			if m == nil {
				return
			}
			st.Messages = append(st.Messages, m)
			d := &GmailDraft{ID: s.NewID("r58203941762000"), Message: m}
			st.Drafts = append(st.Drafts, d)
			c.JSON(map[string]any{"id": d.ID, "message": map[string]any{"id": m.ID, "threadId": m.ThreadID, "labelIds": m.LabelIDs}})
		})
		r.Handle("POST "+u+"/drafts/send", gmailComposeScopes, func(c *Call) {
			var in struct {
				ID      string         `json:"id"`
				Message *gmailRawInput `json:"message"`
			}
			if !c.Params(nil) || !c.Decode(&in) {
				return
			}
			if in.ID == "" {
				c.Bad("drafts.send without the draft's id")
				return
			}
			d := st.Draft(in.ID)
			if d == nil {
				c.NotFound()
				return
			}
			m := d.Message
			if in.Message != nil {
				if m = c.gmailAccept(st, in.Message.Raw, in.Message.ThreadID, false); m == nil {
					return
				}
				old := d.Message
				st.Messages = slices.DeleteFunc(st.Messages, func(x *GmailMessage) bool { return x == old })
				st.Messages = append(st.Messages, m)
			}
			if m.Header("To")+m.Header("Cc")+m.Header("Bcc") == "" {
				c.Invalid("Message has no recipients: add a To, Cc or Bcc address")
				return
			}
			m.LabelIDs = []string{"SENT"}
			st.bump(m)
			st.Drafts = slices.DeleteFunc(st.Drafts, func(x *GmailDraft) bool { return x == d })
			c.JSON(map[string]any{"id": m.ID, "threadId": m.ThreadID, "labelIds": m.LabelIDs})
		})

		// Labels.
		r.Handle("GET "+u+"/labels", gmailLabelReadScopes, func(c *Call) {
			if !c.Params(nil) {
				return
			}
			c.JSON(map[string]any{"labels": st.Labels})
		})
		r.Handle("GET "+u+"/labels/{id}", gmailLabelReadScopes, func(c *Call) {
			if !c.Params(nil) {
				return
			}
			l := st.Label(c.Path("id"))
			if l == nil {
				c.NotFound()
				return
			}
			var msgs, unread int
			threads, unreadThreads := map[string]bool{}, map[string]bool{}
			for _, m := range st.Messages {
				if !m.has(l.ID) {
					continue
				}
				msgs++
				threads[m.ThreadID] = true
				if m.has("UNREAD") {
					unread++
					unreadThreads[m.ThreadID] = true
				}
			}
			c.JSON(struct {
				*GmailLabel
				MessagesTotal  int `json:"messagesTotal"`
				MessagesUnread int `json:"messagesUnread"`
				ThreadsTotal   int `json:"threadsTotal"`
				ThreadsUnread  int `json:"threadsUnread"`
			}{l, msgs, unread, len(threads), len(unreadThreads)})
		})
		r.Handle("POST "+u+"/labels", gmailLabelWriteScopes, func(c *Call) {
			var in gmailLabelInput
			if !c.Params(nil) || !c.Decode(&in) {
				return
			}
			if in.ID != nil || in.Type != nil {
				c.Bad("id and type are set by Gmail")
				return
			}
			if in.Name == nil {
				c.Bad("a label without a name")
				return
			}
			l := &GmailLabel{ID: s.NewID("Label_71930045820"), Type: "user", MessageListVisibility: "show", LabelListVisibility: "labelShow"}
			if !c.gmailApplyLabel(st, l, in) {
				return
			}
			st.Labels = append(st.Labels, l)
			c.JSON(l)
		})
		r.Handle("PATCH "+u+"/labels/{id}", gmailLabelWriteScopes, func(c *Call) {
			var in gmailLabelInput
			if !c.Params(nil) || !c.Decode(&in) {
				return
			}
			l := st.Label(c.Path("id"))
			if l == nil {
				c.NotFound()
				return
			}
			if in.ID != nil && *in.ID != l.ID || in.Type != nil {
				c.Bad("id and type cannot change")
				return
			}
			if l.Type == "system" {
				c.Invalid("Invalid update request: system labels cannot be changed")
				return
			}
			if c.gmailApplyLabel(st, l, in) {
				c.JSON(l)
			}
		})
		r.Handle("DELETE "+u+"/labels/{id}", gmailLabelWriteScopes, func(c *Call) {
			if !c.Params(nil) {
				return
			}
			l := st.Label(c.Path("id"))
			if l == nil {
				c.NotFound()
				return
			}
			if l.Type == "system" {
				c.Invalid("Invalid delete request: system labels cannot be deleted")
				return
			}
			st.Labels = slices.DeleteFunc(st.Labels, func(x *GmailLabel) bool { return x == l })
			for _, m := range st.Messages {
				m.LabelIDs = slices.DeleteFunc(m.LabelIDs, func(id string) bool { return id == l.ID })
			}
			c.Empty()
		})

		// Settings: filters.
		r.Handle("GET "+u+"/settings/filters", gmailSettingsReadScopes, func(c *Call) {
			if !c.Params(nil) {
				return
			}
			if len(st.Filters) == 0 {
				c.JSON(map[string]any{})
				return
			}
			c.JSON(map[string]any{"filter": st.Filters})
		})
		r.Handle("GET "+u+"/settings/filters/{id}", gmailSettingsReadScopes, func(c *Call) {
			if !c.Params(nil) {
				return
			}
			if f := st.Filter(c.Path("id")); f != nil {
				c.JSON(f)
				return
			}
			c.NotFound()
		})
		r.Handle("POST "+u+"/settings/filters", gmailBasicScopes, func(c *Call) {
			var in GmailFilter
			if !c.Params(nil) || !c.Decode(&in) {
				return
			}
			if in.ID != "" {
				c.Bad("a filter's id is set by Gmail")
				return
			}
			cr, a := in.Criteria, in.Action
			if cr == nil || *cr == (GmailFilterCriteria{}) {
				c.Invalid("Filter doesn't have any criteria")
				return
			}
			if a == nil || len(a.AddLabelIDs)+len(a.RemoveLabelIDs) == 0 && a.Forward == "" {
				c.Invalid("Filter doesn't have any actions")
				return
			}
			if cr.SizeComparison != "" && !slices.Contains([]string{"unspecified", "smaller", "larger"}, cr.SizeComparison) {
				c.Bad("sizeComparison %q is not smaller or larger", cr.SizeComparison)
				return
			}
			if (cr.Size > 0) != (cr.SizeComparison == "smaller" || cr.SizeComparison == "larger") {
				c.Bad("size and sizeComparison go together")
				return
			}
			if !c.gmailLabelIDs(st, a.AddLabelIDs) || !c.gmailLabelIDs(st, a.RemoveLabelIDs) {
				return
			}
			if a.Forward != "" && !slices.ContainsFunc(st.Forwarding, func(f *GmailForwardingAddress) bool {
				return strings.EqualFold(f.ForwardingEmail, a.Forward) && f.VerificationStatus == "accepted"
			}) {
				c.Invalid("Invalid forwarding address: " + a.Forward + " is not a verified forwarding address")
				return
			}
			in.ID = s.NewID("ANe1BmjFlt")
			st.Filters = append(st.Filters, &in)
			c.JSON(in)
		})
		r.Handle("DELETE "+u+"/settings/filters/{id}", gmailBasicScopes, func(c *Call) {
			if !c.Params(nil) {
				return
			}
			f := st.Filter(c.Path("id"))
			if f == nil {
				c.NotFound()
				return
			}
			st.Filters = slices.DeleteFunc(st.Filters, func(x *GmailFilter) bool { return x == f })
			c.Empty()
		})

		// Settings: forwarding.
		r.Handle("GET "+u+"/settings/forwardingAddresses", gmailSettingsReadScopes, func(c *Call) {
			if !c.Params(nil) {
				return
			}
			if len(st.Forwarding) == 0 {
				c.JSON(map[string]any{})
				return
			}
			c.JSON(map[string]any{"forwardingAddresses": st.Forwarding})
		})
		r.Handle("POST "+u+"/settings/forwardingAddresses", gmailSharingScopes, func(c *Call) {
			var in GmailForwardingAddress
			if !c.Params(nil) || !c.Decode(&in) {
				return
			}
			if in.VerificationStatus != "" {
				c.Bad("verificationStatus is read-only")
				return
			}
			if _, err := mail.ParseAddress(in.ForwardingEmail); err != nil || strings.ContainsAny(in.ForwardingEmail, "<> ") {
				c.Invalid("Invalid forwarding email: " + in.ForwardingEmail)
				return
			}
			if slices.ContainsFunc(st.Forwarding, func(f *GmailForwardingAddress) bool { return strings.EqualFold(f.ForwardingEmail, in.ForwardingEmail) }) {
				writeError(c.W, http.StatusConflict, "ALREADY_EXISTS", "Forwarding address already exists.", "duplicate")
				return
			}
			f := &GmailForwardingAddress{ForwardingEmail: in.ForwardingEmail, VerificationStatus: "pending"}
			st.Forwarding = append(st.Forwarding, f)
			c.JSON(f)
		})
		r.Handle("GET "+u+"/settings/autoForwarding", gmailSettingsReadScopes, func(c *Call) {
			if c.Params(nil) {
				c.JSON(st.AutoForwarding)
			}
		})
		r.Handle("PUT "+u+"/settings/autoForwarding", gmailSharingScopes, func(c *Call) {
			var in GmailAutoForwarding
			if !c.Params(nil) || !c.Decode(&in) {
				return
			}
			if in.Disposition != "" && !slices.Contains([]string{"dispositionUnspecified", "leaveInInbox", "archive", "trash", "markRead"}, in.Disposition) {
				c.Bad("disposition %q is not leaveInInbox, archive, trash or markRead", in.Disposition)
				return
			}
			if in.Enabled {
				if !slices.ContainsFunc(st.Forwarding, func(f *GmailForwardingAddress) bool {
					return strings.EqualFold(f.ForwardingEmail, in.EmailAddress) && f.VerificationStatus == "accepted"
				}) {
					c.Invalid("Unverified forwarding address: " + in.EmailAddress)
					return
				}
				if in.Disposition == "" || in.Disposition == "dispositionUnspecified" {
					c.Invalid("Invalid disposition: dispositionUnspecified")
					return
				}
			}
			st.AutoForwarding = in
			c.JSON(in)
		})

		// Settings: send-as (signatures).
		r.Handle("GET "+u+"/settings/sendAs", gmailSettingsReadScopes, func(c *Call) {
			if c.Params(nil) {
				c.JSON(map[string]any{"sendAs": st.SendAs})
			}
		})
		sendAs := func(email string) *GmailSendAs {
			return first(st.SendAs, func(a *GmailSendAs) bool { return strings.EqualFold(a.SendAsEmail, email) })
		}
		r.Handle("GET "+u+"/settings/sendAs/{email}", gmailSettingsReadScopes, func(c *Call) {
			if !c.Params(nil) {
				return
			}
			if a := sendAs(c.Path("email")); a != nil {
				c.JSON(a)
				return
			}
			c.NotFound()
		})
		r.Handle("PATCH "+u+"/settings/sendAs/{email}", gmailSendAsWriteScopes, func(c *Call) {
			var in struct {
				DisplayName    *string `json:"displayName"`
				ReplyToAddress *string `json:"replyToAddress"`
				Signature      *string `json:"signature"`
				IsDefault      *bool   `json:"isDefault"`
				TreatAsAlias   *bool   `json:"treatAsAlias"`
			}
			if !c.Params(nil) || !c.Decode(&in) {
				return
			}
			a := sendAs(c.Path("email"))
			if a == nil {
				c.NotFound()
				return
			}
			if in.Signature != nil {
				// Gmail sanitizes the HTML it stores.
				a.Signature = gmailTagRE.ReplaceAllStringFunc(*in.Signature, func(t string) string {
					if strings.HasPrefix(strings.ToLower(t), "<script") {
						return ""
					}
					return t
				})
			}
			if in.DisplayName != nil {
				a.DisplayName = *in.DisplayName
			}
			if in.ReplyToAddress != nil {
				a.ReplyToAddress = *in.ReplyToAddress
			}
			if in.IsDefault != nil && *in.IsDefault {
				for _, o := range st.SendAs {
					o.IsDefault = o == a
				}
			}
			if in.TreatAsAlias != nil {
				a.TreatAsAlias = *in.TreatAsAlias
			}
			c.JSON(a)
		})

		// Settings: vacation responder.
		r.Handle("GET "+u+"/settings/vacation", gmailSettingsReadScopes, func(c *Call) {
			if c.Params(nil) {
				c.JSON(st.Vacation)
			}
		})
		r.Handle("PUT "+u+"/settings/vacation", gmailBasicScopes, func(c *Call) {
			var in GmailVacation
			if !c.Params(nil) || !c.Decode(&in) {
				return
			}
			var start, end int64
			for _, t := range []struct {
				name, v string
				out     *int64
			}{{"startTime", in.StartTime, &start}, {"endTime", in.EndTime, &end}} {
				if t.v == "" {
					continue
				}
				n, err := strconv.ParseInt(t.v, 10, 64)
				if err != nil || n < 1e12 || n > 1e14 {
					c.Bad("%s %q is not epoch milliseconds", t.name, t.v)
					return
				}
				*t.out = n
			}
			if start > 0 && end > 0 && start >= end {
				c.Invalid("Invalid time range: startTime must precede endTime")
				return
			}
			if in.EnableAutoReply && in.ResponseSubject == "" && in.ResponseBodyPlainText == "" && in.ResponseBodyHTML == "" {
				c.Invalid("Either the response subject or the response body must be non-empty to enable auto-reply")
				return
			}
			st.Vacation = in
			c.JSON(in)
		})
	})
}
