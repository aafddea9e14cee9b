package fakegoogle

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode/utf16"
)

// Google Slides API v1: https://developers.google.com/workspace/slides/api/reference/rest
//
// A presentation keeps its slides (shapes with plain text, tables of text,
// a notes page with the speaker notes shape) and the eleven predefined
// layouts of the default theme with their placeholders. batchUpdate applies
// createSlide, insertText, deleteText, replaceAllText, deleteObject,
// duplicateObject and updateSlidesPosition to a copy, kept only when every
// request applied.

const (
	slidesScopePresentations         = "https://www.googleapis.com/auth/presentations"
	slidesScopePresentationsReadonly = "https://www.googleapis.com/auth/presentations.readonly"
)

var (
	slidesRead   = []string{slidesScopePresentations, slidesScopePresentationsReadonly, driveScopeFull, driveScopeReadonly, driveScopeFile}
	slidesCreate = []string{slidesScopePresentations, driveScopeFull, driveScopeFile}
	// batchUpdate's reference also lists drive.readonly and the Sheets
	// scopes, for linked charts and images.
	slidesWrite = []string{slidesScopePresentations, driveScopeFull, driveScopeFile, driveScopeReadonly, sheetsScope, sheetsScopeReadonly}
)

// slidesElement is a page element: a shape with text, or a table.
type slidesElement struct {
	ID          string
	ShapeType   string // TEXT_BOX, RECTANGLE; "" for a table
	Placeholder string // the placeholder's type, "" for none
	Index       int    // the placeholder's index
	Parent      string // the layout placeholder's object id
	Text        string // without the implicit final newline
	Table       [][]string
}

// slidesSlide is a slide with its notes page.
type slidesSlide struct {
	ID, Layout  string
	Elements    []*slidesElement
	NotesPage   string
	NotesShape  string
	Notes       string
	NotesExists bool // the speaker notes shape exists once text went in
}

// SlidesPresentation is one presentation.
type SlidesPresentation struct {
	ID, Title string
	Rev       int
	Slides    []*slidesSlide
}

// slidesLayout is a predefined layout of the default theme and its
// placeholders (type and index).
type slidesLayout struct {
	ID, Name, Display string
	Placeholders      []slidesPlaceholder
}

type slidesPlaceholder struct {
	Type  string
	Index int
}

var slidesLayouts = []slidesLayout{
	{"p2", "TITLE", "Title slide", []slidesPlaceholder{{"CENTERED_TITLE", 0}, {"SUBTITLE", 0}}},
	{"p3", "SECTION_HEADER", "Section header", []slidesPlaceholder{{"TITLE", 0}}},
	{"p4", "TITLE_AND_BODY", "Title and body", []slidesPlaceholder{{"TITLE", 0}, {"BODY", 0}}},
	{"p5", "TITLE_AND_TWO_COLUMNS", "Title and two columns", []slidesPlaceholder{{"TITLE", 0}, {"BODY", 0}, {"BODY", 1}}},
	{"p6", "TITLE_ONLY", "Title only", []slidesPlaceholder{{"TITLE", 0}}},
	{"p7", "ONE_COLUMN_TEXT", "One column text", []slidesPlaceholder{{"TITLE", 0}, {"BODY", 0}}},
	{"p8", "MAIN_POINT", "Main point", []slidesPlaceholder{{"TITLE", 0}}},
	{"p9", "SECTION_TITLE_AND_DESCRIPTION", "Section title and description", []slidesPlaceholder{{"TITLE", 0}, {"SUBTITLE", 0}, {"BODY", 0}}},
	{"p10", "CAPTION_ONLY", "Caption", []slidesPlaceholder{{"BODY", 0}}},
	{"p11", "BIG_NUMBER", "Big number", []slidesPlaceholder{{"TITLE", 0}, {"BODY", 0}}},
	{"p12", "BLANK", "Blank", nil},
}

func slidesLayoutBy(id, name string) *slidesLayout {
	for i := range slidesLayouts {
		if id != "" && slidesLayouts[i].ID == id || name != "" && slidesLayouts[i].Name == name {
			return &slidesLayouts[i]
		}
	}
	return nil
}

func (l *slidesLayout) placeholderID(p slidesPlaceholder) string {
	return fmt.Sprintf("%s_i%d", l.ID, slices.Index(l.Placeholders, p))
}

