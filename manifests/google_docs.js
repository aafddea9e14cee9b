// Google Docs tools: Docs API v1 (https://docs.googleapis.com/v1).
//
// Indices are the API's: UTF-16 code units from the start of the body, as
// JavaScript strings count them. Edits that depend on a read send the read's
// revision as writeControl.requiredRevisionId, so a document changed in
// between is refused instead of edited at the wrong place.
const g = lib("google_api");
const _base = "https://docs.googleapis.com/v1/documents";
const _styles = ["NORMAL_TEXT", "TITLE", "SUBTITLE", "HEADING_1", "HEADING_2", "HEADING_3", "HEADING_4", "HEADING_5", "HEADING_6"];

// The parts of a document each tool reads (partial responses keep big
// documents under the 100 KB a response may have).
const _fieldsRead = "documentId,title,revisionId,lists," +
  "body.content(startIndex,endIndex,paragraph(elements(textRun(content,textStyle/link/url)),paragraphStyle/namedStyleType,bullet(listId,nestingLevel))," +
  "table(rows,columns,tableRows/tableCells/content(paragraph(elements/textRun/content))))";
const _fieldsSearch = "revisionId,body.content(startIndex,paragraph(elements(startIndex,endIndex,textRun/content),paragraphStyle/namedStyleType)," +
  "table/tableRows/tableCells/content(startIndex,paragraph(elements(startIndex,endIndex,textRun/content),paragraphStyle/namedStyleType)))";
const _fieldsEnd = "revisionId,body.content(endIndex,paragraph(elements/textRun/content,paragraphStyle/namedStyleType,bullet/listId))";

// _id takes a document id or a link to the document.
function _id(params) {
  g.need(params, "document_id");
  const s = String(params.document_id).trim();
  const m = s.match(/\/document\/(?:u\/\d+\/)?d\/([A-Za-z0-9_-]+)/);
  return m ? m[1] : s;
}

function _link(id) {
  return "https://docs.google.com/document/d/" + id + "/edit";
}

function _notFound(id) {
  return "No document " + id + ", or the account may not open it: check the id (the part of the document's link after /document/d/); " +
    "docs_create gives the ids of new documents, and the Google Drive tools can search for existing ones.";
}

async function _get(id, fields) {
  return g.request("GET", _base + "/" + g.pathId(id), {
    query: { fields }, scope: g.scopes.documentsReadonly, what: "document " + id, notFound: _notFound(id),
  });
}

// _batch applies edits; revision (from a read) makes Google refuse them if
// the document changed since.
async function _batch(id, requests, revision) {
  const body = { requests };
  if (revision) body.writeControl = { requiredRevisionId: revision };
  try {
    return await g.request("POST", _base + "/" + g.pathId(id) + ":batchUpdate", {
      body, scope: g.scopes.documents, what: "editing document " + id, notFound: _notFound(id),
    });
  } catch (e) {
    if (e.status === 400 && revision && /revision/i.test(e.message)) {
      throw new Error("The document changed while it was being edited, so nothing was changed: call the tool again. (" + e.message + ")");
    }
    throw e;
  }
}

// _text normalizes line ends; Docs paragraphs end with "\n".
function _text(s) {
  return String(s).replace(/\r\n?/g, "\n");
}

function _paraText(p) {
  return ((p && p.elements) || []).map((e) => (e.textRun ? e.textRun.content : "")).join("");
}

// _fold lowers case unit by unit, keeping every index where it was.
function _fold(s) {
  let out = "";
  for (let i = 0; i < s.length; i++) {
    const c = s[i], l = c.toLowerCase();
    out += l.length === 1 ? l : c;
  }
  return out;
}

function _prefix(named) {
  const m = /^HEADING_(\d)$/.exec(named || "");
  if (m) return "#".repeat(Number(m[1])) + " ";
  if (named === "TITLE") return "Title: ";
  if (named === "SUBTITLE") return "Subtitle: ";
  return "";
}

// _ordered tells whether a list level is numbered.
function _ordered(lists, listId, level) {
  const list = lists && lists[listId];
  const levels = list && list.listProperties && list.listProperties.nestingLevels;
  const l = levels && levels[level];
  return !!(l && l.glyphType && l.glyphType !== "NONE" && l.glyphType !== "GLYPH_TYPE_UNSPECIFIED");
}

