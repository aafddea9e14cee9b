package manifests_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/toolroute/toolroute/internal/fakegoogle"
)

const sheetsSeed = fakegoogle.SheetsSeedID

func init() {
	errorProbes = append(errorProbes, errorProbe{"google_sheets", "sheets_get_info", `{"spreadsheet_id":"` + sheetsSeed + `"}`})
}

// sheetsArgs builds a tool's arguments on the seeded spreadsheet.
func sheetsArgs(t *testing.T, args map[string]any) string {
	t.Helper()
	if _, ok := args["spreadsheet_id"]; !ok {
		args["spreadsheet_id"] = sheetsSeed
	}
	b, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// sheetsBody decodes the last request's JSON body.
func sheetsBody(t *testing.T, g *gtest) map[string]any {
	t.Helper()
	var body map[string]any
	if err := json.Unmarshal(g.Last().Body, &body); err != nil {
		t.Fatalf("body %s: %v", g.Last().Body, err)
	}
	return body
}

// sheetsJSON writes v as compact JSON, keys sorted, without HTML escapes.
func sheetsJSON(v any) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
	return strings.TrimSuffix(b.String(), "\n")
}

func TestGoogleSheetsInfo(t *testing.T) {
	g := newGoogle(t)
	g.Call("sheets_get_info", sheetsArgs(t, map[string]any{}),
		`Spreadsheet "Q4 Team Budget" (id: `+sheetsSeed+`)`,
		"URL: https://docs.google.com/spreadsheets/d/"+sheetsSeed+"/edit",
		"Locale: en_GB, time zone: Europe/London",
		"2 sheets:",
		"- Expenses (sheetId 0): 1000 rows × 26 columns (A–Z), 1 frozen row",
		"- Team Hours (sheetId 1843021736; in ranges write 'Team Hours'!A1): 200 rows × 8 columns (A–H)")
	last := g.Last()
	if last.Method != "GET" || last.Path != "/v4/spreadsheets/"+sheetsSeed || !strings.Contains(last.Query.Get("fields"), "sheets(properties(sheetId,title") {
		t.Errorf("get info request: %s %s %v", last.Method, last.Path, last.Query)
	}
	// The URL works as the id.
	g.Call("sheets_get_info", `{"spreadsheet_id":"https://docs.google.com/spreadsheets/d/`+sheetsSeed+`/edit#gid=0"}`, "Q4 Team Budget")
	g.Fail("sheets_get_info", `{"spreadsheet_id":"1NoSuchSheet"}`, "HTTP 404", "No spreadsheet 1NoSuchSheet", "drive_search")
	g.Fail("sheets_get_info", `{"spreadsheet_id":"not an id"}`, "spreadsheet_id must be a spreadsheet's id")
	g.Fail("sheets_get_info", `{"spreadsheet_id":" "}`, "Missing spreadsheet_id")
}

