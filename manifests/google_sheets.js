// Google Sheets tools: Sheets API v4 (https://sheets.googleapis.com/v4).
const g = lib("google_api");
const _base = "https://sheets.googleapis.com/v4/spreadsheets";

// _id takes a spreadsheet's id, or its URL, from which it takes the id.
function _id(params) {
  g.need(params, "spreadsheet_id");
  const s = String(params.spreadsheet_id).trim();
  const m = s.match(/\/spreadsheets\/d\/([A-Za-z0-9_-]+)/);
  if (m) return m[1];
  if (!/^[A-Za-z0-9_-]+$/.test(s)) {
    throw new Error("spreadsheet_id must be a spreadsheet's id (the part after /d/ in its URL) or its URL; got " + JSON.stringify(s) + ".");
  }
  return s;
}

function _notFound(id) {
  return "No spreadsheet " + id + " that this account can open: check the id (it is in the URL, docs.google.com/spreadsheets/d/ID/edit), " +
    "or find the spreadsheet with drive_search (mime_type spreadsheet).";
}

// A1 notation.

function _colNum(letters) {
  let n = 0;
  for (const ch of letters.toUpperCase()) n = n * 26 + (ch.charCodeAt(0) - 64);
  return n;
}

function _colName(n) {
  let s = "";
  while (n > 0) {
    s = String.fromCharCode(65 + ((n - 1) % 26)) + s;
    n = Math.floor((n - 1) / 26);
  }
  return s;
}

// _quote writes a sheet name as A1 notation needs it: quoted unless it is a
// plain word that cannot be read as a cell.
function _quote(name) {
  if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(name) && !/^[A-Za-z]{1,3}\d*$/.test(name)) return name;
  return "'" + name.replace(/'/g, "''") + "'";
}

const _refRe = /^([A-Za-z]{1,3})?(\d{1,7})?$/;
const _example = "such as Sheet1!A1:C10, 'My Sheet'!A:C or B3";

// _cells parses the cells of a range: B3, A1:C5, A:C, 2:5 or A2:C. Rows and
// columns are 1-based; 0 leaves a bound open.
function _cells(text, whole) {
  const t = text.replace(/\$/g, "");
  const parts = t.split(":");
  const bad = (why) => new Error("The range " + JSON.stringify(whole) + " is not A1 notation: " + why + ". Write it " + _example + ".");
  if (parts.length > 2) throw bad("it has more than one \":\"");
  const a = parts[0].match(_refRe);
  if (!a || !parts[0]) throw bad(JSON.stringify(parts[0]) + " is not a cell, column or row");
  if (parts.length === 1) {
    if (!a[1] || !a[2]) throw bad("a single cell needs a column and a row, such as B3 (a whole column is B:B, a whole row 3:3)");
    const c = _colNum(a[1]), r = Number(a[2]);
    if (r < 1) throw bad("rows start at 1");
    return { c1: c, r1: r, c2: c, r2: r };
  }
  const b = parts[1].match(_refRe);
  if (!b || !parts[1]) throw bad(JSON.stringify(parts[1]) + " is not a cell, column or row");
  let rect;
  if (a[1] && a[2] && b[1] && b[2]) rect = { c1: _colNum(a[1]), r1: Number(a[2]), c2: _colNum(b[1]), r2: Number(b[2]) };
  else if (a[1] && !a[2] && b[1] && !b[2]) rect = { c1: _colNum(a[1]), r1: 0, c2: _colNum(b[1]), r2: 0 };
  else if (!a[1] && a[2] && !b[1] && b[2]) rect = { c1: 0, r1: Number(a[2]), c2: 0, r2: Number(b[2]) };
  else if (a[1] && a[2] && b[1] && !b[2]) rect = { c1: _colNum(a[1]), r1: Number(a[2]), c2: _colNum(b[1]), r2: 0 };
  else throw bad("both ends must be cells (A1:C5), columns (A:C) or rows (2:5), or a cell and a column (A2:C for rows 2 down)");
  if (rect.r1 === 0 && rect.r2 === 0 && rect.c1 === 0) throw bad("empty range");
  if ((a[2] && Number(a[2]) < 1) || (b[2] && Number(b[2]) < 1)) throw bad("rows start at 1");
  // Sheets orders the corners itself: B5:A1 is A1:B5.
  if (rect.r2 && rect.r2 < rect.r1) [rect.r1, rect.r2] = [rect.r2, rect.r1];
  if (rect.c2 && rect.c2 < rect.c1) [rect.c1, rect.c2] = [rect.c2, rect.c1];
  return rect;
}

