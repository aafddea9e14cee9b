package fakegoogle

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Google Sheets API v4: https://developers.google.com/workspace/sheets/api/reference/rest
//
// Each sheet keeps a real grid. values.get, values.update, values.append and
// values.clear read and change it through A1 ranges; batchUpdate applies
// addSheet and repeatCell and refuses the other kinds. USER_ENTERED input is
// parsed as the Sheets UI parses it (numbers, percentages, currency, ISO
// dates, TRUE/FALSE, formulas); formulas compute SUM over a range only, the
// others show an empty value.

const (
	sheetsScope         = "https://www.googleapis.com/auth/spreadsheets"
	sheetsScopeReadonly = "https://www.googleapis.com/auth/spreadsheets.readonly"
)

var (
	sheetsRead  = []string{driveScopeFull, driveScopeFile, driveScopeReadonly, sheetsScope, sheetsScopeReadonly}
	sheetsWrite = []string{driveScopeFull, driveScopeFile, sheetsScope}
)

// sheetsCell is one cell: the value entered (string, float64 or bool; nil
// when empty), the formula when it holds one, and its userEnteredFormat.
type sheetsCell struct {
	Value   any
	Formula string
	Format  map[string]any
}

// SheetsSheet is one sheet (tab) of a spreadsheet with its grid.
type SheetsSheet struct {
	ID          int64
	Title       string
	Rows, Cols  int
	FrozenRows  int
	Hidden      bool
	Grid        [][]sheetsCell // ragged: a missing cell is empty
	index       int
	spreadsheet *SheetsSpreadsheet
}

// SheetsSpreadsheet is one spreadsheet.
type SheetsSpreadsheet struct {
	ID, Title, Locale, TimeZone string
	Sheets                      []*SheetsSheet
}

// SheetsState is the Sheets service's data.
type SheetsState struct {
	Spreadsheets map[string]*SheetsSpreadsheet
	nextSheetID  int64
}

// SheetsSeedID is the seeded spreadsheet: "Q4 Team Budget", with the sheets
// "Expenses" (sheetId 0) and "Team Hours" (sheetId 1843021736).
const SheetsSeedID = "1qT4v0kZf2RkQz9bX8mY3nL6pW5sA7dC1eH2gJ4kM9oQ"

// Sheets returns the Sheets service's state.
func (s *Server) Sheets() *SheetsState {
	return State(s, "sheets", func() *SheetsState {
		st := &SheetsState{Spreadsheets: map[string]*SheetsSpreadsheet{}, nextSheetID: 2058310477}
		sp := &SheetsSpreadsheet{ID: SheetsSeedID, Title: "Q4 Team Budget", Locale: "en_GB", TimeZone: "Europe/London"}
		exp := sp.add(0, "Expenses", 1000, 26)
		exp.FrozenRows = 1
		pounds := map[string]any{"numberFormat": map[string]any{"type": "CURRENCY", "pattern": "£#,##0.00"}}
		day := map[string]any{"numberFormat": map[string]any{"type": "DATE", "pattern": "yyyy-mm-dd"}}
		header := map[string]any{"textFormat": map[string]any{"bold": true},
			"backgroundColorStyle": map[string]any{"rgbColor": map[string]any{"red": 0.85, "green": 0.92, "blue": 0.83}}}
		for i, h := range []string{"Date", "Category", "Description", "Amount"} {
			exp.set(0, i, sheetsCell{Value: h, Format: sheetsCopyMap(header)})
		}
		for r, row := range []struct {
			day            string
			category, what string
			amount         float64
		}{
			{"2026-11-02", "Travel", "Train to Leeds", 48.2},
			{"2026-11-04", "Meals", "Team lunch", 126.5},
			{"2026-11-09", "Software", "Figma seats", 90},
			{"2026-11-16", "Travel", "Hotel, 2 nights", 310},
			{"2026-11-20", "Office", "Printer toner", 64.99},
		} {
			exp.set(r+1, 0, sheetsCell{Value: sheetsSerial(row.day), Format: sheetsCopyMap(day)})
			exp.set(r+1, 1, sheetsCell{Value: row.category})
			exp.set(r+1, 2, sheetsCell{Value: row.what})
			exp.set(r+1, 3, sheetsCell{Value: row.amount, Format: sheetsCopyMap(pounds)})
		}
		exp.set(0, 5, sheetsCell{Value: "Total", Format: sheetsCopyMap(header)})
		exp.set(1, 5, sheetsCell{Formula: "=SUM(D2:D6)", Format: sheetsCopyMap(pounds)})

		hours := sp.add(1843021736, "Team Hours", 200, 8)
		for r, row := range [][]any{
			{"Name", "Mon", "Tue", "Wed", "Thu", "Fri"},
			{"Ada Lovelace", 8.0, 7.5, 8.0, 6.0, 4.0},
			{"Grace Hopper", 7.0, 8.0, 8.0, 8.0, 5.0},
			{"Alan Turing", 6.0, 6.0, 7.5, 8.0, 8.0},
		} {
			for c, v := range row {
				hours.set(r, c, sheetsCell{Value: v})
			}
		}
		st.Spreadsheets[sp.ID] = sp
		return st
	})
}

func (sp *SheetsSpreadsheet) add(id int64, title string, rows, cols int) *SheetsSheet {
	sh := &SheetsSheet{ID: id, Title: title, Rows: rows, Cols: cols, index: len(sp.Sheets), spreadsheet: sp}
	sp.Sheets = append(sp.Sheets, sh)
	return sh
}

// Sheet returns the sheet with this title, or nil.
func (sp *SheetsSpreadsheet) Sheet(title string) *SheetsSheet {
	for _, sh := range sp.Sheets {
		if strings.EqualFold(sh.Title, title) {
			return sh
		}
	}
	return nil
}

func (sp *SheetsSpreadsheet) sheetByID(id int64) *SheetsSheet {
	for _, sh := range sp.Sheets {
		if sh.ID == id {
			return sh
		}
	}
	return nil
}

func (sp *SheetsSpreadsheet) reindex() {
	for i, sh := range sp.Sheets {
		sh.index = i
		sh.spreadsheet = sp
	}
}

// clone copies the spreadsheet deeply, so a failed batchUpdate changes nothing.
func (sp *SheetsSpreadsheet) clone() *SheetsSpreadsheet {
	out := *sp
	out.Sheets = nil
	for _, sh := range sp.Sheets {
		c := *sh
		c.Grid = make([][]sheetsCell, len(sh.Grid))
		for r, row := range sh.Grid {
			c.Grid[r] = make([]sheetsCell, len(row))
			for i, cell := range row {
				cell.Format = sheetsCopyMap(cell.Format)
				c.Grid[r][i] = cell
			}
		}
		out.Sheets = append(out.Sheets, &c)
	}
	out.reindex()
	return &out
}

