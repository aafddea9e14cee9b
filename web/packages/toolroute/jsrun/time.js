// _time(timezone, format): the time in an IANA time zone (the host's when
// empty), as iso8601 with the offset (the default) or human_readable, as the
// Go host formats them ("2006-01-02T15:04:05-07:00" and "Monday, January 2,
// 2006 at 3:04:05 PM MST"). check is the module's (words.js).
//
// # Notes
//
// The zone's abbreviation comes from Intl, whose en-US names are those of
// US zones and UTC; elsewhere it says "GMT+1" where Go says "CET".

import { passes, refusal } from "./words.js";

const WEEKDAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August",
  "September", "October", "November", "December"];

export function formatTime(now, zone, format, check) {
  const invalid = () => new Error(refusal(check, { code: "time_zone", zone }).message);
  if (zone === "Local") throw invalid();
  // The zone is checked first, as the Go host checks it; the format is the
  // module's rule (words.js).
  const t = new Date(Math.floor(now.getTime() / 1000) * 1000);
  const f = zoneParts(t, zone, invalid);
  passes(check, { code: "time_format", format });
  const wall = Date.UTC(f.year, f.month - 1, f.day, f.hour, f.minute, f.second);
  const pad = (n, w = 2) => String(n).padStart(w, "0");
  if (format === "human_readable") {
    const weekday = WEEKDAYS[new Date(wall).getUTCDay()];
    const h12 = f.hour % 12 === 0 ? 12 : f.hour % 12;
    return `${weekday}, ${MONTHS[f.month - 1]} ${f.day}, ${f.year} at ${h12}:${pad(f.minute)}:${pad(f.second)} ${f.hour < 12 ? "AM" : "PM"} ${f.abbr}`;
  }
  const offset = Math.round((wall - t.getTime()) / 60000);
  const sign = offset < 0 ? "-" : "+";
  const abs = Math.abs(offset);
  return `${pad(f.year, 4)}-${pad(f.month)}-${pad(f.day)}T${pad(f.hour)}:${pad(f.minute)}:${pad(f.second)}${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}

function zoneParts(t, zone, invalid) {
  let fmt;
  try {
    fmt = new Intl.DateTimeFormat("en-US", {
      timeZone: zone === "" ? undefined : zone,
      hourCycle: "h23",
      year: "numeric", month: "numeric", day: "numeric",
      hour: "numeric", minute: "numeric", second: "numeric",
      timeZoneName: "short",
    });
  } catch {
    throw invalid();
  }
  // Intl takes "utc" for "UTC"; Go's zone names, file names, do not.
  const resolved = fmt.resolvedOptions().timeZone;
  if (zone !== "" && resolved !== zone && resolved.toLowerCase() === zone.toLowerCase()) throw invalid();
  const f = {};
  for (const { type, value } of fmt.formatToParts(t)) {
    if (type === "timeZoneName") f.abbr = value;
    else if (type !== "literal") f[type] = Number(value);
  }
  if (f.hour === 24) f.hour = 0;
  return f;
}
