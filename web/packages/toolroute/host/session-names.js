// Sessions' ids and titles, made as the Go program makes them (internal/app's
// NewSessionID, host/store's Title), so that the page, the worker and serve
// agree. testdata/sessions/titles.json holds the title cases every host
// replays. Lengths count code points, as Go counts runes. A title a user
// gives is the module's to check (Host.check("session_title", {title})).

// TITLE_CHARS bounds a title made from a message.
export const TITLE_CHARS = 60;

// SPACE is Go's unicode.IsSpace (strings.Fields splits on it); JS's \s
// differs (it takes U+FEFF, not U+0085).
const SPACE = /[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/;
// CONTROL is Go's unicode.IsControl: C0 and C1.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;

const words = (text) => String(text ?? "").split(SPACE).filter(Boolean);

// sessionTitle makes a session's title from its first message: its words
// with single spaces, control characters dropped, and when that is longer
// than TITLE_CHARS, cut at the last space before it (unless that leaves
// less than half) with an ellipsis.
export function sessionTitle(text) {
  const r = [...words(text).map((w) => w.replace(CONTROL, "")).filter(Boolean).join(" ")];
  if (r.length <= TITLE_CHARS) return r.join("");
  let head = r.slice(0, TITLE_CHARS - 1);
  if (r[TITLE_CHARS - 1] !== " ") {
    for (let i = head.length - 1; i >= TITLE_CHARS / 2; i--) {
      if (head[i] === " ") {
        head = head.slice(0, i);
        break;
      }
    }
  }
  return head.join("").replace(/[ ,;:\-–—]+$/u, "") + "…";
}

// newSessionID makes an id as app.NewSessionID does: the UTC time at d and
// 3 random bytes in hex (20260102-150405-a1b2c3).
export function newSessionID(d = new Date()) {
  const p = (n) => String(n).padStart(2, "0");
  const stamp = `${d.getUTCFullYear()}${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}-${p(d.getUTCHours())}${p(d.getUTCMinutes())}${p(d.getUTCSeconds())}`;
  const b = crypto.getRandomValues(new Uint8Array(3));
  return stamp + "-" + [...b].map((x) => x.toString(16).padStart(2, "0")).join("");
}
