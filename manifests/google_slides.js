// Google Slides tools: Slides API v1 (https://slides.googleapis.com/v1).
//
// Edits that depend on a read send the read's revision as
// writeControl.requiredRevisionId, so a presentation changed in between is
// refused instead of edited at the wrong place.
const g = lib("google_api");
const _base = "https://slides.googleapis.com/v1/presentations";
const _layouts = ["TITLE_AND_BODY", "TITLE", "TITLE_ONLY", "SECTION_HEADER", "SECTION_TITLE_AND_DESCRIPTION", "TITLE_AND_TWO_COLUMNS",
  "ONE_COLUMN_TEXT", "MAIN_POINT", "BIG_NUMBER", "CAPTION_ONLY", "BLANK"];

// The parts of a presentation each tool reads (partial responses keep big
// presentations under the 100 KB a response may have).
const _text = "text/textElements(textRun/content,autoText/content)";
const _fieldsRead = "presentationId,title,revisionId,layouts(objectId,layoutProperties/name)," +
  "slides(objectId,slideProperties(layoutObjectId,notesPage(notesProperties/speakerNotesObjectId,pageElements(objectId,shape/" + _text + ")))," +
  "pageElements(objectId,shape(shapeType,placeholder(type,index)," + _text + "),table(rows,columns,tableRows/tableCells/" + _text + ")," +
  "elementGroup/children(objectId,shape(shapeType,placeholder(type,index)," + _text + "))))";
const _fieldsShapes = "revisionId,slides(objectId,pageElements(objectId,shape/text/textElements/endIndex,table/rows)," +
  "slideProperties/notesPage(notesProperties/speakerNotesObjectId,pageElements(objectId,shape/text/textElements/endIndex)))";
const _fieldsOrder = "revisionId,slides/objectId";
const _fieldsPage = "objectId,pageElements(objectId,shape/placeholder(type,index)),slideProperties/notesPage/notesProperties/speakerNotesObjectId";

// _id takes a presentation id or a link to the presentation.
function _id(params) {
  g.need(params, "presentation_id");
  const s = String(params.presentation_id).trim();
  const m = s.match(/\/presentation\/(?:u\/\d+\/)?d\/([A-Za-z0-9_-]+)/);
  return m ? m[1] : s;
}

function _link(id) {
  return "https://docs.google.com/presentation/d/" + id + "/edit";
}

function _notFound(id) {
  return "No presentation " + id + ", or the account may not open it: check the id (the part of the presentation's link after /presentation/d/); " +
    "slides_create gives the ids of new presentations, and the Google Drive tools can search for existing ones.";
}

async function _get(id, fields) {
  return g.request("GET", _base + "/" + g.pathId(id), {
    query: { fields }, scope: g.scopes.presentationsReadonly, what: "presentation " + id, notFound: _notFound(id),
  });
}

// _batch applies edits; revision (from a read) makes Google refuse them if
// the presentation changed since; hint is said after Google's refusal.
async function _batch(id, requests, revision, hint) {
  const body = { requests };
  if (revision) body.writeControl = { requiredRevisionId: revision };
  try {
    return await g.request("POST", _base + "/" + g.pathId(id) + ":batchUpdate", {
      body, scope: g.scopes.presentations, what: "editing presentation " + id, notFound: _notFound(id),
    });
  } catch (e) {
    if (e.status === 400 && revision && /revision/i.test(e.message)) {
      throw new Error("The presentation changed while it was being edited, so nothing was changed: call the tool again. (" + e.message + ")");
    }
    if (e.status === 400 && hint) throw new Error(e.message + " " + hint);
    throw e;
  }
}

function _textOf(t) {
  return ((t && t.textElements) || []).map((e) => (e.textRun ? e.textRun.content : e.autoText ? e.autoText.content || "" : "")).join("")
    .replace(/\n$/, "").replace(/\u000b/g, "\n");
}

function _plural(n, word) {
  return n + " " + word + (n === 1 ? "" : "s");
}

// _order reads the slides' order and the revision.
async function _order(id) {
  const p = await _get(id, _fieldsOrder);
  return { revision: p.revisionId, ids: (p.slides || []).map((s) => s.objectId) };
}