function _range(el) {
  return "[" + (el.startIndex || 0) + "-" + el.endIndex + ") ";
}

function _render(doc, showIndices) {
  const lines = [];
  const counters = {};
  for (const el of (doc.body && doc.body.content) || []) {
    if (el.paragraph) {
      const p = el.paragraph;
      let text = "";
      for (const e of p.elements || []) {
        if (!e.textRun) continue;
        const content = e.textRun.content.replace(/\n$/, "");
        const link = e.textRun.textStyle && e.textRun.textStyle.link && e.textRun.textStyle.link.url;
        text += link && content ? "[" + content + "](" + link + ")" : content;
      }
      text = text.replace(/\n$/, "").replace(/\u000b/g, "\n");
      let prefix = _prefix(p.paragraphStyle && p.paragraphStyle.namedStyleType);
      if (p.bullet) {
        const level = p.bullet.nestingLevel || 0;
        const key = p.bullet.listId + ":" + level;
        for (const k of Object.keys(counters)) {
          const [list, l] = k.split(":");
          if (list === p.bullet.listId && Number(l) > level) delete counters[k];
        }
        counters[key] = (counters[key] || 0) + 1;
        prefix = "  ".repeat(level) + (_ordered(doc.lists, p.bullet.listId, level) ? counters[key] + ". " : "- ") + prefix;
      }
      if (text === "" && !showIndices) {
        if (lines.length && lines[lines.length - 1] !== "") lines.push("");
        continue;
      }
      lines.push((showIndices ? _range(el) : "") + prefix + text);
    } else if (el.table) {
      if (showIndices) lines.push(_range(el) + "table, " + el.table.rows + " rows x " + el.table.columns + " columns:");
      for (const row of el.table.tableRows || []) {
        const cells = (row.tableCells || []).map((c) =>
          (c.content || []).filter((x) => x.paragraph).map((x) => _paraText(x.paragraph).replace(/\n$/, "")).filter((t) => t).join(" / "));
        lines.push("| " + cells.join(" | ") + " |");
      }
    }
  }
  while (lines.length && lines[lines.length - 1] === "") lines.pop();
  return lines.join("\n");
}

async function readDocument(params) {
  const id = _id(params);
  const max = params.max_chars || 20000;
  let doc;
  try {
    doc = await _get(id, _fieldsRead);
  } catch (e) {
    if (/could not be read/.test(e.message)) {
      throw new Error("The document " + id + " is too large to read whole here (Google's answer was cut): read it in Google Docs, or search it with docs_format_text/docs_replace_text.");
    }
    throw e;
  }
  const text = _render(doc, !!params.show_indices);
  return "Document \"" + doc.title + "\" (id: " + doc.documentId + ", revision: " + doc.revisionId + ")\nLink: " + _link(doc.documentId) +
    "\n\n" + (text ? g.cut(text, max) : "(The document is empty.)");
}

async function createDocument(params) {
  g.need(params, "title");
  const doc = await g.request("POST", _base, { body: { title: String(params.title) }, scope: g.scopes.documents, what: "new document" });
  let out = "Created the document \"" + doc.title + "\" (id: " + doc.documentId + ").";
  if (params.text) {
    const text = _text(params.text);
    try {
      await _batch(doc.documentId, [{ insertText: { location: { index: 1 }, text } }]);
    } catch (e) {
      return out + " Its text could not be added: " + e.message + "\nLink: " + _link(doc.documentId);
    }
    out += " Added " + text.length + " characters of text.";
  }
  return out + "\nLink: " + _link(doc.documentId);
}

// _style checks a paragraph style argument.
function _style(value, name) {
  if (value === undefined || value === null || value === "") return undefined;
  if (!_styles.includes(value)) throw new Error(name + " must be one of " + _styles.join(", ") + "; got " + JSON.stringify(value));
  return value;
}