func (sh *SheetsSheet) cell(r, c int) sheetsCell {
	if r < len(sh.Grid) && c < len(sh.Grid[r]) {
		return sh.Grid[r][c]
	}
	return sheetsCell{}
}

func (sh *SheetsSheet) set(r, c int, cell sheetsCell) {
	for len(sh.Grid) <= r {
		sh.Grid = append(sh.Grid, nil)
	}
	for len(sh.Grid[r]) <= c {
		sh.Grid[r] = append(sh.Grid[r], sheetsCell{})
	}
	sh.Grid[r][c] = cell
}

func (c sheetsCell) empty() bool { return c.Value == nil && c.Formula == "" }

// Cell returns a cell's formatted value, as the Sheets UI shows it: ref is
// a cell in A1 notation such as "B3".
func (sh *SheetsSheet) Cell(ref string) string {
	rng, err := sheetsParseCells(ref)
	if err != nil || !rng.single {
		return "bad cell " + ref
	}
	v := sh.render(rng.r0, rng.c0, "FORMATTED_VALUE", "")
	if v == nil {
		return ""
	}
	return v.(string)
}

func (sh *SheetsSheet) props() map[string]any {
	grid := map[string]any{"rowCount": sh.Rows, "columnCount": sh.Cols}
	if sh.FrozenRows > 0 {
		grid["frozenRowCount"] = sh.FrozenRows
	}
	p := map[string]any{"sheetId": sh.ID, "title": sh.Title, "index": sh.index, "sheetType": "GRID", "gridProperties": grid}
	if sh.Hidden {
		p["hidden"] = true
	}
	return p
}

func (sp *SheetsSpreadsheet) json() map[string]any {
	sheets := []any{}
	for _, sh := range sp.Sheets {
		sheets = append(sheets, map[string]any{"properties": sh.props()})
	}
	return map[string]any{
		"spreadsheetId": sp.ID,
		"properties": map[string]any{
			"title": sp.Title, "locale": sp.Locale, "autoRecalc": "ON_CHANGE", "timeZone": sp.TimeZone,
			"defaultFormat": map[string]any{
				"backgroundColor":   map[string]any{"red": 1, "green": 1, "blue": 1},
				"verticalAlignment": "BOTTOM", "wrapStrategy": "OVERFLOW_CELL",
				"textFormat": map[string]any{"fontFamily": "arial,sans,sans-serif", "fontSize": 10, "bold": false, "italic": false},
			},
		},
		"sheets":         sheets,
		"spreadsheetUrl": "https://docs.google.com/spreadsheets/d/" + sp.ID + "/edit",
	}
}

// A1 notation.

// sheetsRect is a parsed range of cells: 0-based, ends exclusive, -1 for a
// bound left open (A:C leaves the rows open, 2:5 the columns).
type sheetsRect struct {
	r0, c0, r1, c1 int
	single         bool
}

var (
	sheetsRefRe     = regexp.MustCompile(`^([A-Za-z]{1,3})?([0-9]{1,7})?$`)
	sheetsPlainRe   = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	sheetsUnquoteRe = regexp.MustCompile(`^[\p{L}\p{N}_.]+$`)
)

func sheetsColNum(letters string) int {
	n := 0
	for _, ch := range strings.ToUpper(letters) {
		n = n*26 + int(ch-'A'+1)
	}
	return n
}

func sheetsColName(n int) string {
	s := ""
	for n > 0 {
		s = string(rune('A'+(n-1)%26)) + s
		n = (n - 1) / 26
	}
	return s
}

// sheetsParseCells parses the part after the "!": B3, A1:C5, A:C, 2:5, A2:C.
func sheetsParseCells(text string) (sheetsRect, error) {
	text = strings.ReplaceAll(text, "$", "")
	start, end, hasEnd := strings.Cut(text, ":")
	a := sheetsRefRe.FindStringSubmatch(start)
	if a == nil || start == "" {
		return sheetsRect{}, fmt.Errorf("bad cell reference %q", start)
	}
	if !hasEnd {
		if a[1] == "" || a[2] == "" {
			return sheetsRect{}, fmt.Errorf("a single cell needs a column and a row: %q", text)
		}
		c, r := sheetsColNum(a[1])-1, sheetsAtoi(a[2])-1
		return sheetsRect{r, c, r + 1, c + 1, true}, nil
	}
	b := sheetsRefRe.FindStringSubmatch(end)
	if b == nil || end == "" {
		return sheetsRect{}, fmt.Errorf("bad cell reference %q", end)
	}
	rect := sheetsRect{r0: -1, c0: -1, r1: -1, c1: -1}
	switch {
	case a[1] != "" && a[2] != "" && b[1] != "" && b[2] != "": // A1:C5
		rect = sheetsRect{sheetsAtoi(a[2]) - 1, sheetsColNum(a[1]) - 1, sheetsAtoi(b[2]), sheetsColNum(b[1]), false}
	case a[1] != "" && a[2] == "" && b[1] != "" && b[2] == "": // A:C
		rect = sheetsRect{0, sheetsColNum(a[1]) - 1, -1, sheetsColNum(b[1]), false}
	case a[1] == "" && a[2] != "" && b[1] == "" && b[2] != "": // 2:5
		rect = sheetsRect{sheetsAtoi(a[2]) - 1, 0, sheetsAtoi(b[2]), -1, false}
	case a[1] != "" && a[2] != "" && b[1] != "" && b[2] == "": // A2:C
		rect = sheetsRect{sheetsAtoi(a[2]) - 1, sheetsColNum(a[1]) - 1, -1, sheetsColNum(b[1]), false}
	default:
		return sheetsRect{}, fmt.Errorf("unsupported range form %q", text)
	}
	if rect.r0 < 0 || rect.c0 < 0 || rect.r1 == 0 || rect.c1 == 0 {
		return sheetsRect{}, fmt.Errorf("rows and columns start at 1 and A: %q", text)
	}
	// Sheets orders the corners itself: B5:A1 is A1:B5.
	if rect.r1 > 0 && rect.r1 <= rect.r0 {
		rect.r0, rect.r1 = rect.r1-1, rect.r0+1
	}
	if rect.c1 > 0 && rect.c1 <= rect.c0 {
		rect.c0, rect.c1 = rect.c1-1, rect.c0+1
	}
	rect.single = rect.r1 == rect.r0+1 && rect.c1 == rect.c0+1
	return rect, nil
}

func sheetsAtoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// sheetsSplit separates a range into its sheet name (unquoted; "" when
// absent) and its cells ("" for a whole sheet).
func sheetsSplit(text string) (sheet, cells string, quoted bool, err error) {
	if strings.HasPrefix(text, "'") {
		var b strings.Builder
		i := 1
		for {
			if i >= len(text) {
				return "", "", false, fmt.Errorf("unclosed quote in %q", text)
			}
			if text[i] == '\'' {
				if i+1 < len(text) && text[i+1] == '\'' {
					b.WriteByte('\'')
					i += 2
					continue
				}
				break
			}
			b.WriteByte(text[i])
			i++
		}
		rest := text[i+1:]
		if rest != "" && !strings.HasPrefix(rest, "!") {
			return "", "", false, fmt.Errorf("%q: a quoted sheet name must be followed by ! and the cells", text)
		}
		return b.String(), strings.TrimPrefix(rest, "!"), true, nil
	}
	if i := strings.LastIndex(text, "!"); i >= 0 {
		return text[:i], text[i+1:], false, nil
	}
	return "", text, false, nil
}

// sheetsQuote writes a sheet name as A1 notation needs it.
func sheetsQuote(title string) string {
	if sheetsPlainRe.MatchString(title) && !sheetsRefRe.MatchString(title) {
		return title
	}
	return "'" + strings.ReplaceAll(title, "'", "''") + "'"
}

// sheetsA1 writes a sheet's range of cells (ends exclusive) as Google
// answers ranges: 'Team Hours'!A1:C4, Expenses!B3.
func sheetsA1(sh *SheetsSheet, r0, c0, r1, c1 int) string {
	s := sheetsQuote(sh.Title) + "!" + sheetsColName(c0+1) + strconv.Itoa(r0+1)
	if r1 != r0+1 || c1 != c0+1 {
		s += ":" + sheetsColName(c1) + strconv.Itoa(r1)
	}
	return s
}

// sheetsTarget is a range resolved against a spreadsheet.
type sheetsTarget struct {
	sheet *SheetsSheet
	rect  sheetsRect // open bounds stay -1
}

// clip closes the open bounds at the grid's edges.
func (t sheetsTarget) clip() (r0, c0, r1, c1 int) {
	r0, c0, r1, c1 = t.rect.r0, t.rect.c0, t.rect.r1, t.rect.c1
	if r1 < 0 || r1 > t.sheet.Rows {
		r1 = t.sheet.Rows
	}
	if c1 < 0 || c1 > t.sheet.Cols {
		c1 = t.sheet.Cols
	}
	return min(r0, r1), min(c0, c1), r1, c1
}

// sheetsResolve parses a range of the request against the spreadsheet. A
// malformed range fails the test (the tools check ranges first); an unknown
// sheet is Google's "Unable to parse range".
func sheetsResolve(c *Call, sp *SheetsSpreadsheet, text string) (sheetsTarget, bool) {
	sheet, cells, quoted, err := sheetsSplit(text)
	if err != nil {
		return sheetsTarget{}, c.Bad("range %q: %v", text, err)
	}
	if !quoted && sheet != "" && !sheetsUnquoteRe.MatchString(sheet) {
		return sheetsTarget{}, c.Bad("range %q: a sheet name with spaces or special characters must be quoted", text)
	}
	var sh *SheetsSheet
	if sheet == "" && !quoted {
		// A bare word is a sheet name unless it reads as cells.
		if _, err := sheetsParseCells(cells); err != nil {
			sheet, cells = cells, ""
		}
	}
	if sheet != "" || quoted {
		if sh = sp.Sheet(sheet); sh == nil {
			c.Invalid("Unable to parse range: " + text)
			return sheetsTarget{}, false
		}
	} else {
		sh = sp.Sheets[0]
	}
	if cells == "" {
		return sheetsTarget{sh, sheetsRect{0, 0, -1, -1, false}}, true
	}
	rect, err := sheetsParseCells(cells)
	if err != nil {
		return sheetsTarget{}, c.Bad("range %q: %v", text, err)
	}
	return sheetsTarget{sh, rect}, true
}

// Values.

// sheetsSerial turns YYYY-MM-DD into the day number Sheets keeps for a date.
func sheetsSerial(day string) float64 {
	t, err := time.Parse("2006-01-02", day)
	if err != nil {
		panic(err)
	}
	return math.Round(t.Sub(time.Date(1899, 12, 30, 0, 0, 0, 0, time.UTC)).Hours() / 24)
}

var (
	sheetsNumberRe  = regexp.MustCompile(`^-?(\d{1,3}(,\d{3})+|\d+)(\.\d+)?$|^-?\.\d+$`)
	sheetsPercentRe = regexp.MustCompile(`^(-?\d+(\.\d+)?)%$`)
	sheetsMoneyRe   = regexp.MustCompile(`^(-?)([$£€])(\d{1,3}(,\d{3})+|\d+)(\.\d+)?$`)
	sheetsDateRe    = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)
	sheetsSumRe     = regexp.MustCompile(`(?i)^=SUM\(\$?([A-Z]{1,3})\$?(\d+):\$?([A-Z]{1,3})\$?(\d+)\)$`)
)

// sheetsEnter turns one value of a write into a cell, as valueInputOption
// says; keep is the cell's current format.
func sheetsEnter(v any, option string, keep map[string]any) sheetsCell {
	cell := sheetsCell{Format: keep}
	s, isString := v.(string)
	if !isString || option == "RAW" {
		if isString && s == "" {
			return cell
		}
		cell.Value = v
		return cell
	}
	numberFormat := func(typ, pattern string) {
		if cell.Format == nil || cell.Format["numberFormat"] == nil {
			cell.Format = sheetsCopyMap(keep)
			if cell.Format == nil {
				cell.Format = map[string]any{}
			}
			cell.Format["numberFormat"] = map[string]any{"type": typ, "pattern": pattern}
		}
	}
	t := strings.TrimSpace(s)
	switch {
	case s == "":
	case strings.HasPrefix(s, "'"):
		cell.Value = s[1:]
	case strings.HasPrefix(s, "="):
		cell.Formula = s
	case strings.EqualFold(t, "TRUE") || strings.EqualFold(t, "FALSE"):
		cell.Value = strings.EqualFold(t, "TRUE")
	case sheetsNumberRe.MatchString(t):
		f, _ := strconv.ParseFloat(strings.ReplaceAll(t, ",", ""), 64)
		cell.Value = f
	case sheetsPercentRe.MatchString(t):
		m := sheetsPercentRe.FindStringSubmatch(t)
		f, _ := strconv.ParseFloat(m[1], 64)
		cell.Value = f / 100
		numberFormat("PERCENT", map[bool]string{true: "0.00%", false: "0%"}[m[2] != ""])
	case sheetsMoneyRe.MatchString(t):
		m := sheetsMoneyRe.FindStringSubmatch(t)
		f, _ := strconv.ParseFloat(strings.ReplaceAll(m[3], ",", "")+m[5], 64)
		if m[1] == "-" {
			f = -f
		}
		cell.Value = f
		numberFormat("CURRENCY", m[2]+"#,##0.00")
	case sheetsDateRe.MatchString(t):
		if _, err := time.Parse("2006-01-02", t); err == nil {
			cell.Value = sheetsSerial(t)
			numberFormat("DATE", "yyyy-mm-dd")
		} else {
			cell.Value = s
		}
	default:
		cell.Value = s
	}
	return cell
}

