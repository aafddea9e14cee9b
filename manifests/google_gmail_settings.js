// Google Gmail Settings tools: Gmail API v1 labels and users.settings
// (https://gmail.googleapis.com/gmail/v1/users/me).
const g = lib("google_api");
const _base = "https://gmail.googleapis.com/gmail/v1/users/me";
const _settings = _base + "/settings";

const _dispositions = { leave_in_inbox: "leaveInInbox", archive: "archive", trash: "trash", mark_read: "markRead" };
const _dispositionText = {
  leaveInInbox: "keep Gmail's copy in the inbox",
  archive: "archive Gmail's copy",
  trash: "delete Gmail's copy",
  markRead: "keep Gmail's copy in the inbox, marked as read",
};
const _listVisibility = { show: "labelShow", show_if_unread: "labelShowIfUnread", hide: "labelHide" };
const _listVisibilityText = { labelShow: "shown in the label list", labelShowIfUnread: "shown in the label list when it has unread mail", labelHide: "hidden from the label list" };

function _plural(n, word) {
  return n + " " + word + (n === 1 ? "" : "s");
}

function _size(n) {
  n = Number(n) || 0;
  if (n < 1024) return n + " bytes";
  if (n < 1024 * 1024) return (n / 1024).toFixed(1).replace(/\.0$/, "") + " KB";
  return (n / 1024 / 1024).toFixed(1).replace(/\.0$/, "") + " MB";
}

