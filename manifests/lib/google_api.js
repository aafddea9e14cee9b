// google_api: what the Google Workspace tools share. Calls to Google's REST
// APIs with the connected account's token, Google's errors turned into
// messages that say what to do, and the encodings the APIs use.
//
//   const g = lib("google_api");
//   const list = await g.request("GET", "https://tasks.googleapis.com/tasks/v1/users/@me/lists",
//     { query: { maxResults: 20 }, scope: g.scopes.tasks, what: "task lists" });

const scopes = {
  gmailReadonly: "https://www.googleapis.com/auth/gmail.readonly",
  gmailModify: "https://www.googleapis.com/auth/gmail.modify",
  gmailCompose: "https://www.googleapis.com/auth/gmail.compose",
  gmailSend: "https://www.googleapis.com/auth/gmail.send",
  gmailLabels: "https://www.googleapis.com/auth/gmail.labels",
  gmailSettingsBasic: "https://www.googleapis.com/auth/gmail.settings.basic",
  gmailSettingsSharing: "https://www.googleapis.com/auth/gmail.settings.sharing",
  drive: "https://www.googleapis.com/auth/drive",
  driveReadonly: "https://www.googleapis.com/auth/drive.readonly",
  calendar: "https://www.googleapis.com/auth/calendar",
  calendarReadonly: "https://www.googleapis.com/auth/calendar.readonly",
  contacts: "https://www.googleapis.com/auth/contacts",
  contactsReadonly: "https://www.googleapis.com/auth/contacts.readonly",
  documents: "https://www.googleapis.com/auth/documents",
  documentsReadonly: "https://www.googleapis.com/auth/documents.readonly",
  spreadsheets: "https://www.googleapis.com/auth/spreadsheets",
  spreadsheetsReadonly: "https://www.googleapis.com/auth/spreadsheets.readonly",
  presentations: "https://www.googleapis.com/auth/presentations",
  presentationsReadonly: "https://www.googleapis.com/auth/presentations.readonly",
  forms: "https://www.googleapis.com/auth/forms.body",
  formsReadonly: "https://www.googleapis.com/auth/forms.body.readonly",
  formsResponses: "https://www.googleapis.com/auth/forms.responses.readonly",
  tasks: "https://www.googleapis.com/auth/tasks",
  tasksReadonly: "https://www.googleapis.com/auth/tasks.readonly",
};

// query encodes an object as a query string: undefined and null are left
// out, arrays repeat the key.
function query(params) {
  const parts = [];
  for (const [key, value] of Object.entries(params || {})) {
    if (value === undefined || value === null) continue;
    const values = Array.isArray(value) ? value : [value];
    for (const v of values) parts.push(encodeURIComponent(key) + "=" + encodeURIComponent(String(v)));
  }
  return parts.length ? "?" + parts.join("&") : "";
}

// googleMessage digs the message out of a Google error body.
function googleMessage(text) {
  try {
    const body = JSON.parse(text);
    const e = body.error;
    if (typeof e === "string") return body.error_description ? e + ": " + body.error_description : e;
    if (e && e.message) return e.message;
  } catch (err) {
    // not JSON: fall through
  }
  const t = String(text || "").trim();
  return t.length > 300 ? t.slice(0, 300) + "…" : t;
}

// failure makes the Error a failed call throws: what Google said, and what
// to do about it.
function failure(status, text, headers, opts) {
  const said = googleMessage(text);
  const what = opts.what ? " (" + opts.what + ")" : "";
  let advice;
  switch (true) {
    case status === 400:
      advice = "Google refused the request as invalid: check the arguments.";
      break;
    case status === 401:
      advice = "Google rejected the access token: reconnect the Google account (a new GOOGLE_REFRESH_TOKEN or GOOGLE_ACCESS_TOKEN).";
      break;
    case status === 403:
      advice = opts.scope
        ? "The Google account has not granted the scope this needs, " + opts.scope + ", or may not use this item: reconnect the account granting that scope, or ask the item's owner for access."
        : "The Google account may not do this: check its permissions on the item.";
      break;
    case status === 404:
      advice = opts.notFound || "Nothing was found" + what + ": check the id, or list or search to find it.";
      break;
    case status === 409:
      advice = "It conflicts with something that exists already" + what + ".";
      break;
    case status === 429: {
      const after = headers && headers["retry-after"];
      advice = "Google's rate limit was reached: retry later" + (after ? ", after " + after + " seconds" : "") + ".";
      break;
    }
    case status >= 500:
      advice = "Google failed to answer: try again in a moment.";
      break;
    default:
      advice = "The request failed.";
  }
  const err = new Error("HTTP " + status + what + ": " + advice + (said ? " Google said: " + said : ""));
  err.status = status;
  return err;
}