// SlidesState is the Slides service's data.
type SlidesState struct {
	Presentations map[string]*SlidesPresentation
}

// Slides returns the Slides service's state.
func (s *Server) Slides() *SlidesState {
	return State(s, "slides", func() *SlidesState {
		p := &SlidesPresentation{ID: "1pQ4rEvW8kLm2NbX5cZt7YhUj3GsDf6Aq9PoIu0Ty1Re", Title: "Q4 Product Review", Rev: 1}
		title := slidesNewSlide("p", "TITLE", map[string]string{"CENTERED_TITLE": "Q4 Product Review", "SUBTITLE": "Mobile team, 20 November 2026"}, "i")
		title.Notes, title.NotesExists = "Welcome everyone; keep the intros short.", true
		highlights := slidesNewSlide("g31a2b3c4d5_0_0", "TITLE_AND_BODY", map[string]string{"TITLE": "Highlights",
			"BODY": "Mobile beta shipped to 2,000 testers\nCrash rate down 40%\nSupport backlog cleared"}, "g31a2b3c4d5_1_")
		budget := slidesNewSlide("g31a2b3c4d5_0_10", "TITLE_ONLY", map[string]string{"TITLE": "Budget"}, "g31a2b3c4d5_2_")
		budget.Elements = append(budget.Elements, &slidesElement{ID: "g31a2b3c4d5_2_5", Table: [][]string{
			{"Item", "Cost"}, {"Contractors", "$12,000"}, {"Cloud hosting", "$4,500"}}})
		questions := slidesNewSlide("g31a2b3c4d5_0_20", "SECTION_HEADER", map[string]string{"TITLE": "Questions?"}, "g31a2b3c4d5_3_")
		questions.Elements = append(questions.Elements, &slidesElement{ID: "g31a2b3c4d5_3_5", ShapeType: "TEXT_BOX", Text: "Send questions to ada@example.com"})
		p.Slides = []*slidesSlide{title, highlights, budget, questions}
		return &SlidesState{Presentations: map[string]*SlidesPresentation{p.ID: p}}
	})
}

// Shape returns the text of a shape (or of speaker notes by their shape's
// id), for tests.
func (st *SlidesState) Shape(presentation, id string) (text string, ok bool) {
	p := st.Presentations[presentation]
	if p == nil {
		return "", false
	}
	for _, sl := range p.Slides {
		if sl.NotesShape == id {
			return sl.Notes, true
		}
		for _, e := range sl.Elements {
			if e.ID == id {
				return e.Text, true
			}
		}
	}
	return "", false
}

// SlideIDs returns a presentation's slide ids in order, for tests.
func (st *SlidesState) SlideIDs(presentation string) []string {
	var ids []string
	if p := st.Presentations[presentation]; p != nil {
		for _, sl := range p.Slides {
			ids = append(ids, sl.ID)
		}
	}
	return ids
}

// slidesNewSlide makes a slide of a layout with its placeholders, filled
// with texts by placeholder type; ids are prefix plus a number.
func slidesNewSlide(id, layout string, texts map[string]string, prefix string) *slidesSlide {
	l := slidesLayoutBy("", layout)
	sl := &slidesSlide{ID: id, Layout: l.ID, NotesPage: id + ":notes"}
	for i, ph := range l.Placeholders {
		sl.Elements = append(sl.Elements, &slidesElement{ID: fmt.Sprintf("%s%d", prefix, i), ShapeType: "TEXT_BOX",
			Placeholder: ph.Type, Index: ph.Index, Parent: l.placeholderID(ph), Text: texts[ph.Type]})
	}
	sl.NotesShape = fmt.Sprintf("%s%d", prefix, len(l.Placeholders)+1)
	return sl
}

func (p *SlidesPresentation) revisionID() string {
	return fmt.Sprintf("k7Rm2xQv%04dPb9WcT", p.Rev)
}

func (p *SlidesPresentation) clone() *SlidesPresentation {
	out := &SlidesPresentation{ID: p.ID, Title: p.Title, Rev: p.Rev}
	for _, sl := range p.Slides {
		out.Slides = append(out.Slides, sl.clone())
	}
	return out
}

