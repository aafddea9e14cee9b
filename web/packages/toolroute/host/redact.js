// Redaction of known secret values (the provider's key, Google's
// credentials, the variables set for tools) wherever text leaves the host:
// tool results and console output, the messages stored, model requests.
// The Go host's host/secrets.go does the same, with the same marker.

// MIN_SECRET_LENGTH: shorter values would replace ordinary words.
export const MIN_SECRET_LENGTH = 8;

export const redaction = (name) => `[redacted ${name}]`;

// Redactor replaces secrets, given as [{name, value}], longest value first
// so a secret holding another is replaced whole; each also as it appears
// escaped inside a JSON string.
export class Redactor {
  constructor(secrets = []) {
    const seen = new Set();
    this.pairs = [];
    const add = (value, name) => {
      if (typeof value !== "string" || value.length < MIN_SECRET_LENGTH || seen.has(value)) return;
      seen.add(value);
      this.pairs.push({ name, value });
    };
    for (const s of secrets) {
      if (!s || typeof s.value !== "string") continue;
      add(s.value, s.name);
      add(JSON.stringify(s.value).slice(1, -1), s.name);
      add(JSON.stringify(s.value).slice(1, -1).replace(/[<>&]/g, (c) => "\\u00" + c.charCodeAt(0).toString(16)), s.name);
    }
    this.pairs.sort((a, b) => b.value.length - a.value.length);
  }

  text(s) {
    if (typeof s !== "string") return s;
    for (const p of this.pairs) if (s.includes(p.value)) s = s.replaceAll(p.value, redaction(p.name));
    return s;
  }

  // result redacts a tool result ({output, message, asked}).
  result(r) {
    if (this.pairs.length === 0) return r;
    return { ...r, output: this.text(r.output), message: this.text(r.message), ...(Array.isArray(r.asked) ? { asked: r.asked.map((x) => this.text(x)) } : {}) };
  }

  // messages redacts log messages in place and says whether it changed
  // any.
  messages(msgs) {
    if (this.pairs.length === 0) return false;
    let changed = false;
    for (const m of msgs) {
      for (const k of ["content", "tool_input"]) {
        if (typeof m[k] !== "string") continue;
        const r = this.text(m[k]);
        changed ||= r !== m[k];
        m[k] = r;
      }
      // An attached text file is what the user wrote too (an image's
      // base64 holds no secret's text).
      for (const a of Array.isArray(m.attachments) ? m.attachments : []) {
        if (typeof a?.text !== "string") continue;
        const r = this.text(a.text);
        changed ||= r !== a.text;
        a.text = r;
      }
    }
    return changed;
  }
}