func TestGoogleSheetsRead(t *testing.T) {
	g := newGoogle(t)
	out := g.Call("sheets_read_range", sheetsArgs(t, map[string]any{"range": "Expenses!A1:D6"}),
		"Expenses!A1:D6: 6 rows, columns A–D\nrow | A | B | C | D\n",
		"1 | Date | Category | Description | Amount\n",
		"2 | 2026-11-02 | Travel | Train to Leeds | £48.20\n",
		"5 | 2026-11-16 | Travel | Hotel, 2 nights | £310.00\n",
		"6 | 2026-11-20 | Office | Printer toner | £64.99")
	if strings.Contains(out, "More rows") {
		t.Errorf("a whole range says more rows follow:\n%s", out)
	}
	last := g.Last()
	if last.Path != "/v4/spreadsheets/"+sheetsSeed+"/values/Expenses!A1:D6" || last.Query.Get("valueRenderOption") != "FORMATTED_VALUE" {
		t.Errorf("read request: %s %v", last.Path, last.Query)
	}

	// The formula and its result; raw numbers.
	g.Call("sheets_read_range", sheetsArgs(t, map[string]any{"range": "Expenses!F1:F2"}), "2 | £639.69")
	g.Call("sheets_read_range", sheetsArgs(t, map[string]any{"range": "Expenses!F2", "value_render_option": "FORMULA"}),
		"Expenses!F2 (formulas): 1 row, columns F–F", "2 | =SUM(D2:D6)")
	g.Call("sheets_read_range", sheetsArgs(t, map[string]any{"range": "Expenses!A2:D3", "value_render_option": "UNFORMATTED_VALUE", "format": "json"}),
		`{"range":"Expenses!A2:D3","first_row":2,"first_column":"A","rows":[`+"\n"+`["2026-11-02","Travel","Train to Leeds",48.2],`+"\n"+`["2026-11-04","Meals","Team lunch",126.5]`+"\n]}")
	if q := g.Last().Query; q.Get("valueRenderOption") != "UNFORMATTED_VALUE" || q.Get("dateTimeRenderOption") != "FORMATTED_STRING" {
		t.Errorf("unformatted query: %v", q)
	}

	// Open ranges are read a page at a time; the quoted name goes as is.
	g.Call("sheets_read_range", sheetsArgs(t, map[string]any{"range": "'Team Hours'!A:C"}),
		"'Team Hours'!A1:C4: 4 rows, columns A–C", "1 | Name | Mon | Tue", "4 | Alan Turing | 6 | 6")
	if p := g.Last().Path; p != "/v4/spreadsheets/"+sheetsSeed+"/values/'Team Hours'!A1:C101" {
		t.Errorf("open range asked as %s", p)
	}
	out = g.Call("sheets_read_range", sheetsArgs(t, map[string]any{"range": "Expenses", "max_rows": 2}),
		"Expenses!A1:Z2: 2 rows, columns A–F", "1 | Date | Category | Description | Amount |  | Total",
		"More rows follow: read them with range Expenses!3:4.")
	if p := g.Last().Path; p != "/v4/spreadsheets/"+sheetsSeed+"/values/Expenses!1:3" {
		t.Errorf("whole sheet asked as %s", p)
	}
	if strings.Contains(out, "2026-11-04") {
		t.Errorf("more rows than max_rows:\n%s", out)
	}
	// No sheet name: the first sheet; a single cell; an empty range.
	g.Call("sheets_read_range", sheetsArgs(t, map[string]any{"range": "c4"}), "4 | Figma seats")
	if p := g.Last().Path; !strings.HasSuffix(p, "/values/C4") {
		t.Errorf("cell asked as %s", p)
	}
	g.Call("sheets_read_range", sheetsArgs(t, map[string]any{"range": "Expenses!H10:J12"}), "The range Expenses!H10:J12 is empty.")

	// Ranges are checked before any request.
	before := len(g.G.Requests())
	g.Fail("sheets_read_range", sheetsArgs(t, map[string]any{"range": "Team Hours!A1:B2"}),
		`The sheet name "Team Hours" has spaces`, "quote it, as 'Team Hours'!A1:B2")
	g.Fail("sheets_read_range", sheetsArgs(t, map[string]any{"range": "Expenses!A"}), "a single cell needs a column and a row")
	g.Fail("sheets_read_range", sheetsArgs(t, map[string]any{"range": "A1:B2:C3"}), "more than one")
	g.Fail("sheets_read_range", sheetsArgs(t, map[string]any{"range": "Expenses!A:3"}), "both ends must be")
	g.Fail("sheets_read_range", sheetsArgs(t, map[string]any{"range": "'Team Hours!A1"}), "opens a quote it does not close")
	g.Fail("sheets_read_range", sheetsArgs(t, map[string]any{"range": "'Team Hours'A1"}), "must be followed by !")
	g.Fail("sheets_read_range", sheetsArgs(t, map[string]any{"range": ""}), "Missing range")
	g.Fail("sheets_read_range", sheetsArgs(t, map[string]any{"range": "A1", "max_rows": 0}), "max_rows must be")
	g.Fail("sheets_read_range", sheetsArgs(t, map[string]any{"range": "A1", "value_render_option": "PRETTY"}), "value_render_option must be")
	if n := len(g.G.Requests()); n != before {
		t.Errorf("bad ranges made %d requests", n-before)
	}
	// A sheet that does not exist is Google's answer.
	g.Fail("sheets_read_range", sheetsArgs(t, map[string]any{"range": "Budget!A1:B2"}),
		"HTTP 400", "Unable to parse range: Budget!A1:B2", "sheets_get_info lists the sheets")
	g.Fail("sheets_read_range", sheetsArgs(t, map[string]any{"spreadsheet_id": "1Gone", "range": "A1"}), "HTTP 404", "No spreadsheet 1Gone")
}