func (sl *slidesSlide) clone() *slidesSlide {
	cp := *sl
	cp.Elements = nil
	for _, e := range sl.Elements {
		ce := *e
		ce.Table = nil
		for _, row := range e.Table {
			ce.Table = append(ce.Table, slices.Clone(row))
		}
		cp.Elements = append(cp.Elements, &ce)
	}
	return &cp
}

func slidesEMU(n int) map[string]any { return map[string]any{"magnitude": n, "unit": "EMU"} }

// slidesRenderText gives a TextContent: paragraph markers and text runs,
// the implicit final newline included; nil for no text.
func slidesRenderText(text string) map[string]any {
	if text == "" {
		return nil
	}
	var elems []any
	idx := 0
	for _, para := range strings.SplitAfter(text+"\n", "\n") {
		if para == "" {
			continue
		}
		n := len(utf16.Encode([]rune(para)))
		marker := map[string]any{"endIndex": idx + n, "paragraphMarker": map[string]any{"style": map[string]any{"direction": "LEFT_TO_RIGHT"}}}
		run := map[string]any{"endIndex": idx + n, "textRun": map[string]any{"content": para, "style": map[string]any{}}}
		if idx > 0 { // proto3 JSON leaves a zero index out
			marker["startIndex"], run["startIndex"] = idx, idx
		}
		elems = append(elems, marker, run)
		idx += n
	}
	return map[string]any{"textElements": elems}
}

func (e *slidesElement) render() map[string]any {
	out := map[string]any{"objectId": e.ID,
		"size":      map[string]any{"width": slidesEMU(8520600), "height": slidesEMU(1159800)},
		"transform": map[string]any{"scaleX": 1, "scaleY": 1, "translateX": 311700, "translateY": 744575, "unit": "EMU"}}
	if e.Table != nil {
		var rows, cols []any
		for r, row := range e.Table {
			var cells []any
			for c, text := range row {
				loc := map[string]any{}
				if r > 0 {
					loc["rowIndex"] = r
				}
				if c > 0 {
					loc["columnIndex"] = c
				}
				cell := map[string]any{"location": loc, "rowSpan": 1, "columnSpan": 1}
				if t := slidesRenderText(text); t != nil {
					cell["text"] = t
				}
				cells = append(cells, cell)
			}
			rows = append(rows, map[string]any{"rowHeight": slidesEMU(370800), "tableCells": cells})
		}
		for range e.Table[0] {
			cols = append(cols, map[string]any{"columnWidth": slidesEMU(4260300)})
		}
		out["table"] = map[string]any{"rows": len(e.Table), "columns": len(e.Table[0]), "tableRows": rows, "tableColumns": cols}
		return out
	}
	shape := map[string]any{"shapeType": e.ShapeType, "shapeProperties": map[string]any{"autofit": map[string]any{"fontScale": 1}}}
	if e.Placeholder != "" {
		ph := map[string]any{"type": e.Placeholder}
		if e.Index > 0 {
			ph["index"] = e.Index
		}
		if e.Parent != "" {
			ph["parentObjectId"] = e.Parent
		}
		shape["placeholder"] = ph
	}
	if t := slidesRenderText(e.Text); t != nil {
		shape["text"] = t
	}
	out["shape"] = shape
	return out
}

func (sl *slidesSlide) render() map[string]any {
	var elems []any
	for _, e := range sl.Elements {
		elems = append(elems, e.render())
	}
	return map[string]any{"objectId": sl.ID, "pageType": "SLIDE", "pageElements": elems,
		"slideProperties": map[string]any{"layoutObjectId": sl.Layout, "masterObjectId": "p1", "notesPage": sl.renderNotes()},
		"pageProperties":  map[string]any{"pageBackgroundFill": map[string]any{"propertyState": "INHERIT"}}}
}

func (sl *slidesSlide) renderNotes() map[string]any {
	elems := []any{}
	if sl.NotesExists {
		notes := &slidesElement{ID: sl.NotesShape, ShapeType: "TEXT_BOX", Placeholder: "BODY", Index: 1, Parent: "n:text", Text: sl.Notes}
		elems = append(elems, notes.render())
	}
	return map[string]any{"objectId": sl.NotesPage, "pageType": "NOTES", "pageElements": elems,
		"notesProperties": map[string]any{"speakerNotesObjectId": sl.NotesShape}}
}

