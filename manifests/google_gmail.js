// Google Gmail tools: Gmail API v1 (https://gmail.googleapis.com/gmail/v1/users/me).
const g = lib("google_api");
const _base = "https://gmail.googleapis.com/gmail/v1/users/me";

function _messageURL(id) {
  return _base + "/messages/" + g.pathId(id);
}

function _notFound(id) {
  return "No message " + id + ": find message ids with gmail_search.";
}

// _tooBig tells a failure to read an answer cut at fetch's size limit.
function _tooBig(err) {
  return /was cut at/.test(String(err && err.message));
}

// _int reads an optional whole-number argument within bounds.
function _int(value, name, def, lo, hi) {
  if (value === undefined || value === null) return def;
  const n = Number(value);
  if (!Number.isInteger(n) || n < lo || n > hi) throw new Error(name + " must be a whole number from " + lo + " to " + hi + "; got " + JSON.stringify(value));
  return n;
}

// _ids reads message_ids: one id or a list, at most 50.
function _ids(params) {
  let v = params.message_ids;
  if (typeof v === "string") v = v.split(/[\s,]+/);
  const ids = Array.isArray(v) ? [...new Set(v.map((x) => String(x).trim()).filter(Boolean))] : [];
  if (!ids.length) throw new Error("Missing message_ids: give the ids of the messages (from gmail_search) and call again.");
  if (ids.length > 50) throw new Error("At most 50 messages at a time; got " + ids.length + ".");
  return ids;
}

function _header(headers, name) {
  const h = (headers || []).find((x) => String(x.name).toLowerCase() === name.toLowerCase());
  return h ? String(h.value) : "";
}

const _entities = { amp: "&", lt: "<", gt: ">", quot: "\"", apos: "'", nbsp: "\u00a0", mdash: "—", ndash: "–", hellip: "…", copy: "©", reg: "®", rsquo: "’", lsquo: "‘", rdquo: "”", ldquo: "“", bull: "•", middot: "·", euro: "€" };

function _decodeEntities(s) {
  return String(s || "").replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (m, e) => {
    if (e[0] === "#") {
      const code = e[1] === "x" || e[1] === "X" ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : m;
    }
    const v = _entities[e.toLowerCase()];
    return v === undefined ? m : v;
  });
}

// _htmlToText turns an HTML body into readable text: links keep their
// address, lists and blocks their line breaks; scripts and styles go.
function _htmlToText(html) {
  let s = String(html || "").replace(/\r\n?/g, "\n");
  s = s.replace(/<(script|style|head|title)\b[\s\S]*?<\/\1\s*>/gi, "");
  s = s.replace(/<!--[\s\S]*?-->/g, "");
  s = s.replace(/<a\b[^>]*?\bhref\s*=\s*["']([^"']*)["'][^>]*>([\s\S]*?)<\/a\s*>/gi, (m, href, inner) => {
    const text = _decodeEntities(inner.replace(/<[^>]*>/g, "")).trim();
    const url = _decodeEntities(href).trim();
    if (!text) return url;
    if (!url || text === url || /^mailto:/i.test(url) || /^#/.test(url)) return text;
    return text + " (" + url + ")";
  });
  s = s.replace(/<br\s*\/?>/gi, "\n");
  s = s.replace(/<li\b[^>]*>/gi, "\n- ");
  s = s.replace(/<\/?(p|div|h[1-6]|tr|table|ul|ol|blockquote|section|article|header|footer|center)\b[^>]*>/gi, "\n");
  s = s.replace(/<\/t[dh]\s*>/gi, " ");
  s = s.replace(/<[^>]*>/g, "");
  s = _decodeEntities(s);
  return s.replace(/[ \t\u00a0]+/g, " ").replace(/ *\n */g, "\n").replace(/\n{3,}/g, "\n\n").trim();
}

const _b64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

// _bytes decodes base64 or base64url into bytes.
function _bytes(data) {
  const clean = String(data || "").replace(/-/g, "+").replace(/_/g, "/").replace(/[^A-Za-z0-9+/]/g, "");
  const out = [];
  let buf = 0, bits = 0;
  for (const ch of clean) {
    buf = ((buf << 6) | _b64.indexOf(ch)) & 0xffffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push((buf >> bits) & 255);
    }
  }
  return out;
}