async function appendText(params) {
  const id = _id(params);
  g.need(params, "text");
  const text = _text(params.text).replace(/\n+$/, "");
  if (!text) throw new Error("text is empty: give the text to add.");
  const style = _style(params.style, "style");
  const doc = await _get(id, _fieldsEnd);
  const content = (doc.body && doc.body.content) || [];
  const last = content[content.length - 1];
  if (!last || !last.paragraph) throw new Error("The end of document " + id + " could not be found.");
  // The body ends with a paragraph's newline: text goes in before it. An
  // empty last paragraph takes the text; otherwise a newline starts a new
  // paragraph, which would keep the last one's style and list unless reset.
  const empty = _paraText(last.paragraph) === "\n";
  const start = empty ? last.endIndex - 1 : last.endIndex;
  const range = { startIndex: start, endIndex: start + text.length };
  const requests = [{ insertText: { endOfSegmentLocation: {}, text: empty ? text : "\n" + text } }];
  const lastStyle = (last.paragraph.paragraphStyle && last.paragraph.paragraphStyle.namedStyleType) || "NORMAL_TEXT";
  if ((style || "NORMAL_TEXT") !== lastStyle) {
    requests.push({ updateParagraphStyle: { range, paragraphStyle: { namedStyleType: style || "NORMAL_TEXT" }, fields: "namedStyleType" } });
  }
  if (last.paragraph.bullet) requests.push({ deleteParagraphBullets: { range } });
  await _batch(id, requests, doc.revisionId);
  const paragraphs = text.split("\n").length;
  return "Added " + paragraphs + " paragraph" + (paragraphs > 1 ? "s" : "") + (style && style !== "NORMAL_TEXT" ? " as " + style : "") +
    " at the end of document " + id + " (index " + range.startIndex + " to " + range.endIndex + ").";
}

// _paragraphs lists the body's paragraphs, table cells' included, with
// their start index and their text placed at its indices (anything but
// text, such as an image, is U+FFFC).
function _paragraphs(doc) {
  const out = [];
  const add = (el) => {
    if (!el.paragraph) return;
    const start = el.startIndex || 0;
    let text = "";
    for (const e of el.paragraph.elements || []) {
      const at = (e.startIndex || 0) - start;
      while (text.length < at) text += "\ufffc";
      text += e.textRun ? e.textRun.content : "\ufffc".repeat((e.endIndex || 0) - (e.startIndex || 0));
    }
    out.push({ start, text, style: (el.paragraph.paragraphStyle && el.paragraph.paragraphStyle.namedStyleType) || "NORMAL_TEXT" });
  };
  for (const el of (doc.body && doc.body.content) || []) {
    add(el);
    if (el.table) {
      for (const row of el.table.tableRows || []) for (const cell of row.tableCells || []) for (const c of cell.content || []) add(c);
    }
  }
  return out;
}