function _slideIndex(order, params, id) {
  g.need(params, "slide_id");
  const i = order.ids.indexOf(String(params.slide_id).trim());
  if (i < 0) throw new Error("No slide " + params.slide_id + " in presentation " + id + ": slides_read lists the slides and their ids.");
  return i;
}

function _elementLines(el, indent) {
  const out = [];
  const pad = " ".repeat(indent);
  const put = (label, text) => {
    if (text.includes("\n")) out.push(pad + label + ":\n" + text.split("\n").map((l) => pad + "  " + l).join("\n"));
    else out.push(pad + label + ": " + (text || "(empty)"));
  };
  if (el.shape) {
    const ph = el.shape.placeholder;
    const text = _textOf(el.shape.text);
    if (!ph && !text) return out; // a shape without text is decoration
    const label = ph ? ph.type + (ph.index ? " " + ph.index : "") : el.shape.shapeType === "TEXT_BOX" ? "Text box" : "Shape " + (el.shape.shapeType || "");
    put(label + " (id: " + el.objectId + ")", text);
  } else if (el.table) {
    out.push(pad + "Table (id: " + el.objectId + ", " + el.table.rows + "x" + el.table.columns + "):");
    for (const row of el.table.tableRows || []) {
      out.push(pad + "  | " + (row.tableCells || []).map((c) => _textOf(c.text).replace(/\n/g, " / ")).join(" | ") + " |");
    }
  } else if (el.elementGroup) {
    out.push(pad + "Group (id: " + el.objectId + "):");
    for (const child of el.elementGroup.children || []) out.push(..._elementLines(child, indent + 2));
  } else {
    out.push(pad + "Image, video or line (id: " + el.objectId + ")");
  }
  return out;
}

async function readPresentation(params) {
  const id = _id(params);
  const max = params.max_chars || 20000;
  let p;
  try {
    p = await _get(id, _fieldsRead);
  } catch (e) {
    if (/could not be read/.test(e.message)) throw new Error("The presentation " + id + " is too large to read whole here (Google's answer was cut).");
    throw e;
  }
  const layouts = {};
  for (const l of p.layouts || []) layouts[l.objectId] = l.layoutProperties && l.layoutProperties.name;
  const slides = p.slides || [];
  const lines = [];
  slides.forEach((s, i) => {
    const props = s.slideProperties || {};
    const layout = layouts[props.layoutObjectId];
    lines.push("Slide " + (i + 1) + " (id: " + s.objectId + (layout ? ", layout " + layout : "") + ")");
    for (const el of s.pageElements || []) lines.push(..._elementLines(el, 2));
    const notes = props.notesPage || {};
    const notesId = notes.notesProperties && notes.notesProperties.speakerNotesObjectId;
    if (notesId) {
      const shape = (notes.pageElements || []).find((e) => e.objectId === notesId);
      const text = shape && shape.shape ? _textOf(shape.shape.text) : "";
      lines.push("  Speaker notes (id: " + notesId + "): " + (text ? text.replace(/\n/g, "\n    ") : "none"));
    }
  });
  return "Presentation \"" + p.title + "\" (id: " + p.presentationId + ", revision: " + p.revisionId + "), " + _plural(slides.length, "slide") +
    "\nLink: " + _link(p.presentationId) + "\n\n" + g.cut(lines.join("\n"), max);
}

async function createPresentation(params) {
  g.need(params, "title");
  const p = await g.request("POST", _base, { body: { title: String(params.title) }, scope: g.scopes.presentations, what: "new presentation" });
  let out = "Created the presentation \"" + p.title + "\" (id: " + p.presentationId + ").";
  const first = (p.slides || [])[0];
  if (first) {
    const boxes = (first.pageElements || []).filter((e) => e.shape && e.shape.placeholder)
      .map((e) => e.shape.placeholder.type + " (id: " + e.objectId + ")");
    out += "\nIts title slide (id: " + first.objectId + ")" + (boxes.length ? " has the empty text boxes " + boxes.join(", ") + ": fill them with slides_set_text." : ".");
  }
  return out + "\nLink: " + _link(p.presentationId);
}