// _partText decodes a text part's body in its charset (UTF-8 unless it
// names a Latin one).
function _partText(part) {
  const bytes = _bytes(part.body && part.body.data);
  const m = /charset\s*=\s*"?([^";\s]+)/i.exec(_header(part.headers, "Content-Type"));
  const charset = m ? m[1].toLowerCase() : "utf-8";
  if (/^(iso-8859-1|iso-8859-15|latin-?1|windows-1252|cp1252)$/.test(charset)) {
    let s = "";
    for (const b of bytes) s += String.fromCharCode(b);
    return s;
  }
  return g.utf8String(bytes);
}

function _walk(part, fn) {
  if (!part) return;
  fn(part);
  for (const p of part.parts || []) _walk(p, fn);
}

function _isAttachment(p) {
  return !!(p.filename || (p.body && p.body.attachmentId));
}

// _body finds a message's text: its text/plain parts, else its HTML turned
// into text.
function _body(payload) {
  const plain = [], htmls = [];
  _walk(payload, (p) => {
    if ((p.parts && p.parts.length) || _isAttachment(p)) return;
    const type = String(p.mimeType || "").toLowerCase();
    if (type === "text/plain") plain.push(p);
    else if (type === "text/html") htmls.push(p);
  });
  const norm = (s) => s.replace(/\r\n?/g, "\n").trim();
  const text = norm(plain.map(_partText).join("\n\n"));
  if (text || !htmls.length) return { text, html: false };
  return { text: _htmlToText(htmls.map(_partText).join("\n")), html: true };
}

function _size(n) {
  n = Number(n) || 0;
  if (n < 1024) return n + " B";
  if (n < 1024 * 1024) return (n / 1024).toFixed(1) + " KB";
  return (n / 1024 / 1024).toFixed(1) + " MB";
}

function _attachments(payload) {
  const out = [];
  _walk(payload, (p) => {
    if (!(p.parts && p.parts.length) && p.filename) out.push(p.filename + " (" + (p.mimeType || "unknown type") + ", " + _size(p.body && p.body.size) + ")");
  });
  return out;
}

// _stripQuoted drops the quoted earlier message a reply ends with.
function _stripQuoted(text) {
  const lines = text.split("\n");
  let end = lines.length;
  while (end > 0 && (lines[end - 1].startsWith(">") || lines[end - 1].trim() === "")) end--;
  if (end === lines.length) return text;
  let cut = end;
  if (cut > 0 && /^On\b.*\bwrote:\s*$/.test(lines[cut - 1])) cut--;
  else if (cut > 1 && /\bwrote:\s*$/.test(lines[cut - 1]) && /^On\b/.test(lines[cut - 2])) cut -= 2;
  return lines.slice(0, cut).join("\n").trim() + "\n[quoted text hidden]";
}

async function _labelList() {
  const res = await g.request("GET", _base + "/labels", { scope: g.scopes.gmailReadonly, what: "labels" });
  return res.labels || [];
}

// _labelNames maps label ids to names; it is only for display, so a failure
// leaves the ids.
async function _labelNames() {
  try {
    const names = {};
    for (const l of await _labelList()) names[l.id] = l.name;
    return names;
  } catch (e) {
    return {};
  }
}

function _showLabels(ids, names) {
  return (ids || []).map((id) => names[id] || id).join(", ") || "none";
}

// _resolveLabel turns a label's name or id into its id.
function _resolveLabel(labels, ref) {
  const want = String(ref).trim();
  const byID = labels.find((l) => l.id === want);
  if (byID) return byID.id;
  const byName = labels.find((l) => String(l.name).toLowerCase() === want.toLowerCase());
  if (byName) return byName.id;
  const user = labels.filter((l) => l.type === "user").map((l) => l.name);
  throw new Error("No label \"" + want + "\". " + (user.length ? "The user's labels: " + user.join(", ") + ". " : "") +
    "System labels: INBOX, STARRED, IMPORTANT, UNREAD, SPAM, TRASH. Create a label with gmail_create_label.");
}

