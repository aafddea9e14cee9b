// Google Contacts tools: People API v1 (https://people.googleapis.com/v1).
const g = lib("google_api");
const _base = "https://people.googleapis.com/v1";
const _readScope = g.scopes.contactsReadonly;
const _writeScope = g.scopes.contacts;
// What the list and search show of each contact.
const _brief = "names,emailAddresses,phoneNumbers,organizations";
// What contacts_get shows.
const _full = "names,nicknames,emailAddresses,phoneNumbers,organizations,addresses,birthdays,biographies,urls";

// _resource takes a contact's id as "people/c123" or "c123".
function _resource(params) {
  const raw = String(params.resource_name).trim();
  const id = raw.startsWith("people/") ? raw.slice(7) : raw;
  if (!/^[A-Za-z0-9_-]+$/.test(id) || id === "me") {
    throw new Error("resource_name must be a contact's id such as people/c5528734263921812345, from contacts_search or contacts_list; got " + JSON.stringify(params.resource_name));
  }
  return "people/" + id;
}

function _url(name, verb) {
  return _base + "/people/" + g.pathId(name.slice(7)) + (verb || "");
}

function _notFound(name) {
  return "No contact " + name + ": find its id with contacts_search or contacts_list.";
}

function _name(p) {
  const n = (p.names || [])[0];
  return n ? n.displayName || [n.givenName, n.familyName].filter(Boolean).join(" ") : "";
}

function _typed(v) {
  return v.value + (v.formattedType || v.type ? " (" + (v.formattedType || v.type) + ")" : "");
}

function _org(p) {
  const o = (p.organizations || [])[0];
  return o ? [o.name, o.title].filter(Boolean).join(", ") : "";
}

// _line is a contact in a list: name and id, then e-mail, phone and work.
function _line(p) {
  const facts = [];
  const emails = (p.emailAddresses || []).map((e) => e.value);
  const phones = (p.phoneNumbers || []).map((e) => e.value);
  if (emails.length) facts.push("email: " + emails.join(", "));
  if (phones.length) facts.push("phone: " + phones.join(", "));
  if (_org(p)) facts.push(_org(p));
  return "- " + (_name(p) || "(no name)") + " (id: " + p.resourceName + ")" + (facts.length ? "\n  " + facts.join(" · ") : "");
}