// computed is a cell's value, formulas computed.
func (sh *SheetsSheet) computed(r, c, depth int) any {
	cell := sh.cell(r, c)
	if cell.Formula == "" {
		return cell.Value
	}
	m := sheetsSumRe.FindStringSubmatch(cell.Formula)
	if m == nil || depth > 10 {
		return nil
	}
	r0, r1 := sheetsAtoi(m[2])-1, sheetsAtoi(m[4])-1
	c0, c1 := sheetsColNum(m[1])-1, sheetsColNum(m[3])-1
	sum := 0.0
	for i := min(r0, r1); i <= max(r0, r1); i++ {
		for j := min(c0, c1); j <= max(c0, c1); j++ {
			if f, ok := sh.computed(i, j, depth+1).(float64); ok {
				sum += f
			}
		}
	}
	return math.Round(sum*1e9) / 1e9
}

// render is a cell as values.get answers it: nil when empty.
func (sh *SheetsSheet) render(r, c int, option, dateOption string) any {
	cell := sh.cell(r, c)
	if cell.empty() {
		return nil
	}
	if option == "FORMULA" && cell.Formula != "" {
		return cell.Formula
	}
	v := sh.computed(r, c, 0)
	nf, _ := cell.Format["numberFormat"].(map[string]any)
	switch option {
	case "UNFORMATTED_VALUE", "FORMULA":
		if f, ok := v.(float64); ok && dateOption == "FORMATTED_STRING" && nf != nil && strings.HasPrefix(fmt.Sprint(nf["type"]), "DATE") {
			return sheetsFormatNumber(f, nf)
		}
		if v == nil {
			return ""
		}
		return v
	}
	switch v := v.(type) {
	case nil:
		return ""
	case bool:
		return strings.ToUpper(strconv.FormatBool(v))
	case float64:
		return sheetsFormatNumber(v, nf)
	default:
		return fmt.Sprint(v)
	}
}