// Message building (RFC 2822 with MIME).

function _oneLine(s) {
  return String(s === undefined || s === null ? "" : s).replace(/[\r\n]+/g, " ").trim();
}

// _encodeWords encodes text as RFC 2047 encoded-words when it is not plain
// ASCII, each word under 75 characters and never splitting a character.
function _encodeWords(s) {
  if (!/[^\x20-\x7e]/.test(s) && s.length <= 900) return s;
  const words = [];
  let chunk = "", bytes = 0;
  for (const ch of s) {
    const n = g.utf8Bytes(ch).length;
    if (bytes + n > 45 && chunk) {
      words.push(chunk);
      chunk = "";
      bytes = 0;
    }
    chunk += ch;
    bytes += n;
  }
  if (chunk) words.push(chunk);
  return words.map((w) => "=?UTF-8?B?" + g.base64Encode(w) + "?=").join("\r\n ");
}

// _splitAddresses splits an address list on commas and semicolons outside
// quotes and angle brackets.
function _splitAddresses(value) {
  const out = [];
  let cur = "", quoted = false, angle = false;
  for (const ch of String(value)) {
    if (ch === "\"") quoted = !quoted;
    else if (ch === "<" && !quoted) angle = true;
    else if (ch === ">" && !quoted) angle = false;
    if ((ch === "," || ch === ";") && !quoted && !angle) {
      if (cur.trim()) out.push(cur.trim());
      cur = "";
      continue;
    }
    cur += ch;
  }
  if (cur.trim()) out.push(cur.trim());
  return out;
}

