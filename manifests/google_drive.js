// Google Drive tools: Drive API v3 (https://www.googleapis.com/drive/v3,
// uploads at https://www.googleapis.com/upload/drive/v3).
const g = lib("google_api");
const _base = "https://www.googleapis.com/drive/v3";
const _uploadBase = "https://www.googleapis.com/upload/drive/v3";

const _FOLDER = "application/vnd.google-apps.folder";
const _DOC = "application/vnd.google-apps.document";
const _SHORTCUT = "application/vnd.google-apps.shortcut";

// _kinds names the types a model meets most; others show their MIME type.
const _kinds = {
  [_FOLDER]: "folder",
  [_DOC]: "Google Doc",
  "application/vnd.google-apps.spreadsheet": "Google Sheet",
  "application/vnd.google-apps.presentation": "Google Slides",
  "application/vnd.google-apps.form": "Google Form",
  "application/vnd.google-apps.drawing": "Google Drawing",
  [_SHORTCUT]: "shortcut",
  "application/pdf": "PDF",
};

// _exports: how drive_read_file exports the Google editors' files.
const _exports = {
  [_DOC]: { mimeType: "text/plain", as: "plain text" },
  "application/vnd.google-apps.spreadsheet": { mimeType: "text/csv", as: "CSV (first sheet)" },
  "application/vnd.google-apps.presentation": { mimeType: "text/plain", as: "plain text" },
};

// drive_search's mime_type shortcuts: a term of the q language each.
const _types = {
  folder: "mimeType = '" + _FOLDER + "'",
  document: "mimeType = '" + _DOC + "'",
  spreadsheet: "mimeType = 'application/vnd.google-apps.spreadsheet'",
  presentation: "mimeType = 'application/vnd.google-apps.presentation'",
  form: "mimeType = 'application/vnd.google-apps.form'",
  drawing: "mimeType = 'application/vnd.google-apps.drawing'",
  pdf: "mimeType = 'application/pdf'",
  text: "mimeType contains 'text/'",
  image: "mimeType contains 'image/'",
};

const _textTypes = [
  "application/json", "application/xml", "application/javascript", "application/x-javascript",
  "application/x-yaml", "application/yaml", "application/x-sh", "application/sql", "application/x-ndjson",
  "application/csv", "application/rtf", "image/svg+xml",
];

const _listFields = "nextPageToken,files(id,name,mimeType,size,modifiedTime,owners(displayName,emailAddress),driveId)";
const _permissionFields = "id,type,role,emailAddress,domain,displayName,allowFileDiscovery,deleted,pendingOwner";
const _maxUpload = 5 * 1024 * 1024;