// _range parses a range in A1 notation: [sheet!]cells, or a sheet's name
// alone for the whole sheet. It returns {sheet (null: the first sheet), c1,
// r1, c2, r2 (0: open), whole (the whole sheet)}.
function _range(input) {
  const raw = String(input === undefined || input === null ? "" : input).trim();
  if (!raw) throw new Error("Missing range: give it in A1 notation, " + _example + ".");
  let sheet = null, cells = raw;
  if (raw.startsWith("'")) {
    let name = "", i = 1;
    for (;;) {
      if (i >= raw.length) throw new Error("The range " + JSON.stringify(raw) + " opens a quote it does not close: write 'My Sheet'!A1:B2 (a quote inside a name is doubled: 'Bob''s'!A1).");
      if (raw[i] === "'") {
        if (raw[i + 1] === "'") { name += "'"; i += 2; continue; }
        break;
      }
      name += raw[i++];
    }
    const rest = raw.slice(i + 1);
    if (!name) throw new Error("The range " + JSON.stringify(raw) + " has an empty sheet name.");
    if (rest && rest[0] !== "!") throw new Error("In " + JSON.stringify(raw) + " the quoted sheet name must be followed by ! and the cells, as '" + name + "'!A1:B2.");
    sheet = name;
    cells = rest.slice(1);
  } else {
    const bang = raw.lastIndexOf("!");
    if (bang >= 0) {
      sheet = raw.slice(0, bang);
      cells = raw.slice(bang + 1);
      if (!sheet.trim()) throw new Error("The range " + JSON.stringify(raw) + " has an empty sheet name before the !.");
      if (!/^[\p{L}\p{N}_.]+$/u.test(sheet)) {
        throw new Error("The sheet name " + JSON.stringify(sheet) + " has spaces or other special characters: quote it, as " +
          "'" + sheet.replace(/'/g, "''") + "'!" + (cells || "A1") + ".");
      }
    } else {
      try {
        _cells(raw, raw);
      } catch (e) {
        // What looks like cells gone wrong is an error; another word is a
        // sheet's name, for the whole sheet.
        if (/^[A-Za-z$]{0,4}[\d$]*(:[A-Za-z$]{0,4}[\d$]*)+$/.test(raw)) throw e;
        sheet = raw;
        cells = "";
      }
    }
  }
  if (sheet !== null && !cells) return { sheet, c1: 0, r1: 0, c2: 0, r2: 0, whole: true };
  return Object.assign({ sheet, whole: false }, _cells(cells, raw));
}

function _cellsText(r) {
  const col = (c) => (c ? _colName(c) : "");
  const row = (n) => (n ? String(n) : "");
  if (r.c1 && r.r1 && r.c1 === r.c2 && r.r1 === r.r2) return col(r.c1) + r.r1;
  return col(r.c1) + row(r.r1) + ":" + col(r.c2) + row(r.r2);
}

// _a1 writes a parsed range back as A1 notation, the sheet quoted as needed.
function _a1(r) {
  const sheet = r.sheet === null ? "" : _quote(r.sheet);
  if (r.whole) return sheet;
  return (sheet ? sheet + "!" : "") + _cellsText(r);
}

// _single tells whether a range is one cell (where writes start).
function _single(r) {
  return !r.whole && r.c1 && r.r1 && r.c1 === r.c2 && r.r1 === r.r2;
}

// _values checks the 2-D array a write takes.
function _values(params) {
  const v = params.values;
  const shape = "values must be a list of rows, each a list of cells, such as [[\"Name\", \"Hours\"], [\"Ada\", 8]]";
  if (!Array.isArray(v) || !v.length) throw new Error("Missing values: " + shape + ".");
  v.forEach((row, i) => {
    if (!Array.isArray(row)) throw new Error(shape + "; row " + (i + 1) + " is " + JSON.stringify(row) + ".");
    row.forEach((cell) => {
      const t = cell === null ? "null" : typeof cell;
      if (!["string", "number", "boolean", "null"].includes(t)) {
        throw new Error("A cell must be a string, number, boolean or null (null leaves the cell as it is); row " + (i + 1) + " has " + JSON.stringify(cell) + ".");
      }
    });
  });
  return v;
}

function _inputOption(params) {
  const o = params.value_input_option || "USER_ENTERED";
  if (o !== "USER_ENTERED" && o !== "RAW") throw new Error("value_input_option must be USER_ENTERED or RAW, not " + JSON.stringify(o) + ".");
  return o;
}

function _valuesURL(id, range, suffix) {
  return _base + "/" + g.pathId(id) + "/values/" + encodeURIComponent(range) + (suffix || "");
}

// _request calls the API, and says what to do when Google cannot place a
// range: usually a sheet name that does not exist.
async function _request(method, url, opts, range) {
  try {
    return await g.request(method, url, opts);
  } catch (e) {
    if (e.status === 400 && /Unable to parse range/i.test(e.message)) {
      e.message += " Check the sheet name in " + JSON.stringify(range) + ": sheets_get_info lists the sheets.";
    } else if (e.status === 400 && /exceeds grid limits/i.test(e.message)) {
      e.message += " The sheet is smaller than that: sheets_get_info gives its size; write inside it, or add rows with sheets_append_rows.";
    }
    throw e;
  }
}

function _plural(n, word) {
  return n + " " + word + (n === 1 ? "" : "s");
}

// Tools.

async function createSpreadsheet(params) {
  g.need(params, "title");
  const body = { properties: { title: params.title } };
  if (params.sheet_names !== undefined) {
    const names = params.sheet_names;
    if (!Array.isArray(names) || !names.every((n) => typeof n === "string" && n.trim())) {
      throw new Error("sheet_names must be a list of non-empty names, such as [\"Budget\", \"Notes\"].");
    }
    const seen = new Set();
    for (const n of names) {
      if (seen.has(n.toLowerCase())) throw new Error("Two sheets would be named " + JSON.stringify(n) + ": sheet names must differ.");
      seen.add(n.toLowerCase());
    }
    if (names.length) body.sheets = names.map((title) => ({ properties: { title } }));
  }
  const sp = await g.request("POST", _base, { body, scope: g.scopes.spreadsheets, what: "new spreadsheet" });
  const sheets = (sp.sheets || []).map((s) => s.properties.title + " (sheetId " + s.properties.sheetId + ")");
  return "Created the spreadsheet \"" + sp.properties.title + "\" (id: " + sp.spreadsheetId + ").\n" +
    "URL: " + sp.spreadsheetUrl + "\n" +
    "Sheets: " + sheets.join(", ");
}

async function getInfo(params) {
  const id = _id(params);
  const sp = await g.request("GET", _base + "/" + g.pathId(id), {
    query: { fields: "spreadsheetId,spreadsheetUrl,properties(title,locale,timeZone),sheets(properties(sheetId,title,index,sheetType,hidden,gridProperties(rowCount,columnCount,frozenRowCount,frozenColumnCount)))" },
    scope: g.scopes.spreadsheetsReadonly, what: "spreadsheet " + id, notFound: _notFound(id),
  });
  const p = sp.properties || {};
  const lines = [
    "Spreadsheet \"" + p.title + "\" (id: " + sp.spreadsheetId + ")",
    "URL: " + sp.spreadsheetUrl,
  ];
  if (p.locale || p.timeZone) lines.push("Locale: " + (p.locale || "?") + ", time zone: " + (p.timeZone || "?"));
  const sheets = sp.sheets || [];
  lines.push(_plural(sheets.length, "sheet") + ":");
  for (const s of sheets) {
    const sh = s.properties;
    const grid = sh.gridProperties || {};
    let line = "- " + sh.title + " (sheetId " + sh.sheetId;
    if (_quote(sh.title) !== sh.title) line += "; in ranges write " + _quote(sh.title) + "!A1";
    line += ")";
    if (sh.sheetType && sh.sheetType !== "GRID") line += ": " + sh.sheetType.toLowerCase() + " sheet";
    else line += ": " + grid.rowCount + " rows × " + grid.columnCount + " columns (A–" + _colName(grid.columnCount) + ")";
    if (grid.frozenRowCount) line += ", " + _plural(grid.frozenRowCount, "frozen row");
    if (grid.frozenColumnCount) line += ", " + _plural(grid.frozenColumnCount, "frozen column");
    if (sh.hidden) line += ", hidden";
    lines.push(line);
  }
  return lines.join("\n");
}

// _cellText shows one cell in the table: one line, pipes escaped, long
// texts cut.
function _cellText(v) {
  let s = v === null || v === undefined ? "" : String(v);
  if (s.length > 300) s = s.slice(0, 300) + "…";
  return s.replace(/\\/g, "\\\\").replace(/\|/g, "\\|").replace(/\r?\n/g, "\\n");
}

async function readRange(params) {
  const id = _id(params);
  const r = _range(params.range);
  const render = params.value_render_option || "FORMATTED_VALUE";
  if (!["FORMATTED_VALUE", "UNFORMATTED_VALUE", "FORMULA"].includes(render)) {
    throw new Error("value_render_option must be FORMATTED_VALUE, UNFORMATTED_VALUE or FORMULA, not " + JSON.stringify(render) + ".");
  }
  const format = params.format || "table";
  if (format !== "table" && format !== "json") throw new Error("format must be table or json, not " + JSON.stringify(format) + ".");
  const max = params.max_rows === undefined ? 100 : Number(params.max_rows);
  if (!Number.isInteger(max) || max < 1 || max > 1000) throw new Error("max_rows must be a whole number from 1 to 1000.");

  // Ask for one row more than is shown, to know whether more follow.
  const first = r.r1 || 1;
  let ask = r;
  let capped = false;
  if (r.whole || !r.r2 || r.r2 - first + 1 > max) {
    capped = true;
    ask = { sheet: r.sheet, whole: false, c1: r.c1, c2: r.c2, r1: first, r2: first + max };
    if (!r.c1) ask.c1 = ask.c2 = 0;
  }
  const askText = _a1(ask);
  const query = { valueRenderOption: render, majorDimension: "ROWS" };
  if (render !== "FORMATTED_VALUE") query.dateTimeRenderOption = "FORMATTED_STRING";
  const res = await _request("GET", _valuesURL(id, askText), {
    query, scope: g.scopes.spreadsheetsReadonly, what: "values of " + askText, notFound: _notFound(id),
  }, params.range);

  let rows = res.values || [];
  const got = _range(res.range || askText);
  const top = got.r1 || first;
  const left = got.c1 || 1;
  let more = "";
  if (capped && rows.length > max) {
    rows = rows.slice(0, max);
    const next = top + max;
    const nextRange = Object.assign({}, ask, { r1: next, r2: next + max - 1 });
    more = "More rows follow: read them with range " + _a1(nextRange) + ".";
  }
  if (!rows.length) return "The range " + (res.range || askText) + " is empty.";
  const shownRange = capped ? _a1(Object.assign({}, got, { r2: top + rows.length - 1 })) : res.range;
  const width = rows.reduce((w, row) => Math.max(w, row.length), 0);
  const note = render === "FORMATTED_VALUE" ? "" : " (" + render.toLowerCase().replace("_", " ") + "s)";
  let out;
  if (format === "json") {
    out = JSON.stringify({ range: shownRange, first_row: top, first_column: _colName(left) }).slice(0, -1) +
      ",\"rows\":[\n" + rows.map((row) => JSON.stringify(row)).join(",\n") + "\n]}";
  } else {
    const header = ["row"];
    for (let c = 0; c < width; c++) header.push(_colName(left + c));
    out = shownRange + note + ": " + _plural(rows.length, "row") + ", columns " + _colName(left) + "–" + _colName(left + Math.max(width, 1) - 1) + "\n" +
      header.join(" | ") + "\n" +
      rows.map((row, i) => [String(top + i)].concat(row.map(_cellText)).join(" | ")).join("\n");
  }
  out = g.cut(out, 30000);
  return more ? out + "\n" + more : out;
}

async function updateRange(params) {
  const id = _id(params);
  const r = _range(params.range);
  const values = _values(params);
  const option = _inputOption(params);
  // A single cell is where the values start; a larger range must hold them.
  if (!_single(r) && !r.whole) {
    const width = values.reduce((w, row) => Math.max(w, row.length), 0);
    if (r.r1 && r.r2 && values.length > r.r2 - r.r1 + 1) {
      throw new Error("The values have " + _plural(values.length, "row") + " but " + _a1(r) + " holds " + (r.r2 - r.r1 + 1) +
        ": give a larger range, or only its top-left cell (" + _a1(Object.assign({}, r, { c1: r.c1 || 1, r1: r.r1, c2: r.c1 || 1, r2: r.r1 })) + ").");
    }
    if (r.c1 && r.c2 && width > r.c2 - r.c1 + 1) {
      throw new Error("The values have " + _plural(width, "column") + " but " + _a1(r) + " holds " + (r.c2 - r.c1 + 1) +
        ": give a larger range, or only its top-left cell (" + _a1(Object.assign({}, r, { r1: r.r1 || 1, r2: r.r1 || 1, c2: r.c1 })) + ").");
    }
  }
  const range = _a1(r.whole ? Object.assign({}, r, { whole: false, c1: 1, r1: 1, c2: 1, r2: 1 }) : r);
  const res = await _request("PUT", _valuesURL(id, range), {
    query: { valueInputOption: option },
    body: { range, majorDimension: "ROWS", values },
    scope: g.scopes.spreadsheets, what: "values of " + range, notFound: _notFound(id),
  }, params.range);
  return "Updated " + res.updatedRange + ": " + _plural(res.updatedRows || 0, "row") + ", " + _plural(res.updatedCells || 0, "cell") +
    (option === "RAW" ? " (stored as given, not parsed)." : ".");
}

async function appendRows(params) {
  const id = _id(params);
  const r = _range(params.range === undefined || params.range === "" ? "A1" : params.range);
  const values = _values(params);
  const option = _inputOption(params);
  const insert = params.insert_data_option || "INSERT_ROWS";
  if (insert !== "INSERT_ROWS" && insert !== "OVERWRITE") throw new Error("insert_data_option must be INSERT_ROWS or OVERWRITE, not " + JSON.stringify(insert) + ".");
  const range = _a1(r);
  const res = await _request("POST", _valuesURL(id, range, ":append"), {
    query: { valueInputOption: option, insertDataOption: insert },
    body: { range, majorDimension: "ROWS", values },
    scope: g.scopes.spreadsheets, what: "rows appended to " + range, notFound: _notFound(id),
  }, params.range);
  const u = res.updates || {};
  return "Appended " + _plural(u.updatedRows || 0, "row") + " at " + u.updatedRange + " (" + _plural(u.updatedCells || 0, "cell") + ")" +
    (res.tableRange ? ", after the table " + res.tableRange : ", in an empty area") +
    (insert === "INSERT_ROWS" ? "; new rows were inserted for them, so nothing was overwritten." : "; written over the cells below the table.");
}

async function clearRange(params) {
  const id = _id(params);
  const r = _range(params.range);
  const range = _a1(r);
  const res = await _request("POST", _valuesURL(id, range, ":clear"), {
    body: {}, scope: g.scopes.spreadsheets, what: "values of " + range, notFound: _notFound(id),
  }, params.range);
  return "Cleared the values in " + res.clearedRange + " (formatting kept).";
}

async function addSheet(params) {
  const id = _id(params);
  g.need(params, "title");
  const props = { title: String(params.title) };
  if (params.index !== undefined) {
    if (!Number.isInteger(params.index) || params.index < 0) throw new Error("index must be 0 or more (0 puts the sheet first).");
    props.index = params.index;
  }
  if (params.rows !== undefined || params.columns !== undefined) {
    const rows = params.rows === undefined ? 1000 : params.rows;
    const cols = params.columns === undefined ? 26 : params.columns;
    if (!Number.isInteger(rows) || rows < 1 || !Number.isInteger(cols) || cols < 1 || cols > 18278) {
      throw new Error("rows must be 1 or more and columns 1 to 18278.");
    }
    props.gridProperties = { rowCount: rows, columnCount: cols };
  }
  const res = await g.request("POST", _base + "/" + g.pathId(id) + ":batchUpdate", {
    body: { requests: [{ addSheet: { properties: props } }] },
    scope: g.scopes.spreadsheets, what: "new sheet", notFound: _notFound(id),
  });
  const p = res.replies[0].addSheet.properties;
  const grid = p.gridProperties || {};
  return "Added the sheet \"" + p.title + "\" (sheetId " + p.sheetId + ", position " + p.index + ", " +
    grid.rowCount + " rows × " + grid.columnCount + " columns). Refer to it in ranges as " + _quote(p.title) + "!A1.";
}

// _color turns #RRGGBB into the API's Color.
function _color(hex, name) {
  const m = String(hex).trim().match(/^#?([0-9a-fA-F]{2})([0-9a-fA-F]{2})([0-9a-fA-F]{2})$/);
  if (!m) throw new Error(name + " must be a color as #RRGGBB, such as #FFF2CC; got " + JSON.stringify(hex) + ".");
  const part = (h) => Math.round((parseInt(h, 16) / 255) * 1000) / 1000;
  return { red: part(m[1]), green: part(m[2]), blue: part(m[3]) };
}

const _numberTypes = ["NUMBER", "CURRENCY", "PERCENT", "DATE", "TIME", "DATE_TIME", "SCIENTIFIC", "TEXT"];

async function formatRange(params) {
  const id = _id(params);
  const r = _range(params.range);
  const format = {};
  const fields = [];
  const said = [];
  const text = {};
  if (params.bold !== undefined) { text.bold = !!params.bold; fields.push("textFormat.bold"); said.push(params.bold ? "bold" : "not bold"); }
  if (params.italic !== undefined) { text.italic = !!params.italic; fields.push("textFormat.italic"); said.push(params.italic ? "italic" : "not italic"); }
  if (params.font_size !== undefined) {
    if (!Number.isInteger(params.font_size) || params.font_size < 1 || params.font_size > 400) throw new Error("font_size must be a whole number of points, 1 to 400.");
    text.fontSize = params.font_size;
    fields.push("textFormat.fontSize");
    said.push(params.font_size + " pt");
  }
  if (params.text_color !== undefined) {
    text.foregroundColorStyle = { rgbColor: _color(params.text_color, "text_color") };
    fields.push("textFormat.foregroundColorStyle");
    said.push("text " + params.text_color);
  }
  if (Object.keys(text).length) format.textFormat = text;
  if (params.background_color !== undefined) {
    format.backgroundColorStyle = { rgbColor: _color(params.background_color, "background_color") };
    fields.push("backgroundColorStyle");
    said.push("background " + params.background_color);
  }
  if (params.number_format !== undefined || params.number_pattern !== undefined) {
    const type = params.number_format || "NUMBER";
    if (!_numberTypes.includes(type)) throw new Error("number_format must be one of " + _numberTypes.join(", ") + ".");
    format.numberFormat = { type };
    if (params.number_pattern) format.numberFormat.pattern = String(params.number_pattern);
    fields.push("numberFormat");
    said.push(type.toLowerCase() + (params.number_pattern ? " " + params.number_pattern : "") + " format");
  }
  if (params.horizontal_alignment !== undefined) {
    const a = String(params.horizontal_alignment).toUpperCase();
    if (!["LEFT", "CENTER", "RIGHT"].includes(a)) throw new Error("horizontal_alignment must be LEFT, CENTER or RIGHT.");
    format.horizontalAlignment = a;
    fields.push("horizontalAlignment");
    said.push("aligned " + a.toLowerCase());
  }
  if (!fields.length) throw new Error("Nothing to format: give bold, italic, font_size, text_color, background_color, number_format or horizontal_alignment.");

  // repeatCell takes a GridRange, which names the sheet by its id.
  const sp = await g.request("GET", _base + "/" + g.pathId(id), {
    query: { fields: "sheets.properties(sheetId,title)" },
    scope: g.scopes.spreadsheetsReadonly, what: "sheets of " + id, notFound: _notFound(id),
  });
  const sheets = (sp.sheets || []).map((s) => s.properties);
  let sheet = sheets[0];
  if (r.sheet !== null) {
    sheet = sheets.find((s) => s.title === r.sheet) || sheets.find((s) => s.title.toLowerCase() === r.sheet.toLowerCase());
    if (!sheet) {
      throw new Error("No sheet named " + JSON.stringify(r.sheet) + " in the spreadsheet; its sheets are: " +
        sheets.map((s) => JSON.stringify(s.title)).join(", ") + ".");
    }
  }
  const grid = { sheetId: sheet.sheetId };
  if (r.r1) grid.startRowIndex = r.r1 - 1;
  if (r.r2) grid.endRowIndex = r.r2;
  if (r.c1) grid.startColumnIndex = r.c1 - 1;
  if (r.c2) grid.endColumnIndex = r.c2;
  await g.request("POST", _base + "/" + g.pathId(id) + ":batchUpdate", {
    body: { requests: [{ repeatCell: { range: grid, cell: { userEnteredFormat: format }, fields: "userEnteredFormat(" + fields.join(",") + ")" } }] },
    scope: g.scopes.spreadsheets, what: "format of " + _a1(r), notFound: _notFound(id),
  });
  const shown = _a1(Object.assign({}, r, { sheet: sheet.title }));
  return "Formatted " + shown + ": " + said.join(", ") + ".";
}
