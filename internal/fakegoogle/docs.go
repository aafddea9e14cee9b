package fakegoogle

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode"
	"unicode/utf16"
)

// Google Docs API v1: https://developers.google.com/workspace/docs/api/reference/rest
//
// A document is kept as blocks (paragraphs and tables of paragraphs) of
// UTF-16 code units with a text style per unit, and rendered with the
// indices Google gives: the section break ends at 1, a table takes one index
// at its start, one per row and per cell, and one at its end; every
// paragraph ends with "\n". batchUpdate applies insertText, replaceAllText,
// updateTextStyle, updateParagraphStyle and deleteParagraphBullets to a copy
// and keeps it only when every request applied, as Google does.

const (
	docsScopeDocuments         = "https://www.googleapis.com/auth/documents"
	docsScopeDocumentsReadonly = "https://www.googleapis.com/auth/documents.readonly"
)

var (
	docsRead  = []string{docsScopeDocuments, docsScopeDocumentsReadonly, driveScopeFull, driveScopeReadonly, driveScopeFile}
	docsWrite = []string{docsScopeDocuments, driveScopeFull, driveScopeFile}
)

// docsStyle is the part of a TextStyle the fake keeps.
type docsStyle struct {
	Bold, Italic, Underline, Strikethrough, SmallCaps bool
	Link                                              string
}

// docsPara is a paragraph: its text always ends with "\n".
type docsPara struct {
	Text      []uint16
	Styles    []docsStyle // one per code unit
	Named     string      // paragraphStyle.namedStyleType
	HeadingID string
	ListID    string // bullet.listId, "" for none
	Level     int    // bullet.nestingLevel
}

// docsBlock is a structural element of the body: a paragraph or a table
// (rows of cells of paragraphs).
type docsBlock struct {
	Para  *docsPara
	Table [][][]*docsPara
}

// DocsDocument is one document.
type DocsDocument struct {
	ID, Title string
	Rev       int
	Blocks    []*docsBlock
	Lists     map[string]bool // list id -> numbered
}

// DocsState is the Docs service's data.
type DocsState struct {
	Docs map[string]*DocsDocument
}