func slidesRenderLayout(l *slidesLayout) map[string]any {
	var elems []any
	for _, ph := range l.Placeholders {
		e := &slidesElement{ID: l.placeholderID(ph), ShapeType: "TEXT_BOX", Placeholder: ph.Type, Index: ph.Index, Parent: "p1_" + strings.ToLower(ph.Type)}
		elems = append(elems, e.render())
	}
	return map[string]any{"objectId": l.ID, "pageType": "LAYOUT", "pageElements": elems,
		"layoutProperties": map[string]any{"masterObjectId": "p1", "name": l.Name, "displayName": l.Display}}
}

// render gives the Presentation resource.
func (p *SlidesPresentation) render() map[string]any {
	var slides, layouts []any
	for _, sl := range p.Slides {
		slides = append(slides, sl.render())
	}
	for i := range slidesLayouts {
		layouts = append(layouts, slidesRenderLayout(&slidesLayouts[i]))
	}
	return map[string]any{
		"presentationId": p.ID, "title": p.Title, "locale": "en", "revisionId": p.revisionID(),
		"pageSize": map[string]any{"width": slidesEMU(9144000), "height": slidesEMU(5143500)},
		"slides":   slides, "layouts": layouts,
		"masters":     []any{map[string]any{"objectId": "p1", "pageType": "MASTER", "pageElements": []any{}, "masterProperties": map[string]any{"displayName": "Simple Light"}}},
		"notesMaster": map[string]any{"objectId": "n", "pageType": "NOTES_MASTER", "pageElements": []any{}},
	}
}

// The batchUpdate request kinds the fake applies; any other fails to decode.
type slidesCell struct {
	RowIndex    int `json:"rowIndex"`
	ColumnIndex int `json:"columnIndex"`
}

type slidesRequest struct {
	CreateSlide *struct {
		ObjectID             string `json:"objectId"`
		InsertionIndex       *int   `json:"insertionIndex"`
		SlideLayoutReference *struct {
			PredefinedLayout string `json:"predefinedLayout"`
			LayoutID         string `json:"layoutId"`
		} `json:"slideLayoutReference"`
		PlaceholderIDMappings []struct {
			LayoutPlaceholder *struct {
				Type  string `json:"type"`
				Index int    `json:"index"`
			} `json:"layoutPlaceholder"`
			LayoutPlaceholderObjectID string `json:"layoutPlaceholderObjectId"`
			ObjectID                  string `json:"objectId"`
		} `json:"placeholderIdMappings"`
	} `json:"createSlide"`
	InsertText *struct {
		ObjectID       string      `json:"objectId"`
		CellLocation   *slidesCell `json:"cellLocation"`
		Text           string      `json:"text"`
		InsertionIndex int         `json:"insertionIndex"`
	} `json:"insertText"`
	DeleteText *struct {
		ObjectID     string      `json:"objectId"`
		CellLocation *slidesCell `json:"cellLocation"`
		TextRange    *struct {
			Type       string `json:"type"`
			StartIndex *int   `json:"startIndex"`
			EndIndex   *int   `json:"endIndex"`
		} `json:"textRange"`
	} `json:"deleteText"`
	ReplaceAllText *struct {
		ContainsText *struct {
			Text      string `json:"text"`
			MatchCase bool   `json:"matchCase"`
		} `json:"containsText"`
		ReplaceText   string   `json:"replaceText"`
		PageObjectIDs []string `json:"pageObjectIds"`
	} `json:"replaceAllText"`
	DeleteObject *struct {
		ObjectID string `json:"objectId"`
	} `json:"deleteObject"`
	DuplicateObject *struct {
		ObjectID  string            `json:"objectId"`
		ObjectIDs map[string]string `json:"objectIds"`
	} `json:"duplicateObject"`
	UpdateSlidesPosition *struct {
		SlideObjectIDs []string `json:"slideObjectIds"`
		InsertionIndex int      `json:"insertionIndex"`
	} `json:"updateSlidesPosition"`
}

var slidesObjectID = regexp.MustCompile(`^[a-zA-Z0-9_][a-zA-Z0-9_\-:]{4,49}$`)