func TestGoogleSheetsWrite(t *testing.T) {
	g := newGoogle(t)
	sp := g.G.Sheets().Spreadsheets[sheetsSeed]

	// USER_ENTERED: numbers, dates and formulas are parsed.
	g.Call("sheets_update_range", sheetsArgs(t, map[string]any{
		"range": "'Team Hours'!A5", "values": [][]any{{"Katherine Johnson", "8", 7.5, "=SUM(B5:C5)"}},
	}), "Updated 'Team Hours'!A5:D5: 1 row, 4 cells.")
	last := g.Last()
	body := sheetsBody(t, g)
	if last.Method != "PUT" || last.Path != "/v4/spreadsheets/"+sheetsSeed+"/values/'Team Hours'!A5" ||
		last.Query.Get("valueInputOption") != "USER_ENTERED" || body["range"] != "'Team Hours'!A5" || body["majorDimension"] != "ROWS" ||
		sheetsJSON(body["values"]) != `[["Katherine Johnson","8",7.5,"=SUM(B5:C5)"]]` {
		t.Errorf("update request: %s %s %v %s", last.Method, last.Path, last.Query, last.Body)
	}
	if got := sp.Sheet("Team Hours").Cell("D5"); got != "15.5" {
		t.Errorf("D5 = %q, want the formula's 15.5", got)
	}
	g.Call("sheets_read_range", sheetsArgs(t, map[string]any{"range": "'Team Hours'!A5:D5", "value_render_option": "UNFORMATTED_VALUE", "format": "json"}),
		`["Katherine Johnson",8,7.5,15.5]`)

	// RAW keeps text as text.
	g.Call("sheets_update_range", sheetsArgs(t, map[string]any{
		"range": "Expenses!B7:C7", "values": [][]any{{"=not a formula", "0042"}}, "value_input_option": "RAW",
	}), "Updated Expenses!B7:C7: 1 row, 2 cells (stored as given, not parsed).")
	if g.Last().Query.Get("valueInputOption") != "RAW" {
		t.Errorf("raw query: %v", g.Last().Query)
	}
	if got := sp.Sheet("Expenses").Cell("C7"); got != "0042" {
		t.Errorf("C7 = %q", got)
	}
	// null leaves a cell; "" empties it.
	g.Call("sheets_update_range", sheetsArgs(t, map[string]any{"range": "Expenses!B7", "values": [][]any{{nil, ""}}}), "Updated Expenses!B7:C7: 1 row, 1 cell.")
	if b, c := sp.Sheet("Expenses").Cell("B7"), sp.Sheet("Expenses").Cell("C7"); b != "=not a formula" || c != "" {
		t.Errorf("B7, C7 = %q, %q", b, c)
	}

	// Shapes and sizes are checked first.
	before := len(g.G.Requests())
	g.Fail("sheets_update_range", sheetsArgs(t, map[string]any{"range": "Expenses!A1:B2", "values": [][]any{{1}, {2}, {3}}}),
		"The values have 3 rows but Expenses!A1:B2 holds 2", "(Expenses!A1)")
	g.Fail("sheets_update_range", sheetsArgs(t, map[string]any{"range": "Expenses!A:B", "values": [][]any{{1, 2, 3}}}),
		"The values have 3 columns but Expenses!A:B holds 2")
	g.Fail("sheets_update_range", sheetsArgs(t, map[string]any{"range": "Expenses!A1", "values": []any{"a", "b"}}), "values must be a list of rows")
	g.Fail("sheets_update_range", sheetsArgs(t, map[string]any{"range": "Expenses!A1", "values": [][]any{{map[string]any{"x": 1}}}}), "A cell must be a string")
	g.Fail("sheets_update_range", sheetsArgs(t, map[string]any{"range": "Expenses!A1", "values": [][]any{{1}}, "value_input_option": "PARSED"}), "value_input_option must be")
	if n := len(g.G.Requests()); n != before {
		t.Errorf("refused writes made %d requests", n-before)
	}
	// Past the grid is Google's refusal.
	g.Fail("sheets_update_range", sheetsArgs(t, map[string]any{"range": "'Team Hours'!H1", "values": [][]any{{1, 2}}}),
		"HTTP 400", "exceeds grid limits", "sheets_get_info gives its size")
}