// Docs returns the Docs service's state.
func (s *Server) Docs() *DocsState {
	return State(s, "docs", func() *DocsState {
		st := &DocsState{Docs: map[string]*DocsDocument{}}
		plan := &DocsDocument{ID: "1q4PlnNotes7Hd2KxVbW9sYtR3eUfGjA6cZmLo0iQpE8", Title: "Q4 Planning Notes", Rev: 1,
			Lists: map[string]bool{"kix.b5xq2m1tgoal": false, "kix.n7c3v9steps": true}}
		owner := docsNewPara("NORMAL_TEXT", "Owner: ada@example.com, updated 12 November 2026.")
		for i := range len("Owner:") {
			owner.Styles[i].Bold = true
		}
		goal1 := docsNewPara("NORMAL_TEXT", "Ship the mobile beta by 30 November 2026")
		goal2 := docsNewPara("NORMAL_TEXT", "Hire two support engineers")
		goal1.ListID, goal2.ListID = "kix.b5xq2m1tgoal", "kix.b5xq2m1tgoal"
		step1 := docsNewPara("NORMAL_TEXT", "Review the budget with finance")
		step2 := docsNewPara("NORMAL_TEXT", "Send the plan to the leadership team")
		step1.ListID, step2.ListID = "kix.n7c3v9steps", "kix.n7c3v9steps"
		channel := docsNewPara("NORMAL_TEXT", "Questions about the plan go to the planning channel.")
		for i := range len("Questions") {
			channel.Styles[i].Link = "https://chat.example.com/q4-planning"
		}
		cell := func(text string) []*docsPara { return []*docsPara{docsNewPara("NORMAL_TEXT", text)} }
		plan.Blocks = []*docsBlock{
			{Para: docsNewPara("TITLE", "Q4 Planning Notes")},
			{Para: owner},
			{Para: docsNewPara("HEADING_1", "Goals")},
			{Para: goal1},
			{Para: goal2},
			{Para: docsNewPara("HEADING_1", "Budget")},
			{Table: [][][]*docsPara{
				{cell("Item"), cell("Cost")},
				{cell("Contractors"), cell("$12,000")},
				{cell("Cloud hosting"), cell("$4,500")},
			}},
			{Para: docsNewPara("NORMAL_TEXT", "")},
			{Para: docsNewPara("HEADING_2", "Next steps")},
			{Para: step1},
			{Para: step2},
			{Para: channel},
		}
		plan.Blocks[2].Para.HeadingID = "h.k2w9f1goals"
		plan.Blocks[5].Para.HeadingID = "h.p8d3m4budget"
		plan.Blocks[8].Para.HeadingID = "h.x5t7q2steps"
		meeting := &DocsDocument{ID: "1mEetNg18Nov2026aQ3rT5yU7iO9pL2kJ4hG6fD8sA0z", Title: "Meeting notes 2026-11-18", Rev: 1,
			Lists: map[string]bool{"kix.m3a1ctions": false}}
		act1 := docsNewPara("NORMAL_TEXT", "Grace: book the venue")
		act2 := docsNewPara("NORMAL_TEXT", "Linus: draft the invite")
		act1.ListID, act2.ListID = "kix.m3a1ctions", "kix.m3a1ctions"
		meeting.Blocks = []*docsBlock{
			{Para: docsNewPara("HEADING_1", "Weekly sync")},
			{Para: docsNewPara("NORMAL_TEXT", "Attendees: Ada, Grace, Linus")},
			{Para: docsNewPara("NORMAL_TEXT", "The launch moves to 30 November.")},
			{Para: docsNewPara("HEADING_2", "Action items")},
			{Para: act1},
			{Para: act2},
		}
		meeting.Blocks[3].Para.HeadingID = "h.a9c2t5items"
		meeting.Blocks[0].Para.HeadingID = "h.w1s4y7sync"
		st.Docs[plan.ID] = plan
		st.Docs[meeting.ID] = meeting
		return st
	})
}

// Text returns a document's body as plain text, tables' cells as lines.
func (st *DocsState) Text(id string) string {
	d := st.Docs[id]
	if d == nil {
		return ""
	}
	var b strings.Builder
	d.walk(func(p *docsPara, _ int) { b.WriteString(string(utf16.Decode(p.Text))) })
	return b.String()
}

// DocsParaInfo is what tests see of a paragraph: its named style and list,
// and the text style at the start of the text looked for.
type DocsParaInfo struct {
	Named, ListID           string
	Bold, Italic, Underline bool
	Link                    string
}

// Para finds the first paragraph of a document holding text (matching
// case), for tests to check its style.
func (st *DocsState) Para(id, text string) (info DocsParaInfo, ok bool) {
	d := st.Docs[id]
	if d == nil {
		return info, false
	}
	want := utf16.Encode([]rune(text))
	d.walk(func(p *docsPara, _ int) {
		if ok {
			return
		}
		if i := docsIndex(p.Text, want, true); i >= 0 {
			ts := p.Styles[i]
			info, ok = DocsParaInfo{Named: p.Named, ListID: p.ListID, Bold: ts.Bold, Italic: ts.Italic, Underline: ts.Underline, Link: ts.Link}, true
		}
	})
	return info, ok
}

func docsNewPara(named, text string) *docsPara {
	u := utf16.Encode([]rune(text + "\n"))
	return &docsPara{Text: u, Styles: make([]docsStyle, len(u)), Named: named}
}

func (d *DocsDocument) revisionID() string {
	return fmt.Sprintf("ALBJ4LtQ%04dxVmW8bN2cZ", d.Rev)
}

// walk visits the body's paragraphs, table cells' included, in index order
// with their start index, and returns the body's end index.
func (d *DocsDocument) walk(visit func(p *docsPara, start int)) int {
	idx := 1 // the section break takes index 0
	for _, b := range d.Blocks {
		if b.Para != nil {
			visit(b.Para, idx)
			idx += len(b.Para.Text)
			continue
		}
		idx++ // the table's start
		for _, row := range b.Table {
			idx++
			for _, cell := range row {
				idx++
				for _, p := range cell {
					visit(p, idx)
					idx += len(p.Text)
				}
			}
		}
		idx++ // the table's end
	}
	return idx
}