// slidesEdit applies one batchUpdate to a copy of a presentation.
type slidesEdit struct {
	batchRequest
	p *SlidesPresentation
}

func (e *slidesEdit) slide(id string) int {
	return slices.IndexFunc(e.p.Slides, func(sl *slidesSlide) bool { return sl.ID == id })
}

// used tells whether an object id is taken in the presentation.
func (e *slidesEdit) used(id string) bool {
	if slidesLayoutBy(id, "") != nil || id == "p1" || id == "n" {
		return true
	}
	for _, sl := range e.p.Slides {
		if sl.ID == id || sl.NotesPage == id || sl.NotesShape == id {
			return true
		}
		for _, el := range sl.Elements {
			if el.ID == id {
				return true
			}
		}
	}
	return false
}

// newID checks an id the request gives, or makes one.
func (e *slidesEdit) newID(given string) (string, bool) {
	if given == "" {
		return e.c.S.NewID("SLIDES_API") + "_0", true
	}
	if !slidesObjectID.MatchString(given) {
		return "", e.bad("objectId %q must be 5 to 50 characters of [a-zA-Z0-9_-:], not starting with - or :", given)
	}
	if e.used(given) {
		return "", e.invalid("The object ID (%s) should be unique among all pages and page elements.", given)
	}
	return given, true
}

// text finds the text an insertText or deleteText addresses: a shape's, a
// table cell's, or the speaker notes'.
func (e *slidesEdit) text(id string, cell *slidesCell) (*string, bool) {
	for _, sl := range e.p.Slides {
		if sl.NotesShape == id {
			if cell != nil {
				return nil, e.bad("cellLocation given for the speaker notes shape %s", id)
			}
			sl.NotesExists = true // inserting text makes the shape
			return &sl.Notes, true
		}
		for _, el := range sl.Elements {
			if el.ID != id {
				continue
			}
			if el.Table == nil {
				if cell != nil {
					return nil, e.invalid("The object (%s) is not a table: cellLocation must not be set.", id)
				}
				return &el.Text, true
			}
			if cell == nil {
				return nil, e.invalid("The object (%s) is a table: cellLocation must be set.", id)
			}
			if cell.RowIndex < 0 || cell.RowIndex >= len(el.Table) || cell.ColumnIndex < 0 || cell.ColumnIndex >= len(el.Table[0]) {
				return nil, e.invalid("The cell location (%d, %d) is outside the table %s.", cell.RowIndex, cell.ColumnIndex, id)
			}
			return &el.Table[cell.RowIndex][cell.ColumnIndex], true
		}
	}
	return nil, e.invalid("The object (%s) could not be found.", id)
}

