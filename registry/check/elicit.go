package check

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// An MCP server may ask the user something while it runs a tool
// (elicitation/create, MCP 2025-06-18 and after): a message and a form, a
// flat object schema of strings, numbers, booleans and enums. The
// elicitation op reads the server's request into the fields a host puts to
// the user (each with its label, kind, default, choices and a hint that
// says what it takes), checks the user's answers against the schema (the
// sentences the user reads when a value will not do), and words why a
// server is refused when no one can be asked. The host asks and sends the
// answer; which server asks is always said.

// MaxElicitFields is the most values one question may ask for: a form
// longer than that is not something to put to a person mid-call.
const MaxElicitFields = 30

// MaxElicitMessage is the most characters of a server's message shown.
const MaxElicitMessage = 2000

// Elicitation is the elicitation op's request: the server's key, its
// elicitation/create params as sent, and either the user's answer to
// check (Answer; only the field named Field, when given: a host asking one
// field at a time asks again at once) or why the host cannot ask
// (Unasked), or neither to read the question.
type Elicitation struct {
	Server  string          `json:"server"`
	Params  json.RawMessage `json:"params"`
	Answer  *ElicitAnswer   `json:"answer,omitempty"`
	Field   string          `json:"field,omitempty"`
	Unasked string          `json:"unasked,omitempty"`
	// TimeoutSeconds is the call's limit, for UnaskedTimedOut.
	TimeoutSeconds int `json:"timeout_seconds,omitempty"`
}

// ElicitAnswer is the user's answer: accept (with Content, the values by
// field name: typed, or as the user typed them), decline or cancel.
type ElicitAnswer struct {
	Action  string                     `json:"action"`
	Content map[string]json.RawMessage `json:"content,omitempty"`
}

// The reasons a host gives for not asking (Elicitation.Unasked).
const (
	// UnaskedNobody: no one is there to answer (a scheduled task, an
	// agent run, serve's API with no page, the worker).
	UnaskedNobody = "nobody"
	// UnaskedNoCall: the server asked while none of its tools ran.
	UnaskedNoCall = "no_call"
	// UnaskedSeveral: several calls of the server run for different
	// users or sessions, and the request does not say which asks.
	UnaskedSeveral = "several_calls"
	// UnaskedClient: toolroute mcp's client does not take elicitation.
	UnaskedClient = "client_cannot"
	// UnaskedTimedOut: the user did not answer within the call's limit.
	UnaskedTimedOut = "timed_out"
)

// ElicitQuestion is what the host puts to the user: who asks (Asks, the
// line naming the server), the server's message, and the fields in the
// schema's order.
type ElicitQuestion struct {
	Asks    string        `json:"asks"`
	Message string        `json:"message"`
	Fields  []ElicitField `json:"fields"`
}

// ElicitField is one value asked for. Kind is text, number, integer,
// boolean, choice (one of Choices) or choices (any of them). Hint says
// what it takes, in the words the refusals use.
type ElicitField struct {
	Name        string          `json:"name"`
	Label       string          `json:"label"`
	Description string          `json:"description,omitempty"`
	Kind        string          `json:"kind"`
	Format      string          `json:"format,omitempty"`
	Required    bool            `json:"required"`
	Default     json.RawMessage `json:"default,omitempty"`
	Choices     []ElicitChoice  `json:"choices,omitempty"`
	Minimum     *float64        `json:"minimum,omitempty"`
	Maximum     *float64        `json:"maximum,omitempty"`
	MinLength   *int            `json:"min_length,omitempty"`
	MaxLength   *int            `json:"max_length,omitempty"`
	MinItems    *int            `json:"min_items,omitempty"`
	MaxItems    *int            `json:"max_items,omitempty"`
	Hint        string          `json:"hint"`
}

// ElicitChoice is one choice: the value sent, and the label shown.
type ElicitChoice struct {
	Value string `json:"value"`
	Label string `json:"label"`
}

// ElicitResult is the answer to send the server: the action, and for
// accept the values, typed, with the defaults of those not given.
type ElicitResult struct {
	Action  string         `json:"action"`
	Content map[string]any `json:"content,omitempty"`
	// Said is the answer as the user reads it back (a page reloaded): who
	// asked what, and what was sent, each choice by its label. A host
	// keeps it on the call's result (registry.Result.Asked). Not for a
	// single field's check.
	Said string `json:"said,omitempty"`
}