// _placeholder picks the first placeholder of the first type present.
function _placeholder(elements, types) {
  for (const t of types) {
    const found = elements.filter((e) => e.shape && e.shape.placeholder && e.shape.placeholder.type === t)
      .sort((a, b) => (a.shape.placeholder.index || 0) - (b.shape.placeholder.index || 0));
    if (found.length) return found[0];
  }
  return null;
}

async function addSlide(params) {
  const id = _id(params);
  const layout = params.layout || "TITLE_AND_BODY";
  if (!_layouts.includes(layout)) throw new Error("layout must be one of " + _layouts.join(", ") + "; got " + JSON.stringify(params.layout));
  const create = { slideLayoutReference: { predefinedLayout: layout } };
  if (params.position !== undefined && params.position !== null) {
    if (!Number.isInteger(params.position) || params.position < 1) throw new Error("position must be a whole number from 1; got " + JSON.stringify(params.position));
    create.insertionIndex = params.position - 1;
  }
  const res = await _batch(id, [{ createSlide: create }], null,
    "The position may be past the end (at most the number of slides + 1), or the presentation's theme may lack the layout " + layout + ": slides_read shows the slides.");
  const slideId = res.replies[0].createSlide.objectId;
  let out = "Added a " + layout + " slide " + (create.insertionIndex !== undefined ? "at position " + params.position : "at the end") + " (id: " + slideId + ").";
  const page = await g.request("GET", _base + "/" + g.pathId(id) + "/pages/" + g.pathId(slideId), {
    query: { fields: _fieldsPage }, scope: g.scopes.presentationsReadonly, what: "new slide " + slideId, notFound: _notFound(id),
  });
  const elements = page.pageElements || [];
  const boxes = elements.filter((e) => e.shape && e.shape.placeholder)
    .map((e) => e.shape.placeholder.type + (e.shape.placeholder.index ? " " + e.shape.placeholder.index : "") + " (id: " + e.objectId + ")");
  if (boxes.length) out += "\nText boxes: " + boxes.join(", ") + ".";
  const notesPage = (page.slideProperties && page.slideProperties.notesPage) || {};
  const notesId = notesPage.notesProperties && notesPage.notesProperties.speakerNotesObjectId;
  const requests = [];
  const filled = [];
  const missing = [];
  const fill = (what, text, target) => {
    if (text === undefined || text === null || String(text) === "") return;
    if (!target) {
      missing.push(what);
      return;
    }
    requests.push({ insertText: { objectId: target, insertionIndex: 0, text: String(text).replace(/\r\n?/g, "\n") } });
    filled.push(what);
  };
  const titleBox = _placeholder(elements, ["TITLE", "CENTERED_TITLE"]);
  const bodyBox = _placeholder(elements, ["BODY", "SUBTITLE"]);
  fill("title", params.title, titleBox && titleBox.objectId);
  fill("body", params.body, bodyBox && bodyBox.objectId);
  fill("speaker notes", params.notes, notesId);
  if (requests.length) {
    try {
      await _batch(id, requests);
    } catch (e) {
      return out + "\nBut its text could not be added: " + e.message;
    }
    out += "\nFilled in: " + filled.join(", ") + ".";
  }
  if (missing.length) out += "\nThe " + layout + " layout has no place for the " + missing.join(" or the ") + ": add it with slides_set_text to a text box, or pick another layout.";
  return out;
}