func TestGoogleSheetsAppendClear(t *testing.T) {
	g := newGoogle(t)
	sp := g.G.Sheets().Spreadsheets[sheetsSeed]
	exp := sp.Sheet("Expenses")
	exp.Grid = append(exp.Grid, nil, nil, nil) // rows 7-8 empty, then a note in row 9
	g.Call("sheets_update_range", sheetsArgs(t, map[string]any{"range": "Expenses!A9", "values": [][]any{{"Notes below"}}}), "Updated Expenses!A9")

	g.Call("sheets_append_rows", sheetsArgs(t, map[string]any{
		"range": "Expenses!A:D", "values": [][]any{{"2026-11-23", "Meals", "Client dinner", "£84.30"}},
	}), "Appended 1 row at Expenses!A7:D7 (4 cells), after the table Expenses!A1:D6; new rows were inserted")
	last := g.Last()
	body := sheetsBody(t, g)
	if last.Method != "POST" || last.Path != "/v4/spreadsheets/"+sheetsSeed+"/values/Expenses!A:D:append" ||
		last.Query.Get("insertDataOption") != "INSERT_ROWS" || last.Query.Get("valueInputOption") != "USER_ENTERED" ||
		body["range"] != "Expenses!A:D" || sheetsJSON(body["values"]) != `[["2026-11-23","Meals","Client dinner","£84.30"]]` {
		t.Errorf("append request: %s %s %v %s", last.Method, last.Path, last.Query, last.Body)
	}
	if exp = g.G.Sheets().Spreadsheets[sheetsSeed].Sheet("Expenses"); exp.Cell("D7") != "£84.30" || exp.Cell("A7") != "2026-11-23" || exp.Cell("A10") != "Notes below" || exp.Rows != 1001 {
		t.Errorf("after the insert: D7 %q, A7 %q, A10 %q, %d rows", exp.Cell("D7"), exp.Cell("A7"), exp.Cell("A10"), exp.Rows)
	}
	// The SUM covers what it covered; the new row is read back.
	g.Call("sheets_read_range", sheetsArgs(t, map[string]any{"range": "Expenses!A7:D7"}), "7 | 2026-11-23 | Meals | Client dinner | £84.30")

	// OVERWRITE writes under the table; the default range is the first sheet.
	g.Call("sheets_append_rows", sheetsArgs(t, map[string]any{
		"values": [][]any{{"2026-11-24", "Office", "Paper", 12}}, "insert_data_option": "OVERWRITE", "value_input_option": "RAW",
	}), "Appended 1 row at Expenses!A8:D8", "after the table Expenses!A1:F7", "written over the cells below")
	if q := g.Last().Query; q.Get("insertDataOption") != "OVERWRITE" || q.Get("valueInputOption") != "RAW" || !strings.HasSuffix(g.Last().Path, "/values/A1:append") {
		t.Errorf("overwrite request: %s %v", g.Last().Path, q)
	}
	// An empty sheet: the rows go where the range starts.
	g.Call("sheets_append_rows", sheetsArgs(t, map[string]any{"range": "'Team Hours'!G1:H1", "values": [][]any{{"Total"}}}),
		"Appended 1 row at 'Team Hours'!G1 (1 cell), in an empty area")
	g.Fail("sheets_append_rows", sheetsArgs(t, map[string]any{"values": [][]any{{1}}, "insert_data_option": "APPEND"}), "insert_data_option must be")
	g.Fail("sheets_append_rows", sheetsArgs(t, map[string]any{"range": "Nope!A:D", "values": [][]any{{1}}}), "Unable to parse range", "sheets_get_info")

	g.Call("sheets_clear_range", sheetsArgs(t, map[string]any{"range": "Expenses!A7:D8"}), "Cleared the values in Expenses!A7:D8 (formatting kept).")
	last = g.Last()
	if last.Method != "POST" || last.Path != "/v4/spreadsheets/"+sheetsSeed+"/values/Expenses!A7:D8:clear" || string(last.Body) != "{}" {
		t.Errorf("clear request: %s %s %s", last.Method, last.Path, last.Body)
	}
	exp = g.G.Sheets().Spreadsheets[sheetsSeed].Sheet("Expenses")
	if exp.Cell("D7") != "" || exp.Cell("C8") != "" || exp.Cell("D6") != "£64.99" {
		t.Errorf("after clear: D7 %q, C8 %q, D6 %q", exp.Cell("D7"), exp.Cell("C8"), exp.Cell("D6"))
	}
	// The insert above added a row to Team Hours too.
	g.Call("sheets_clear_range", sheetsArgs(t, map[string]any{"range": "Team Hours"}), "Cleared the values in 'Team Hours'!A1:H201")
	if p := g.Last().Path; !strings.HasSuffix(p, "/values/'Team Hours':clear") {
		t.Errorf("whole sheet cleared as %s", p)
	}
	g.Fail("sheets_clear_range", sheetsArgs(t, map[string]any{"range": "Expenses!1A"}), "not a cell, column or row")
}

