// Google Forms tools: Forms API v1 (https://forms.googleapis.com/v1).
const g = lib("google_api");
const _base = "https://forms.googleapis.com/v1/forms";

// _id takes a form's id, or its edit URL, from which it takes the id.
function _id(params) {
  g.need(params, "form_id");
  const s = String(params.form_id).trim();
  if (/\/forms\/d\/e\//.test(s)) {
    throw new Error("That is the form's responder link (/forms/d/e/...), which does not hold the form's id: give the edit link " +
      "(docs.google.com/forms/d/ID/edit) or the id; drive_search with mime_type form finds it.");
  }
  const m = s.match(/\/forms\/d\/([A-Za-z0-9_-]+)/);
  if (m) return m[1];
  if (!/^[A-Za-z0-9_-]+$/.test(s)) {
    throw new Error("form_id must be a form's id (the part after /d/ in its edit link) or that link; got " + JSON.stringify(s) + ".");
  }
  return s;
}

function _notFound(id) {
  return "No form " + id + " that this account can open: check the id (it is in the edit link, docs.google.com/forms/d/ID/edit), " +
    "or find the form with drive_search (mime_type form).";
}

function _form(id, fields) {
  return g.request("GET", _base + "/" + g.pathId(id), {
    query: fields ? { fields } : {}, scope: g.scopes.formsReadonly, what: "form " + id, notFound: _notFound(id),
  });
}

// _batch sends changes; with a revision, Google refuses them if the form
// changed since it was read (item positions would be stale).
function _batch(id, requests, revision) {
  const body = { requests };
  if (revision) body.writeControl = { requiredRevisionId: revision };
  return g.request("POST", _base + "/" + g.pathId(id) + ":batchUpdate", {
    body, scope: g.scopes.forms, what: "changes to form " + id, notFound: _notFound(id),
  });
}

function _plural(n, word) {
  return n + " " + word + (n === 1 ? "" : "s");
}

// _when shows a timestamp to the minute, in UTC.
function _when(ts) {
  return ts ? String(ts).slice(0, 16).replace("T", " ") + " UTC" : "?";
}

const _choiceNames = { RADIO: "multiple choice", CHECKBOX: "checkboxes", DROP_DOWN: "dropdown" };

// _questionKind names a question's type as the Forms editor does.
function _questionKind(q) {
  if (q.choiceQuestion) return _choiceNames[q.choiceQuestion.type] || "choice";
  if (q.textQuestion) return q.textQuestion.paragraph ? "paragraph" : "short answer";
  if (q.scaleQuestion) {
    const s = q.scaleQuestion;
    let k = "scale " + (s.low || 0) + "–" + s.high;
    if (s.lowLabel || s.highLabel) k += " (" + (s.lowLabel || "") + " … " + (s.highLabel || "") + ")";
    return k;
  }
  if (q.dateQuestion) return "date" + (q.dateQuestion.includeTime ? " and time" : "") + (q.dateQuestion.includeYear ? "" : ", no year");
  if (q.timeQuestion) return q.timeQuestion.duration ? "duration" : "time";
  if (q.fileUploadQuestion) return "file upload";
  if (q.ratingQuestion) return "rating";
  return "question";
}

function _options(choice) {
  return (choice.options || []).map((o) => (o.isOther ? "Other (free text)" : o.value)).join(" | ");
}

// _itemLines describes one item for forms_get.
function _itemLines(item, index) {
  const title = item.title || "(untitled)";
  const lines = [];
  if (item.questionItem) {
    const q = item.questionItem.question || {};
    let line = index + ". [" + _questionKind(q) + (q.required ? ", required" : "") + "] " + title +
      " (itemId: " + item.itemId + ", questionId: " + q.questionId + ")";
    lines.push(line);
    if (item.description) lines.push("   " + g.cut(item.description, 300).replace(/\n/g, " "));
    if (q.choiceQuestion) lines.push("   Options: " + _options(q.choiceQuestion));
    if (q.grading) {
      const gr = q.grading;
      const correct = ((gr.correctAnswers || {}).answers || []).map((a) => a.value);
      lines.push("   Quiz: " + _plural(gr.pointValue || 0, "point") + (correct.length ? ", correct: " + correct.join(" | ") : ""));
    }
  } else if (item.questionGroupItem) {
    const grp = item.questionGroupItem;
    const cols = (grp.grid && grp.grid.columns) || {};
    lines.push(index + ". [" + (cols.type === "CHECKBOX" ? "checkbox grid" : "multiple choice grid") + "] " + title + " (itemId: " + item.itemId + ")");
    if (item.description) lines.push("   " + g.cut(item.description, 300).replace(/\n/g, " "));
    lines.push("   Columns: " + _options(cols));
    for (const q of grp.questions || []) {
      lines.push("   Row: " + ((q.rowQuestion && q.rowQuestion.title) || "?") + " (questionId: " + q.questionId + (q.required ? ", required" : "") + ")");
    }
  } else {
    const kind = item.pageBreakItem ? "section" : item.textItem ? "text" : item.imageItem ? "image" : item.videoItem ? "video" : "item";
    lines.push(index + ". [" + kind + "] " + title + " (itemId: " + item.itemId + ")");
    if (item.description) lines.push("   " + g.cut(item.description, 300).replace(/\n/g, " "));
  }
  return lines;
}