func (e Elicitation) check() (Answer, error) {
	if e.Unasked != "" {
		msg, err := e.unasked()
		if err != nil {
			return Answer{}, err
		}
		return Answer{Error: &Refusal{Type: "refused", Message: msg}}, nil
	}
	q, why := e.read()
	if why != "" {
		return Answer{Error: &Refusal{Type: "invalid_arguments", Message: fmt.Sprintf(
			"MCP server '%s' asked the user a question toolroute cannot put to them: %s", e.Server, why)}}, nil
	}
	if e.Answer == nil {
		return Answer{Args: q}, nil
	}
	switch e.Answer.Action {
	case "decline", "cancel":
		return Answer{Args: ElicitResult{Action: e.Answer.Action, Said: e.said(q, e.Answer.Action, nil)}}, nil
	case "accept":
	default:
		return Answer{}, fmt.Errorf("check elicitation: the answer's action %q is none of accept, decline or cancel", e.Answer.Action)
	}
	content := map[string]any{}
	for _, f := range q.Fields {
		if e.Field != "" && f.Name != e.Field {
			continue
		}
		v, msg := f.value(e.Answer.Content[f.Name])
		if msg != "" {
			return refuse(msg), nil
		}
		if v != nil {
			content[f.Name] = v
		}
	}
	out := ElicitResult{Action: "accept", Content: content}
	if e.Field == "" {
		out.Said = e.said(q, "accept", content)
	}
	return Answer{Args: out}, nil
}

// maxSaidMessage is how much of the server's message a said answer
// quotes.
const maxSaidMessage = 200

// said words the user's answer to q for reading back: the fields sent in
// the form's order, a choice by its label, a yes-or-no as yes or no.
func (e Elicitation) said(q ElicitQuestion, action string, content map[string]any) string {
	asked := fmt.Sprintf("MCP server '%s' asked “%s”", e.Server, cutRunes(q.Message, maxSaidMessage))
	switch action {
	case "decline":
		return asked + ". You declined: nothing was sent."
	case "cancel":
		return asked + ". You cancelled: nothing was sent."
	}
	var sent []string
	for _, f := range q.Fields {
		v, ok := content[f.Name]
		if !ok {
			continue
		}
		sent = append(sent, f.Label+": "+f.shown(v))
	}
	if len(sent) == 0 {
		return asked + ". You accepted, sending no values."
	}
	return asked + ". You sent " + strings.Join(sent, "; ") + "."
}