func (d *DocsDocument) clone() *DocsDocument {
	cp := func(p *docsPara) *docsPara {
		q := *p
		q.Text, q.Styles = slices.Clone(p.Text), slices.Clone(p.Styles)
		return &q
	}
	out := &DocsDocument{ID: d.ID, Title: d.Title, Rev: d.Rev, Lists: maps.Clone(d.Lists)}
	for _, b := range d.Blocks {
		if b.Para != nil {
			out.Blocks = append(out.Blocks, &docsBlock{Para: cp(b.Para)})
			continue
		}
		var rows [][][]*docsPara
		for _, row := range b.Table {
			var cells [][]*docsPara
			for _, cell := range row {
				var ps []*docsPara
				for _, p := range cell {
					ps = append(ps, cp(p))
				}
				cells = append(cells, ps)
			}
			rows = append(rows, cells)
		}
		out.Blocks = append(out.Blocks, &docsBlock{Table: rows})
	}
	return out
}

// split makes every "\n" end a paragraph, after an edit inserted some: the
// new paragraphs keep the style and the list of the one they came from.
func docsSplit(ps []*docsPara) []*docsPara {
	var out []*docsPara
	for _, p := range ps {
		for {
			i := slices.Index(p.Text[:len(p.Text)-1], '\n')
			if i < 0 {
				out = append(out, p)
				break
			}
			head := *p
			head.Text, head.Styles = slices.Clone(p.Text[:i+1]), slices.Clone(p.Styles[:i+1])
			out = append(out, &head)
			rest := *p
			rest.Text, rest.Styles, rest.HeadingID = p.Text[i+1:], p.Styles[i+1:], ""
			if p.HeadingID != "" {
				rest.HeadingID = p.HeadingID + fmt.Sprint(len(out))
			}
			p = &rest
		}
	}
	return out
}

func (d *DocsDocument) normalize() {
	var blocks []*docsBlock
	for _, b := range d.Blocks {
		if b.Para == nil {
			for _, row := range b.Table {
				for j := range row {
					row[j] = docsSplit(row[j])
				}
			}
			blocks = append(blocks, b)
			continue
		}
		for _, p := range docsSplit([]*docsPara{b.Para}) {
			blocks = append(blocks, &docsBlock{Para: p})
		}
	}
	d.Blocks = blocks
}