// request calls a Google API and returns the parsed JSON answer ("" for an
// empty one, the text when opts.text is set). opts: query (an object), body
// (an object sent as JSON, or a string with opts.contentType), headers,
// scope (the OAuth scope the call needs, named when Google answers 403),
// what (what is asked for, for messages) and notFound (the message for 404).
async function request(method, url, opts) {
  opts = opts || {};
  const token = await google.getAccessToken();
  const headers = Object.assign({ Authorization: "Bearer " + token, Accept: "application/json" }, opts.headers || {});
  let body;
  if (opts.body !== undefined && opts.body !== null) {
    if (typeof opts.body === "string") {
      body = opts.body;
      headers["Content-Type"] = opts.contentType || "text/plain; charset=UTF-8";
    } else {
      body = JSON.stringify(opts.body);
      headers["Content-Type"] = "application/json; charset=UTF-8";
    }
  }
  const resp = await fetch(url + query(opts.query), { method, headers, body });
  const text = await resp.text();
  if (!resp.ok) throw failure(resp.status, text, resp.headers, opts);
  if (opts.text) return text;
  if (!text || !text.trim()) return "";
  try {
    return await resp.json();
  } catch (e) {
    throw new Error("Google's answer could not be read" + (opts.what ? " (" + opts.what + ")" : "") + ": " + e.message);
  }
}

// utf8Bytes encodes a string as UTF-8 bytes.
function utf8Bytes(s) {
  const out = [];
  for (const ch of String(s)) {
    let c = ch.codePointAt(0);
    if (c < 0x80) out.push(c);
    else if (c < 0x800) out.push(0xc0 | (c >> 6), 0x80 | (c & 63));
    else if (c < 0x10000) out.push(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
    else out.push(0xf0 | (c >> 18), 0x80 | ((c >> 12) & 63), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
  }
  return out;
}

// utf8String decodes UTF-8 bytes, replacing a bad sequence with U+FFFD.
function utf8String(bytes) {
  let s = "";
  for (let i = 0; i < bytes.length;) {
    const b = bytes[i];
    let n = 0, c = 0;
    if (b < 0x80) { n = 1; c = b; }
    else if (b >= 0xc2 && b < 0xe0) { n = 2; c = b & 31; }
    else if (b >= 0xe0 && b < 0xf0) { n = 3; c = b & 15; }
    else if (b >= 0xf0 && b < 0xf5) { n = 4; c = b & 7; }
    let ok = n > 0 && i + n <= bytes.length;
    for (let k = 1; ok && k < n; k++) {
      if ((bytes[i + k] & 0xc0) !== 0x80) ok = false;
      else c = (c << 6) | (bytes[i + k] & 63);
    }
    if (ok && (n === 3 && (c < 0x800 || (c >= 0xd800 && c < 0xe000)) || n === 4 && (c < 0x10000 || c > 0x10ffff))) ok = false;
    if (!ok) { s += "\ufffd"; i++; continue; }
    s += String.fromCodePoint(c);
    i += n;
  }
  return s;
}

const b64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

// base64 encodes a string's UTF-8 bytes; url selects the URL-safe alphabet
// without padding (Gmail's raw messages).
function base64Encode(s, url) {
  const bytes = utf8Bytes(s);
  let out = "";
  for (let i = 0; i < bytes.length; i += 3) {
    const n = (bytes[i] << 16) | ((bytes[i + 1] || 0) << 8) | (bytes[i + 2] || 0);
    out += b64[(n >> 18) & 63] + b64[(n >> 12) & 63];
    out += i + 1 < bytes.length ? b64[(n >> 6) & 63] : "=";
    out += i + 2 < bytes.length ? b64[n & 63] : "=";
  }
  return url ? out.replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "") : out;
}

// base64Decode decodes standard or URL-safe base64 into a UTF-8 string.
function base64Decode(s) {
  const clean = String(s || "").replace(/-/g, "+").replace(/_/g, "/").replace(/[^A-Za-z0-9+/]/g, "");
  const bytes = [];
  let buf = 0, bits = 0;
  for (const ch of clean) {
    buf = (buf << 6) | b64.indexOf(ch);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      bytes.push((buf >> bits) & 255);
    }
  }
  return utf8String(bytes);
}

// need checks that the required string arguments are there and not blank.
function need(params, ...names) {
  const missing = names.filter((n) => params[n] === undefined || params[n] === null || String(params[n]).trim() === "");
  if (missing.length) throw new Error("Missing " + missing.join(", ") + ": give " + (missing.length > 1 ? "them" : "it") + " and call again.");
}

// pathId escapes an id for a URL path segment.
function pathId(id) {
  return encodeURIComponent(String(id));
}

// cut shortens a long text for the model, saying how much was left out.
function cut(text, max) {
  const s = String(text || "");
  if (s.length <= max) return s;
  return s.slice(0, max) + "\n[… " + (s.length - max) + " more characters cut]";
}

module.exports = { scopes, query, request, base64Encode, base64Decode, utf8Bytes, utf8String, need, pathId, cut };