// sheetsFormatNumber formats a number with a numberFormat's pattern: the
// date tokens yyyy, mm, dd, m, d; digits 0 and #, grouping with ",", %,
// and literal text around them.
func sheetsFormatNumber(v float64, nf map[string]any) string {
	typ, _ := nf["type"].(string)
	pattern, _ := nf["pattern"].(string)
	if pattern == "" {
		pattern = map[string]string{"NUMBER": "#,##0.00", "CURRENCY": "$#,##0.00", "PERCENT": "0.00%",
			"DATE": "yyyy-mm-dd", "DATE_TIME": "yyyy-mm-dd", "SCIENTIFIC": "0.00E+00"}[typ]
	}
	pattern = strings.NewReplacer(`"`, "", `\`, "").Replace(pattern)
	if pattern == "" || typ == "TEXT" {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	if strings.Contains(strings.ToLower(pattern), "yy") {
		t := time.Date(1899, 12, 30, 0, 0, 0, 0, time.UTC).AddDate(0, 0, int(math.Floor(v)))
		return strings.NewReplacer("yyyy", fmt.Sprintf("%04d", t.Year()), "mm", fmt.Sprintf("%02d", int(t.Month())),
			"dd", fmt.Sprintf("%02d", t.Day()), "m", strconv.Itoa(int(t.Month())), "d", strconv.Itoa(t.Day())).Replace(pattern)
	}
	if strings.Contains(pattern, "E+") {
		decimals := strings.Count(pattern[strings.Index(pattern, ".")+1:strings.Index(pattern, "E")], "0")
		return strings.ToUpper(strconv.FormatFloat(v, 'E', decimals, 64))
	}
	first := strings.IndexAny(pattern, "0#")
	last := strings.LastIndexAny(pattern, "0#")
	if first < 0 {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	prefix, digits, suffix := pattern[:first], pattern[first:last+1], pattern[last+1:]
	if strings.Contains(suffix, "%") {
		v *= 100
	}
	decimals := 0
	if i := strings.Index(digits, "."); i >= 0 {
		decimals = len(digits) - i - 1
	}
	sign := ""
	if v < 0 {
		sign, v = "-", -v
	}
	num := strconv.FormatFloat(v, 'f', decimals, 64)
	if strings.Contains(digits, ",") {
		whole, frac, _ := strings.Cut(num, ".")
		for i := len(whole) - 3; i > 0; i -= 3 {
			whole = whole[:i] + "," + whole[i:]
		}
		num = whole
		if frac != "" {
			num += "." + frac
		}
	}
	return sign + prefix + num + suffix
}

// sheetsValueRange is the ValueRange body of a write.
type sheetsValueRange struct {
	Range          string  `json:"range"`
	MajorDimension string  `json:"majorDimension"`
	Values         [][]any `json:"values"`
}

// rows returns the values as rows, transposing COLUMNS.
func (vr sheetsValueRange) rows() [][]any {
	if vr.MajorDimension != "COLUMNS" {
		return vr.Values
	}
	var out [][]any
	for c, col := range vr.Values {
		for r, v := range col {
			for len(out) <= r {
				out = append(out, nil)
			}
			for len(out[r]) <= c {
				out[r] = append(out[r], nil)
			}
			out[r][c] = v
		}
	}
	return out
}

// sheetsWriteRows puts rows at (r0, c0) and returns the
// UpdateValuesResponse; ok is false when Google refuses the write (answered
// already).
func sheetsWriteRows(c *Call, sp *SheetsSpreadsheet, sh *SheetsSheet, r0, c0 int, rows [][]any, option string) (map[string]any, bool) {
	height, width := len(rows), 0
	for _, row := range rows {
		for _, v := range row {
			switch v.(type) {
			case nil, string, float64, bool:
			default:
				return nil, c.Bad("a value must be a string, number, boolean or null, not %T", v)
			}
		}
		width = max(width, len(row))
	}
	if height == 0 || width == 0 {
		return map[string]any{"spreadsheetId": sp.ID, "updatedRange": sheetsA1(sh, r0, c0, r0+1, c0+1)}, true
	}
	if r0+height > sh.Rows || c0+width > sh.Cols {
		c.Invalid(fmt.Sprintf("Range (%s) exceeds grid limits. Max rows: %d, max columns: %d",
			sheetsA1(sh, r0, c0, r0+height, c0+width), sh.Rows, sh.Cols))
		return nil, false
	}
	cells, rowsTouched, colsTouched := 0, map[int]bool{}, map[int]bool{}
	for i, row := range rows {
		for j, v := range row {
			if v == nil {
				continue // null leaves the cell as it is
			}
			sh.set(r0+i, c0+j, sheetsEnter(v, option, sh.cell(r0+i, c0+j).Format))
			cells++
			rowsTouched[i], colsTouched[j] = true, true
		}
	}
	return map[string]any{
		"spreadsheetId":  sp.ID,
		"updatedRange":   sheetsA1(sh, r0, c0, r0+height, c0+width),
		"updatedRows":    len(rowsTouched),
		"updatedColumns": len(colsTouched),
		"updatedCells":   cells,
	}, true
}

// batchUpdate.

// sheetsStrict decodes one request of a batch, refusing unknown fields.
func sheetsStrict(raw json.RawMessage, v any) error {
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

type sheetsGridProps struct {
	RowCount          *int `json:"rowCount"`
	ColumnCount       *int `json:"columnCount"`
	FrozenRowCount    int  `json:"frozenRowCount"`
	FrozenColumnCount int  `json:"frozenColumnCount"`
}

type sheetsSheetProps struct {
	SheetID        *int64           `json:"sheetId"`
	Title          string           `json:"title"`
	Index          *int             `json:"index"`
	SheetType      string           `json:"sheetType"`
	GridProperties *sheetsGridProps `json:"gridProperties"`
	Hidden         bool             `json:"hidden"`
}

type sheetsColor struct {
	Red   *float64 `json:"red,omitempty"`
	Green *float64 `json:"green,omitempty"`
	Blue  *float64 `json:"blue,omitempty"`
	Alpha *float64 `json:"alpha,omitempty"`
}

type sheetsColorStyle struct {
	RGBColor   *sheetsColor `json:"rgbColor,omitempty"`
	ThemeColor string       `json:"themeColor,omitempty"`
}

// sheetsCellFormat is the part of CellFormat repeatCell may set here.
type sheetsCellFormat struct {
	NumberFormat *struct {
		Type    string `json:"type"`
		Pattern string `json:"pattern,omitempty"`
	} `json:"numberFormat,omitempty"`
	BackgroundColor      *sheetsColor      `json:"backgroundColor,omitempty"`
	BackgroundColorStyle *sheetsColorStyle `json:"backgroundColorStyle,omitempty"`
	HorizontalAlignment  string            `json:"horizontalAlignment,omitempty"`
	VerticalAlignment    string            `json:"verticalAlignment,omitempty"`
	WrapStrategy         string            `json:"wrapStrategy,omitempty"`
	TextFormat           *struct {
		ForegroundColor      *sheetsColor      `json:"foregroundColor,omitempty"`
		ForegroundColorStyle *sheetsColorStyle `json:"foregroundColorStyle,omitempty"`
		FontFamily           string            `json:"fontFamily,omitempty"`
		FontSize             *int              `json:"fontSize,omitempty"`
		Bold                 *bool             `json:"bold,omitempty"`
		Italic               *bool             `json:"italic,omitempty"`
		Strikethrough        *bool             `json:"strikethrough,omitempty"`
		Underline            *bool             `json:"underline,omitempty"`
	} `json:"textFormat,omitempty"`
}

type sheetsGridRange struct {
	SheetID          int64 `json:"sheetId"`
	StartRowIndex    *int  `json:"startRowIndex"`
	EndRowIndex      *int  `json:"endRowIndex"`
	StartColumnIndex *int  `json:"startColumnIndex"`
	EndColumnIndex   *int  `json:"endColumnIndex"`
}

// sheetsLeaves lists the paths of a JSON object's set values.
func sheetsLeaves(prefix string, v any, out *[]string) {
	m, ok := v.(map[string]any)
	if !ok || len(m) == 0 || strings.HasSuffix(prefix, "Color.") || strings.HasSuffix(prefix, "ColorStyle.") || strings.HasSuffix(prefix, "numberFormat.") {
		*out = append(*out, strings.TrimSuffix(prefix, "."))
		return
	}
	for k, child := range m {
		sheetsLeaves(prefix+k+".", child, out)
	}
}

func sheetsGet(m map[string]any, path []string) (any, bool) {
	var cur any = m
	for _, p := range path {
		mm, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = mm[p]; !ok {
			return nil, false
		}
	}
	return cur, true
}

// sheetsPut sets (or with ok false, removes) a path in a format.
func sheetsPut(m map[string]any, path []string, v any, ok bool) {
	for _, p := range path[:len(path)-1] {
		next, is := m[p].(map[string]any)
		if !is {
			if !ok {
				return
			}
			next = map[string]any{}
			m[p] = next
		}
		m = next
	}
	if ok {
		m[path[len(path)-1]] = v
	} else {
		delete(m, path[len(path)-1])
	}
}

func sheetsCopyMap(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	b, _ := json.Marshal(m)
	var out map[string]any
	json.Unmarshal(b, &out)
	return out
}

// sheetsRepeatCell applies one repeatCell request; it returns false after
// answering.
func sheetsRepeatCell(c *Call, sp *SheetsSpreadsheet, i int, raw json.RawMessage) bool {
	var req struct {
		Range sheetsGridRange `json:"range"`
		Cell  struct {
			UserEnteredFormat *sheetsCellFormat `json:"userEnteredFormat"`
		} `json:"cell"`
		Fields string `json:"fields"`
	}
	if err := sheetsStrict(raw, &req); err != nil {
		return c.Bad("requests[%d].repeatCell does not fit: %v", i, err)
	}
	if req.Fields == "" {
		return c.Bad("requests[%d].repeatCell: fields is required (Google: At least one field must be specified)", i)
	}
	mask, err := parseFields(req.Fields)
	if err != nil {
		return c.Bad("requests[%d].repeatCell.fields: %v", i, err)
	}
	paths := mask.paths()
	for _, p := range paths {
		if p != "userEnteredFormat" && !strings.HasPrefix(p, "userEnteredFormat.") {
			return c.Bad("requests[%d].repeatCell.fields: %q is not a userEnteredFormat field, which is all the tools set", i, p)
		}
	}
	var format map[string]any
	if req.Cell.UserEnteredFormat != nil {
		f := req.Cell.UserEnteredFormat
		if f.NumberFormat != nil && !slices.Contains([]string{"TEXT", "NUMBER", "PERCENT", "CURRENCY", "DATE", "TIME", "DATE_TIME", "SCIENTIFIC"}, f.NumberFormat.Type) {
			return c.Bad("requests[%d]: numberFormat.type %q is not a NumberFormatType", i, f.NumberFormat.Type)
		}
		if f.HorizontalAlignment != "" && !slices.Contains([]string{"LEFT", "CENTER", "RIGHT"}, f.HorizontalAlignment) {
			return c.Bad("requests[%d]: horizontalAlignment %q is not LEFT, CENTER or RIGHT", i, f.HorizontalAlignment)
		}
		for _, col := range []*sheetsColorStyle{f.BackgroundColorStyle} {
			if col != nil && col.RGBColor != nil {
				for _, x := range []*float64{col.RGBColor.Red, col.RGBColor.Green, col.RGBColor.Blue} {
					if x != nil && (*x < 0 || *x > 1) {
						return c.Bad("requests[%d]: a color component is %v, not 0 to 1", i, *x)
					}
				}
			}
		}
		b, _ := json.Marshal(f)
		json.Unmarshal(b, &format)
	}
	// A field set but left out of the mask would be ignored by Google: a
	// tool's mistake.
	var set []string
	for k, v := range format {
		sheetsLeaves(k+".", v, &set)
	}
	for _, leaf := range set {
		covered := slices.ContainsFunc(paths, func(p string) bool {
			p = strings.TrimPrefix(strings.TrimPrefix(p, "userEnteredFormat"), ".")
			return p == "" || p == "*" || leaf == p || strings.HasPrefix(leaf, p+".")
		})
		if !covered {
			return c.Bad("requests[%d].repeatCell: userEnteredFormat.%s is set but not named in fields %q, so Google would ignore it", i, leaf, req.Fields)
		}
	}
	sh := sp.sheetByID(req.Range.SheetID)
	if sh == nil {
		c.Invalid(fmt.Sprintf("Invalid requests[%d].repeatCell: No grid with id: %d", i, req.Range.SheetID))
		return false
	}
	bound := func(p *int, def int) int {
		if p == nil {
			return def
		}
		return *p
	}
	r0, r1 := bound(req.Range.StartRowIndex, 0), bound(req.Range.EndRowIndex, sh.Rows)
	c0, c1 := bound(req.Range.StartColumnIndex, 0), bound(req.Range.EndColumnIndex, sh.Cols)
	if r0 < 0 || c0 < 0 || r1 > sh.Rows || c1 > sh.Cols || r0 > r1 || c0 > c1 {
		c.Invalid(fmt.Sprintf("Invalid requests[%d].repeatCell: the range [%d:%d, %d:%d] is outside the grid of %d rows and %d columns", i, r0, r1, c0, c1, sh.Rows, sh.Cols))
		return false
	}
	for r := r0; r < r1; r++ {
		for col := c0; col < c1; col++ {
			cell := sh.cell(r, col)
			f := sheetsCopyMap(cell.Format)
			if f == nil {
				f = map[string]any{}
			}
			for _, p := range paths {
				p = strings.TrimPrefix(strings.TrimPrefix(p, "userEnteredFormat"), ".")
				if p == "" || p == "*" {
					f = sheetsCopyMap(format)
					continue
				}
				path := strings.Split(p, ".")
				v, ok := sheetsGet(format, path)
				sheetsPut(f, path, v, ok)
			}
			if len(f) == 0 {
				f = nil
			}
			cell.Format = f
			if f != nil || r < len(sh.Grid) && col < len(sh.Grid[r]) {
				sh.set(r, col, cell)
			}
		}
	}
	return true
}

// sheetsAddSheet applies one addSheet request.
func sheetsAddSheet(c *Call, st *SheetsState, sp *SheetsSpreadsheet, i int, raw json.RawMessage) (map[string]any, bool) {
	var req struct {
		Properties sheetsSheetProps `json:"properties"`
	}
	if err := sheetsStrict(raw, &req); err != nil {
		return nil, c.Bad("requests[%d].addSheet does not fit: %v", i, err)
	}
	p := req.Properties
	if p.SheetType != "" && p.SheetType != "GRID" {
		return nil, c.Bad("requests[%d].addSheet: the fake serves GRID sheets only, not %q", i, p.SheetType)
	}
	if p.Title == "" {
		for n := len(sp.Sheets) + 1; ; n++ {
			if sp.Sheet(fmt.Sprintf("Sheet%d", n)) == nil {
				p.Title = fmt.Sprintf("Sheet%d", n)
				break
			}
		}
	}
	if sp.Sheet(p.Title) != nil {
		c.Invalid(fmt.Sprintf("Invalid requests[%d].addSheet: A sheet with the name \"%s\" already exists. Please enter another name.", i, p.Title))
		return nil, false
	}
	rows, cols := 1000, 26
	if g := p.GridProperties; g != nil {
		if g.RowCount != nil {
			rows = *g.RowCount
		}
		if g.ColumnCount != nil {
			cols = *g.ColumnCount
		}
	}
	if rows < 1 || cols < 1 || rows*cols > 10_000_000 {
		c.Invalid(fmt.Sprintf("Invalid requests[%d].addSheet: a sheet needs at least one row and column and at most 10000000 cells", i))
		return nil, false
	}
	var id int64
	if p.SheetID != nil {
		if sp.sheetByID(*p.SheetID) != nil {
			c.Invalid(fmt.Sprintf("Invalid requests[%d].addSheet: A sheet with the id %d already exists.", i, *p.SheetID))
			return nil, false
		}
		id = *p.SheetID
	} else {
		st.nextSheetID += 104729
		id = st.nextSheetID
	}
	sh := &SheetsSheet{ID: id, Title: p.Title, Rows: rows, Cols: cols, Hidden: p.Hidden}
	if p.GridProperties != nil {
		sh.FrozenRows = p.GridProperties.FrozenRowCount
	}
	at := len(sp.Sheets)
	if p.Index != nil {
		if *p.Index < 0 {
			return nil, c.Bad("requests[%d].addSheet: index %d is negative", i, *p.Index)
		}
		at = min(*p.Index, at)
	}
	sp.Sheets = slices.Insert(sp.Sheets, at, sh)
	sp.reindex()
	return map[string]any{"addSheet": map[string]any{"properties": sh.props()}}, true
}

func init() {
	register("sheets.googleapis.com", func(s *Server, r *Router) {
		st := s.Sheets()
		spreadsheet := func(c *Call, id string) *SheetsSpreadsheet {
			sp := st.Spreadsheets[id]
			if sp == nil {
				c.NotFound()
			}
			return sp
		}
		renderOption := func(c *Call) (string, string, bool) {
			opt := c.Query.Get("valueRenderOption")
			if opt == "" {
				opt = "FORMATTED_VALUE"
			}
			if !slices.Contains([]string{"FORMATTED_VALUE", "UNFORMATTED_VALUE", "FORMULA"}, opt) {
				return "", "", c.Bad("valueRenderOption %q is not FORMATTED_VALUE, UNFORMATTED_VALUE or FORMULA", opt)
			}
			date := c.Query.Get("dateTimeRenderOption")
			if date != "" && date != "SERIAL_NUMBER" && date != "FORMATTED_STRING" {
				return "", "", c.Bad("dateTimeRenderOption %q is not SERIAL_NUMBER or FORMATTED_STRING", date)
			}
			if m := c.Query.Get("majorDimension"); m != "" && m != "ROWS" {
				return "", "", c.Bad("the fake answers majorDimension ROWS only, not %q", m)
			}
			return opt, date, true
		}
		inputOption := func(c *Call) (string, bool) {
			opt := c.Query.Get("valueInputOption")
			if opt != "RAW" && opt != "USER_ENTERED" {
				return "", c.Bad("valueInputOption %q is not RAW or USER_ENTERED", opt)
			}
			return opt, true
		}

		r.Handle("POST /v4/spreadsheets", sheetsWrite, func(c *Call) {
			var in struct {
				Properties struct {
					Title    string `json:"title"`
					Locale   string `json:"locale"`
					TimeZone string `json:"timeZone"`
				} `json:"properties"`
				Sheets []struct {
					Properties sheetsSheetProps `json:"properties"`
				} `json:"sheets"`
			}
			if !c.Params(nil, "fields") || !c.Decode(&in) {
				return
			}
			sp := &SheetsSpreadsheet{ID: "1Nw8Tz4XbVfR2mK7pLc9HdJ3gS6aYe0uW5i" + s.NewID("Q"), Title: in.Properties.Title,
				Locale: cmp.Or(in.Properties.Locale, "en_US"), TimeZone: cmp.Or(in.Properties.TimeZone, "America/New_York")}
			if sp.Title == "" {
				sp.Title = "Untitled spreadsheet"
			}
			if len(in.Sheets) == 0 {
				sp.add(0, "Sheet1", 1000, 26)
			}
			for i, sheet := range in.Sheets {
				p := sheet.Properties
				title := cmp.Or(p.Title, fmt.Sprintf("Sheet%d", i+1))
				if sp.Sheet(title) != nil {
					c.Invalid(fmt.Sprintf("Invalid sheets[%d]: A sheet with the name \"%s\" already exists. Please enter another name.", i, title))
					return
				}
				var id int64
				if i > 0 {
					st.nextSheetID += 104729
					id = st.nextSheetID
				}
				rows, cols := 1000, 26
				if g := p.GridProperties; g != nil && g.RowCount != nil && g.ColumnCount != nil {
					rows, cols = *g.RowCount, *g.ColumnCount
				}
				sp.add(id, title, rows, cols)
			}
			st.Spreadsheets[sp.ID] = sp
			c.Partial(sp.json(), nil)
		})

		r.Handle("GET /v4/spreadsheets/{id}", sheetsRead, func(c *Call) {
			if !c.Params(nil, "fields", "ranges", "includeGridData", "excludeTablesInBandedRanges") {
				return
			}
			if c.Query.Get("includeGridData") == "true" || len(c.Query["ranges"]) > 0 {
				c.Bad("the fake does not serve grid data through spreadsheets.get: read values with values.get")
				return
			}
			sp := spreadsheet(c, c.Path("id"))
			if sp == nil {
				return
			}
			c.Partial(sp.json(), nil)
		})

		r.Handle("POST /v4/spreadsheets/{id}", sheetsWrite, func(c *Call) {
			id, ok := c.CustomMethod("id", "batchUpdate")
			if !ok {
				return
			}
			var in struct {
				Requests                     []map[string]json.RawMessage `json:"requests"`
				IncludeSpreadsheetInResponse bool                         `json:"includeSpreadsheetInResponse"`
				ResponseIncludeGridData      bool                         `json:"responseIncludeGridData"`
			}
			if !c.Params(nil) || !c.Decode(&in) {
				return
			}
			old := spreadsheet(c, id)
			if old == nil {
				return
			}
			if len(in.Requests) == 0 {
				c.Invalid("Invalid requests: must specify at least one request.")
				return
			}
			// The batch applies whole or not at all: work on a copy.
			sp := old.clone()
			replies := []any{}
			for i, req := range in.Requests {
				if len(req) != 1 {
					c.Bad("requests[%d] must hold exactly one kind of request, not %d", i, len(req))
					return
				}
				for kind, raw := range req {
					switch kind {
					case "addSheet":
						reply, ok := sheetsAddSheet(c, st, sp, i, raw)
						if !ok {
							return
						}
						replies = append(replies, reply)
					case "repeatCell":
						if !sheetsRepeatCell(c, sp, i, raw) {
							return
						}
						replies = append(replies, map[string]any{})
					default:
						c.Bad("requests[%d]: the fake does not serve %q requests", i, kind)
						return
					}
				}
			}
			st.Spreadsheets[id] = sp
			out := map[string]any{"spreadsheetId": sp.ID, "replies": replies}
			if in.IncludeSpreadsheetInResponse {
				out["updatedSpreadsheet"] = sp.json()
			}
			c.JSON(out)
		})

		r.Handle("GET /v4/spreadsheets/{id}/values/{range}", sheetsRead, func(c *Call) {
			if !c.Params(nil, "majorDimension", "valueRenderOption", "dateTimeRenderOption") {
				return
			}
			opt, date, ok := renderOption(c)
			if !ok {
				return
			}
			sp := spreadsheet(c, c.Path("id"))
			if sp == nil {
				return
			}
			t, ok := sheetsResolve(c, sp, c.Path("range"))
			if !ok {
				return
			}
			r0, c0, r1, c1 := t.clip()
			out := map[string]any{"range": sheetsA1(t.sheet, r0, c0, r1, c1), "majorDimension": "ROWS"}
			var rows [][]any
			for i := r0; i < r1; i++ {
				row := []any{}
				for j := c0; j < c1; j++ {
					row = append(row, t.sheet.render(i, j, opt, date))
				}
				for len(row) > 0 && row[len(row)-1] == nil {
					row = row[:len(row)-1]
				}
				for k, v := range row {
					if v == nil {
						row[k] = ""
					}
				}
				rows = append(rows, row)
			}
			for len(rows) > 0 && len(rows[len(rows)-1]) == 0 {
				rows = rows[:len(rows)-1]
			}
			if len(rows) > 0 {
				out["values"] = rows
			}
			c.JSON(out)
		})

		r.Handle("PUT /v4/spreadsheets/{id}/values/{range}", sheetsWrite, func(c *Call) {
			if !c.Params([]string{"valueInputOption"}, "includeValuesInResponse", "responseValueRenderOption", "responseDateTimeRenderOption") {
				return
			}
			opt, ok := inputOption(c)
			if !ok {
				return
			}
			var in sheetsValueRange
			if !c.Decode(&in) {
				return
			}
			if in.Range != "" && in.Range != c.Path("range") {
				c.Bad("the body's range %q differs from the URL's %q", in.Range, c.Path("range"))
				return
			}
			if in.MajorDimension != "" && in.MajorDimension != "ROWS" && in.MajorDimension != "COLUMNS" {
				c.Bad("majorDimension %q is not ROWS or COLUMNS", in.MajorDimension)
				return
			}
			sp := spreadsheet(c, c.Path("id"))
			if sp == nil {
				return
			}
			t, ok := sheetsResolve(c, sp, c.Path("range"))
			if !ok {
				return
			}
			rows := in.rows()
			// A single cell is where the values start; a larger range bounds them.
			if !t.rect.single {
				width := 0
				for _, row := range rows {
					width = max(width, len(row))
				}
				if t.rect.r1 >= 0 && t.rect.r0+len(rows) > t.rect.r1 {
					c.Invalid(fmt.Sprintf("Requested writing within range [%s], but tried writing to row [%d]", c.Path("range"), t.rect.r1+1))
					return
				}
				if t.rect.c1 >= 0 && t.rect.c0+width > t.rect.c1 {
					c.Invalid(fmt.Sprintf("Requested writing within range [%s], but tried writing to column [%s]", c.Path("range"), sheetsColName(t.rect.c1+1)))
					return
				}
			}
			out, ok := sheetsWriteRows(c, sp, t.sheet, t.rect.r0, t.rect.c0, rows, opt)
			if ok {
				c.JSON(out)
			}
		})

		r.Handle("POST /v4/spreadsheets/{id}/values/{range}", sheetsWrite, func(c *Call) {
			path := c.Path("range")
			switch {
			case strings.HasSuffix(path, ":append"):
				if !c.Params([]string{"valueInputOption"}, "insertDataOption", "includeValuesInResponse", "responseValueRenderOption", "responseDateTimeRenderOption") {
					return
				}
				opt, ok := inputOption(c)
				if !ok {
					return
				}
				insert := cmp.Or(c.Query.Get("insertDataOption"), "OVERWRITE")
				if insert != "OVERWRITE" && insert != "INSERT_ROWS" {
					c.Bad("insertDataOption %q is not OVERWRITE or INSERT_ROWS", insert)
					return
				}
				var in sheetsValueRange
				if !c.Decode(&in) {
					return
				}
				rng := strings.TrimSuffix(path, ":append")
				if in.Range != "" && in.Range != rng {
					c.Bad("the body's range %q differs from the URL's %q", in.Range, rng)
					return
				}
				sp := spreadsheet(c, c.Path("id"))
				if sp == nil {
					return
				}
				t, ok := sheetsResolve(c, sp, rng)
				if !ok {
					return
				}
				sh := t.sheet
				// The table: from the first row with data in the range, the
				// rows that follow with data. A single cell searches from
				// there to the right and down.
				r0, c0, r1, c1 := t.clip()
				if t.rect.single {
					r1, c1 = sh.Rows, sh.Cols
				}
				hasData := func(r int) (first, last int, found bool) {
					first, last = -1, -1
					for j := c0; j < c1; j++ {
						if !sh.cell(r, j).empty() {
							if first < 0 {
								first = j
							}
							last = j
						}
					}
					return first, last, first >= 0
				}
				top := -1
				for i := r0; i < r1 && i < len(sh.Grid); i++ {
					if _, _, ok := hasData(i); ok {
						top = i
						break
					}
				}
				out := map[string]any{"spreadsheetId": sp.ID}
				at, col := r0, c0
				if top >= 0 {
					bottom, left, right := top, c1, -1
					for i := top; i < r1; i++ {
						first, last, ok := hasData(i)
						if !ok {
							break
						}
						bottom, left, right = i, min(left, first), max(right, last)
					}
					out["tableRange"] = sheetsA1(sh, top, left, bottom+1, right+1)
					at, col = bottom+1, left
				}
				rows := in.rows()
				if insert == "INSERT_ROWS" {
					if at < len(sh.Grid) {
						sh.Grid = slices.Insert(sh.Grid, at, make([][]sheetsCell, len(rows))...)
					}
					sh.Rows += len(rows)
				}
				// Appending past the last row adds rows, as Google does.
				if at+len(rows) > sh.Rows {
					sh.Rows = at + len(rows)
				}
				updates, ok := sheetsWriteRows(c, sp, sh, at, col, rows, opt)
				if !ok {
					return
				}
				out["updates"] = updates
				c.JSON(out)
			case strings.HasSuffix(path, ":clear"):
				var in struct{}
				if !c.Params(nil) || !c.Decode(&in) {
					return
				}
				sp := spreadsheet(c, c.Path("id"))
				if sp == nil {
					return
				}
				t, ok := sheetsResolve(c, sp, strings.TrimSuffix(path, ":clear"))
				if !ok {
					return
				}
				r0, c0, r1, c1 := t.clip()
				for i := r0; i < r1 && i < len(t.sheet.Grid); i++ {
					for j := c0; j < c1 && j < len(t.sheet.Grid[i]); j++ {
						t.sheet.Grid[i][j].Value, t.sheet.Grid[i][j].Formula = nil, ""
					}
				}
				c.JSON(map[string]any{"spreadsheetId": sp.ID, "clearedRange": sheetsA1(t.sheet, r0, c0, r1, c1)})
			default:
				c.Bad("no such method: POST %s (values take :append or :clear)", c.R.URL.Path)
			}
		})
	})
}