func (e *slidesEdit) apply(r slidesRequest) (map[string]any, bool) {
	kinds := 0
	for _, set := range []bool{r.CreateSlide != nil, r.InsertText != nil, r.DeleteText != nil, r.ReplaceAllText != nil,
		r.DeleteObject != nil, r.DuplicateObject != nil, r.UpdateSlidesPosition != nil} {
		if set {
			kinds++
		}
	}
	if kinds != 1 {
		return nil, e.bad("a request must hold exactly one kind of request, not %d", kinds)
	}
	switch {
	case r.CreateSlide != nil:
		return e.createSlide(r)
	case r.InsertText != nil:
		in := r.InsertText
		if in.Text == "" {
			return nil, e.bad("insertText needs text")
		}
		t, ok := e.text(in.ObjectID, in.CellLocation)
		if !ok {
			return nil, false
		}
		units := utf16.Encode([]rune(*t))
		if in.InsertionIndex < 0 || in.InsertionIndex > len(units) {
			return nil, e.invalid("The insertion index (%d) must be between 0 and the text's length, %d.", in.InsertionIndex, len(units))
		}
		*t = string(utf16.Decode(slices.Insert(units, in.InsertionIndex, utf16.Encode([]rune(in.Text))...)))
		return map[string]any{}, true
	case r.DeleteText != nil:
		in := r.DeleteText
		t, ok := e.text(in.ObjectID, in.CellLocation)
		if !ok {
			return nil, false
		}
		if in.TextRange == nil {
			return nil, e.bad("deleteText needs textRange")
		}
		units := utf16.Encode([]rune(*t))
		if len(units) == 0 {
			// Modelled strictly: a tool reads first and deletes only text there is.
			return nil, e.bad("deleteText: the object (%s) has no text", in.ObjectID)
		}
		from, to := 0, len(units)
		switch tr := in.TextRange; tr.Type {
		case "ALL":
		case "FROM_START_INDEX":
			if tr.StartIndex == nil {
				return nil, e.bad("FROM_START_INDEX needs startIndex")
			}
			from = *tr.StartIndex
		case "FIXED_RANGE":
			if tr.StartIndex == nil || tr.EndIndex == nil {
				return nil, e.bad("FIXED_RANGE needs startIndex and endIndex")
			}
			from, to = *tr.StartIndex, *tr.EndIndex
		default:
			return nil, e.bad("textRange.type %q is not ALL, FROM_START_INDEX or FIXED_RANGE", tr.Type)
		}
		if from < 0 || to > len(units) || from >= to {
			return nil, e.bad("textRange [%d, %d) is not within the text [0, %d)", from, to, len(units))
		}
		*t = string(utf16.Decode(slices.Delete(units, from, to)))
		return map[string]any{}, true
	case r.ReplaceAllText != nil:
		in := r.ReplaceAllText
		if in.ContainsText == nil || in.ContainsText.Text == "" {
			return nil, e.bad("replaceAllText needs containsText.text")
		}
		for _, id := range in.PageObjectIDs {
			if e.slide(id) < 0 {
				return nil, e.invalid("The page (%s) could not be found.", id)
			}
		}
		want, with := utf16.Encode([]rune(in.ContainsText.Text)), utf16.Encode([]rune(in.ReplaceText))
		n := 0
		replace := func(t *string) {
			units := utf16.Encode([]rune(*t))
			var out []uint16
			for {
				i := docsIndex(units, want, in.ContainsText.MatchCase)
				if i < 0 {
					break
				}
				n++
				out = append(append(out, units[:i]...), with...)
				units = units[i+len(want):]
			}
			*t = string(utf16.Decode(append(out, units...)))
		}
		for _, sl := range e.p.Slides {
			if len(in.PageObjectIDs) > 0 && !slices.Contains(in.PageObjectIDs, sl.ID) {
				continue
			}
			for _, el := range sl.Elements {
				replace(&el.Text)
				for _, row := range el.Table {
					for c := range row {
						replace(&row[c])
					}
				}
			}
		}
		changed := map[string]any{}
		if n > 0 { // proto3 JSON leaves a zero out
			changed["occurrencesChanged"] = n
		}
		return map[string]any{"replaceAllText": changed}, true
	case r.DeleteObject != nil:
		id := r.DeleteObject.ObjectID
		if i := e.slide(id); i >= 0 {
			e.p.Slides = slices.Delete(e.p.Slides, i, i+1)
			return map[string]any{}, true
		}
		for _, sl := range e.p.Slides {
			if i := slices.IndexFunc(sl.Elements, func(el *slidesElement) bool { return el.ID == id }); i >= 0 {
				sl.Elements = slices.Delete(sl.Elements, i, i+1)
				return map[string]any{}, true
			}
		}
		return nil, e.invalid("The object (%s) could not be found.", id)
	case r.DuplicateObject != nil:
		return e.duplicate(r.DuplicateObject.ObjectID, r.DuplicateObject.ObjectIDs)
	default:
		in := r.UpdateSlidesPosition
		if len(in.SlideObjectIDs) == 0 {
			return nil, e.bad("updateSlidesPosition needs slideObjectIds")
		}
		if in.InsertionIndex < 0 || in.InsertionIndex > len(e.p.Slides) {
			return nil, e.invalid("The insertion index (%d) must be between 0 and the number of slides, %d.", in.InsertionIndex, len(e.p.Slides))
		}
		var moving []*slidesSlide
		last := -1
		before := 0
		for _, id := range in.SlideObjectIDs {
			i := e.slide(id)
			if i < 0 {
				return nil, e.invalid("The slide (%s) could not be found.", id)
			}
			if i <= last {
				return nil, e.invalid("The slide object IDs must be in the existing presentation order, without duplicates.")
			}
			last = i
			if i < in.InsertionIndex {
				before++
			}
			moving = append(moving, e.p.Slides[i])
		}
		rest := slices.DeleteFunc(slices.Clone(e.p.Slides), func(sl *slidesSlide) bool { return slices.Contains(moving, sl) })
		e.p.Slides = slices.Insert(rest, in.InsertionIndex-before, moving...)
		return map[string]any{}, true
	}
}