function _isEmail(s) {
  return /^[^\s@<>()\[\]\\,;:"]+@[^\s@<>()\[\]\\,;:"]+\.[^\s@<>()\[\]\\,;:"]+$/.test(String(s || ""));
}

function _email(value, name) {
  const s = String(value || "").trim();
  if (!_isEmail(s)) throw new Error(name + " must be an e-mail address such as ana@example.com; got " + JSON.stringify(value));
  return s;
}

// _htmlToText shows an HTML signature or responder body as text.
function _htmlToText(html) {
  return String(html || "")
    .replace(/\r\n?/g, "\n")
    .replace(/<(script|style)\b[\s\S]*?<\/\1\s*>/gi, "")
    .replace(/<a\b[^>]*?\bhref\s*=\s*["']([^"']*)["'][^>]*>([\s\S]*?)<\/a\s*>/gi, (m, href, inner) => {
      const text = inner.replace(/<[^>]*>/g, "").trim();
      return !text || text === href || /^mailto:/i.test(href) ? text || href : text + " (" + href + ")";
    })
    .replace(/<br\s*\/?>/gi, "\n")
    .replace(/<\/?(p|div|h[1-6]|tr|table|ul|ol|li)\b[^>]*>/gi, "\n")
    .replace(/<[^>]*>/g, "")
    .replace(/&nbsp;/gi, " ").replace(/&lt;/gi, "<").replace(/&gt;/gi, ">").replace(/&quot;/gi, "\"").replace(/&#39;/g, "'").replace(/&amp;/gi, "&")
    .replace(/[ \t]+/g, " ").replace(/ *\n */g, "\n").replace(/\n{3,}/g, "\n\n").trim();
}

// _textToHTML turns plain text into the HTML Gmail stores, keeping HTML as is.
function _textToHTML(s) {
  s = String(s);
  if (/<\/?(a|b|i|u|s|br|p|div|span|img|strong|em|font|table|tr|td|th|ul|ol|li|h[1-6]|hr|blockquote|small|big|center)\b[^>]*>/i.test(s)) return s;
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/\r\n?|\n/g, "<br>");
}

// Labels.

async function _labels() {
  const res = await g.request("GET", _base + "/labels", { scope: g.scopes.gmailLabels, what: "labels" });
  return res.labels || [];
}

// _findLabel finds a label by id or name (case-insensitive).
function _findLabel(labels, ref) {
  const want = String(ref).trim();
  const l = labels.find((x) => x.id === want) || labels.find((x) => String(x.name).toLowerCase() === want.toLowerCase());
  if (l) return l;
  const user = labels.filter((x) => x.type === "user").map((x) => x.name);
  throw new Error("No label \"" + want + "\". " + (user.length ? "The user's labels: " + user.join(", ") + ". " : "The user has no labels of their own. ") +
    "See them all with gmail_list_labels; create one with gmail_create_label.");
}

function _userLabel(labels, ref) {
  const l = _findLabel(labels, ref);
  if (l.type === "system") throw new Error(l.name + " is a system label: Gmail does not let it be renamed, changed or deleted.");
  return l;
}

function _labelNotFound(ref) {
  return "No label " + ref + " any more: list the labels with gmail_list_labels.";
}

function _counts(l) {
  if (l.messagesTotal === undefined) return "";
  let s = ": " + _plural(l.messagesTotal, "message");
  if (l.messagesUnread) s += ", " + l.messagesUnread + " unread";
  return s;
}

async function listLabels(params) {
  const labels = await _labels();
  const withCounts = params.counts !== false;
  const shown = labels.filter((l) => l.id !== "CHAT");
  if (withCounts) {
    for (let i = 0; i < shown.length && i < 100; i++) {
      const l = shown[i];
      try {
        shown[i] = await g.request("GET", _base + "/labels/" + g.pathId(l.id), { scope: g.scopes.gmailLabels, what: "label " + l.name });
      } catch (e) {
        if (e.status !== 404) throw e;
      }
    }
  }
  const user = shown.filter((l) => l.type === "user").sort((a, b) => String(a.name).localeCompare(String(b.name)));
  const system = shown.filter((l) => l.type !== "user");
  const out = [];
  out.push(user.length ? "User labels (" + user.length + "):" : "The user has no labels of their own (create one with gmail_create_label).");
  for (const l of user) {
    let s = "- " + l.name + " (id: " + l.id + ")" + _counts(l);
    if (l.labelListVisibility && l.labelListVisibility !== "labelShow") s += "; " + _listVisibilityText[l.labelListVisibility];
    if (l.messageListVisibility === "hide") s += "; hidden in the message list";
    out.push(s);
  }
  out.push("System labels:");
  for (const l of system) out.push("- " + l.name + _counts(l));
  return out.join("\n");
}

function _labelBody(params, body) {
  if (params.show_in_label_list !== undefined && params.show_in_label_list !== null) {
    const v = _listVisibility[params.show_in_label_list];
    if (!v) throw new Error("show_in_label_list must be show, show_if_unread or hide; got " + JSON.stringify(params.show_in_label_list));
    body.labelListVisibility = v;
  }
  if (params.show_in_message_list !== undefined && params.show_in_message_list !== null) body.messageListVisibility = params.show_in_message_list ? "show" : "hide";
  return body;
}

function _labelName(s) {
  const name = String(s).replace(/\s+/g, " ").trim().replace(/\s*\/\s*/g, "/");
  if (!name || /^\/|\/$/.test(name)) throw new Error("A label name must not be empty or begin or end with /; got " + JSON.stringify(s));
  return name;
}

async function createLabel(params) {
  g.need(params, "name");
  const body = _labelBody(params, { name: _labelName(params.name) });
  const l = await g.request("POST", _base + "/labels", { body, scope: g.scopes.gmailLabels, what: "label \"" + body.name + "\"" });
  return "Created the label \"" + l.name + "\" (id: " + l.id + "). Apply it with gmail_modify_labels or a filter (gmail_create_filter).";
}

async function updateLabel(params) {
  g.need(params, "label");
  const l = _userLabel(await _labels(), params.label);
  const body = {};
  if (params.new_name !== undefined && params.new_name !== null) body.name = _labelName(params.new_name);
  _labelBody(params, body);
  if (!Object.keys(body).length) throw new Error("Nothing to change: give new_name, show_in_label_list or show_in_message_list.");
  const u = await g.request("PATCH", _base + "/labels/" + g.pathId(l.id), { body, scope: g.scopes.gmailLabels, what: "label \"" + l.name + "\"", notFound: _labelNotFound(l.name) });
  let s = "Updated the label " + (u.name !== l.name ? "\"" + l.name + "\", now \"" + u.name + "\"" : "\"" + u.name + "\"") + " (id: " + u.id + ")";
  if (u.labelListVisibility) s += "; " + _listVisibilityText[u.labelListVisibility];
  if (u.messageListVisibility) s += "; " + (u.messageListVisibility === "hide" ? "hidden in" : "shown in") + " the message list";
  return s + ".";
}

async function deleteLabel(params) {
  g.need(params, "label");
  const l = _userLabel(await _labels(), params.label);
  await g.request("DELETE", _base + "/labels/" + g.pathId(l.id), { scope: g.scopes.gmailLabels, what: "label \"" + l.name + "\"", notFound: _labelNotFound(l.name) });
  return "Deleted the label \"" + l.name + "\" (id: " + l.id + "). Its messages stay in the mailbox without it.";
}

// Filters.

function _criteriaText(c) {
  const parts = [];
  if (c.from) parts.push("from " + c.from);
  if (c.to) parts.push("to " + c.to);
  if (c.subject) parts.push("subject has " + JSON.stringify(c.subject));
  if (c.query) parts.push("matches " + JSON.stringify(c.query));
  if (c.negatedQuery) parts.push("does not match " + JSON.stringify(c.negatedQuery));
  if (c.hasAttachment) parts.push("has an attachment");
  if (c.size && (c.sizeComparison === "larger" || c.sizeComparison === "smaller")) parts.push(c.sizeComparison + " than " + _size(c.size));
  if (c.excludeChats) parts.push("not chats");
  return parts.join(", ") || "any message";
}

function _actionText(a, names) {
  const parts = [];
  for (const id of a.addLabelIds || []) {
    if (id === "STARRED") parts.push("star it");
    else if (id === "IMPORTANT") parts.push("mark it important");
    else if (id === "TRASH") parts.push("delete it");
    else if (id.startsWith("CATEGORY_")) parts.push("categorize as " + id.slice(9).toLowerCase());
    else parts.push("apply the label " + (names[id] || id));
  }
  for (const id of a.removeLabelIds || []) {
    if (id === "INBOX") parts.push("skip the inbox (archive it)");
    else if (id === "UNREAD") parts.push("mark it as read");
    else if (id === "SPAM") parts.push("never send it to spam");
    else if (id === "IMPORTANT") parts.push("never mark it important");
    else parts.push("remove the label " + (names[id] || id));
  }
  if (a.forward) parts.push("forward it to " + a.forward);
  return parts.join(", ") || "nothing";
}

async function listFilters(params) {
  const res = await g.request("GET", _settings + "/filters", { scope: g.scopes.gmailSettingsBasic, what: "filters" });
  const filters = res.filter || [];
  if (!filters.length) return "The user has no Gmail filters. Make one with gmail_create_filter.";
  const names = {};
  for (const l of await _labels()) names[l.id] = l.name;
  return _plural(filters.length, "filter") + ":\n" + filters.map((f) =>
    "- id " + f.id + ": when " + _criteriaText(f.criteria || {}) + " → " + _actionText(f.action || {}, names)).join("\n");
}

async function createFilter(params) {
  const criteria = {};
  for (const [param, field] of [["from", "from"], ["to", "to"], ["subject", "subject"], ["query", "query"], ["negated_query", "negatedQuery"]]) {
    if (params[param] !== undefined && params[param] !== null && String(params[param]).trim() !== "") criteria[field] = String(params[param]).trim();
  }
  if (params.has_attachment) criteria.hasAttachment = true;
  if (params.larger_than_mb !== undefined && params.smaller_than_mb !== undefined) throw new Error("Give larger_than_mb or smaller_than_mb, not both.");
  for (const [param, cmp] of [["larger_than_mb", "larger"], ["smaller_than_mb", "smaller"]]) {
    if (params[param] === undefined || params[param] === null) continue;
    const mb = Number(params[param]);
    if (!(mb > 0) || mb > 50) throw new Error(param + " must be a number of megabytes above 0 and at most 50; got " + JSON.stringify(params[param]));
    criteria.size = Math.round(mb * 1024 * 1024);
    criteria.sizeComparison = cmp;
  }
  if (!Object.keys(criteria).length) throw new Error("A filter needs at least one condition: from, to, subject, query, negated_query, has_attachment, larger_than_mb or smaller_than_mb.");

  const add = [], remove = [];
  const refs = params.add_labels === undefined || params.add_labels === null ? [] : Array.isArray(params.add_labels) ? params.add_labels : [params.add_labels];
  const names = {};
  if (refs.length) {
    const labels = await _labels();
    for (const l of labels) names[l.id] = l.name;
    for (const r of refs) add.push(_findLabel(labels, r).id);
  }
  if (params.star) add.push("STARRED");
  if (params.mark_important) add.push("IMPORTANT");
  if (params.trash) add.push("TRASH");
  if (params.archive) remove.push("INBOX");
  if (params.mark_read) remove.push("UNREAD");
  if (params.never_spam) remove.push("SPAM");
  const action = {};
  if (add.length) action.addLabelIds = [...new Set(add)];
  if (remove.length) action.removeLabelIds = remove;
  if (params.forward_to) action.forward = _email(params.forward_to, "forward_to");
  if (!Object.keys(action).length) throw new Error("A filter needs at least one action: add_labels, archive, mark_read, star, mark_important, never_spam, trash or forward_to.");

  let f;
  try {
    f = await g.request("POST", _settings + "/filters", { body: { criteria, action }, scope: g.scopes.gmailSettingsBasic, what: "new filter" });
  } catch (e) {
    if (e.status === 400 && action.forward) e.message += " A filter can forward only to a verified forwarding address: see gmail_get_forwarding.";
    throw e;
  }
  return "Created the filter " + f.id + ": when " + _criteriaText(f.criteria || criteria) + " → " + _actionText(f.action || action, names) +
    ". It applies to new mail; existing messages are unchanged.";
}

async function deleteFilter(params) {
  g.need(params, "filter_id");
  const id = String(params.filter_id).trim();
  await g.request("DELETE", _settings + "/filters/" + g.pathId(id), {
    scope: g.scopes.gmailSettingsBasic, what: "filter " + id, notFound: "No filter " + id + ": find filter ids with gmail_list_filters.",
  });
  return "Deleted the filter " + id + ".";
}

// Forwarding.

function _autoText(a) {
  if (!a || !a.enabled) return "Automatic forwarding: off.";
  return "Automatic forwarding: on, all new mail goes to " + a.emailAddress + (a.disposition && _dispositionText[a.disposition] ? "; " + _dispositionText[a.disposition] : "") + ".";
}

async function _forwardingAddresses() {
  const res = await g.request("GET", _settings + "/forwardingAddresses", { scope: g.scopes.gmailSettingsBasic, what: "forwarding addresses" });
  return res.forwardingAddresses || [];
}

async function getForwarding(params) {
  const auto = await g.request("GET", _settings + "/autoForwarding", { scope: g.scopes.gmailSettingsBasic, what: "auto-forwarding" });
  const list = await _forwardingAddresses();
  const out = [_autoText(auto)];
  if (!list.length) out.push("No forwarding addresses: add one with gmail_add_forwarding_address.");
  else {
    out.push("Forwarding addresses:");
    for (const a of list) out.push("- " + a.forwardingEmail + (a.verificationStatus === "accepted" ? " (verified)" : " (" + (a.verificationStatus || "unknown") + ": waiting for its owner to confirm)"));
  }
  return out.join("\n");
}

// _sharing explains Google's refusal of the forwarding changes for an
// ordinary account.
function _sharing(e) {
  if (e.status === 403) e.message += " Note: Google allows this change only to Workspace service accounts with domain-wide delegation; a personal account must change forwarding in Gmail's settings (Forwarding and POP/IMAP).";
  return e;
}

async function addForwardingAddress(params) {
  g.need(params, "email");
  const email = _email(params.email, "email");
  let a;
  try {
    a = await g.request("POST", _settings + "/forwardingAddresses", { body: { forwardingEmail: email }, scope: g.scopes.gmailSettingsSharing, what: "forwarding address " + email });
  } catch (e) {
    throw _sharing(e);
  }
  if (a.verificationStatus === "accepted") return "Added " + a.forwardingEmail + " as a verified forwarding address: turn forwarding on with gmail_update_auto_forwarding.";
  return "Added " + a.forwardingEmail + " as a forwarding address, pending: Gmail e-mailed it a confirmation link. Once its owner confirms, turn forwarding on with gmail_update_auto_forwarding.";
}

async function updateAutoForwarding(params) {
  if (typeof params.enabled !== "boolean") throw new Error("Missing enabled: true to turn automatic forwarding on, false to turn it off.");
  const current = await g.request("GET", _settings + "/autoForwarding", { scope: g.scopes.gmailSettingsBasic, what: "auto-forwarding" });
  const body = { enabled: params.enabled };
  let email = params.email ? _email(params.email, "email") : current.emailAddress || "";
  let disposition = current.disposition && current.disposition !== "dispositionUnspecified" ? current.disposition : "leaveInInbox";
  if (params.disposition !== undefined && params.disposition !== null) {
    disposition = _dispositions[params.disposition];
    if (!disposition) throw new Error("disposition must be leave_in_inbox, archive, trash or mark_read; got " + JSON.stringify(params.disposition));
  }
  if (params.enabled) {
    if (!email) throw new Error("Missing email: the verified forwarding address to send mail to (see gmail_get_forwarding).");
    const known = (await _forwardingAddresses()).find((a) => a.forwardingEmail.toLowerCase() === email.toLowerCase());
    if (!known) throw new Error(email + " is not a forwarding address yet: add it with gmail_add_forwarding_address, and let its owner confirm.");
    if (known.verificationStatus !== "accepted") throw new Error(email + " is not verified yet: its owner must click the link Gmail sent before mail can be forwarded to it.");
  }
  if (email) body.emailAddress = email;
  body.disposition = disposition;
  let a;
  try {
    a = await g.request("PUT", _settings + "/autoForwarding", { body, scope: g.scopes.gmailSettingsSharing, what: "auto-forwarding" });
  } catch (e) {
    throw _sharing(e);
  }
  return "Updated. " + _autoText(a);
}

// Signatures.

async function _sendAs() {
  const res = await g.request("GET", _settings + "/sendAs", { scope: g.scopes.gmailSettingsBasic, what: "send-as addresses" });
  return res.sendAs || [];
}

function _pickSendAs(list, email) {
  if (email) {
    const a = list.find((x) => x.sendAsEmail.toLowerCase() === String(email).trim().toLowerCase());
    if (!a) throw new Error("No send-as address " + email + ". The user's addresses: " + list.map((x) => x.sendAsEmail).join(", ") + ".");
    return a;
  }
  const a = list.find((x) => x.isPrimary) || list[0];
  if (!a) throw new Error("Gmail lists no send-as address for the account.");
  return a;
}

function _signatureText(a) {
  const text = _htmlToText(a.signature);
  return a.sendAsEmail + (a.displayName ? " (" + a.displayName + ")" : "") + (a.isPrimary ? ", primary" : "") + (a.isDefault ? ", default" : "") +
    ":\n" + (text ? "  " + g.cut(text, 2000).replace(/\n/g, "\n  ") : "  (no signature)");
}

async function getSignature(params) {
  const list = await _sendAs();
  if (params.send_as_email) return "Signature of " + _signatureText(_pickSendAs(list, params.send_as_email));
  const sorted = list.slice().sort((a, b) => (b.isPrimary ? 1 : 0) - (a.isPrimary ? 1 : 0));
  return "Signatures:\n" + sorted.map(_signatureText).join("\n");
}

async function updateSignature(params) {
  if (typeof params.signature !== "string") throw new Error("Missing signature: the new signature as text or HTML (\"\" removes it).");
  const a = _pickSendAs(await _sendAs(), params.send_as_email);
  const u = await g.request("PATCH", _settings + "/sendAs/" + g.pathId(a.sendAsEmail), {
    body: { signature: _textToHTML(params.signature) }, scope: g.scopes.gmailSettingsBasic, what: "signature of " + a.sendAsEmail,
    notFound: "No send-as address " + a.sendAsEmail + ": see gmail_get_signature for the user's addresses.",
  });
  return "Updated the signature of " + _signatureText(u);
}

// Vacation responder.

function _when(ms) {
  const d = new Date(Number(ms));
  return isNaN(d.getTime()) ? String(ms) : d.toISOString().slice(0, 16).replace("T", " ") + " UTC";
}

function _vacationText(v) {
  const out = ["Vacation responder: " + (v.enableAutoReply ? "on" : "off")];
  if (v.responseSubject) out.push("Subject: " + v.responseSubject);
  const body = v.responseBodyHtml ? _htmlToText(v.responseBodyHtml) : v.responseBodyPlainText;
  if (body) out.push("Message: " + g.cut(body, 2000));
  if (v.startTime || v.endTime) out.push("Period: " + (v.startTime ? "from " + _when(v.startTime) : "from now") + (v.endTime ? " until " + _when(v.endTime) : " with no end"));
  else out.push("Period: no dates (answers while on)");
  const only = [];
  if (v.restrictToContacts) only.push("the user's contacts");
  if (v.restrictToDomain) only.push("people in the user's domain");
  out.push("Answers: " + (only.length ? "only " + only.join(" and ") : "everyone who writes"));
  return out.join("\n");
}

async function getVacation(params) {
  const v = await g.request("GET", _settings + "/vacation", { scope: g.scopes.gmailSettingsBasic, what: "vacation responder" });
  return _vacationText(v);
}

// _time reads a start or end date: YYYY-MM-DD (UTC; an end date runs to the
// end of that day) or an RFC 3339 time; "" removes it.
function _time(value, name, end) {
  const s = String(value).trim();
  if (s === "") return "";
  let ms;
  const day = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (day) ms = Date.UTC(+day[1], +day[2] - 1, +day[3] + (end ? 1 : 0));
  else if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/i.test(s)) ms = Date.parse(s);
  if (ms === undefined || isNaN(ms)) throw new Error(name + " must be a date as YYYY-MM-DD or a time as 2026-12-24T09:00:00+01:00; got " + JSON.stringify(value));
  return String(ms);
}