function _parseAddress(s, field) {
  s = _oneLine(s);
  let name = "", email = s;
  const m = /^(.*?)\s*<([^<>]*)>$/.exec(s);
  if (m) {
    name = m[1].trim();
    email = m[2].trim();
  }
  if (name.length >= 2 && name.startsWith("\"") && name.endsWith("\"")) name = name.slice(1, -1).replace(/\\(.)/g, "$1");
  if (!/^[^\s@<>()\[\]\\,;:"]+@[^\s@<>()\[\]\\,;:"]+\.[^\s@<>()\[\]\\,;:"]+$/.test(email) || /[^\x21-\x7e]/.test(email)) {
    throw new Error(field + ": \"" + s + "\" is not an e-mail address; give addresses such as ana@example.com or \"Ana Lima <ana@example.com>\".");
  }
  return { name, email };
}

// _addresses reads a recipients argument: a list of addresses, or one
// string of them separated by commas.
function _addresses(value, field) {
  if (value === undefined || value === null || value === "") return [];
  if (!Array.isArray(value)) return _splitAddresses(value).map((s) => _parseAddress(s, field));
  // A list item is one address ("Hamilton, M <m@example.com>") or several
  // joined with commas.
  return value.flatMap((item) => {
    try {
      return _splitAddresses(item).map((s) => _parseAddress(s, field));
    } catch (e) {
      try {
        return [_parseAddress(item, field)];
      } catch (e2) {
        throw e;
      }
    }
  });
}

function _formatAddress(a) {
  if (!a.name) return a.email;
  let n = a.name;
  if (/[^\x20-\x7e]/.test(n)) n = _encodeWords(n);
  else if (/[()<>\[\]:;@\\,."]/.test(n)) n = "\"" + n.replace(/(["\\])/g, "\\$1") + "\"";
  return n + " <" + a.email + ">";
}

function _showAddresses(list) {
  return list.map((a) => (!a.name ? a.email : (/[,;"]/.test(a.name) ? JSON.stringify(a.name) : a.name) + " <" + a.email + ">")).join(", ");
}

// _compose builds the RFC 2822 message: the headers, ASCII only, and a
// UTF-8 text/plain body in base64.
function _compose(o) {
  const lines = [];
  const addr = (name, list) => {
    if (list.length) lines.push(name + ": " + list.map(_formatAddress).join(",\r\n "));
  };
  addr("To", o.to);
  addr("Cc", o.cc);
  addr("Bcc", o.bcc);
  lines.push("Subject: " + _encodeWords(_oneLine(o.subject)));
  if (o.inReplyTo) {
    lines.push("In-Reply-To: " + o.inReplyTo);
    lines.push("References: " + o.references.join("\r\n "));
  }
  lines.push("MIME-Version: 1.0");
  lines.push("Content-Type: text/plain; charset=UTF-8");
  lines.push("Content-Transfer-Encoding: base64");
  const body = String(o.body === undefined || o.body === null ? "" : o.body).replace(/\r\n|\r|\n/g, "\r\n");
  const encoded = (g.base64Encode(body).match(/.{1,76}/g) || []).join("\r\n");
  return lines.join("\r\n") + "\r\n\r\n" + encoded + "\r\n";
}

function _raw(o) {
  return g.base64Encode(_compose(o), true);
}

function _recipients(params, needOne) {
  const r = { to: _addresses(params.to, "to"), cc: _addresses(params.cc, "cc"), bcc: _addresses(params.bcc, "bcc") };
  if (needOne && !r.to.length && !r.cc.length && !r.bcc.length) throw new Error("No recipient: give at least one address in to, cc or bcc.");
  return r;
}

function _line(m, i, names) {
  const h = (m.payload && m.payload.headers) || [];
  const labels = m.labelIds || [];
  const flags = labels.includes("UNREAD") ? "[unread] " : "";
  let s = (i + 1) + ". " + flags + (_header(h, "Subject") || "(no subject)") + "\n";
  s += "   From: " + _header(h, "From") + " | Date: " + _header(h, "Date") + "\n";
  if (_header(h, "To")) s += "   To: " + g.cut(_header(h, "To"), 200) + "\n";
  s += "   Id: " + m.id + " (thread " + m.threadId + ") | Labels: " + _showLabels(labels, names);
  if (m.snippet) s += "\n   " + _decodeEntities(m.snippet);
  return s;
}

async function search(params) {
  const max = _int(params.max_results, "max_results", 10, 1, 50);
  const query = { maxResults: max };
  if (params.query && String(params.query).trim()) query.q = String(params.query).trim();
  if (params.page_token) query.pageToken = params.page_token;
  if (params.include_spam_trash) query.includeSpamTrash = "true";
  const res = await g.request("GET", _base + "/messages", { query, scope: g.scopes.gmailReadonly, what: "message search" });
  const refs = res.messages || [];
  if (!refs.length) return query.q ? "No messages match " + JSON.stringify(query.q) + "." : "The mailbox has no messages.";
  const names = await _labelNames();
  const lines = [];
  for (const ref of refs) {
    try {
      const m = await g.request("GET", _messageURL(ref.id), {
        query: { format: "metadata", metadataHeaders: ["From", "To", "Subject", "Date"] },
        scope: g.scopes.gmailReadonly, what: "message " + ref.id, notFound: _notFound(ref.id),
      });
      lines.push(_line(m, lines.length, names));
    } catch (e) {
      if (e.status !== 404) throw e; // deleted since the search
    }
  }
  let out = lines.length + " message" + (lines.length === 1 ? "" : "s") + (query.q ? " matching " + JSON.stringify(query.q) : "") + ", newest first:\n" + lines.join("\n");
  if (res.nextPageToken) out += "\n(More match: call again with page_token \"" + res.nextPageToken + "\".)";
  return out;
}

async function readMessage(params) {
  g.need(params, "message_id");
  const id = String(params.message_id).trim();
  const max = _int(params.max_chars, "max_chars", 10000, 200, 100000);
  const names = await _labelNames();
  let m;
  try {
    m = await g.request("GET", _messageURL(id), { query: { format: "full" }, scope: g.scopes.gmailReadonly, what: "message " + id, notFound: _notFound(id) });
  } catch (e) {
    if (!_tooBig(e)) throw e;
    m = null;
  }
  let body, attachments, note = "";
  if (m) {
    body = _body(m.payload);
    attachments = _attachments(m.payload);
  } else {
    // Over the fetch limit: the headers and snippet still fit.
    m = await g.request("GET", _messageURL(id), {
      query: { format: "metadata", metadataHeaders: ["From", "To", "Cc", "Subject", "Date"] },
      scope: g.scopes.gmailReadonly, what: "message " + id, notFound: _notFound(id),
    });
    body = { text: _decodeEntities(m.snippet || ""), html: false };
    attachments = [];
    note = "The message is too large to read here (over 100 KB); this is its snippet. Open it in Gmail: https://mail.google.com/mail/u/0/#all/" + id;
  }
  const h = m.payload.headers;
  const lines = [];
  for (const name of ["Subject", "From", "To", "Cc", "Bcc", "Reply-To", "Date"]) {
    const v = _header(h, name);
    if (v) lines.push(name + ": " + v);
  }
  lines.push("Message id: " + m.id + " (thread " + m.threadId + ")");
  lines.push("Labels: " + _showLabels(m.labelIds, names));
  if (attachments.length) lines.push("Attachments: " + attachments.join("; "));
  if (note) lines.push(note);
  if (body.html) lines.push("(The message has only an HTML body; shown as text.)");
  lines.push("");
  lines.push(body.text ? g.cut(body.text, max) : "(no text body)");
  return lines.join("\n");
}

async function getThread(params) {
  g.need(params, "thread_id");
  const id = String(params.thread_id).trim();
  const max = _int(params.max_chars_per_message, "max_chars_per_message", 3000, 200, 50000);
  const url = _base + "/threads/" + g.pathId(id);
  const opts = { scope: g.scopes.gmailReadonly, what: "thread " + id, notFound: "No thread " + id + ": find thread ids with gmail_search (each result names its thread)." };
  let t, full = true;
  try {
    t = await g.request("GET", url, Object.assign({ query: { format: "full" } }, opts));
  } catch (e) {
    if (!_tooBig(e)) throw e;
    full = false;
    t = await g.request("GET", url, Object.assign({ query: { format: "metadata", metadataHeaders: ["From", "To", "Cc", "Subject", "Date"] } }, opts));
  }
  const msgs = t.messages || [];
  const names = await _labelNames();
  const subject = msgs.length ? _header(msgs[0].payload.headers, "Subject") : "";
  const out = ["Thread " + t.id + ": " + (subject || "(no subject)") + ", " + msgs.length + " message" + (msgs.length === 1 ? "" : "s")];
  if (!full) out.push("(The thread is too large to read in full: each message shows its snippet. Read one with gmail_read_message.)");
  msgs.forEach((m, i) => {
    const h = m.payload.headers;
    out.push("");
    out.push("--- " + (i + 1) + "/" + msgs.length + " | id: " + m.id + " | From: " + _header(h, "From") + " | Date: " + _header(h, "Date"));
    out.push("To: " + _header(h, "To") + (_header(h, "Cc") ? " | Cc: " + _header(h, "Cc") : "") + " | Labels: " + _showLabels(m.labelIds, names));
    if (full) {
      const att = _attachments(m.payload);
      if (att.length) out.push("Attachments: " + att.join("; "));
      const body = _body(m.payload);
      out.push(body.text ? g.cut(_stripQuoted(body.text), max) : "(no text body)");
    } else {
      out.push(_decodeEntities(m.snippet || ""));
    }
  });
  return out.join("\n");
}

async function send(params) {
  g.need(params, "subject", "body");
  const r = _recipients(params, true);
  const raw = _raw(Object.assign({ subject: params.subject, body: params.body }, r));
  const m = await g.request("POST", _base + "/messages/send", { body: { raw }, scope: g.scopes.gmailSend, what: "sending" });
  return "Sent \"" + _oneLine(params.subject) + "\" to " + _showAddresses(r.to.concat(r.cc, r.bcc)) + " (message id: " + m.id + ", thread id: " + m.threadId + ").";
}

async function reply(params) {
  g.need(params, "message_id", "body");
  const id = String(params.message_id).trim();
  const orig = await g.request("GET", _messageURL(id), {
    query: { format: "metadata", metadataHeaders: ["From", "To", "Cc", "Reply-To", "Subject", "Message-ID", "References"] },
    scope: g.scopes.gmailReadonly, what: "message " + id, notFound: _notFound(id),
  });
  const h = orig.payload.headers;
  let me = "";
  try {
    me = String((await google.getAccountEmail()) || "").toLowerCase();
  } catch (e) {
    // unknown: nobody is left out as "me"
  }
  const lenient = (v) => _splitAddresses(v).map((s) => {
    try {
      return _parseAddress(s, "the original's header");
    } catch (e) {
      return null;
    }
  }).filter(Boolean);
  const from = lenient(_header(h, "Reply-To") || _header(h, "From"));
  const fromMe = lenient(_header(h, "From")).some((a) => a.email.toLowerCase() === me);
  let to = fromMe ? lenient(_header(h, "To")) : from;
  let cc = params.reply_all ? lenient(_header(h, "Cc")).concat(fromMe ? [] : lenient(_header(h, "To"))) : [];
  cc = cc.concat(_addresses(params.cc, "cc"));
  const seen = new Set([me]);
  const keep = (a) => {
    const k = a.email.toLowerCase();
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  };
  to = to.filter(keep);
  cc = cc.filter(keep);
  if (!to.length && cc.length) to = [cc.shift()];
  if (!to.length) throw new Error("The message " + id + " has no address to reply to.");
  let subject = _header(h, "Subject");
  if (!/^re:/i.test(subject.trim())) subject = "Re: " + subject;
  const msgID = _header(h, "Message-ID").trim();
  const o = { to, cc, bcc: _addresses(params.bcc, "bcc"), subject, body: params.body };
  if (msgID) {
    o.inReplyTo = msgID;
    o.references = _header(h, "References").split(/\s+/).filter((x) => x && x !== msgID).concat([msgID]);
  }
  const message = { raw: _raw(o), threadId: orig.threadId };
  const who = "to " + _showAddresses(to) + (cc.length ? ", cc " + _showAddresses(cc) : "");
  if (params.draft) {
    const d = await g.request("POST", _base + "/drafts", { body: { message }, scope: g.scopes.gmailCompose, what: "reply draft" });
    return "Saved a reply draft \"" + subject + "\" " + who + " in thread " + orig.threadId + " (draft id: " + d.id + "). Send it with gmail_send_draft.";
  }
  const m = await g.request("POST", _base + "/messages/send", { body: message, scope: g.scopes.gmailSend, what: "reply" });
  return "Replied \"" + subject + "\" " + who + " in thread " + m.threadId + " (message id: " + m.id + ").";
}

async function createDraft(params) {
  g.need(params, "body");
  const r = _recipients(params, false);
  const raw = _raw(Object.assign({ subject: params.subject, body: params.body }, r));
  const d = await g.request("POST", _base + "/drafts", { body: { message: { raw } }, scope: g.scopes.gmailCompose, what: "new draft" });
  return "Saved the draft \"" + _oneLine(params.subject || "(no subject)") + "\"" + (r.to.length ? " to " + _showAddresses(r.to) : "") +
    " (draft id: " + d.id + ", message id: " + d.message.id + "). Send it with gmail_send_draft.";
}

async function listDrafts(params) {
  const max = _int(params.max_results, "max_results", 10, 1, 50);
  const query = { maxResults: max };
  if (params.query && String(params.query).trim()) query.q = String(params.query).trim();
  const res = await g.request("GET", _base + "/drafts", { query, scope: g.scopes.gmailReadonly, what: "drafts" });
  const drafts = res.drafts || [];
  if (!drafts.length) return "No drafts" + (query.q ? " match " + JSON.stringify(query.q) : "") + ".";
  const lines = [];
  for (const ref of drafts) {
    try {
      const d = await g.request("GET", _base + "/drafts/" + g.pathId(ref.id), { query: { format: "metadata" }, scope: g.scopes.gmailReadonly, what: "draft " + ref.id });
      const h = d.message.payload.headers;
      lines.push("- " + (_header(h, "Subject") || "(no subject)") + " | to: " + (_header(h, "To") || "nobody yet") + " | draft id: " + d.id +
        " | message id: " + d.message.id + (d.message.snippet ? "\n  " + _decodeEntities(d.message.snippet) : ""));
    } catch (e) {
      if (e.status !== 404) throw e;
    }
  }
  let out = lines.length + " draft" + (lines.length === 1 ? "" : "s") + ":\n" + lines.join("\n");
  if (res.nextPageToken) out += "\n(More drafts exist: raise max_results, up to 50.)";
  return out;
}

async function sendDraft(params) {
  g.need(params, "draft_id");
  const id = String(params.draft_id).trim();
  const m = await g.request("POST", _base + "/drafts/send", {
    body: { id }, scope: g.scopes.gmailCompose, what: "draft " + id,
    notFound: "No draft " + id + ": find draft ids with gmail_list_drafts.",
  });
  return "Sent the draft " + id + " (message id: " + m.id + ", thread id: " + m.threadId + ").";
}

// _modifyEach changes the labels of each message; a missing message is
// reported and the others still change.
async function _modifyEach(ids, add, remove, names) {
  const done = [], missing = [];
  for (const id of ids) {
    const body = {};
    if (add.length) body.addLabelIds = add;
    if (remove.length) body.removeLabelIds = remove;
    try {
      const m = await g.request("POST", _messageURL(id) + "/modify", { body, scope: g.scopes.gmailModify, what: "message " + id, notFound: _notFound(id) });
      done.push("- " + id + ": labels now " + _showLabels(m.labelIds, names));
    } catch (e) {
      if (e.status !== 404) throw e;
      missing.push(id);
    }
  }
  if (!done.length) throw new Error("HTTP 404: no message " + missing.join(", ") + ": find message ids with gmail_search.");
  return { done, missing };
}

function _report(verb, r) {
  let s = verb + " " + r.done.length + " message" + (r.done.length === 1 ? "" : "s") + ":\n" + r.done.join("\n");
  if (r.missing.length) s += "\nNot found (find ids with gmail_search): " + r.missing.join(", ");
  return s;
}

async function modifyLabels(params) {
  const ids = _ids(params);
  const list = (v) => (v === undefined || v === null ? [] : Array.isArray(v) ? v : [v]).map((x) => String(x).trim()).filter(Boolean);
  const addRefs = list(params.add_labels), removeRefs = list(params.remove_labels);
  if (!addRefs.length && !removeRefs.length) throw new Error("Nothing to change: give add_labels or remove_labels.");
  const labels = await _labelList();
  const add = addRefs.map((x) => _resolveLabel(labels, x));
  const remove = removeRefs.map((x) => _resolveLabel(labels, x));
  const names = {};
  for (const l of labels) names[l.id] = l.name;
  return _report("Changed the labels of", await _modifyEach(ids, add, remove, names));
}

async function archive(params) {
  const ids = _ids(params);
  const names = await _labelNames();
  return _report("Archived (removed from the inbox)", await _modifyEach(ids, [], ["INBOX"], names));
}

async function markRead(params) {
  const ids = _ids(params);
  const names = await _labelNames();
  const r = params.unread ? await _modifyEach(ids, ["UNREAD"], [], names) : await _modifyEach(ids, [], ["UNREAD"], names);
  return _report(params.unread ? "Marked as unread" : "Marked as read", r);
}

async function trash(params) {
  const ids = _ids(params);
  const action = params.undo ? "untrash" : "trash";
  const done = [], missing = [];
  for (const id of ids) {
    try {
      const m = await g.request("POST", _messageURL(id) + "/" + action, { scope: g.scopes.gmailModify, what: "message " + id, notFound: _notFound(id) });
      done.push("- " + id + " (thread " + m.threadId + ")");
    } catch (e) {
      if (e.status !== 404) throw e;
      missing.push(id);
    }
  }
  if (!done.length) throw new Error("HTTP 404: no message " + missing.join(", ") + ": find message ids with gmail_search (add include_spam_trash for trashed ones).");
  return _report(params.undo ? "Restored from the trash" : "Moved to the trash (Gmail deletes it for good after 30 days)", { done, missing });
}
