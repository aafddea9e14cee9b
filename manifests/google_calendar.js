// Google Calendar tools: Calendar API v3 (https://www.googleapis.com/calendar/v3).
const g = lib("google_api");
const _base = "https://www.googleapis.com/calendar/v3";
const _readScope = g.scopes.calendarReadonly;
const _writeScope = g.scopes.calendar;
const _hour = 3600000;
const _day = 24 * _hour;
// The widest UTC offsets are -12:00 and +14:00: a wall-clock time anywhere
// is within 14 hours of the same digits read as UTC.
const _widen = 14 * _hour;

function _cal(params) {
  const id = params.calendar_id === undefined || params.calendar_id === null ? "" : String(params.calendar_id).trim();
  return id || "primary";
}

function _eventsURL(params) {
  return _base + "/calendars/" + g.pathId(_cal(params)) + "/events";
}

function _eventURL(params) {
  return _eventsURL(params) + "/" + g.pathId(String(params.event_id).trim());
}

function _calendarNotFound(params) {
  return "No calendar " + _cal(params) + ": find its id with calendar_list_calendars.";
}

function _eventNotFound(params) {
  return "No event " + params.event_id + " in the calendar " + _cal(params) +
    ": find the event's id with calendar_list_events (and the calendar's with calendar_list_calendars).";
}

const _timeRe = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(Z|[+-]\d{2}:\d{2})?)?$/i;

// _parse reads a date (YYYY-MM-DD), a wall-clock date-time without an
// offset, or an RFC 3339 date-time with its offset. wall is the digits
// read as UTC, in milliseconds; ms the instant, for values with an offset.
function _parse(value, name) {
  const s = String(value).trim();
  const hint = " Give a date YYYY-MM-DD or a date-time such as 2026-11-20T09:30:00+01:00 (RFC 3339; Z for UTC).";
  const m = _timeRe.exec(s);
  if (!m) throw new Error(name + " " + JSON.stringify(value) + " is not a date or a date-time." + hint);
  const y = +m[1], mo = +m[2], d = +m[3];
  const h = m[4] === undefined ? 0 : +m[4], mi = m[5] === undefined ? 0 : +m[5], sec = m[6] === undefined ? 0 : +m[6];
  const monthDays = mo >= 1 && mo <= 12 ? new Date(Date.UTC(y, mo, 0)).getUTCDate() : 0;
  if (d < 1 || d > monthDays || h > 23 || mi > 59 || sec > 59) {
    throw new Error(name + " " + JSON.stringify(value) + " is not a real date or time." + hint);
  }
  const date = m[1] + "-" + m[2] + "-" + m[3];
  const wall = Date.UTC(y, mo - 1, d, h, mi, sec);
  if (m[4] === undefined) return { kind: "date", date, local: date + "T00:00:00", wall };
  const local = date + "T" + m[4] + ":" + m[5] + ":" + (m[6] || "00");
  if (!m[7]) return { kind: "local", date, local, wall };
  const zulu = m[7].toUpperCase() === "Z";
  let offset = 0;
  if (!zulu) {
    const hours = +m[7].slice(1, 3), minutes = +m[7].slice(4, 6);
    if (hours > 14 || minutes > 59) throw new Error(name + " " + JSON.stringify(value) + " has an impossible UTC offset." + hint);
    offset = (m[7][0] === "-" ? -1 : 1) * (hours * 60 + minutes);
  }
  const suffix = zulu ? "Z" : m[7];
  return { kind: "instant", date, local, wall, offset, suffix, ms: wall - offset * 60000, text: local + suffix };
}

// _wallText writes wall-clock milliseconds as YYYY-MM-DDTHH:MM:SS.
function _wallText(wall) {
  return new Date(wall).toISOString().slice(0, 19);
}

function _addDays(date, n) {
  return _wallText(Date.UTC(+date.slice(0, 4), +date.slice(5, 7) - 1, +date.slice(8, 10) + n)).slice(0, 10);
}

const _weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];

function _dayName(date) {
  return _weekdays[new Date(Date.UTC(+date.slice(0, 4), +date.slice(5, 7) - 1, +date.slice(8, 10))).getUTCDay()] + " " + date;
}

// _offsetOf is the "+01:00" or "Z" ending of a date-time Google sent.
function _offsetOf(dateTime) {
  const m = /(Z|[+-]\d{2}:\d{2})$/i.exec(String(dateTime || ""));
  return m ? m[1].toUpperCase() : "";
}