// render gives the Document resource.
func (d *DocsDocument) render() map[string]any {
	idx := 1
	para := func(p *docsPara) map[string]any {
		start := idx
		var elems []any
		for i := 0; i < len(p.Text); {
			j := i + 1
			for j < len(p.Text) && p.Styles[j] == p.Styles[i] {
				j++
			}
			elems = append(elems, map[string]any{"startIndex": start + i, "endIndex": start + j,
				"textRun": map[string]any{"content": string(utf16.Decode(p.Text[i:j])), "textStyle": docsRenderStyle(p.Styles[i])}})
			i = j
		}
		idx += len(p.Text)
		pstyle := map[string]any{"namedStyleType": p.Named, "direction": "LEFT_TO_RIGHT"}
		if p.HeadingID != "" {
			pstyle["headingId"] = p.HeadingID
		}
		out := map[string]any{"elements": elems, "paragraphStyle": pstyle}
		if p.ListID != "" {
			bullet := map[string]any{"listId": p.ListID, "textStyle": map[string]any{}}
			if p.Level > 0 {
				bullet["nestingLevel"] = p.Level
			}
			out["bullet"] = bullet
		}
		return map[string]any{"startIndex": start, "endIndex": idx, "paragraph": out}
	}
	content := []any{map[string]any{"endIndex": 1, "sectionBreak": map[string]any{"sectionStyle": map[string]any{
		"columnSeparatorStyle": "NONE", "contentDirection": "LEFT_TO_RIGHT", "sectionType": "CONTINUOUS"}}}}
	for _, b := range d.Blocks {
		if b.Para != nil {
			content = append(content, para(b.Para))
			continue
		}
		start := idx
		idx++
		var rows, cols []any
		for _, row := range b.Table {
			rowStart := idx
			idx++
			var cells []any
			for _, cell := range row {
				cellStart := idx
				idx++
				var cc []any
				for _, p := range cell {
					cc = append(cc, para(p))
				}
				cells = append(cells, map[string]any{"startIndex": cellStart, "endIndex": idx, "content": cc,
					"tableCellStyle": map[string]any{"rowSpan": 1, "columnSpan": 1, "contentAlignment": "TOP"}})
			}
			rows = append(rows, map[string]any{"startIndex": rowStart, "endIndex": idx, "tableCells": cells,
				"tableRowStyle": map[string]any{"minRowHeight": map[string]any{"unit": "PT"}}})
		}
		for range b.Table[0] {
			cols = append(cols, map[string]any{"widthType": "EVENLY_DISTRIBUTED"})
		}
		idx++
		content = append(content, map[string]any{"startIndex": start, "endIndex": idx, "table": map[string]any{
			"rows": len(b.Table), "columns": len(b.Table[0]), "tableRows": rows,
			"tableStyle": map[string]any{"tableColumnProperties": cols}}})
	}
	lists := map[string]any{}
	for id, numbered := range d.Lists {
		var levels []any
		for n := range 9 {
			lvl := map[string]any{"bulletAlignment": "START", "indentFirstLine": map[string]any{"magnitude": 18 + 36*n, "unit": "PT"},
				"indentStart": map[string]any{"magnitude": 36 + 36*n, "unit": "PT"}, "startNumber": 1, "textStyle": map[string]any{"underline": false}}
			if numbered {
				lvl["glyphType"], lvl["glyphFormat"] = "DECIMAL", fmt.Sprintf("%%%d.", n)
			} else {
				lvl["glyphSymbol"], lvl["glyphFormat"] = []string{"●", "○", "■"}[n%3], fmt.Sprintf("%%%d", n)
			}
			levels = append(levels, lvl)
		}
		lists[id] = map[string]any{"listProperties": map[string]any{"nestingLevels": levels}}
	}
	out := map[string]any{
		"documentId": d.ID, "title": d.Title, "revisionId": d.revisionID(), "suggestionsViewMode": "SUGGESTIONS_INLINE",
		"body": map[string]any{"content": content},
		"documentStyle": map[string]any{
			"pageSize":  map[string]any{"width": map[string]any{"magnitude": 612, "unit": "PT"}, "height": map[string]any{"magnitude": 792, "unit": "PT"}},
			"marginTop": map[string]any{"magnitude": 72, "unit": "PT"}, "marginBottom": map[string]any{"magnitude": 72, "unit": "PT"},
			"marginLeft": map[string]any{"magnitude": 72, "unit": "PT"}, "marginRight": map[string]any{"magnitude": 72, "unit": "PT"},
		},
	}
	if len(lists) > 0 {
		out["lists"] = lists
	}
	return out
}

func docsRenderStyle(st docsStyle) map[string]any {
	out := map[string]any{}
	for k, v := range map[string]bool{"bold": st.Bold, "italic": st.Italic, "underline": st.Underline, "strikethrough": st.Strikethrough, "smallCaps": st.SmallCaps} {
		if v {
			out[k] = true
		}
	}
	if st.Link != "" {
		out["link"] = map[string]any{"url": st.Link}
		// Google shows links blue and underlined.
		out["underline"] = true
		out["foregroundColor"] = map[string]any{"color": map[string]any{"rgbColor": map[string]any{"red": 0.06666667, "green": 0.33333334, "blue": 0.8}}}
	}
	return out
}