func (e *slidesEdit) createSlide(r slidesRequest) (map[string]any, bool) {
	in := r.CreateSlide
	id, ok := e.newID(in.ObjectID)
	if !ok {
		return nil, false
	}
	at := len(e.p.Slides)
	if in.InsertionIndex != nil {
		at = *in.InsertionIndex
		if at < 0 || at > len(e.p.Slides) {
			return nil, e.invalid("The insertion index (%d) must be between 0 and the number of slides, %d.", at, len(e.p.Slides))
		}
	}
	layout := slidesLayoutBy("", "BLANK") // Google's default
	if ref := in.SlideLayoutReference; ref != nil {
		if (ref.PredefinedLayout == "") == (ref.LayoutID == "") {
			return nil, e.bad("slideLayoutReference needs exactly one of predefinedLayout and layoutId")
		}
		if layout = slidesLayoutBy(ref.LayoutID, ref.PredefinedLayout); layout == nil {
			if ref.LayoutID != "" {
				return nil, e.invalid("The layout (%s) could not be found.", ref.LayoutID)
			}
			return nil, e.bad("predefinedLayout %q is not a PredefinedLayout", ref.PredefinedLayout)
		}
	}
	sl := &slidesSlide{ID: id, Layout: layout.ID, NotesPage: id + ":notes", NotesShape: e.c.S.NewID("SLIDES_API") + "_1"}
	ids := map[string]string{}
	for _, m := range in.PlaceholderIDMappings {
		var ph *slidesPlaceholder
		for i, lp := range layout.Placeholders {
			if m.LayoutPlaceholder != nil && lp.Type == m.LayoutPlaceholder.Type && lp.Index == m.LayoutPlaceholder.Index ||
				m.LayoutPlaceholderObjectID == layout.placeholderID(lp) {
				ph = &layout.Placeholders[i]
			}
		}
		if ph == nil {
			return nil, e.invalid("The placeholder mapping does not match a placeholder on the layout %s.", layout.Name)
		}
		if ids[layout.placeholderID(*ph)], ok = e.newID(m.ObjectID); !ok {
			return nil, false
		}
	}
	for _, ph := range layout.Placeholders {
		pid := ids[layout.placeholderID(ph)]
		if pid == "" {
			pid = e.c.S.NewID("SLIDES_API") + "_0"
		}
		sl.Elements = append(sl.Elements, &slidesElement{ID: pid, ShapeType: "TEXT_BOX", Placeholder: ph.Type, Index: ph.Index, Parent: layout.placeholderID(ph)})
	}
	e.p.Slides = slices.Insert(e.p.Slides, at, sl)
	return map[string]any{"createSlide": map[string]any{"objectId": id}}, true
}

func (e *slidesEdit) duplicate(id string, given map[string]string) (map[string]any, bool) {
	newID := func(old string) (string, bool) {
		if v, ok := given[old]; ok {
			return e.newID(v)
		}
		return e.newID("")
	}
	if i := e.slide(id); i >= 0 {
		cp := e.p.Slides[i].clone()
		var ok bool
		if cp.ID, ok = newID(id); !ok {
			return nil, false
		}
		cp.NotesPage, cp.NotesShape = cp.ID+":notes", e.c.S.NewID("SLIDES_API")+"_1"
		for _, el := range cp.Elements {
			if el.ID, ok = newID(el.ID); !ok {
				return nil, false
			}
		}
		e.p.Slides = slices.Insert(e.p.Slides, i+1, cp)
		return map[string]any{"duplicateObject": map[string]any{"objectId": cp.ID}}, true
	}
	for _, sl := range e.p.Slides {
		for i, el := range sl.Elements {
			if el.ID != id {
				continue
			}
			cp := *el
			cp.Table = nil
			for _, row := range el.Table {
				cp.Table = append(cp.Table, slices.Clone(row))
			}
			var ok bool
			if cp.ID, ok = newID(id); !ok {
				return nil, false
			}
			sl.Elements = slices.Insert(sl.Elements, i+1, &cp)
			return map[string]any{"duplicateObject": map[string]any{"objectId": cp.ID}}, true
		}
	}
	return nil, e.invalid("The object (%s) could not be found.", id)
}