async function insertText(params) {
  const id = _id(params);
  g.need(params, "text");
  const hasIndex = params.index !== undefined && params.index !== null;
  const hasHeading = params.after_heading !== undefined && params.after_heading !== null && String(params.after_heading).trim() !== "";
  if (hasIndex === hasHeading) throw new Error("Give exactly one of after_heading (a heading's text) and index (from docs_read with show_indices).");
  if (hasIndex) {
    const index = Number(params.index);
    if (!Number.isInteger(index) || index < 1) throw new Error("index must be a whole number from 1 (the start of the document); got " + JSON.stringify(params.index));
    const text = _text(params.text);
    try {
      await _batch(id, [{ insertText: { location: { index }, text } }]);
    } catch (e) {
      if (e.status === 400) throw new Error(e.message + " Pick a paragraph's start index from docs_read with show_indices.");
      throw e;
    }
    return "Inserted " + text.length + " characters at index " + index + " of document " + id + ".";
  }
  const text = _text(params.text).replace(/\n+$/, "");
  if (!text) throw new Error("text is empty: give the text to insert.");
  const doc = await _get(id, _fieldsSearch);
  const want = _fold(String(params.after_heading).replace(/^#+\s*/, "").trim());
  const headings = _paragraphs(doc).filter((p) => p.style !== "NORMAL_TEXT");
  const name = (p) => _fold(p.text.replace(/\n$/, "").trim());
  const h = headings.find((p) => name(p) === want) || headings.find((p) => name(p).includes(want));
  if (!h) {
    const list = headings.slice(0, 30).map((p) => "\"" + p.text.replace(/\n$/, "") + "\"").join(", ");
    throw new Error("No heading \"" + params.after_heading + "\" in document " + id + (list ? ": its headings are " + list : ": it has no headings") +
      ". Use index instead, from docs_read with show_indices.");
  }
  // A newline before the heading's own newline ends the heading; the text
  // then forms new paragraphs, reset from the heading's style to normal.
  const end = h.start + h.text.length;
  const requests = [
    { insertText: { location: { index: end - 1 }, text: "\n" + text } },
    { updateParagraphStyle: { range: { startIndex: end, endIndex: end + text.length }, paragraphStyle: { namedStyleType: "NORMAL_TEXT" }, fields: "namedStyleType" } },
  ];
  await _batch(id, requests, doc.revisionId);
  const paragraphs = text.split("\n").length;
  return "Inserted " + paragraphs + " paragraph" + (paragraphs > 1 ? "s" : "") + " under the heading \"" + h.text.replace(/\n$/, "") +
    "\" in document " + id + " (index " + end + " to " + (end + text.length) + ").";
}

async function replaceText(params) {
  const id = _id(params);
  g.need(params, "find");
  if (params.replace === undefined || params.replace === null) throw new Error("Missing replace: give the new text (\"\" to delete) and call again.");
  const matchCase = params.match_case !== false;
  const find = _text(params.find);
  const res = await _batch(id, [{ replaceAllText: { containsText: { text: find, matchCase }, replaceText: _text(params.replace) } }]);
  const reply = (res.replies && res.replies[0] && res.replies[0].replaceAllText) || {};
  const n = reply.occurrencesChanged || 0;
  if (!n) {
    return "No occurrence of \"" + find + "\" in document " + id + ", so nothing changed" +
      (matchCase ? " (matching case; try match_case false)" : "") + ". docs_read shows the exact text.";
  }
  return "Replaced " + n + " occurrence" + (n > 1 ? "s" : "") + " of \"" + find + "\" with \"" + params.replace + "\" in document " + id + ".";
}

async function formatText(params) {
  const id = _id(params);
  g.need(params, "find");
  const textStyle = {};
  const fields = [];
  const done = [];
  for (const k of ["bold", "italic", "underline", "strikethrough"]) {
    if (params[k] === undefined || params[k] === null) continue;
    textStyle[k] = !!params[k];
    fields.push(k);
    done.push((params[k] ? "" : "not ") + k);
  }
  if (params.link_url !== undefined && params.link_url !== null) {
    const url = String(params.link_url).trim();
    if (url && !/^(https?:\/\/|mailto:)\S+$/i.test(url)) throw new Error("link_url must be an http, https or mailto URL; got " + JSON.stringify(params.link_url));
    if (url) textStyle.link = { url };
    fields.push("link");
    done.push(url ? "linked to " + url : "link removed");
  }
  const style = _style(params.paragraph_style, "paragraph_style");
  if (style) done.push("paragraphs as " + style);
  if (!fields.length && !style) throw new Error("Nothing to do: give bold, italic, underline, strikethrough, link_url or paragraph_style.");
  const matchCase = params.match_case !== false;
  const find = _text(params.find);
  const want = matchCase ? find : _fold(find);
  const doc = await _get(id, _fieldsSearch);
  const matches = [];
  for (const p of _paragraphs(doc)) {
    const hay = matchCase ? p.text : _fold(p.text);
    for (let i = hay.indexOf(want); i >= 0; i = hay.indexOf(want, i + want.length)) {
      matches.push({ startIndex: p.start + i, endIndex: p.start + i + want.length });
    }
  }
  if (!matches.length) {
    throw new Error("\"" + find + "\" is not in document " + id + (matchCase ? " (matching case; try match_case false)" : "") +
      ": docs_read shows the exact text (text across two paragraphs cannot be matched).");
  }
  let chosen = matches;
  if (!params.all) {
    const n = params.occurrence || 1;
    if (n > matches.length) throw new Error("\"" + find + "\" occurs " + matches.length + " time" + (matches.length > 1 ? "s" : "") + " in document " + id + ", not " + n + ".");
    chosen = [matches[n - 1]];
  }
  const requests = [];
  for (const range of chosen) {
    if (fields.length) requests.push({ updateTextStyle: { range, textStyle, fields: fields.join(",") } });
    if (style) requests.push({ updateParagraphStyle: { range, paragraphStyle: { namedStyleType: style }, fields: "namedStyleType" } });
  }
  await _batch(id, requests, doc.revisionId);
  return "Formatted " + (chosen.length > 1 ? chosen.length + " occurrences" : "\"" + find + "\"") + " in document " + id + ": " + done.join(", ") +
    " (" + chosen.map((r) => "index " + r.startIndex + "-" + r.endIndex).join(", ") + ").";
}