// docsIndex finds want in text, folding case unless matchCase; -1 if
// absent.
func docsIndex(text, want []uint16, matchCase bool) int {
	if len(want) == 0 {
		return -1
	}
	eq := func(a, b uint16) bool {
		return a == b || !matchCase && unicode.ToLower(rune(a)) == unicode.ToLower(rune(b))
	}
outer:
	for i := 0; i+len(want) <= len(text); i++ {
		for j, w := range want {
			if !eq(text[i+j], w) {
				continue outer
			}
		}
		return i
	}
	return -1
}

// The batchUpdate request kinds the fake applies; any other fails to decode.
type docsRange struct {
	SegmentID  string `json:"segmentId"`
	StartIndex *int   `json:"startIndex"`
	EndIndex   *int   `json:"endIndex"`
	TabID      string `json:"tabId"`
}

type docsLocation struct {
	SegmentID string `json:"segmentId"`
	Index     *int   `json:"index"`
	TabID     string `json:"tabId"`
}

type docsEndOfSegment struct {
	SegmentID string `json:"segmentId"`
	TabID     string `json:"tabId"`
}

type docsTextStyleIn struct {
	Bold          *bool `json:"bold"`
	Italic        *bool `json:"italic"`
	Underline     *bool `json:"underline"`
	Strikethrough *bool `json:"strikethrough"`
	SmallCaps     *bool `json:"smallCaps"`
	Link          *struct {
		URL        string `json:"url"`
		BookmarkID string `json:"bookmarkId"`
		HeadingID  string `json:"headingId"`
	} `json:"link"`
}

type docsRequest struct {
	InsertText *struct {
		Text                 string            `json:"text"`
		Location             *docsLocation     `json:"location"`
		EndOfSegmentLocation *docsEndOfSegment `json:"endOfSegmentLocation"`
	} `json:"insertText"`
	ReplaceAllText *struct {
		ReplaceText  string `json:"replaceText"`
		ContainsText *struct {
			Text          string `json:"text"`
			MatchCase     bool   `json:"matchCase"`
			SearchByRegex bool   `json:"searchByRegex"`
		} `json:"containsText"`
		TabsCriteria *struct {
			TabIDs []string `json:"tabIds"`
		} `json:"tabsCriteria"`
	} `json:"replaceAllText"`
	UpdateTextStyle *struct {
		Range     *docsRange       `json:"range"`
		TextStyle *docsTextStyleIn `json:"textStyle"`
		Fields    string           `json:"fields"`
	} `json:"updateTextStyle"`
	UpdateParagraphStyle *struct {
		Range          *docsRange `json:"range"`
		ParagraphStyle *struct {
			NamedStyleType *string `json:"namedStyleType"`
		} `json:"paragraphStyle"`
		Fields string `json:"fields"`
	} `json:"updateParagraphStyle"`
	DeleteParagraphBullets *struct {
		Range *docsRange `json:"range"`
	} `json:"deleteParagraphBullets"`
}

var docsNamedStyles = []string{"NORMAL_TEXT", "TITLE", "SUBTITLE", "HEADING_1", "HEADING_2", "HEADING_3", "HEADING_4", "HEADING_5", "HEADING_6"}

// docsEdit applies one batchUpdate to a copy of a document.
type docsEdit struct {
	batchRequest
	d *DocsDocument
}

func (e *docsEdit) segment(segmentID, tabID string) bool {
	if segmentID != "" {
		return e.bad("segmentId %q: the fake documents have no headers, footers or footnotes", segmentID)
	}
	if tabID != "" && tabID != "t.0" {
		return e.invalid("The tab with ID %s was not found.", tabID)
	}
	return true
}

// rng checks a range: malformed ones fail the test.
func (e *docsEdit) rng(r *docsRange) (start, end int, ok bool) {
	if r == nil || r.StartIndex == nil || r.EndIndex == nil {
		return 0, 0, e.bad("range needs startIndex and endIndex")
	}
	if !e.segment(r.SegmentID, r.TabID) {
		return 0, 0, false
	}
	start, end = *r.StartIndex, *r.EndIndex
	bodyEnd := e.d.walk(func(*docsPara, int) {})
	if start < 1 || end <= start || end > bodyEnd {
		return 0, 0, e.bad("range [%d, %d) is not a range within the body [1, %d)", start, end, bodyEnd)
	}
	return start, end, true
}