async function createForm(params) {
  g.need(params, "title");
  const info = { title: String(params.title) };
  if (params.document_title) info.documentTitle = String(params.document_title);
  // forms.create takes the titles only; the description is a second call.
  const f = await g.request("POST", _base, { body: { info }, scope: g.scopes.forms, what: "new form" });
  const lines = [
    "Created the form \"" + f.info.title + "\" (id: " + f.formId + ").",
    "Edit: https://docs.google.com/forms/d/" + f.formId + "/edit",
    "Responder link: " + f.responderUri,
  ];
  if (params.description) {
    try {
      await _batch(f.formId, [{ updateFormInfo: { info: { description: String(params.description) }, updateMask: "description" } }]);
      lines.push("Description set.");
    } catch (e) {
      lines.push("The description could not be set (" + e.message + "); set it with forms_update_info.");
    }
  }
  const ps = f.publishSettings && f.publishSettings.publishState;
  if (ps && !ps.isAcceptingResponses) lines.push("The form is not accepting responses yet: publish it in the Forms editor.");
  lines.push("It has no questions yet: add them with forms_add_question.");
  return lines.join("\n");
}

async function getForm(params) {
  const id = _id(params);
  const f = await _form(id);
  const info = f.info || {};
  const lines = ["Form \"" + (info.title || info.documentTitle || "(untitled)") + "\" (id: " + f.formId + ")"];
  if (info.documentTitle && info.documentTitle !== info.title) lines.push("File name in Drive: " + info.documentTitle);
  if (info.description) lines.push("Description: " + g.cut(info.description, 2000));
  lines.push("Edit: https://docs.google.com/forms/d/" + f.formId + "/edit");
  if (f.responderUri) lines.push("Responder link: " + f.responderUri);
  const ps = f.publishSettings && f.publishSettings.publishState;
  if (ps) lines.push("Status: " + (ps.isPublished ? "published, " + (ps.isAcceptingResponses ? "accepting responses" : "not accepting responses") : "not published"));
  const settings = f.settings || {};
  const email = { VERIFIED: "collected (verified Google accounts)", RESPONDER_INPUT: "collected (typed by respondents)", DO_NOT_COLLECT: "not collected" }[settings.emailCollectionType];
  if (email) lines.push("Respondents' email addresses: " + email);
  if (settings.quizSettings && settings.quizSettings.isQuiz) lines.push("This form is a quiz.");
  if (f.linkedSheetId) lines.push("Responses also go to the spreadsheet " + f.linkedSheetId + " (sheets_read_range reads it).");
  const items = f.items || [];
  if (!items.length) {
    lines.push("No items yet: add questions with forms_add_question.");
  } else {
    lines.push(_plural(items.length, "item") + " (the number is the position forms_add_question's index takes):");
    items.forEach((item, i) => lines.push(..._itemLines(item, i)));
  }
  return g.cut(lines.join("\n"), 30000);
}

const _types = {
  short_answer: () => ({ textQuestion: {} }),
  paragraph: () => ({ textQuestion: { paragraph: true } }),
  multiple_choice: () => ({ choiceQuestion: { type: "RADIO" } }),
  checkboxes: () => ({ choiceQuestion: { type: "CHECKBOX" } }),
  dropdown: () => ({ choiceQuestion: { type: "DROP_DOWN" } }),
  scale: () => ({ scaleQuestion: {} }),
  date: () => ({ dateQuestion: {} }),
  time: () => ({ timeQuestion: {} }),
};