const _emailRe = /^[^\s@,;<>"]+@[^\s@,;<>"]+\.[^\s@,;<>"]+$/;

function _list(value, name, check) {
  if (value === undefined || value === null) return undefined;
  const items = Array.isArray(value) ? value : String(value).split(/[,;]/);
  const out = [];
  for (const item of items) {
    const v = String(item).trim();
    if (!v) continue;
    if (check && !check(v)) throw new Error(name + ": " + JSON.stringify(item) + " is not " + (name === "emails" ? "an e-mail address" : "a phone number") + ".");
    out.push(v);
  }
  return out;
}

const _isEmail = (v) => _emailRe.test(v);
const _isPhone = (v) => /^\+?[0-9 ().\-\/]{3,}(?:\s*(?:x|ext\.?)\s*\d+)?$/i.test(v) && /\d{3}/.test(v.replace(/\D/g, ""));

// _fields reads the arguments that write a contact: the People API fields
// they set, by name. Nothing given leaves a field out; "" or [] clears it.
function _fields(params) {
  const out = {};
  const has = (k) => params[k] !== undefined && params[k] !== null;
  if (has("given_name") || has("family_name")) out.names = true;
  const emails = _list(params.emails, "emails", _isEmail);
  if (emails) out.emailAddresses = emails.map((value) => ({ value }));
  const phones = _list(params.phones, "phones", _isPhone);
  if (phones) out.phoneNumbers = phones.map((value) => ({ value }));
  if (has("organization") || has("job_title")) out.organizations = true;
  if (has("notes")) out.biographies = String(params.notes).trim() ? [{ value: String(params.notes), contentType: "TEXT_PLAIN" }] : [];
  return out;
}

async function searchContacts(params) {
  g.need(params, "query");
  const size = params.max_results === undefined || params.max_results === null ? 10 : Math.floor(Number(params.max_results));
  if (!(size >= 1 && size <= 30)) throw new Error("max_results must be 1 to 30.");
  // Google searches a cache it refreshes on a request with an empty query
  // ("send a warmup request ... before searching"). Each call of a tool is
  // on its own, so every search warms the cache first: one cheap request
  // more, and a contact added or changed a moment ago is found.
  await g.request("GET", _base + "/people:searchContacts", { query: { query: "", readMask: "names" }, scope: _readScope, what: "contact search" });
  const res = await g.request("GET", _base + "/people:searchContacts", {
    query: { query: String(params.query).trim(), readMask: _brief, pageSize: size }, scope: _readScope, what: "contact search",
  });
  const people = (res.results || []).map((r) => r.person);
  if (!people.length) return "No contact matches " + JSON.stringify(String(params.query).trim()) + ". (The search matches the start of names, e-mail addresses, phone numbers and companies.)";
  return people.length + " contact" + (people.length > 1 ? "s" : "") + " match " + JSON.stringify(String(params.query).trim()) + ":\n" + people.map(_line).join("\n");
}

const _orders = { first_name: "FIRST_NAME_ASCENDING", last_name: "LAST_NAME_ASCENDING", recently_changed: "LAST_MODIFIED_DESCENDING", oldest_changed: "LAST_MODIFIED_ASCENDING" };

async function listContacts(params) {
  const size = params.max_results === undefined || params.max_results === null ? 50 : Math.floor(Number(params.max_results));
  if (!(size >= 1 && size <= 1000)) throw new Error("max_results must be 1 to 1000.");
  const order = params.sort_order ? _orders[params.sort_order] : _orders.first_name;
  if (!order) throw new Error("sort_order must be one of " + Object.keys(_orders).join(", ") + "; got " + JSON.stringify(params.sort_order));
  const query = { personFields: _brief, pageSize: size, sortOrder: order };
  if (params.page_token) query.pageToken = String(params.page_token);
  const res = await g.request("GET", _base + "/people/me/connections", { query, scope: _readScope, what: "contacts" });
  const people = res.connections || [];
  const total = res.totalPeople || res.totalItems || people.length;
  if (!people.length) return params.page_token ? "No more contacts." : "No contacts.";
  let out = people.length + " of " + total + " contact" + (total > 1 ? "s" : "") + ":\n" + people.map(_line).join("\n");
  if (res.nextPageToken) out += "\n(More contacts: call again with page_token " + JSON.stringify(res.nextPageToken) + ".)";
  return out;
}

async function getContact(params) {
  g.need(params, "resource_name");
  const name = _resource(params);
  const p = await g.request("GET", _url(name), { query: { personFields: _full }, scope: _readScope, what: "contact " + name, notFound: _notFound(name) });
  const lines = ["Name: " + (_name(p) || "(no name)"), "Id: " + p.resourceName];
  const nick = (p.nicknames || []).map((n) => n.value);
  if (nick.length) lines.push("Nickname: " + nick.join(", "));
  for (const e of p.emailAddresses || []) lines.push("Email: " + _typed(e));
  for (const ph of p.phoneNumbers || []) lines.push("Phone: " + _typed(ph));
  for (const o of p.organizations || []) {
    lines.push("Organization: " + [o.name, o.title, o.department].filter(Boolean).join(", "));
  }
  for (const a of p.addresses || []) {
    const text = a.formattedValue || [a.streetAddress, a.city, a.postalCode, a.country].filter(Boolean).join(", ");
    lines.push("Address" + (a.formattedType ? " (" + a.formattedType + ")" : "") + ": " + String(text).replace(/\n/g, ", "));
  }
  for (const b of p.birthdays || []) {
    const d = b.date;
    const text = d ? [d.year ? String(d.year).padStart(4, "0") : "", String(d.month).padStart(2, "0"), String(d.day).padStart(2, "0")].filter(Boolean).join("-") : b.text;
    if (text) lines.push("Birthday: " + text);
  }
  for (const u of p.urls || []) lines.push("Website: " + u.value);
  const bio = (p.biographies || [])[0];
  if (bio && bio.value) lines.push("Notes: " + g.cut(bio.value, 2000));
  return lines.join("\n");
}

async function createContact(params) {
  const fields = _fields(params);
  const body = {};
  const given = params.given_name ? String(params.given_name).trim() : "";
  const family = params.family_name ? String(params.family_name).trim() : "";
  if (given || family) body.names = [Object.assign(given ? { givenName: given } : {}, family ? { familyName: family } : {})];
  if (fields.emailAddresses && fields.emailAddresses.length) body.emailAddresses = fields.emailAddresses;
  if (fields.phoneNumbers && fields.phoneNumbers.length) body.phoneNumbers = fields.phoneNumbers;
  const org = params.organization ? String(params.organization).trim() : "", title = params.job_title ? String(params.job_title).trim() : "";
  if (org || title) body.organizations = [Object.assign(org ? { name: org } : {}, title ? { title } : {})];
  if (fields.biographies && fields.biographies.length) body.biographies = fields.biographies;
  if (!body.names && !body.emailAddresses && !body.phoneNumbers && !body.organizations) {
    throw new Error("Give at least a name, an e-mail address, a phone number or an organization for the new contact.");
  }
  const p = await g.request("POST", _base + "/people:createContact", { query: { personFields: _brief }, body, scope: _writeScope, what: "new contact" });
  return "Created the contact:\n" + _line(p);
}

// _updateBody builds an update from the contact as read: names and
// organizations are one value each, so the part not given is kept.
function _updateBody(person, fields, params) {
  const body = { etag: person.etag };
  const has = (k) => params[k] !== undefined && params[k] !== null;
  if (fields.names) {
    const old = (person.names || [])[0] || {};
    const given = has("given_name") ? String(params.given_name).trim() : old.givenName || "";
    const family = has("family_name") ? String(params.family_name).trim() : old.familyName || "";
    body.names = given || family ? [Object.assign(given ? { givenName: given } : {}, family ? { familyName: family } : {})] : [];
  }
  if (fields.emailAddresses) body.emailAddresses = fields.emailAddresses;
  if (fields.phoneNumbers) body.phoneNumbers = fields.phoneNumbers;
  if (fields.organizations) {
    const old = (person.organizations || [])[0] || {};
    const org = has("organization") ? String(params.organization).trim() : old.name || "";
    const title = has("job_title") ? String(params.job_title).trim() : old.title || "";
    body.organizations = org || title ? [Object.assign(org ? { name: org } : {}, title ? { title } : {})] : [];
  }
  if (fields.biographies) body.biographies = fields.biographies;
  return body;
}

async function updateContact(params) {
  g.need(params, "resource_name");
  const name = _resource(params);
  const fields = _fields(params);
  const mask = Object.keys(fields).sort();
  if (!mask.length) throw new Error("Nothing to change: give given_name, family_name, emails, phones, organization, job_title or notes.");
  const notFound = _notFound(name);
  // updateContact needs the contact's current etag, and replaces whole
  // fields: read the contact, merge, write; if someone changed it in
  // between (Google's "etag is different" 400), read it again once.
  let p;
  for (let attempt = 0; ; attempt++) {
    const person = await g.request("GET", _url(name), { query: { personFields: mask.join(",") }, scope: _readScope, what: "contact " + name, notFound });
    try {
      p = await g.request("PATCH", _url(name, ":updateContact"), {
        query: { updatePersonFields: mask.join(","), personFields: _brief }, body: _updateBody(person, fields, params),
        scope: _writeScope, what: "contact " + name, notFound,
      });
      break;
    } catch (err) {
      if (attempt > 0 || err.status !== 400 || !/etag/i.test(err.message)) throw err;
    }
  }
  return "Updated the contact:\n" + _line(p);
}

async function deleteContact(params) {
  g.need(params, "resource_name");
  const name = _resource(params);
  await g.request("DELETE", _url(name, ":deleteContact"), { scope: _writeScope, what: "contact " + name, notFound: _notFound(name) });
  return "Deleted the contact " + name + ".";
}