// overlapping visits the paragraphs a range touches with the part of them
// it covers.
func (e *docsEdit) overlapping(start, end int, visit func(p *docsPara, from, to int)) {
	e.d.walk(func(p *docsPara, pstart int) {
		from, to := max(start, pstart), min(end, pstart+len(p.Text))
		if from < to {
			visit(p, from-pstart, to-pstart)
		}
	})
}

func (e *docsEdit) apply(r docsRequest) (reply map[string]any, ok bool) {
	kinds := 0
	for _, set := range []bool{r.InsertText != nil, r.ReplaceAllText != nil, r.UpdateTextStyle != nil, r.UpdateParagraphStyle != nil, r.DeleteParagraphBullets != nil} {
		if set {
			kinds++
		}
	}
	if kinds != 1 {
		return nil, e.bad("a request must hold exactly one kind of request, not %d", kinds)
	}
	switch {
	case r.InsertText != nil:
		return map[string]any{}, e.insertText(r.InsertText.Text, r.InsertText.Location, r.InsertText.EndOfSegmentLocation)
	case r.ReplaceAllText != nil:
		rt := r.ReplaceAllText
		if rt.ContainsText == nil || rt.ContainsText.Text == "" {
			return nil, e.bad("replaceAllText needs containsText.text")
		}
		if rt.ContainsText.SearchByRegex {
			return nil, e.bad("searchByRegex is not modelled by the fake")
		}
		if rt.TabsCriteria != nil {
			for _, t := range rt.TabsCriteria.TabIDs {
				if !e.segment("", t) {
					return nil, false
				}
			}
		}
		n := e.replaceAll(rt.ContainsText.Text, rt.ReplaceText, rt.ContainsText.MatchCase)
		// Google leaves a zero count out, as proto3 JSON does.
		changed := map[string]any{}
		if n > 0 {
			changed["occurrencesChanged"] = n
		}
		return map[string]any{"replaceAllText": changed}, true
	case r.UpdateTextStyle != nil:
		return map[string]any{}, e.updateTextStyle(r.UpdateTextStyle.Range, r.UpdateTextStyle.TextStyle, r.UpdateTextStyle.Fields)
	case r.UpdateParagraphStyle != nil:
		u := r.UpdateParagraphStyle
		start, end, ok := e.rng(u.Range)
		if !ok {
			return nil, false
		}
		if u.Fields != "namedStyleType" {
			return nil, e.bad("fields %q: the fake models namedStyleType only", u.Fields)
		}
		named := "NORMAL_TEXT"
		if u.ParagraphStyle != nil && u.ParagraphStyle.NamedStyleType != nil {
			named = *u.ParagraphStyle.NamedStyleType
		}
		if !slices.Contains(docsNamedStyles, named) {
			return nil, e.bad("namedStyleType %q is not one of %v", named, docsNamedStyles)
		}
		e.overlapping(start, end, func(p *docsPara, _, _ int) {
			p.Named = named
			switch {
			case named == "NORMAL_TEXT":
				p.HeadingID = ""
			case p.HeadingID == "":
				p.HeadingID = "h." + strings.ToLower(e.c.S.NewID("hd"))
			}
		})
		return map[string]any{}, true
	default:
		start, end, ok := e.rng(r.DeleteParagraphBullets.Range)
		if !ok {
			return nil, false
		}
		e.overlapping(start, end, func(p *docsPara, _, _ int) { p.ListID, p.Level = "", 0 })
		return map[string]any{}, true
	}
}