async function addQuestion(params) {
  const id = _id(params);
  g.need(params, "title", "type");
  const type = String(params.type);
  if (!_types[type]) throw new Error("type must be one of " + Object.keys(_types).join(", ") + "; got " + JSON.stringify(type) + ".");
  const q = _types[type]();
  if (params.required) q.required = true;
  if (q.choiceQuestion) {
    const opts = params.options;
    if (!Array.isArray(opts) || !opts.length || !opts.every((o) => typeof o === "string" && o.trim())) {
      throw new Error("A " + type.replace("_", " ") + " question needs options: a list of choices, such as [\"Yes\", \"No\"].");
    }
    const seen = new Set();
    for (const o of opts) {
      if (seen.has(o)) throw new Error("The option " + JSON.stringify(o) + " is given twice: options must differ.");
      seen.add(o);
    }
    q.choiceQuestion.options = opts.map((value) => ({ value }));
    if (params.other_option) {
      if (type === "dropdown") throw new Error("A dropdown cannot have an \"Other\" option; use multiple_choice or checkboxes.");
      q.choiceQuestion.options.push({ isOther: true });
    }
  } else if (params.options !== undefined) {
    throw new Error("options are for multiple_choice, checkboxes and dropdown questions, not " + type + ".");
  }
  if (q.scaleQuestion) {
    const low = params.scale_low === undefined ? 1 : params.scale_low;
    const high = params.scale_high === undefined ? 5 : params.scale_high;
    if (low !== 0 && low !== 1) throw new Error("scale_low must be 0 or 1.");
    if (!Number.isInteger(high) || high < 2 || high > 10) throw new Error("scale_high must be a whole number from 2 to 10.");
    q.scaleQuestion = { low, high };
    if (params.low_label) q.scaleQuestion.lowLabel = String(params.low_label);
    if (params.high_label) q.scaleQuestion.highLabel = String(params.high_label);
  }
  if (q.dateQuestion) {
    q.dateQuestion.includeYear = params.include_year !== false;
    if (params.include_time) q.dateQuestion.includeTime = true;
  }
  const item = { title: String(params.title), questionItem: { question: q } };
  if (params.description) item.description = String(params.description);

  // Positions count the items there are now.
  const f = await _form(id, "revisionId,items(itemId)");
  const count = (f.items || []).length;
  let index = count;
  if (params.index !== undefined) {
    if (!Number.isInteger(params.index) || params.index < 0) throw new Error("index must be a whole number, 0 or more (0 puts the question first).");
    if (params.index > count) throw new Error("index " + params.index + " is past the end: the form has " + _plural(count, "item") + ", so the index is 0 to " + count + ".");
    index = params.index;
  }
  const res = await _batch(id, [{ createItem: { item, location: { index } } }], f.revisionId);
  const reply = (res.replies && res.replies[0] && res.replies[0].createItem) || {};
  return "Added the " + _questionKind(q) + " question \"" + item.title + "\" at position " + index +
    " (itemId: " + reply.itemId + ", questionId: " + (reply.questionId || []).join(", ") + "). The form has " + _plural(count + 1, "item") + " now.";
}

async function updateInfo(params) {
  const id = _id(params);
  const info = {};
  const mask = [];
  const said = [];
  if (params.title !== undefined) {
    if (!String(params.title).trim()) throw new Error("title must not be empty.");
    info.title = String(params.title);
    mask.push("title");
    said.push("the title to \"" + info.title + "\"");
  }
  if (params.description !== undefined) {
    info.description = String(params.description);
    mask.push("description");
    said.push(info.description ? "the description" : "the description (now empty)");
  }
  if (!mask.length) throw new Error("Nothing to change: give a title, a description, or both.");
  await _batch(id, [{ updateFormInfo: { info, updateMask: mask.join(",") } }]);
  return "Updated " + said.join(" and ") + " of the form " + id + ".";
}

async function deleteItem(params) {
  const id = _id(params);
  g.need(params, "item_id");
  const f = await _form(id, "revisionId,items(itemId,title)");
  const items = f.items || [];
  const index = items.findIndex((it) => it.itemId === String(params.item_id).trim());
  if (index < 0) {
    throw new Error("No item " + params.item_id + " in the form " + id + ": forms_get lists the items with their itemId" +
      (items.length ? "." : " (the form has none)."));
  }
  await _batch(id, [{ deleteItem: { location: { index } } }], f.revisionId);
  return "Deleted the item \"" + (items[index].title || "(untitled)") + "\" (itemId: " + items[index].itemId + ") from position " + index +
    "; the form has " + _plural(items.length - 1, "item") + " now.";
}

// _titles maps each question id to its title, from the form; a grid's rows
// are "grid title — row title".
function _titles(form) {
  const titles = {};
  const order = [];
  for (const item of (form && form.items) || []) {
    if (item.questionItem && item.questionItem.question) {
      titles[item.questionItem.question.questionId] = item.title || "(untitled)";
      order.push(item.questionItem.question.questionId);
    }
    for (const q of (item.questionGroupItem && item.questionGroupItem.questions) || []) {
      titles[q.questionId] = (item.title || "(untitled)") + " — " + ((q.rowQuestion && q.rowQuestion.title) || "?");
      order.push(q.questionId);
    }
  }
  return { titles, order };
}

// _formTitles reads the questions' titles; a token without a forms.body
// scope may still read responses, which then show question ids.
async function _formTitles(id) {
  try {
    const f = await _form(id, "info(title),items(title,questionItem(question(questionId)),questionGroupItem(questions(questionId,rowQuestion(title))))");
    return Object.assign(_titles(f), { title: (f.info && f.info.title) || "" });
  } catch (e) {
    if (e.status === 403) return { titles: {}, order: [], title: "", note: "(Question titles are not shown: the account has not granted reading the form itself, " + g.scopes.formsReadonly + ".)" };
    throw e;
  }
}