async function updateVacation(params) {
  if (typeof params.enabled !== "boolean") throw new Error("Missing enabled: true to turn the vacation responder on, false to turn it off.");
  const v = await g.request("GET", _settings + "/vacation", { scope: g.scopes.gmailSettingsBasic, what: "vacation responder" });
  const body = {
    enableAutoReply: params.enabled,
    responseSubject: v.responseSubject || "",
    responseBodyPlainText: v.responseBodyPlainText || "",
    responseBodyHtml: v.responseBodyHtml || "",
    restrictToContacts: !!v.restrictToContacts,
    restrictToDomain: !!v.restrictToDomain,
    startTime: v.startTime || "",
    endTime: v.endTime || "",
  };
  if (params.subject !== undefined && params.subject !== null) body.responseSubject = String(params.subject);
  if (params.message !== undefined && params.message !== null) {
    body.responseBodyPlainText = String(params.message);
    body.responseBodyHtml = ""; // Gmail would answer with the old HTML otherwise
  }
  if (params.contacts_only !== undefined && params.contacts_only !== null) body.restrictToContacts = !!params.contacts_only;
  if (params.domain_only !== undefined && params.domain_only !== null) body.restrictToDomain = !!params.domain_only;
  if (params.start !== undefined && params.start !== null) body.startTime = _time(params.start, "start", false);
  if (params.end !== undefined && params.end !== null) body.endTime = _time(params.end, "end", true);
  if (body.startTime && body.endTime && Number(body.startTime) >= Number(body.endTime)) throw new Error("end must come after start.");
  if (body.enableAutoReply && !body.responseSubject.trim() && !body.responseBodyPlainText.trim() && !body.responseBodyHtml.trim()) {
    throw new Error("To turn the vacation responder on, give a subject or a message.");
  }
  for (const k of ["responseSubject", "responseBodyPlainText", "responseBodyHtml", "startTime", "endTime"]) {
    if (body[k] === "") delete body[k];
  }
  const u = await g.request("PUT", _settings + "/vacation", { body, scope: g.scopes.gmailSettingsBasic, what: "vacation responder" });
  return "Updated. " + _vacationText(u);
}