// _when shows an event's start and end: dates for all-day events (Google's
// end date is exclusive: the last day shown is the one before), wall-clock
// times with the zone otherwise.
function _when(ev, zone) {
  const s = ev.start || {}, e = ev.end || {};
  if (s.date) {
    const last = e.date ? _addDays(e.date, -1) : s.date;
    return _dayName(s.date) + (last > s.date ? " to " + _dayName(last) : "") + " (all day)";
  }
  const st = String(s.dateTime || ""), en = String(e.dateTime || "");
  const sd = st.slice(0, 10), ed = en.slice(0, 10);
  const off = _offsetOf(st);
  return _dayName(sd) + " " + st.slice(11, 16) + "–" + (ed === sd ? "" : _dayName(ed) + " ") + en.slice(11, 16) +
    " (" + (zone ? zone + ", " : "") + "UTC" + (off === "Z" ? "" : off) + ")";
}

function _localStart(t) {
  return t.date ? t.date + "T00:00:00" : String(t.dateTime || "").slice(0, 19);
}

// _range turns time_min and time_max into the instants Google takes. A
// value without an offset (a date, or a wall-clock time) is read in the
// zone of Google's answer, which the tool does not know: the query is
// widened by 14 hours each way and local then keeps what the answer's own
// wall-clock times put in range.
function _range(params, defaultDays) {
  let min = params.time_min ? _parse(params.time_min, "time_min") : null;
  let max = params.time_max ? _parse(params.time_max, "time_max") : null;
  if (!min) {
    if (max) throw new Error("Give time_min with time_max.");
    min = _parse(_time("UTC"), "now");
  }
  const local = {};
  let timeMin, timeMax;
  if (min.kind === "instant") {
    timeMin = min.text;
  } else {
    local.min = min.local;
    timeMin = _wallText(min.wall - _widen) + "Z";
  }
  if (!max) {
    if (min.kind === "instant") {
      timeMax = _wallText(min.wall + defaultDays * _day) + min.suffix;
      max = _parse(timeMax, "time_max");
    } else {
      max = { kind: "local", local: _wallText(min.wall + defaultDays * _day), wall: min.wall + defaultDays * _day };
    }
  }
  if (max.kind === "instant") {
    timeMax = max.text;
  } else {
    // A date as time_max means through the end of that day.
    const end = max.kind === "date" ? max.wall + _day : max.wall;
    local.max = _wallText(end);
    timeMax = _wallText(end + _widen) + "Z";
  }
  const minEdge = min.kind === "instant" ? min.ms : min.wall;
  const maxEdge = max.kind === "instant" ? max.ms : max.wall + (max.kind === "date" ? _day : 0);
  const sameKind = (min.kind === "instant") === (max.kind === "instant");
  if (sameKind ? maxEdge <= minEdge : maxEdge + _widen <= minEdge - _widen) {
    throw new Error("time_max must be after time_min.");
  }
  return { timeMin, timeMax, local, min, max };
}

// _inLocal reports whether an event falls in the wall-clock bounds of a
// widened range.
function _inLocal(ev, local) {
  const s = _localStart(ev.start || {}), e = _localStart(ev.end || {});
  return (!local.min || e > local.min) && (!local.max || s < local.max);
}

function _sendUpdates(params) {
  const v = params.send_updates === undefined || params.send_updates === null || params.send_updates === "" ? "all" : String(params.send_updates);
  if (!["all", "externalOnly", "none"].includes(v)) throw new Error("send_updates must be all, externalOnly or none; got " + JSON.stringify(v));
  return v;
}