func (e *docsEdit) insertText(text string, loc *docsLocation, eos *docsEndOfSegment) bool {
	if (loc == nil) == (eos == nil) {
		return e.bad("insertText needs exactly one of location and endOfSegmentLocation")
	}
	if text == "" {
		return e.bad("insertText needs text")
	}
	end := e.d.walk(func(*docsPara, int) {})
	var at int
	if loc != nil {
		if loc.Index == nil {
			return e.bad("location needs an index")
		}
		if !e.segment(loc.SegmentID, loc.TabID) {
			return false
		}
		at = *loc.Index
		if at < 1 {
			return e.invalid("Index %d must be greater than or equal to 1.", at)
		}
		if at >= end {
			return e.invalid("Index %d must be less than the end index of the referenced segment, %d.", at, end)
		}
	} else {
		if !e.segment(eos.SegmentID, eos.TabID) {
			return false
		}
		at = end - 1 // before the body's last newline
	}
	units := utf16.Encode([]rune(text))
	done := false
	e.d.walk(func(p *docsPara, start int) {
		if done || at < start || at >= start+len(p.Text) {
			return
		}
		off := at - start
		inherit := p.Styles[max(off-1, 0)]
		styles := make([]docsStyle, len(units))
		for i := range styles {
			styles[i] = inherit
		}
		p.Text = slices.Insert(p.Text, off, units...)
		p.Styles = slices.Insert(p.Styles, off, styles...)
		done = true
	})
	if !done {
		return e.invalid("The insertion index must be inside the bounds of an existing paragraph. You can still create new paragraphs by inserting newlines.")
	}
	e.d.normalize()
	return true
}

func (e *docsEdit) replaceAll(find, replace string, matchCase bool) int {
	want, with := utf16.Encode([]rune(find)), utf16.Encode([]rune(replace))
	n := 0
	e.d.walk(func(p *docsPara, _ int) {
		body := p.Text[:len(p.Text)-1] // a match never takes the paragraph's newline
		var text []uint16
		var styles []docsStyle
		pos, found := 0, false
		for {
			i := docsIndex(body[pos:], want, matchCase)
			if i < 0 {
				break
			}
			found, n = true, n+1
			at := pos + i
			text = append(append(text, body[pos:at]...), with...)
			styles = append(styles, p.Styles[pos:at]...)
			for range with {
				styles = append(styles, p.Styles[at]) // the replacement takes the match's style
			}
			pos = at + len(want)
		}
		if found {
			p.Text, p.Styles = append(text, p.Text[pos:]...), append(styles, p.Styles[pos:]...)
		}
	})
	e.d.normalize()
	return n
}

func (e *docsEdit) updateTextStyle(r *docsRange, in *docsTextStyleIn, fields string) bool {
	start, end, ok := e.rng(r)
	if !ok {
		return false
	}
	if fields == "" {
		return e.bad("updateTextStyle needs fields")
	}
	if in == nil {
		in = &docsTextStyleIn{}
	}
	var set []func(*docsStyle)
	flag := func(v *bool) bool { return v != nil && *v }
	for _, f := range strings.Split(fields, ",") {
		switch strings.TrimSpace(f) {
		case "bold":
			set = append(set, func(s *docsStyle) { s.Bold = flag(in.Bold) })
		case "italic":
			set = append(set, func(s *docsStyle) { s.Italic = flag(in.Italic) })
		case "underline":
			set = append(set, func(s *docsStyle) { s.Underline = flag(in.Underline) })
		case "strikethrough":
			set = append(set, func(s *docsStyle) { s.Strikethrough = flag(in.Strikethrough) })
		case "smallCaps":
			set = append(set, func(s *docsStyle) { s.SmallCaps = flag(in.SmallCaps) })
		case "link":
			url := ""
			if in.Link != nil {
				if in.Link.URL == "" {
					return e.bad("link without a url: the fake models url links only")
				}
				url = in.Link.URL
			}
			set = append(set, func(s *docsStyle) { s.Link = url })
		default:
			return e.bad("fields %q: %q is not a TextStyle field the fake models", fields, f)
		}
	}
	e.overlapping(start, end, func(p *docsPara, from, to int) {
		for i := from; i < to; i++ {
			for _, f := range set {
				f(&p.Styles[i])
			}
		}
	})
	return true
}