// _quote makes a string literal of Drive's q language: quotes and
// backslashes escaped with a backslash.
function _quote(s) {
  return "'" + String(s).replace(/\\/g, "\\\\").replace(/'/g, "\\'") + "'";
}

function _kind(mime) {
  return _kinds[mime] || mime;
}

function _isText(mime) {
  const m = String(mime || "").toLowerCase();
  return m.startsWith("text/") || _textTypes.includes(m) || m.endsWith("+json") || m.endsWith("+xml");
}

function _size(bytes) {
  const n = Number(bytes);
  if (!isFinite(n)) return "";
  if (n < 1024) return n + (n === 1 ? " byte" : " bytes");
  const units = ["KB", "MB", "GB", "TB"];
  let v = n / 1024, i = 0;
  while (v >= 1024 && i < units.length - 1) { v /= 1024; i++; }
  return (v < 10 ? v.toFixed(1) : Math.round(v)) + " " + units[i];
}

function _when(ts) {
  return ts ? String(ts).replace("T", " ").slice(0, 16) + " UTC" : "";
}

function _person(u) {
  if (!u) return "";
  return u.emailAddress ? (u.displayName ? u.displayName + " <" + u.emailAddress + ">" : u.emailAddress) : (u.displayName || "");
}

function _owner(f) {
  return f.owners && f.owners.length ? f.owners.map(_person).join(", ") : "";
}

function _line(f) {
  const parts = [_kind(f.mimeType)];
  if (f.size !== undefined && f.mimeType !== _FOLDER) parts.push(_size(f.size));
  if (f.modifiedTime) parts.push("modified " + _when(f.modifiedTime));
  const owner = _owner(f);
  if (owner) parts.push("owner " + owner);
  else if (f.driveId) parts.push("in a shared drive");
  return "- " + f.name + " (id: " + f.id + ") — " + parts.join(", ");
}

function _notFound(id) {
  return "No file or folder " + id + " is visible to this account: find the id with drive_search or drive_list_files.";
}

function _fileURL(id) {
  return _base + "/files/" + g.pathId(id);
}

function _max(params, def) {
  const n = params.max_results === undefined ? def : Number(params.max_results);
  if (!Number.isInteger(n) || n < 1 || n > 100) throw new Error("max_results must be a whole number from 1 to 100; got " + JSON.stringify(params.max_results));
  return n;
}

// _files runs files.list and writes the result for the model.
async function _files(params, q, orderBy, title, empty, notFound) {
  const res = await g.request("GET", _base + "/files", {
    query: {
      q, orderBy, pageSize: _max(params, 25), pageToken: params.page_token || undefined, fields: _listFields,
      supportsAllDrives: "true", includeItemsFromAllDrives: "true",
    },
    scope: g.scopes.driveReadonly, what: "files", notFound,
  });
  const files = res.files || [];
  if (!files.length) return params.page_token ? "No more items." : empty;
  let out = title(files.length) + ":\n" + files.map(_line).join("\n");
  if (res.nextPageToken) out += "\n(More items: call again with page_token \"" + res.nextPageToken + "\".)";
  return out;
}

async function listFiles(params) {
  const folder = params.folder_id ? String(params.folder_id).trim() : "root";
  const where = folder === "root" ? "My Drive" : "folder " + folder;
  return _files(params, _quote(folder) + " in parents and trashed = false", "modifiedTime desc",
    (n) => n + " item" + (n > 1 ? "s" : "") + " in " + where + ", newest first",
    folder === "root" ? "My Drive is empty." : "No items in folder " + folder + " (or no such folder: check its id with drive_search, mime_type \"folder\").",
    _notFound(folder));
}

async function searchFiles(params) {
  const terms = [], said = [];
  const text = params.query === undefined || params.query === null ? "" : String(params.query).trim();
  const match = params.match || "name";
  if (match !== "name" && match !== "full_text") throw new Error("match must be name or full_text; got " + JSON.stringify(params.match));
  if (text) {
    terms.push((match === "name" ? "name" : "fullText") + " contains " + _quote(text));
    said.push((match === "name" ? "name matching " : "text matching ") + JSON.stringify(text));
  }
  if (params.mime_type) {
    const t = String(params.mime_type).trim();
    if (_types[t.toLowerCase()]) terms.push(_types[t.toLowerCase()]);
    else if (/^[\w.+-]+\/[\w.+-]+$/.test(t)) terms.push("mimeType = " + _quote(t));
    else throw new Error("mime_type must be one of " + Object.keys(_types).join(", ") + ", or a MIME type such as text/csv; got " + JSON.stringify(params.mime_type));
    said.push("type " + t);
  }
  if (!terms.length) throw new Error("Give query (words to look for), mime_type, or both.");
  if (params.folder_id) {
    terms.push(_quote(String(params.folder_id).trim()) + " in parents");
    said.push("in folder " + params.folder_id);
  }
  terms.push("trashed = false");
  // Drive cannot sort full-text results: they come by relevance.
  const orderBy = match === "full_text" && text ? undefined : "modifiedTime desc";
  const about = said.join(", ");
  return _files(params, terms.join(" and "), orderBy,
    (n) => n + " result" + (n > 1 ? "s" : "") + " for " + about + (orderBy ? ", newest first" : ", most relevant first"),
    "Nothing found for " + about + ".", undefined);
}

async function getFile(params) {
  g.need(params, "file_id");
  const f = await g.request("GET", _fileURL(params.file_id), {
    query: {
      fields: "id,name,mimeType,size,createdTime,modifiedTime,owners(displayName,emailAddress),lastModifyingUser(displayName,emailAddress),parents,description,webViewLink,shared,starred,trashed,driveId,shortcutDetails(targetId,targetMimeType)",
      supportsAllDrives: "true",
    },
    scope: g.scopes.driveReadonly, what: "file " + params.file_id, notFound: _notFound(params.file_id),
  });
  const lines = ["Name: " + f.name, "Id: " + f.id, "Type: " + _kind(f.mimeType) + (_kinds[f.mimeType] && f.mimeType !== _FOLDER ? " (" + f.mimeType + ")" : "")];
  if (f.size !== undefined && f.mimeType !== _FOLDER) lines.push("Size: " + _size(f.size));
  if (f.createdTime) lines.push("Created: " + _when(f.createdTime));
  if (f.modifiedTime) lines.push("Modified: " + _when(f.modifiedTime) + (f.lastModifyingUser ? " by " + _person(f.lastModifyingUser) : ""));
  const owner = _owner(f);
  if (owner) lines.push("Owner: " + owner);
  if (f.parents && f.parents.length) lines.push("In folder" + (f.parents.length > 1 ? "s" : "") + ": " + f.parents.join(", "));
  if (f.driveId) lines.push("Shared drive: " + f.driveId);
  lines.push("Shared: " + (f.shared ? "yes (see drive_list_permissions)" : "no"));
  if (f.starred) lines.push("Starred: yes");
  if (f.trashed) lines.push("In the trash: yes");
  if (f.shortcutDetails) lines.push("Shortcut to: " + f.shortcutDetails.targetId + " (" + _kind(f.shortcutDetails.targetMimeType) + ")");
  if (f.description) lines.push("Description: " + g.cut(f.description, 2000));
  if (f.webViewLink) lines.push("Link: " + f.webViewLink);
  return lines.join("\n");
}

async function readFile(params) {
  g.need(params, "file_id");
  const max = params.max_chars === undefined ? 20000 : Number(params.max_chars);
  if (!Number.isInteger(max) || max < 100 || max > 50000) throw new Error("max_chars must be a whole number from 100 to 50000; got " + JSON.stringify(params.max_chars));
  const id = String(params.file_id);
  const f = await g.request("GET", _fileURL(id), {
    query: { fields: "id,name,mimeType,size,webViewLink,shortcutDetails(targetId,targetMimeType)", supportsAllDrives: "true" },
    scope: g.scopes.driveReadonly, what: "file " + id, notFound: _notFound(id),
  });
  const label = "\"" + f.name + "\" (id: " + f.id + ")";
  if (f.mimeType === _FOLDER) throw new Error(label + " is a folder, not a file: list what is in it with drive_list_files (folder_id " + f.id + ").");
  if (f.mimeType === _SHORTCUT && f.shortcutDetails) {
    throw new Error(label + " is a shortcut: read the file it points to with drive_read_file (file_id " + f.shortcutDetails.targetId + ").");
  }
  let text, how, whole = true;
  const exp = _exports[f.mimeType];
  if (exp) {
    text = await g.request("GET", _fileURL(id) + "/export", {
      query: { mimeType: exp.mimeType }, text: true,
      scope: g.scopes.driveReadonly, what: "the content of file " + id, notFound: _notFound(id),
    });
    how = _kind(f.mimeType) + " exported as " + exp.as;
  } else if (_isText(f.mimeType)) {
    // Ask for no more bytes than max_chars characters can take.
    const limit = max * 4;
    const size = Number(f.size);
    const headers = size > limit ? { Range: "bytes=0-" + (limit - 1) } : {};
    whole = !(size > limit);
    text = await g.request("GET", _fileURL(id), {
      query: { alt: "media", supportsAllDrives: "true" }, headers, text: true,
      scope: g.scopes.driveReadonly, what: "the content of file " + id, notFound: _notFound(id),
    });
    // A range can end inside a character.
    if (!whole) text = text.replace(/\ufffd+$/, "");
    how = f.mimeType;
  } else if (f.mimeType.startsWith("application/vnd.google-apps.")) {
    throw new Error(label + " is a " + _kind(f.mimeType) + ", which cannot be read as text here" + (f.webViewLink ? ": open it at " + f.webViewLink : "") + ".");
  } else {
    throw new Error(label + " is a binary file (" + _kind(f.mimeType) + (f.size !== undefined ? ", " + _size(f.size) : "") +
      ") and cannot be read as text; only Google Docs, Sheets, Slides and text files can" + (f.webViewLink ? ". Open it at " + f.webViewLink : "") + ".");
  }
  text = String(text).replace(/^\ufeff/, "").replace(/\r\n/g, "\n");
  let out = "File " + label + ", " + how + ":\n\n";
  if (text.length > max) {
    out += text.slice(0, max) + "\n[… cut at " + max + " characters" + (whole ? " of " + text.length : "; the file has " + _size(f.size)) + ": raise max_chars to see more]";
  } else {
    out += text;
    if (!whole) out += "\n[… cut: the file has " + _size(f.size) + "; raise max_chars to see more]";
  }
  return out;
}

async function uploadTextFile(params) {
  g.need(params, "name");
  if (typeof params.content !== "string") throw new Error("Missing content: give the file's text and call again.");
  const mime = params.mime_type ? String(params.mime_type).trim().toLowerCase() : "text/plain";
  if (!_isText(mime)) throw new Error("mime_type must be a text type such as text/plain, text/markdown, text/csv, text/html or application/json; got " + JSON.stringify(params.mime_type) + ". Binary files cannot be uploaded with this tool.");
  if (params.as_google_doc && !["text/plain", "text/markdown", "text/html"].includes(mime)) {
    throw new Error("as_google_doc works with text/plain, text/markdown or text/html content; got " + mime + ".");
  }
  const bytes = g.utf8Bytes(params.content).length;
  if (bytes > _maxUpload) throw new Error("The content is " + _size(bytes) + "; this tool uploads at most 5 MB.");
  const meta = { name: String(params.name), mimeType: params.as_google_doc ? _DOC : mime };
  if (params.folder_id) meta.parents = [String(params.folder_id)];
  if (params.description) meta.description = String(params.description);
  // The boundary must not occur in the content.
  let boundary = "toolroute_drive_upload", n = 0;
  while (params.content.includes(boundary)) boundary = "toolroute_drive_upload_" + (++n);
  const body = "--" + boundary + "\r\nContent-Type: application/json; charset=UTF-8\r\n\r\n" + JSON.stringify(meta) + "\r\n" +
    "--" + boundary + "\r\nContent-Type: " + mime + "; charset=UTF-8\r\n\r\n" + params.content + "\r\n" +
    "--" + boundary + "--\r\n";
  const f = await g.request("POST", _uploadBase + "/files", {
    query: { uploadType: "multipart", fields: "id,name,mimeType,size,parents,webViewLink", supportsAllDrives: "true" },
    body, contentType: "multipart/related; boundary=" + boundary,
    scope: g.scopes.drive, what: "new file",
    notFound: "No folder " + params.folder_id + ": find its id with drive_search (mime_type \"folder\") or drive_list_files.",
  });
  let out = "Uploaded \"" + f.name + "\" (id: " + f.id + ", " + _kind(f.mimeType) + (f.size !== undefined ? ", " + _size(f.size) : "") + ")";
  out += params.folder_id ? " to folder " + params.folder_id + "." : " to My Drive.";
  if (f.webViewLink) out += "\nLink: " + f.webViewLink;
  return out;
}

async function createFolder(params) {
  g.need(params, "name");
  const body = { name: String(params.name), mimeType: _FOLDER };
  if (params.parent_folder_id) body.parents = [String(params.parent_folder_id)];
  const f = await g.request("POST", _base + "/files", {
    query: { fields: "id,name,parents,webViewLink", supportsAllDrives: "true" }, body,
    scope: g.scopes.drive, what: "new folder",
    notFound: "No folder " + params.parent_folder_id + ": find its id with drive_search (mime_type \"folder\") or drive_list_files.",
  });
  return "Created the folder \"" + f.name + "\" (id: " + f.id + ")" + (params.parent_folder_id ? " in folder " + params.parent_folder_id : " in My Drive") + "." +
    (f.webViewLink ? "\nLink: " + f.webViewLink : "");
}

async function shareFile(params) {
  g.need(params, "file_id", "role");
  const type = params.type || "user";
  const role = String(params.role);
  if (!["reader", "commenter", "writer"].includes(role)) throw new Error("role must be reader, commenter or writer; got " + JSON.stringify(params.role));
  const body = { type, role };
  const query = { fields: "id,type,role,emailAddress,domain,displayName,allowFileDiscovery", supportsAllDrives: "true" };
  let who;
  if (type === "user" || type === "group") {
    const email = String(params.email_address || "").trim();
    if (!/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(email)) throw new Error("Sharing with a " + type + " needs email_address, an e-mail address such as bob@example.com; got " + JSON.stringify(params.email_address || ""));
    body.emailAddress = email;
    const notify = params.notify !== false;
    if (params.message && !notify) throw new Error("A message goes in the notification email: drop message or leave notify on.");
    query.sendNotificationEmail = notify ? "true" : "false";
    if (notify && params.message) query.emailMessage = String(params.message);
    who = email + " (" + type + ")";
  } else if (type === "domain" || type === "anyone") {
    if (params.message) throw new Error("No email is sent when sharing with a domain or anyone: drop message.");
    if (type === "domain") {
      const domain = String(params.domain || "").trim().toLowerCase();
      if (!/^[a-z0-9-]+(\.[a-z0-9-]+)+$/.test(domain)) throw new Error("Sharing with a domain needs domain, such as example.com; got " + JSON.stringify(params.domain || ""));
      body.domain = domain;
      who = "everyone at " + domain;
    } else {
      who = "anyone with the link";
    }
    body.allowFileDiscovery = params.allow_discovery === true;
  } else {
    throw new Error("type must be user, group, domain or anyone; got " + JSON.stringify(params.type));
  }
  const p = await g.request("POST", _fileURL(params.file_id) + "/permissions", {
    query, body, scope: g.scopes.drive, what: "sharing file " + params.file_id, notFound: _notFound(params.file_id),
  });
  let out = "Shared file " + params.file_id + " with " + who + " as " + p.role + " (permission id: " + p.id + ").";
  if (type === "user" || type === "group") out += query.sendNotificationEmail === "true" ? " A notification email was sent." : " No email was sent.";
  if (body.allowFileDiscovery) out += " It can be found by searching.";
  return out;
}

function _grantee(p) {
  switch (p.type) {
    case "anyone": return p.allowFileDiscovery ? "Anyone (public, can be found by searching)" : "Anyone with the link";
    case "domain": return "Everyone at " + p.domain + (p.allowFileDiscovery ? " (can find it by searching)" : " with the link");
    default: return (_person(p) || "unknown " + p.type) + (p.type === "group" ? " (group)" : "");
  }
}

async function listPermissions(params) {
  g.need(params, "file_id");
  const res = await g.request("GET", _fileURL(params.file_id) + "/permissions", {
    query: { fields: "nextPageToken,permissions(" + _permissionFields + ")", pageSize: 100, supportsAllDrives: "true" },
    scope: g.scopes.driveReadonly, what: "permissions of file " + params.file_id, notFound: _notFound(params.file_id),
  });
  const perms = (res.permissions || []).filter((p) => !p.deleted);
  if (!perms.length) return "No permissions are visible on file " + params.file_id + ".";
  let out = perms.length + " with access to file " + params.file_id + ":\n" + perms.map((p) =>
    "- " + _grantee(p) + ": " + p.role + (p.pendingOwner ? " (pending owner)" : "") + " (permission id: " + p.id + ")").join("\n");
  if (res.nextPageToken) out += "\n(More permissions exist than shown.)";
  return out;
}

async function moveFile(params) {
  g.need(params, "file_id", "folder_id");
  const id = String(params.file_id), dest = String(params.folder_id).trim();
  const f = await g.request("GET", _fileURL(id), {
    query: { fields: "id,name,parents", supportsAllDrives: "true" },
    scope: g.scopes.driveReadonly, what: "file " + id, notFound: _notFound(id),
  });
  const old = (f.parents || []).filter((p) => p !== dest);
  const moved = await g.request("PATCH", _fileURL(id), {
    query: { addParents: dest, removeParents: old.length ? old.join(",") : undefined, fields: "id,name,parents", supportsAllDrives: "true" },
    body: {}, scope: g.scopes.drive, what: "moving file " + id,
    notFound: "No folder " + dest + " (or no file " + id + "): check the ids with drive_search or drive_list_files.",
  });
  return "Moved \"" + moved.name + "\" (id: " + moved.id + ") to " + (dest === "root" ? "My Drive" : "folder " + dest) +
    (old.length ? " (it was in " + old.join(", ") + ")" : "") + ".";
}

async function renameFile(params) {
  g.need(params, "file_id", "new_name");
  const f = await g.request("PATCH", _fileURL(params.file_id), {
    query: { fields: "id,name", supportsAllDrives: "true" }, body: { name: String(params.new_name) },
    scope: g.scopes.drive, what: "file " + params.file_id, notFound: _notFound(params.file_id),
  });
  return "Renamed file " + f.id + " to \"" + f.name + "\".";
}

async function copyFile(params) {
  g.need(params, "file_id");
  const body = {};
  if (params.name) body.name = String(params.name);
  if (params.folder_id) body.parents = [String(params.folder_id)];
  const f = await g.request("POST", _fileURL(params.file_id) + "/copy", {
    query: { fields: "id,name,mimeType,parents,webViewLink", supportsAllDrives: "true" }, body,
    scope: g.scopes.drive, what: "copying file " + params.file_id,
    notFound: params.folder_id
      ? "No file " + params.file_id + " or no folder " + params.folder_id + ": check the ids with drive_search or drive_list_files."
      : _notFound(params.file_id),
  });
  return "Copied file " + params.file_id + " to \"" + f.name + "\" (id: " + f.id + ", " + _kind(f.mimeType) + ")" +
    (f.parents && f.parents.length ? " in folder " + f.parents.join(", ") : "") + "." + (f.webViewLink ? "\nLink: " + f.webViewLink : "");
}

async function deleteFile(params) {
  g.need(params, "file_id");
  const id = String(params.file_id);
  if (params.permanent) {
    await g.request("DELETE", _fileURL(id), {
      query: { supportsAllDrives: "true" }, scope: g.scopes.drive, what: "deleting file " + id, notFound: _notFound(id),
    });
    return "Deleted file " + id + " permanently; it cannot be restored.";
  }
  const f = await g.request("PATCH", _fileURL(id), {
    query: { fields: "id,name,trashed", supportsAllDrives: "true" }, body: { trashed: true },
    scope: g.scopes.drive, what: "trashing file " + id, notFound: _notFound(id),
  });
  return "Moved \"" + f.name + "\" (id: " + f.id + ") to the trash; it can be restored from Drive's trash for 30 days.";
}