const _emailRe = /^[^\s@,;<>"]+@[^\s@,;<>"]+\.[^\s@,;<>"]+$/;

function _emails(list, name) {
  if (list === undefined || list === null) return [];
  if (!Array.isArray(list)) list = String(list).split(/[,;]/);
  const out = [];
  for (const item of list) {
    const email = String(item).trim();
    if (!email) continue;
    if (!_emailRe.test(email)) throw new Error(name + ": " + JSON.stringify(item) + " is not an e-mail address.");
    if (!out.some((e) => e.toLowerCase() === email.toLowerCase())) out.push(email);
  }
  return out;
}

// _zone checks the look of an IANA time zone name; Google checks the rest.
function _zone(params) {
  if (params.time_zone === undefined || params.time_zone === null || String(params.time_zone).trim() === "") return "";
  const z = String(params.time_zone).trim();
  if (!/^(UTC|GMT|[A-Za-z_]+(\/[A-Za-z0-9_+\-]+)+)$/.test(z)) {
    throw new Error("time_zone must be an IANA time zone name such as Europe/Paris, America/New_York or UTC; got " + JSON.stringify(z));
  }
  return z;
}

function _recurrence(list, allDay, zone) {
  if (list === undefined || list === null) return undefined;
  if (!Array.isArray(list)) list = [list];
  const out = [];
  for (const item of list) {
    let line = String(item).trim();
    if (!line) continue;
    if (/^FREQ=/i.test(line)) line = "RRULE:" + line;
    if (!/^(RRULE|EXRULE|RDATE|EXDATE)[:;]/.test(line) || (line.startsWith("RRULE:") && !/FREQ=/.test(line))) {
      throw new Error("recurrence: " + JSON.stringify(item) + " is not an iCalendar rule such as RRULE:FREQ=WEEKLY;COUNT=10 or RRULE:FREQ=DAILY;UNTIL=20261231T235959Z.");
    }
    out.push(line);
  }
  if (out.length && !allDay && !zone) {
    throw new Error("A recurring event needs time_zone (an IANA name such as Europe/Paris): Google repeats it in that zone.");
  }
  return out;
}

function _requestId() {
  return "toolroute-" + Date.now().toString(36) + "-" + Math.floor(Math.random() * 1e9).toString(36);
}

// _times builds an event's start and end. start is a date (an all-day
// event), or a date-time with an offset or, with zone, without one. end
// defaults to keep: the old length of the event when there is one, else
// one hour or one day. An all-day end is the last day, inclusive.
function _times(startValue, endValue, zone, old) {
  const s = _parse(startValue, "start");
  const e = endValue === undefined || endValue === null || endValue === "" ? null : _parse(endValue, "end");
  if (s.kind === "date") {
    let last;
    if (e) {
      if (e.kind !== "date") throw new Error("start is a date (an all-day event): give end as a date YYYY-MM-DD too, the last day.");
      if (e.date < s.date) throw new Error("end must not be before start.");
      last = e.date;
    } else if (old && old.start && old.start.date && old.end && old.end.date) {
      const days = Math.round((_parse(old.end.date, "end").wall - _parse(old.start.date, "start").wall) / _day);
      last = _addDays(s.date, Math.max(days, 1) - 1);
    } else {
      last = s.date;
    }
    return { start: { date: s.date }, end: { date: _addDays(last, 1) } };
  }
  const timeZone = zone || (old && old.start && old.start.timeZone) || "";
  const noOffset = (v) => new Error(v + " has no UTC offset: add one (such as +01:00, or Z for UTC) or give time_zone (an IANA name such as Europe/Paris).");
  if (s.kind === "local" && !timeZone) throw noOffset("start");
  let end;
  if (e) {
    if (e.kind === "date") throw new Error("start is a date-time: give end as a date-time too.");
    if (e.kind === "local" && !timeZone) throw noOffset("end");
    const comparable = (s.kind === "instant") === (e.kind === "instant");
    if (comparable && (s.kind === "instant" ? e.ms <= s.ms : e.wall <= s.wall)) throw new Error("end must be after start.");
    end = e;
  } else {
    let length = _hour;
    if (old && old.start && old.start.dateTime && old.end && old.end.dateTime) {
      length = _parse(old.end.dateTime, "end").ms - _parse(old.start.dateTime, "start").ms;
    }
    const wall = s.wall + length;
    end = s.kind === "instant" ? { kind: "instant", text: _wallText(wall) + s.suffix } : { kind: "local", local: _wallText(wall) };
  }
  const side = (v) => {
    const t = { dateTime: v.kind === "instant" ? v.text : v.local };
    if (timeZone) t.timeZone = timeZone;
    return t;
  };
  return { start: side(s), end: side(end) };
}

function _meetLink(ev) {
  if (ev.hangoutLink) return ev.hangoutLink;
  const cd = ev.conferenceData || {};
  const video = (cd.entryPoints || []).find((p) => p.entryPointType === "video");
  return video ? video.uri : "";
}

// _summary is a created or changed event in a few lines.
function _summary(ev, calendar) {
  const lines = ["\"" + (ev.summary || "(no title)") + "\" (id: " + ev.id + ") in the calendar " + calendar, "When: " + _when(ev, (ev.start || {}).timeZone)];
  if (ev.location) lines.push("Location: " + ev.location);
  const guests = (ev.attendees || []).filter((a) => !a.self).map((a) => a.email);
  if (guests.length) lines.push("Attendees: " + guests.join(", "));
  if (ev.recurrence && ev.recurrence.length) lines.push("Repeats: " + ev.recurrence.join("; "));
  const link = _meetLink(ev);
  const status = ev.conferenceData && ev.conferenceData.createRequest && ev.conferenceData.createRequest.status;
  if (link) lines.push("Google Meet: " + link);
  else if (status && status.statusCode === "pending") lines.push("Google Meet: the link is being made; see it soon with calendar_get_event.");
  else if (status && status.statusCode === "failure") lines.push("Google Meet: Google could not add a Meet link to this calendar.");
  if (ev.htmlLink) lines.push("Link: " + ev.htmlLink);
  return lines.join("\n");
}

async function listCalendars(params) {
  const query = { maxResults: 250 };
  if (params.writable_only) query.minAccessRole = "writer";
  const res = await g.request("GET", _base + "/users/me/calendarList", { query, scope: _readScope, what: "calendar list" });
  const items = res.items || [];
  if (!items.length) return params.writable_only ? "No calendar the user can add events to." : "No calendars.";
  const lines = items.map((c) => {
    let s = "- " + (c.summaryOverride || c.summary || c.id) + " (id: " + (c.primary ? "primary, also " : "") + c.id + ")";
    s += c.primary ? " [primary]" : "";
    s += " — " + c.accessRole + (c.accessRole === "reader" || c.accessRole === "freeBusyReader" ? " (read-only)" : "");
    if (c.timeZone) s += ", " + c.timeZone;
    if (c.description) s += "\n  " + g.cut(c.description, 200);
    return s;
  });
  return items.length + " calendar" + (items.length > 1 ? "s" : "") + ":\n" + lines.join("\n");
}

async function listEvents(params) {
  const range = _range(params, 7);
  const zone = _zone(params);
  const max = params.max_results === undefined || params.max_results === null ? 25 : Math.floor(Number(params.max_results));
  if (!(max >= 1 && max <= 250)) throw new Error("max_results must be 1 to 250.");
  const widened = Boolean(range.local.min || range.local.max);
  const query = {
    timeMin: range.timeMin, timeMax: range.timeMax, singleEvents: "true", orderBy: "startTime",
    maxResults: widened ? Math.min(2500, max * 2 + 20) : max,
    fields: "summary,timeZone,nextPageToken,items(id,status,summary,location,start,end,recurringEventId,hangoutLink,attendees(email,self,responseStatus))",
  };
  if (params.query !== undefined && String(params.query).trim()) query.q = String(params.query).trim();
  if (zone) query.timeZone = zone;
  const res = await g.request("GET", _eventsURL(params), { query, scope: _readScope, what: "events", notFound: _calendarNotFound(params) });
  let items = res.items || [];
  if (widened) items = items.filter((ev) => _inLocal(ev, range.local));
  const more = Boolean(res.nextPageToken) || items.length > max;
  items = items.slice(0, max);
  const shownZone = zone || res.timeZone || "";
  const what = query.q ? " matching " + JSON.stringify(query.q) : "";
  if (!items.length) return "No events" + what + " in the calendar " + _cal(params) + " in that time range.";
  const lines = items.map((ev) => {
    let s = "- " + (ev.summary || "(no title)") + " (id: " + ev.id + ")";
    if (ev.status && ev.status !== "confirmed") s += " [" + ev.status + "]";
    const facts = [_when(ev, shownZone)];
    if (ev.location) facts.push(ev.location);
    const people = ev.attendees || [];
    if (people.length) {
      const me = people.find((a) => a.self);
      facts.push(people.length + " attendee" + (people.length > 1 ? "s" : "") + (me && me.responseStatus !== "accepted" ? " (you: " + me.responseStatus + ")" : ""));
    }
    if (ev.hangoutLink) facts.push("Meet: " + ev.hangoutLink);
    if (ev.recurringEventId) facts.push("repeats (series id: " + ev.recurringEventId + ")");
    return s + "\n  " + facts.join(" · ");
  });
  let out = items.length + " event" + (items.length > 1 ? "s" : "") + what + " in " + (res.summary || _cal(params)) +
    (shownZone ? " (times in " + shownZone + ")" : "") + ":\n" + lines.join("\n");
  if (more) out += "\n(More events exist: narrow the time range or raise max_results, up to 250.)";
  return out;
}

async function getEvent(params) {
  g.need(params, "event_id");
  const zone = _zone(params);
  const query = { maxAttendees: 100 };
  if (zone) query.timeZone = zone;
  const ev = await g.request("GET", _eventURL(params), { query, scope: _readScope, what: "event " + params.event_id, notFound: _eventNotFound(params) });
  const lines = [
    "Title: " + (ev.summary || "(no title)"),
    "Id: " + ev.id,
    "Calendar: " + _cal(params),
    "Status: " + (ev.status === "cancelled" ? "cancelled (deleted)" : ev.status || "confirmed"),
    "When: " + _when(ev, zone || (ev.start || {}).timeZone),
  ];
  if (ev.location) lines.push("Location: " + ev.location);
  if (ev.organizer) lines.push("Organizer: " + (ev.organizer.displayName ? ev.organizer.displayName + " <" + ev.organizer.email + ">" : ev.organizer.email) + (ev.organizer.self ? " (you)" : ""));
  const people = ev.attendees || [];
  if (people.length) {
    lines.push("Attendees (" + people.length + (ev.attendeesOmitted ? ", more than 100: only you are listed" : "") + "):");
    for (const a of people) {
      const who = a.displayName ? a.displayName + " <" + a.email + ">" : a.email;
      const tags = [a.self ? "you" : "", a.organizer ? "organizer" : "", a.optional ? "optional" : ""].filter(Boolean);
      lines.push("- " + who + (tags.length ? " (" + tags.join(", ") + ")" : "") + ": " + (a.responseStatus || "needsAction"));
    }
  }
  const link = _meetLink(ev);
  if (link) {
    const cd = ev.conferenceData || {};
    lines.push("Conference: " + link + (cd.conferenceSolution && cd.conferenceSolution.name ? " (" + cd.conferenceSolution.name + ")" : ""));
    const phone = (cd.entryPoints || []).find((p) => p.entryPointType === "phone");
    if (phone) lines.push("Dial-in: " + (phone.label || phone.uri) + (phone.pin ? ", PIN " + phone.pin : ""));
  }
  if (ev.recurrence && ev.recurrence.length) lines.push("Recurrence: " + ev.recurrence.join("; "));
  if (ev.recurringEventId) {
    const orig = ev.originalStartTime ? ", originally " + (ev.originalStartTime.date || ev.originalStartTime.dateTime) : "";
    lines.push("Occurrence of the recurring event " + ev.recurringEventId + orig + " (changing this id changes only this occurrence)");
  }
  if (ev.description) lines.push("Description: " + g.cut(ev.description, 4000));
  if (ev.htmlLink) lines.push("Link: " + ev.htmlLink);
  return lines.join("\n");
}

async function createEvent(params) {
  g.need(params, "summary", "start");
  const zone = _zone(params);
  const times = _times(params.start, params.end, zone, null);
  const body = { summary: String(params.summary), start: times.start, end: times.end };
  if (params.location) body.location = String(params.location);
  if (params.description) body.description = String(params.description);
  const guests = _emails(params.attendees, "attendees");
  if (guests.length) body.attendees = guests.map((email) => ({ email }));
  const rules = _recurrence(params.recurrence, Boolean(times.start.date), zone);
  if (rules && rules.length) body.recurrence = rules;
  const query = { sendUpdates: _sendUpdates(params) };
  if (params.add_meet) {
    body.conferenceData = { createRequest: { requestId: _requestId(), conferenceSolutionKey: { type: "hangoutsMeet" } } };
    query.conferenceDataVersion = 1;
  }
  const ev = await g.request("POST", _eventsURL(params), { query, body, scope: _writeScope, what: "new event", notFound: _calendarNotFound(params) });
  let out = "Created the event " + _summary(ev, _cal(params));
  if (guests.length) out += "\n" + (query.sendUpdates === "none" ? "No invitations were sent." : "Invitations sent (" + query.sendUpdates + ").");
  return out;
}

async function updateEvent(params) {
  g.need(params, "event_id");
  const zone = _zone(params);
  const has = (k) => params[k] !== undefined && params[k] !== null;
  const timing = (has("start") && params.start !== "") || (has("end") && params.end !== "");
  const adding = _emails(params.add_attendees, "add_attendees");
  const removing = _emails(params.remove_attendees, "remove_attendees");
  if (zone && !timing) throw new Error("time_zone goes with start or end: give the new start (and end) in that zone.");
  const body = {};
  for (const k of ["summary", "location", "description"]) if (has(k)) body[k] = String(params[k]);
  if (!timing && !adding.length && !removing.length && !params.add_meet && !Object.keys(body).length) {
    throw new Error("Nothing to change: give summary, start, end, location, description, add_attendees, remove_attendees or add_meet.");
  }
  const query = { sendUpdates: _sendUpdates(params) };
  const notFound = _eventNotFound(params);
  let old = null;
  if (timing || adding.length || removing.length || params.add_meet) {
    old = await g.request("GET", _eventURL(params), { scope: _readScope, what: "event " + params.event_id, notFound });
  }
  if (timing) {
    // A new start keeps the event's length unless end is given; a new end
    // alone keeps the start.
    const start = has("start") && params.start !== "" ? params.start : old.start.date || old.start.dateTime;
    const times = _times(start, has("end") && params.end !== "" ? params.end : null, zone, old);
    body.start = times.start;
    body.end = times.end;
  }
  if (adding.length || removing.length) {
    if (old.attendeesOmitted) throw new Error("This event has too many attendees to change them here: use Google Calendar.");
    const drop = removing.map((e) => e.toLowerCase());
    const list = (old.attendees || []).filter((a) => !drop.includes(String(a.email).toLowerCase())).map((a) => {
      const keep = { email: a.email, responseStatus: a.responseStatus || "needsAction" };
      if (a.displayName) keep.displayName = a.displayName;
      if (a.optional) keep.optional = true;
      return keep;
    });
    const missing = drop.filter((e) => !(old.attendees || []).some((a) => String(a.email).toLowerCase() === e));
    if (missing.length) throw new Error("Not attendees of this event: " + missing.join(", ") + ". See them with calendar_get_event.");
    for (const email of adding) {
      if (!list.some((a) => a.email.toLowerCase() === email.toLowerCase())) list.push({ email });
    }
    body.attendees = list;
  }
  let note = "";
  if (params.add_meet) {
    if (_meetLink(old)) {
      note = "\n(The event already had a Google Meet link.)";
    } else {
      body.conferenceData = { createRequest: { requestId: _requestId(), conferenceSolutionKey: { type: "hangoutsMeet" } } };
      query.conferenceDataVersion = 1;
    }
  }
  if (!Object.keys(body).length) return "Nothing changed." + note;
  const ev = await g.request("PATCH", _eventURL(params), { query, body, scope: _writeScope, what: "event " + params.event_id, notFound });
  return "Updated the event " + _summary(ev, _cal(params)) + note;
}

async function deleteEvent(params) {
  g.need(params, "event_id");
  const query = { sendUpdates: _sendUpdates(params) };
  try {
    await g.request("DELETE", _eventURL(params), { query, scope: _writeScope, what: "event " + params.event_id, notFound: _eventNotFound(params) });
  } catch (err) {
    if (err.status === 410) return "The event " + params.event_id + " was already deleted.";
    throw err;
  }
  return "Deleted the event " + params.event_id + " from the calendar " + _cal(params) +
    (query.sendUpdates === "none" ? " (no cancellation sent)." : " (cancellations sent: " + query.sendUpdates + ").");
}

// _label writes a wall-clock time, with its day unless it is the day of
// the time before it.
function _label(local, previousDay) {
  const day = local.slice(0, 10);
  return (day === previousDay ? "" : _dayName(day) + " ") + local.slice(11, 16);
}

function _periods(list) {
  let day = "";
  return list.map((p) => {
    const a = _label(p.from, day);
    day = p.from.slice(0, 10);
    const b = _label(p.to, day);
    day = p.to.slice(0, 10);
    return a + "–" + b;
  }).join(", ");
}

async function freeBusy(params) {
  g.need(params, "time_min", "time_max");
  const zone = _zone(params);
  const ids = params.calendars === undefined || params.calendars === null ? ["primary"] : (Array.isArray(params.calendars) ? params.calendars : String(params.calendars).split(","))
    .map((c) => String(c).trim()).filter(Boolean);
  if (!ids.length) throw new Error("calendars is empty: give calendar ids or e-mail addresses, or leave it out for your own calendar.");
  if (ids.length > 50) throw new Error("At most 50 calendars at once.");
  const range = _range(params, 1);
  if ((range.local.min || range.local.max) && !zone) {
    throw new Error("time_min and time_max without a UTC offset need time_zone (an IANA name such as Europe/Paris), or give offsets such as 2026-11-20T09:00:00+01:00.");
  }
  const body = { timeMin: range.timeMin, timeMax: range.timeMax, items: ids.map((id) => ({ id })) };
  if (zone) body.timeZone = zone;
  const res = await g.request("POST", _base + "/freeBusy", { body, scope: _readScope, what: "free/busy" });
  const calendars = res.calendars || {};
  const lines = [];
  let all = [];
  for (const id of ids) {
    const c = calendars[id];
    if (!c) {
      lines.push("- " + id + ": no answer from Google");
      continue;
    }
    if (c.errors && c.errors.length) {
      const reason = c.errors.map((e) => e.reason).join(", ");
      lines.push("- " + id + ": unknown (" + reason + (reason === "notFound" ? ": no such calendar, or its free/busy is not shared with you" : "") + ")");
      continue;
    }
    const busy = [];
    for (const b of c.busy || []) {
      const s = _parse(b.start, "busy start"), e = _parse(b.end, "busy end");
      let p = { from: s.local, to: e.local, start: s.ms, end: e.ms, offset: s.offset };
      if (range.local.min && p.to <= range.local.min || range.local.max && p.from >= range.local.max) continue;
      if (range.local.min && p.from < range.local.min) p = Object.assign(p, { from: range.local.min, start: _parse(range.local.min, "t").wall - s.offset * 60000 });
      if (range.local.max && p.to > range.local.max) p = Object.assign(p, { to: range.local.max, end: _parse(range.local.max, "t").wall - e.offset * 60000 });
      busy.push(p);
    }
    lines.push("- " + id + ": " + (busy.length ? "busy " + _periods(busy) : "free the whole time"));
    all = all.concat(busy);
  }
  // The range's edges in the answer's wall-clock time: Google gives busy
  // times in time_zone (UTC without one); an edge with an offset is moved
  // to that zone when its offset is known.
  const shift = zone ? (all.length ? all[0].offset : null) : 0;
  const edge = (v, local) => {
    if (v.kind !== "instant") return { ms: null, local };
    return { ms: v.ms, local: shift === null ? v.local : _wallText(v.ms + shift * 60000) };
  };
  const from = edge(range.min, range.local.min), to = edge(range.max, range.local.max);
  all.sort((a, b) => a.start - b.start);
  const merged = [];
  for (const p of all) {
    const last = merged[merged.length - 1];
    if (last && p.start <= last.end) {
      if (p.end > last.end) Object.assign(last, { end: p.end, to: p.to });
    } else {
      merged.push(Object.assign({}, p));
    }
  }
  const free = [];
  let cursor = { ms: from.ms, local: from.local };
  for (const p of merged) {
    if (cursor.ms === null ? p.from > cursor.local : p.start > cursor.ms) free.push({ from: cursor.local, to: p.from });
    cursor = { ms: p.end, local: p.to };
  }
  if (to.ms === null ? to.local > cursor.local : cursor.ms === null || to.ms > cursor.ms) free.push({ from: cursor.local, to: to.local });
  const known = ids.filter((id) => calendars[id] && !(calendars[id].errors || []).length).length;
  let out = "Free/busy from " + _label(from.local, "") + " to " + _label(to.local, from.local.slice(0, 10)) + " (times in " + (zone || "UTC") + "):\n" + lines.join("\n");
  if (known > 0) {
    out += "\n" + (known > 1 ? "Free for all of them: " : "Free: ") + (free.length ? _periods(free) : "no common free time");
  }
  return out;
}

async function quickAdd(params) {
  g.need(params, "text");
  const query = { text: String(params.text), sendUpdates: _sendUpdates(params) };
  const ev = await g.request("POST", _eventsURL(params) + "/quickAdd", { query, scope: _writeScope, what: "quick add", notFound: _calendarNotFound(params) });
  return "Created the event " + _summary(ev, _cal(params)) + "\nCheck the date and time Google read from the text; fix them with calendar_update_event.";
}