function _answerText(a, max) {
  const parts = [];
  for (const t of (a.textAnswers && a.textAnswers.answers) || []) parts.push(t.value);
  for (const f of (a.fileUploadAnswers && a.fileUploadAnswers.answers) || []) parts.push(f.fileName + " (Drive file " + f.fileId + ")");
  let s = g.cut(parts.join(", "), max).replace(/\n/g, "\n    ");
  if (a.grade) {
    const gr = a.grade;
    s += " [" + (gr.correct ? "correct" : "not correct") + ", " + _plural(gr.score || 0, "point") + (gr.feedback && gr.feedback.text ? "; " + gr.feedback.text : "") + "]";
  }
  return s;
}

function _responseLines(r, q, max) {
  let head = "Response " + r.responseId + ": submitted " + _when(r.lastSubmittedTime);
  if (r.createTime && r.lastSubmittedTime && _when(r.createTime) !== _when(r.lastSubmittedTime)) head += " (first " + _when(r.createTime) + ")";
  if (r.respondentEmail) head += " by " + r.respondentEmail;
  const lines = [head];
  if (r.totalScore !== undefined) lines.push("  Score: " + r.totalScore);
  const answers = r.answers || {};
  const ids = q.order.filter((qid) => answers[qid]).concat(Object.keys(answers).filter((qid) => !q.order.includes(qid)).sort());
  if (!ids.length) lines.push("  (no answers)");
  for (const qid of ids) {
    const title = q.titles[qid] || (q.order.length ? "Question " + qid + " (no longer in the form)" : "Question " + qid);
    lines.push("  " + title + ": " + _answerText(answers[qid], max));
  }
  return lines;
}

// _since turns YYYY-MM-DD or an RFC 3339 time into the UTC timestamp the
// responses filter takes.
function _since(s) {
  const t = String(s).trim();
  if (/^\d{4}-\d{2}-\d{2}$/.test(t)) return t + "T00:00:00Z";
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(t)) {
    const d = new Date(t);
    if (!isNaN(d.getTime())) return d.toISOString().replace(".000Z", "Z");
  }
  throw new Error("submitted_after must be a date (YYYY-MM-DD) or a time such as 2026-11-20T09:00:00Z; got " + JSON.stringify(s) + ".");
}

async function listResponses(params) {
  const id = _id(params);
  const max = params.max_results === undefined ? 20 : params.max_results;
  if (!Number.isInteger(max) || max < 1 || max > 100) throw new Error("max_results must be a whole number from 1 to 100.");
  const query = { pageSize: max };
  if (params.submitted_after) query.filter = "timestamp >= " + _since(params.submitted_after);
  if (params.page_token) query.pageToken = String(params.page_token);
  const q = await _formTitles(id);
  const res = await g.request("GET", _base + "/" + g.pathId(id) + "/responses", {
    query, scope: g.scopes.formsResponses, what: "responses of form " + id, notFound: _notFound(id),
  });
  const responses = (res.responses || []).slice();
  const since = params.submitted_after ? " submitted since " + params.submitted_after : "";
  if (!responses.length) return "No responses" + since + (q.title ? " to \"" + q.title + "\"" : "") + ".";
  responses.sort((a, b) => String(b.lastSubmittedTime).localeCompare(String(a.lastSubmittedTime)));
  // Google does not promise an order: sort the page.
  const order = res.nextPageToken ? " (one page of them), newest first:" : ", newest first:";
  const out = [_plural(responses.length, "response") + since + (q.title ? " to \"" + q.title + "\"" : "") + order];
  if (q.note) out.push(q.note);
  for (const r of responses) out.push("", ..._responseLines(r, q, 300));
  let text = g.cut(out.join("\n"), 30000);
  if (res.nextPageToken) text += "\n\nMore responses: call again with page_token " + JSON.stringify(res.nextPageToken) + ".";
  return text;
}

async function getResponse(params) {
  const id = _id(params);
  g.need(params, "response_id");
  const rid = String(params.response_id).trim();
  const q = await _formTitles(id);
  const r = await g.request("GET", _base + "/" + g.pathId(id) + "/responses/" + g.pathId(rid), {
    scope: g.scopes.formsResponses, what: "response " + rid,
    notFound: "No response " + rid + " in the form " + id + " (or no such form): forms_list_responses lists the responses with their ids.",
  });
  const lines = _responseLines(r, q, 5000);
  if (q.note) lines.splice(1, 0, q.note);
  if (q.title) lines.unshift("Form: " + q.title);
  return g.cut(lines.join("\n"), 30000);
}