func init() {
	register("slides.googleapis.com", func(s *Server, r *Router) {
		st := s.Slides()
		r.Handle("POST /v1/presentations", slidesCreate, func(c *Call) {
			var in struct {
				Title string `json:"title"`
			}
			if !c.Params(nil) || !c.Decode(&in) {
				return
			}
			if in.Title == "" {
				in.Title = "Untitled presentation"
			}
			p := &SlidesPresentation{ID: s.NewID("1sNw4PrXe7Vb2QmKt9LcZy5HjUd3Fa8GoRi6Ws"), Title: in.Title, Rev: 1}
			p.Slides = []*slidesSlide{slidesNewSlide("p", "TITLE", nil, "i")}
			st.Presentations[p.ID] = p
			c.JSON(p.render())
		})
		r.Handle("GET /v1/presentations/{id}", slidesRead, func(c *Call) {
			if !c.Params(nil, "fields") {
				return
			}
			p := st.Presentations[c.Path("id")]
			if p == nil {
				c.NotFound()
				return
			}
			c.Partial(p.render(), slidesFieldNames)
		})
		r.Handle("GET /v1/presentations/{id}/pages/{page}", slidesRead, func(c *Call) {
			if !c.Params(nil, "fields") {
				return
			}
			p := st.Presentations[c.Path("id")]
			if p == nil {
				c.NotFound()
				return
			}
			page := c.Path("page")
			for _, sl := range p.Slides {
				switch page {
				case sl.ID:
					c.Partial(sl.render(), slidesFieldNames)
					return
				case sl.NotesPage:
					c.Partial(sl.renderNotes(), slidesFieldNames)
					return
				}
			}
			if l := slidesLayoutBy(page, ""); l != nil {
				c.Partial(slidesRenderLayout(l), slidesFieldNames)
				return
			}
			c.NotFound()
		})
		r.Handle("POST /v1/presentations/{call}", slidesWrite, func(c *Call) {
			id, ok := c.CustomMethod("call", "batchUpdate")
			if !ok {
				return
			}
			var in struct {
				Requests     []slidesRequest `json:"requests"`
				WriteControl *writeControl   `json:"writeControl"`
			}
			if !c.Params(nil) || !c.Decode(&in) {
				return
			}
			if in.WriteControl != nil && in.WriteControl.TargetRevisionID != "" {
				c.Bad("writeControl.targetRevisionId: Slides takes requiredRevisionId only")
				return
			}
			p := st.Presentations[id]
			if p == nil {
				c.NotFound()
				return
			}
			if len(in.Requests) == 0 {
				c.Bad("batchUpdate without requests")
				return
			}
			if !in.WriteControl.check(c, p.revisionID(), "presentation") {
				return
			}
			e := &slidesEdit{batchRequest: batchRequest{c: c}, p: p.clone()}
			replies, ok := applyEach(&e.batchRequest, in.Requests, e.apply)
			if !ok {
				return
			}
			e.p.Rev++
			st.Presentations[id] = e.p
			c.JSON(map[string]any{"presentationId": id, "replies": replies, "writeControl": map[string]any{"requiredRevisionId": e.p.revisionID()}})
		})
	})
}

// slidesFieldNames are the field names of the Presentation resource and
// what it holds.
var slidesFieldNames = flatNames(`presentationId title locale revisionId pageSize width height magnitude unit slides layouts
	masters notesMaster objectId pageType pageElements slideProperties layoutProperties masterProperties notesProperties
	pageProperties layoutObjectId masterObjectId notesPage isSkipped speakerNotesObjectId name displayName size transform
	description shape table image video line sheetsChart wordArt elementGroup children speakerSpotlight shapeType text
	placeholder type index parentObjectId shapeProperties autofit textElements startIndex endIndex textRun
	paragraphMarker autoText content style link url bullet rows columns tableRows tableColumns tableCells location
	rowIndex columnIndex rowSpan columnSpan rowHeight columnWidth tableCellProperties scaleX scaleY translateX translateY
	shearX shearY pageBackgroundFill propertyState contentUrl sourceUrl bold italic underline`)