async function setText(params) {
  const id = _id(params);
  g.need(params, "object_id");
  if (params.text === undefined || params.text === null) throw new Error("Missing text: give the new text (\"\" to empty it) and call again.");
  const objectId = String(params.object_id).trim();
  const p = await _get(id, _fieldsShapes);
  let target = null, where = "";
  (p.slides || []).forEach((s, i) => {
    if (target) return;
    const el = (s.pageElements || []).find((e) => e.objectId === objectId);
    if (el) {
      target = el;
      where = "on slide " + (i + 1);
      return;
    }
    const notes = (s.slideProperties && s.slideProperties.notesPage) || {};
    if (notes.notesProperties && notes.notesProperties.speakerNotesObjectId === objectId) {
      // The notes' shape may not exist until text goes in.
      target = (notes.pageElements || []).find((e) => e.objectId === objectId) || { objectId, shape: {} };
      where = "in the speaker notes of slide " + (i + 1);
    }
  });
  if (!target) throw new Error("No text box " + objectId + " in presentation " + id + ": slides_read lists the text boxes' and speaker notes' ids.");
  if (target.table) throw new Error("The object " + objectId + " is a table: change its text with slides_replace_text.");
  if (!target.shape) throw new Error("The object " + objectId + " holds no text (an image, video or line).");
  const text = String(params.text).replace(/\r\n?/g, "\n");
  const hasText = !!(target.shape.text && (target.shape.text.textElements || []).length);
  const requests = [];
  if (hasText) requests.push({ deleteText: { objectId, textRange: { type: "ALL" } } });
  if (text) requests.push({ insertText: { objectId, insertionIndex: 0, text } });
  if (!requests.length) return "The text box " + objectId + " is empty already.";
  await _batch(id, requests, p.revisionId);
  return (text ? "Set the text of " + objectId + " " + where + " (" + _plural(text.length, "character") + ")." : "Emptied " + objectId + " " + where + ".");
}

async function replaceText(params) {
  const id = _id(params);
  g.need(params, "find");
  if (params.replace === undefined || params.replace === null) throw new Error("Missing replace: give the new text (\"\" to delete) and call again.");
  const find = String(params.find);
  const matchCase = params.match_case !== false;
  const req = { containsText: { text: find, matchCase }, replaceText: String(params.replace) };
  const slides = (params.slide_ids || []).map((s) => String(s).trim()).filter((s) => s);
  if (slides.length) req.pageObjectIds = slides;
  const res = await _batch(id, [{ replaceAllText: req }], null, slides.length ? "Check slide_ids with slides_read." : "");
  const reply = (res.replies && res.replies[0] && res.replies[0].replaceAllText) || {};
  const n = reply.occurrencesChanged || 0;
  const scope = slides.length ? " on " + _plural(slides.length, "slide") : "";
  if (!n) {
    return "No occurrence of \"" + find + "\"" + scope + " in presentation " + id + ", so nothing changed" +
      (matchCase ? " (matching case; try match_case false)" : "") + ". slides_read shows the exact text.";
  }
  return "Replaced " + _plural(n, "occurrence") + " of \"" + find + "\" with \"" + params.replace + "\"" + scope + " in presentation " + id + ".";
}

async function deleteSlide(params) {
  const id = _id(params);
  const order = await _order(id);
  const i = _slideIndex(order, params, id);
  await _batch(id, [{ deleteObject: { objectId: order.ids[i] } }], order.revision);
  return "Deleted slide " + (i + 1) + " (id: " + order.ids[i] + "); " + _plural(order.ids.length - 1, "slide") + " remain.";
}

async function duplicateSlide(params) {
  const id = _id(params);
  const order = await _order(id);
  const i = _slideIndex(order, params, id);
  const res = await _batch(id, [{ duplicateObject: { objectId: order.ids[i] } }], order.revision);
  const copy = res.replies[0].duplicateObject.objectId;
  return "Copied slide " + (i + 1) + " (id: " + order.ids[i] + ") as slide " + (i + 2) + " (id: " + copy + ").";
}

async function moveSlide(params) {
  const id = _id(params);
  const order = await _order(id);
  const from = _slideIndex(order, params, id);
  const to = params.position;
  if (!Number.isInteger(to) || to < 1 || to > order.ids.length) {
    throw new Error("position must be a whole number from 1 to " + order.ids.length + " (the number of slides); got " + JSON.stringify(to));
  }
  if (to - 1 === from) return "Slide " + order.ids[from] + " is at position " + to + " already.";
  // Google counts the insertion index in the order before the move.
  const insertionIndex = to - 1 < from ? to - 1 : to;
  await _batch(id, [{ updateSlidesPosition: { slideObjectIds: [order.ids[from]], insertionIndex } }], order.revision);
  return "Moved slide " + order.ids[from] + " from position " + (from + 1) + " to " + to + " of " + order.ids.length + ".";
}