// shown is a value sent, as the user reads it.
func (f ElicitField) shown(v any) string {
	label := func(x any) string {
		s := fmt.Sprint(x)
		for _, c := range f.Choices {
			if c.Value == s {
				return c.Label
			}
		}
		return s
	}
	switch v := v.(type) {
	case bool:
		if v {
			return "yes"
		}
		return "no"
	case []string:
		out := make([]string, len(v))
		for i, x := range v {
			out[i] = label(x)
		}
		return strings.Join(out, ", ")
	case []any:
		out := make([]string, len(v))
		for i, x := range v {
			out[i] = label(x)
		}
		return strings.Join(out, ", ")
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return registryShort(label(v))
}

// unasked words why the server's question went to no one.
func (e Elicitation) unasked() (string, error) {
	who := fmt.Sprintf("MCP server '%s' asked the user a question", e.Server)
	switch e.Unasked {
	case UnaskedNobody:
		return who + ", and no one is here to answer it (the call runs with no chat behind it): it was refused. " +
			"Call the tool again from a chat where the user can answer, or do without it.", nil
	case UnaskedNoCall:
		return who + " while none of its tools was running, so toolroute does not know whom to ask: it was refused.", nil
	case UnaskedSeveral:
		return who + " while several of its calls ran for different chats, and toolroute cannot tell which call asks: it was refused. " +
			"Call the tool again when no other chat is using it.", nil
	case UnaskedTimedOut:
		return fmt.Sprintf("%s that was not answered within %d s, the limit of the call it came during, so the call was stopped. "+
			"The user can give the server a longer \"timeoutSeconds\" in its entry, or answer sooner.", who, e.TimeoutSeconds), nil
	case UnaskedClient:
		return who + ", and the MCP client using toolroute cannot put questions to the user (it does not support elicitation): it was refused.", nil
	}
	return "", fmt.Errorf("check elicitation: unasked %q is none of %s", e.Unasked, strings.Join([]string{UnaskedNobody, UnaskedNoCall, UnaskedSeveral, UnaskedClient, UnaskedTimedOut}, ", "))
}

// elicitParams is what is read of elicitation/create's params.
type elicitParams struct {
	Mode            string          `json:"mode"`
	Message         *string         `json:"message"`
	RequestedSchema json.RawMessage `json:"requestedSchema"`
	URL             string          `json:"url"`
}

// elicitSchema is the requested schema: a flat object.
type elicitSchema struct {
	Type       any                        `json:"type"`
	Properties map[string]json.RawMessage `json:"properties"`
	Required   []string                   `json:"required"`
}

// elicitProp is one property of the schema.
type elicitProp struct {
	Type        any               `json:"type"`
	Title       string            `json:"title"`
	Description string            `json:"description"`
	Format      string            `json:"format"`
	Enum        []json.RawMessage `json:"enum"`
	EnumNames   []string          `json:"enumNames"`
	OneOf       []elicitConst     `json:"oneOf"`
	AnyOf       []elicitConst     `json:"anyOf"`
	Items       *elicitProp       `json:"items"`
	Properties  json.RawMessage   `json:"properties"`
	Default     json.RawMessage   `json:"default"`
	Minimum     *float64          `json:"minimum"`
	Maximum     *float64          `json:"maximum"`
	MinLength   *int              `json:"minLength"`
	MaxLength   *int              `json:"maxLength"`
	MinItems    *int              `json:"minItems"`
	MaxItems    *int              `json:"maxItems"`
}

// elicitConst is a titled choice (oneOf or anyOf's {"const", "title"}).
type elicitConst struct {
	Const *string `json:"const"`
	Title string  `json:"title"`
}

// read reads the server's request into the question, or says why it is
// not one toolroute asks.
func (e Elicitation) read() (ElicitQuestion, string) {
	var p elicitParams
	if len(e.Params) == 0 || json.Unmarshal(e.Params, &p) != nil {
		return ElicitQuestion{}, "its params are not an object"
	}
	switch p.Mode {
	case "", "form":
	case "url":
		return ElicitQuestion{}, "it asked the user to open a URL, which toolroute does not do (it offers forms only)"
	default:
		return ElicitQuestion{}, fmt.Sprintf("its mode %s is none of form or url", quote(p.Mode))
	}
	if p.Message == nil || strings.TrimSpace(*p.Message) == "" {
		return ElicitQuestion{}, "it has no message saying what it asks"
	}
	q := ElicitQuestion{Asks: fmt.Sprintf("MCP server '%s' asks:", e.Server), Message: cutRunes(strings.TrimSpace(*p.Message), MaxElicitMessage), Fields: []ElicitField{}}
	raw := bytes.TrimSpace(p.RequestedSchema)
	if len(raw) == 0 || string(raw) == "null" {
		return q, ""
	}
	var s elicitSchema
	if json.Unmarshal(raw, &s) != nil {
		return q, "its requestedSchema is not an object schema"
	}
	if s.Type != nil && s.Type != "object" {
		return q, "its requestedSchema is not of type object"
	}
	var order []string
	if props := objectField(raw, "properties"); props != nil {
		order = objectKeys(props)
	}
	if len(order) > MaxElicitFields {
		return q, fmt.Sprintf("it asks for %d values at once, more than the %d toolroute puts in one form", len(order), MaxElicitFields)
	}
	required := map[string]bool{}
	for _, r := range s.Required {
		required[r] = true
	}
	for _, name := range order {
		f, why := readField(name, s.Properties[name], required[name])
		if why != "" {
			return q, fmt.Sprintf("its property %s %s", quote(name), why)
		}
		q.Fields = append(q.Fields, f)
	}
	return q, ""
}

// readField reads one property into a field, or says why it cannot be one.
func readField(name string, raw json.RawMessage, required bool) (ElicitField, string) {
	var p elicitProp
	if json.Unmarshal(raw, &p) != nil {
		return ElicitField{}, "is not a schema object"
	}
	if len(bytes.TrimSpace(p.Properties)) > 0 && string(bytes.TrimSpace(p.Properties)) != "null" {
		return ElicitField{}, "has properties of its own: a form takes only strings, numbers, booleans and choices"
	}
	f := ElicitField{Name: name, Label: strings.TrimSpace(p.Title), Description: strings.TrimSpace(p.Description), Required: required}
	if f.Label == "" {
		f.Label = name
	}
	typ, _ := p.Type.(string)
	if p.Type == nil && (len(p.Enum) > 0 || len(p.OneOf) > 0) {
		typ = "string"
	}
	switch typ {
	case "string":
		switch {
		case len(p.Enum) > 0:
			f.Kind = "choice"
			choices, why := enumChoices(p.Enum, p.EnumNames)
			if why != "" {
				return f, why
			}
			f.Choices = choices
		case len(p.OneOf) > 0:
			f.Kind = "choice"
			choices, why := titledChoices(p.OneOf, "oneOf")
			if why != "" {
				return f, why
			}
			f.Choices = choices
		default:
			f.Kind = "text"
			switch p.Format {
			case "", "email", "uri", "date", "date-time":
				f.Format = p.Format
			default:
				return f, fmt.Sprintf("has the format %s, none of email, uri, date or date-time", quote(p.Format))
			}
			if p.MinLength != nil && *p.MinLength < 0 || p.MaxLength != nil && *p.MaxLength < 0 ||
				p.MinLength != nil && p.MaxLength != nil && *p.MaxLength < *p.MinLength {
				return f, "has a minLength and maxLength no text can meet"
			}
			f.MinLength, f.MaxLength = p.MinLength, p.MaxLength
		}
	case "number", "integer":
		f.Kind = typ
		if p.Minimum != nil && p.Maximum != nil && *p.Maximum < *p.Minimum {
			return f, "has a maximum below its minimum"
		}
		f.Minimum, f.Maximum = p.Minimum, p.Maximum
	case "boolean":
		f.Kind = "boolean"
	case "array":
		f.Kind = "choices"
		if p.Items == nil {
			return f, "is an array without items: a form's array is a choice of several of a list"
		}
		var choices []ElicitChoice
		var why string
		switch {
		case len(p.Items.Enum) > 0:
			choices, why = enumChoices(p.Items.Enum, nil)
		case len(p.Items.AnyOf) > 0:
			choices, why = titledChoices(p.Items.AnyOf, "items.anyOf")
		default:
			why = "is an array whose items list no choices (enum or anyOf)"
		}
		if why != "" {
			return f, why
		}
		f.Choices = choices
		if p.MinItems != nil && *p.MinItems < 0 || p.MaxItems != nil && *p.MaxItems < 0 ||
			p.MinItems != nil && p.MaxItems != nil && *p.MaxItems < *p.MinItems {
			return f, "has a minItems and maxItems no choice can meet"
		}
		f.MinItems, f.MaxItems = p.MinItems, p.MaxItems
	case "":
		return f, "has no type"
	default:
		return f, fmt.Sprintf("is of type %s: a form takes only string, number, integer, boolean and arrays of choices", quote(typ))
	}
	f.Hint = f.hint()
	if d := bytes.TrimSpace(p.Default); len(d) > 0 && string(d) != "null" {
		v, ok := f.typed(d)
		if !ok {
			return f, fmt.Sprintf("has a default, %s, that is not %s", registryShort(string(d)), f.Hint)
		}
		f.Default, _ = json.Marshal(v)
	}
	return f, ""
}

// enumChoices are the choices of an enum of strings, labelled by the
// legacy enumNames when it has one for each.
func enumChoices(values []json.RawMessage, names []string) ([]ElicitChoice, string) {
	if len(names) > 0 && len(names) != len(values) {
		return nil, fmt.Sprintf("has %d enum values but %d enumNames", len(values), len(names))
	}
	out := make([]ElicitChoice, 0, len(values))
	for i, raw := range values {
		var v string
		if json.Unmarshal(raw, &v) != nil {
			return nil, "has an enum value that is not a string"
		}
		c := ElicitChoice{Value: v, Label: v}
		if len(names) > 0 && strings.TrimSpace(names[i]) != "" {
			c.Label = strings.TrimSpace(names[i])
		}
		out = append(out, c)
	}
	return out, ""
}

// titledChoices are the choices of a oneOf or anyOf of {"const", "title"}.
func titledChoices(list []elicitConst, where string) ([]ElicitChoice, string) {
	out := make([]ElicitChoice, 0, len(list))
	for _, c := range list {
		if c.Const == nil || *c.Const == "" {
			return nil, fmt.Sprintf("has a choice in %s without a const string", where)
		}
		label := strings.TrimSpace(c.Title)
		if label == "" {
			label = *c.Const
		}
		out = append(out, ElicitChoice{Value: *c.Const, Label: label})
	}
	return out, ""
}

// hint says what the field takes, as the form and the refusals say it.
func (f ElicitField) hint() string {
	switch f.Kind {
	case "text":
		base := "text"
		switch f.Format {
		case "email":
			base = "an email address"
		case "uri":
			base = "a URL such as https://example.com/page"
		case "date":
			base = "a date such as 2026-12-31"
		case "date-time":
			base = "a date and time such as 2026-12-31T09:30:00Z"
		}
		return base + lengthHint(f.MinLength, f.MaxLength, "character")
	case "number", "integer":
		base := "a number"
		if f.Kind == "integer" {
			base = "a whole number"
		}
		switch {
		case f.Minimum != nil && f.Maximum != nil:
			return fmt.Sprintf("%s from %s to %s", base, num(*f.Minimum), num(*f.Maximum))
		case f.Minimum != nil:
			return fmt.Sprintf("%s of at least %s", base, num(*f.Minimum))
		case f.Maximum != nil:
			return fmt.Sprintf("%s of at most %s", base, num(*f.Maximum))
		}
		return base
	case "boolean":
		return "yes or no"
	case "choice":
		return "one of " + choiceList(f.Choices)
	}
	many := "any of "
	switch {
	case f.MinItems != nil && f.MaxItems != nil:
		many = fmt.Sprintf("%d to %d of ", *f.MinItems, *f.MaxItems)
	case f.MinItems != nil:
		many = fmt.Sprintf("at least %d of ", *f.MinItems)
	case f.MaxItems != nil:
		many = fmt.Sprintf("at most %d of ", *f.MaxItems)
	}
	return many + choiceList(f.Choices) + ", separated by commas"
}

// lengthHint is the length bounds of a text, " of 3 to 10 characters".
func lengthHint(lo, hi *int, unit string) string {
	plural := func(n int) string {
		if n == 1 {
			return unit
		}
		return unit + "s"
	}
	switch {
	case lo != nil && hi != nil && *lo == *hi:
		return fmt.Sprintf(" of exactly %d %s", *lo, plural(*lo))
	case lo != nil && hi != nil:
		return fmt.Sprintf(" of %d to %d %s", *lo, *hi, plural(*hi))
	case lo != nil && *lo > 0:
		return fmt.Sprintf(" of at least %d %s", *lo, plural(*lo))
	case hi != nil:
		return fmt.Sprintf(" of at most %d %s", *hi, plural(*hi))
	}
	return ""
}

// choiceList lists the choices' labels: "Red, Green or Blue" style
// without the or, as a list the user picks from.
func choiceList(cs []ElicitChoice) string {
	labels := make([]string, len(cs))
	for i, c := range cs {
		labels[i] = c.Label
	}
	return strings.Join(labels, ", ")
}

// num writes a bound as a person would: 5, not 5.000000.
func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// value reads the user's value of the field (raw absent, null or "" when
// none was given) and checks it: the typed value to send (the default
// when none was given, nil for none), or the sentence the user reads.
func (f ElicitField) value(raw json.RawMessage) (any, string) {
	raw = bytes.TrimSpace(raw)
	given := len(raw) > 0 && string(raw) != "null" && string(raw) != `""` && string(raw) != "[]"
	if !given {
		if len(f.Default) > 0 {
			v, _ := f.typed(f.Default)
			return v, ""
		}
		if f.Required {
			return nil, fmt.Sprintf("%s is required: give %s", f.Label, f.Hint)
		}
		return nil, ""
	}
	v, ok := f.typed(raw)
	if !ok {
		shown := string(raw)
		var s string
		if json.Unmarshal(raw, &s) == nil {
			shown = strconv.Quote(s)
		}
		return nil, fmt.Sprintf("%s: give %s (%s is not)", f.Label, f.Hint, registryShort(shown))
	}
	return v, ""
}

// typed reads raw, JSON as sent or a string as the user typed it, as the
// field's kind, and reports whether it is a value the field takes.
func (f ElicitField) typed(raw json.RawMessage) (any, bool) {
	var s string
	isString := json.Unmarshal(raw, &s) == nil
	switch f.Kind {
	case "text":
		if !isString {
			return nil, false
		}
		n := utf8.RuneCountInString(s)
		if f.MinLength != nil && n < *f.MinLength || f.MaxLength != nil && n > *f.MaxLength {
			return nil, false
		}
		return s, formatOK(f.Format, s)
	case "number", "integer":
		var x float64
		if isString {
			var err error
			if x, err = strconv.ParseFloat(strings.TrimSpace(s), 64); err != nil {
				return nil, false
			}
		} else if json.Unmarshal(raw, &x) != nil {
			return nil, false
		}
		if math.IsNaN(x) || math.IsInf(x, 0) || f.Minimum != nil && x < *f.Minimum || f.Maximum != nil && x > *f.Maximum {
			return nil, false
		}
		if f.Kind == "integer" {
			if x != math.Trunc(x) || math.Abs(x) > 1<<53 {
				return nil, false
			}
			return int64(x), true
		}
		return x, true
	case "boolean":
		if !isString {
			var b bool
			if json.Unmarshal(raw, &b) != nil {
				return nil, false
			}
			return b, true
		}
		switch strings.ToLower(strings.TrimSpace(s)) {
		case "y", "yes", "true":
			return true, true
		case "n", "no", "false":
			return false, true
		}
		return nil, false
	case "choice":
		if !isString {
			return nil, false
		}
		return pick(f.Choices, s)
	case "choices":
		var list []string
		if isString {
			for _, part := range strings.Split(s, ",") {
				if part = strings.TrimSpace(part); part != "" {
					list = append(list, part)
				}
			}
		} else if json.Unmarshal(raw, &list) != nil {
			return nil, false
		}
		out := []string{}
		for _, item := range list {
			v, ok := pick(f.Choices, item)
			if !ok {
				return nil, false
			}
			if !containsString(out, v.(string)) {
				out = append(out, v.(string))
			}
		}
		if f.MinItems != nil && len(out) < *f.MinItems || f.MaxItems != nil && len(out) > *f.MaxItems {
			return nil, false
		}
		return out, true
	}
	return nil, false
}

// pick finds the choice s names: its value, its label (in any case), or
// its number in the list (1 for the first), in that order.
func pick(cs []ElicitChoice, s string) (any, bool) {
	s = strings.TrimSpace(s)
	for _, c := range cs {
		if c.Value == s {
			return c.Value, true
		}
	}
	for _, c := range cs {
		if strings.EqualFold(c.Label, s) {
			return c.Value, true
		}
	}
	if n, err := strconv.Atoi(s); err == nil && n >= 1 && n <= len(cs) {
		return cs[n-1].Value, true
	}
	return nil, false
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// formatOK reports whether s is a value of the string format.
func formatOK(format, s string) bool {
	switch format {
	case "email":
		at := strings.LastIndexByte(s, '@')
		return at > 0 && at < len(s)-1 && !strings.ContainsAny(s, " \t\r\n") && strings.Contains(s[at+1:], ".")
	case "uri":
		colon := strings.IndexByte(s, ':')
		if colon < 1 || colon == len(s)-1 || strings.ContainsAny(s, " \t\r\n") {
			return false
		}
		for i, r := range s[:colon] {
			if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && (r >= '0' && r <= '9' || r == '+' || r == '-' || r == '.')) {
				return false
			}
		}
		return true
	case "date":
		_, err := time.Parse("2006-01-02", s)
		return err == nil
	case "date-time":
		_, err := time.Parse(time.RFC3339, s)
		return err == nil
	}
	return true
}

// registryShort cuts a value shown in a sentence.
func registryShort(s string) string { return cutRunes(s, 80) }

// cutRunes cuts s to n code points, with an ellipsis when it was longer.
func cutRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}

// objectField is the raw value of key in the JSON object raw, nil when
// it has none.
func objectField(raw json.RawMessage, key string) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return nil
	}
	return m[key]
}

// objectKeys lists the keys of the JSON object raw in the order they are
// written (the order a form asks in), once each: encoding/json's maps
// forget it. raw is valid JSON (it was unmarshalled).
func objectKeys(raw json.RawMessage) []string {
	var keys []string
	seen := map[string]bool{}
	depth, start := 0, -1
	expectKey := false
	for i := 0; i < len(raw); i++ {
		switch c := raw[i]; c {
		case '"':
			j := i + 1
			for j < len(raw) && raw[j] != '"' {
				if raw[j] == '\\' {
					j++
				}
				j++
			}
			if depth == 1 && expectKey {
				var k string
				if json.Unmarshal(raw[i:j+1], &k) == nil && !seen[k] {
					seen[k] = true
					keys = append(keys, k)
				}
				expectKey = false
			}
			i = j
		case '{', '[':
			depth++
			if depth == 1 && c == '{' {
				start = i
				expectKey = true
			}
		case '}', ']':
			depth--
		case ',':
			if depth == 1 && start >= 0 {
				expectKey = true
			}
		}
	}
	return keys
}