// check finds a broken document, for the test to report: every paragraph ends
// with its only newline and has a style per unit.
func (d *DocsDocument) check() error {
	var err error
	d.walk(func(p *docsPara, start int) {
		if err == nil && (len(p.Text) == 0 || p.Text[len(p.Text)-1] != '\n' || slices.Index(p.Text, '\n') != len(p.Text)-1 || len(p.Styles) != len(p.Text)) {
			err = fmt.Errorf("fakegoogle: docs: the paragraph at %d is broken: %q", start, string(utf16.Decode(p.Text)))
		}
	})
	return err
}

func init() {
	register("docs.googleapis.com", func(s *Server, r *Router) {
		st := s.Docs()
		r.Handle("POST /v1/documents", docsWrite, func(c *Call) {
			var in struct {
				Title string `json:"title"`
			}
			if !c.Params(nil) || !c.Decode(&in) {
				return
			}
			if in.Title == "" {
				in.Title = "Untitled document"
			}
			d := &DocsDocument{ID: s.NewID("1Nw7dQxR2cTz5bKp9LmYv3HsJf6Ga8EuWo1Xi"), Title: in.Title, Rev: 1, Lists: map[string]bool{},
				Blocks: []*docsBlock{{Para: docsNewPara("NORMAL_TEXT", "")}}}
			st.Docs[d.ID] = d
			c.JSON(d.render())
		})
		r.Handle("GET /v1/documents/{doc}", docsRead, func(c *Call) {
			if !c.Params(nil, "fields", "suggestionsViewMode", "includeTabsContent") {
				return
			}
			if v := c.Query.Get("includeTabsContent"); v == "true" {
				c.Bad("includeTabsContent: the fake models the first tab only")
				return
			}
			d := st.Docs[c.Path("doc")]
			if d == nil {
				c.NotFound()
				return
			}
			c.Partial(d.render(), docsFieldNames)
		})
		r.Handle("POST /v1/documents/{call}", docsWrite, func(c *Call) {
			id, ok := c.CustomMethod("call", "batchUpdate")
			if !ok {
				return
			}
			var in struct {
				Requests     []docsRequest `json:"requests"`
				WriteControl *writeControl `json:"writeControl"`
			}
			if !c.Params(nil) || !c.Decode(&in) {
				return
			}
			d := st.Docs[id]
			if d == nil {
				c.NotFound()
				return
			}
			if len(in.Requests) == 0 {
				c.Bad("batchUpdate without requests")
				return
			}
			if !in.WriteControl.check(c, d.revisionID(), "document") {
				return
			}
			e := &docsEdit{batchRequest: batchRequest{c: c}, d: d.clone()}
			replies, ok := applyEach(&e.batchRequest, in.Requests, e.apply)
			if !ok {
				return
			}
			if err := e.d.check(); err != nil {
				c.S.t.Errorf("%v", err)
			}
			e.d.Rev++
			st.Docs[id] = e.d
			c.JSON(map[string]any{"documentId": id, "replies": replies, "writeControl": map[string]any{"requiredRevisionId": e.d.revisionID()}})
		})
	})
}

// docsFieldNames are the field names of the Document resource and what it
// holds.
var docsFieldNames = flatNames(`documentId title revisionId suggestionsViewMode body content tabs headers footers footnotes
	documentStyle namedStyles lists namedRanges inlineObjects positionedObjects suggestedDocumentStyleChanges
	suggestedNamedStylesChanges startIndex endIndex paragraph sectionBreak table tableOfContents elements textRun
	content textStyle suggestedInsertionIds suggestedDeletionIds suggestedTextStyleChanges autoText pageBreak
	columnBreak footnoteReference horizontalRule equation inlineObjectElement person richLink paragraphStyle
	namedStyleType headingId alignment direction bullet listId nestingLevel positionedObjectIds rows columns
	tableRows tableCells tableCellStyle tableRowStyle tableStyle bold italic underline strikethrough smallCaps
	link url bookmarkId bookmark heading tabId foregroundColor backgroundColor fontSize weightedFontFamily
	baselineOffset listProperties nestingLevels glyphType glyphSymbol glyphFormat startNumber sectionStyle
	tabProperties childTabs documentTab index parentTabId`)