func TestGoogleSheetsCreateAddFormat(t *testing.T) {
	g := newGoogle(t)
	out := g.Call("sheets_create", `{"title":"Trip Planner","sheet_names":["Flights","Hotels & Stays"]}`,
		`Created the spreadsheet "Trip Planner" (id: `, "URL: https://docs.google.com/spreadsheets/d/", "Sheets: Flights (sheetId 0), Hotels & Stays (sheetId ")
	if body := sheetsBody(t, g); sheetsJSON(body) != `{"properties":{"title":"Trip Planner"},"sheets":[{"properties":{"title":"Flights"}},{"properties":{"title":"Hotels & Stays"}}]}` {
		t.Errorf("create body = %s", g.Last().Body)
	}
	if g.Last().Method != "POST" || g.Last().Path != "/v4/spreadsheets" {
		t.Errorf("create request: %s %s", g.Last().Method, g.Last().Path)
	}
	id := strings.TrimSuffix(strings.SplitN(strings.SplitN(out, "(id: ", 2)[1], ")", 2)[0], ")")
	g.Call("sheets_get_info", `{"spreadsheet_id":"`+id+`"}`, "- Hotels & Stays (sheetId ", "in ranges write 'Hotels & Stays'!A1")
	g.Call("sheets_create", `{"title":"Scratch"}`, "Sheets: Sheet1 (sheetId 0)")
	g.Fail("sheets_create", `{"title":"x","sheet_names":["A","a"]}`, "sheet names must differ")
	g.Fail("sheets_create", `{"title":"x","sheet_names":"A"}`, "sheet_names must be a list")

	g.Call("sheets_add_sheet", sheetsArgs(t, map[string]any{"title": "Q1 Plan", "index": 0, "rows": 50, "columns": 6}),
		`Added the sheet "Q1 Plan" (sheetId `, "position 0, 50 rows × 6 columns). Refer to it in ranges as 'Q1 Plan'!A1.")
	if body := sheetsBody(t, g); g.Last().Path != "/v4/spreadsheets/"+sheetsSeed+":batchUpdate" ||
		sheetsJSON(body) != `{"requests":[{"addSheet":{"properties":{"gridProperties":{"columnCount":6,"rowCount":50},"index":0,"title":"Q1 Plan"}}}]}` {
		t.Errorf("add sheet request: %s %s", g.Last().Path, g.Last().Body)
	}
	g.Call("sheets_get_info", sheetsArgs(t, map[string]any{}), "3 sheets:\n- Q1 Plan (sheetId ")
	// A name of letters needs no quotes, in any alphabet; the tools quote
	// what is not plain ASCII anyway.
	g.Call("sheets_add_sheet", sheetsArgs(t, map[string]any{"title": "Übersicht"}), "(sheetId ", "position 3, 1000 rows × 26 columns", "as 'Übersicht'!A1")
	g.Call("sheets_update_range", sheetsArgs(t, map[string]any{"range": "Übersicht!B2", "values": [][]any{{"Größe", "3,5"}}}), "Updated 'Übersicht'!B2:C2")
	if p := g.Last().Path; p != "/v4/spreadsheets/"+sheetsSeed+"/values/'Übersicht'!B2" {
		t.Errorf("non-ASCII range sent as %s", p)
	}
	g.Call("sheets_read_range", sheetsArgs(t, map[string]any{"range": "Übersicht!B2:C2"}), "2 | Größe | 3,5")
	g.Fail("sheets_add_sheet", sheetsArgs(t, map[string]any{"title": "expenses"}), "HTTP 400", `A sheet with the name "expenses" already exists`)
	g.Fail("sheets_add_sheet", sheetsArgs(t, map[string]any{"title": "X", "index": -1}), "index must be 0 or more")

	// Formatting: a header row, bold on a light green.
	g.Call("sheets_format_range", sheetsArgs(t, map[string]any{"range": "'Team Hours'!A1:F1", "bold": true, "background_color": "#D9EAD3"}),
		"Formatted 'Team Hours'!A1:F1: bold, background #D9EAD3.")
	reqs := g.G.Requests()
	info, last := reqs[len(reqs)-2], reqs[len(reqs)-1]
	if info.Method != "GET" || info.Query.Get("fields") != "sheets.properties(sheetId,title)" {
		t.Errorf("sheet id lookup: %s %v", info.Method, info.Query)
	}
	if body := sheetsBody(t, g); last.Path != "/v4/spreadsheets/"+sheetsSeed+":batchUpdate" ||
		sheetsJSON(body) != `{"requests":[{"repeatCell":{"cell":{"userEnteredFormat":{"backgroundColorStyle":{"rgbColor":{"blue":0.827,"green":0.918,"red":0.851}},"textFormat":{"bold":true}}},"fields":"userEnteredFormat(textFormat.bold,backgroundColorStyle)","range":{"endColumnIndex":6,"endRowIndex":1,"sheetId":1843021736,"startColumnIndex":0,"startRowIndex":0}}}]}` {
		t.Errorf("repeatCell request: %s", last.Body)
	}
	hours := g.G.Sheets().Spreadsheets[sheetsSeed].Sheet("Team Hours")
	if f := hours.Grid[0][5].Format; sheetsJSON(f) != `{"backgroundColorStyle":{"rgbColor":{"blue":0.827,"green":0.918,"red":0.851}},"textFormat":{"bold":true}}` {
		t.Errorf("F1's format = %s", sheetsJSON(f))
	}
	// An open range and a number format, seen when read back.
	g.Call("sheets_format_range", sheetsArgs(t, map[string]any{"range": "'team hours'!B2:F", "number_format": "NUMBER", "number_pattern": "0.0", "horizontal_alignment": "right"}),
		"Formatted 'Team Hours'!B2:F: number 0.0 format, aligned right.")
	if body := sheetsBody(t, g); !strings.Contains(sheetsJSON(body), `"range":{"endColumnIndex":6,"sheetId":1843021736,"startColumnIndex":1,"startRowIndex":1}`) ||
		!strings.Contains(sheetsJSON(body), `"fields":"userEnteredFormat(numberFormat,horizontalAlignment)"`) {
		t.Errorf("open repeatCell: %s", g.Last().Body)
	}
	g.Call("sheets_read_range", sheetsArgs(t, map[string]any{"range": "'Team Hours'!A2:C2"}), "2 | Ada Lovelace | 8.0 | 7.5")
	// No sheet name: the first sheet, now "Q1 Plan".
	g.Call("sheets_format_range", sheetsArgs(t, map[string]any{"range": "A:A", "italic": false, "font_size": 12, "text_color": "#cc0000"}),
		"Formatted 'Q1 Plan'!A:A: not italic, 12 pt, text #cc0000.")
	if body := sheetsJSON(sheetsBody(t, g)); !strings.Contains(body, `"range":{"endColumnIndex":1,"sheetId":`) || strings.Contains(body, `"sheetId":0`) ||
		!strings.Contains(body, `"textFormat":{"fontSize":12,"foregroundColorStyle":{"rgbColor":{"blue":0,"green":0,"red":0.8}},"italic":false}`) {
		t.Errorf("first-sheet repeatCell: %s", body)
	}
	g.Fail("sheets_format_range", sheetsArgs(t, map[string]any{"range": "Budget!A1", "bold": true}), `No sheet named "Budget"`, `"Q1 Plan", "Expenses", "Team Hours", "Übersicht"`)
	g.Fail("sheets_format_range", sheetsArgs(t, map[string]any{"range": "Expenses!A1"}), "Nothing to format")
	g.Fail("sheets_format_range", sheetsArgs(t, map[string]any{"range": "Expenses!A1", "background_color": "light green"}), "background_color must be a color as #RRGGBB")
}

// A read-only grant reads but cannot write, and the refusal names the
// scope writing needs.
func TestGoogleSheetsReadonly(t *testing.T) {
	g := newGoogle(t)
	g.Token(g.G.TokenWith("https://www.googleapis.com/auth/spreadsheets.readonly"))
	g.Call("sheets_read_range", sheetsArgs(t, map[string]any{"range": "Expenses!A1:B2"}), "1 | Date | Category")
	g.Call("sheets_get_info", sheetsArgs(t, map[string]any{}), "Q4 Team Budget")
	g.Fail("sheets_update_range", sheetsArgs(t, map[string]any{"range": "Expenses!A1", "values": [][]any{{"x"}}}),
		"HTTP 403", "https://www.googleapis.com/auth/spreadsheets, or")
	g.Fail("sheets_format_range", sheetsArgs(t, map[string]any{"range": "Expenses!A1", "bold": true}), "HTTP 403", "auth/spreadsheets, or")
	g.Token(fakegoogle.Token)
}
