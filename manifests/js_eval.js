// js_eval: a snippet the model wrote, run as a global script (an indirect
// eval), with the variables the user granted at approval as the global
// _env. It gives the value of the snippet's last expression and then what
// the snippet wrote to console, which the model reads whatever the host's
// settings: "Console output:" and one "level: text" line each, as a host
// adds a failed tool's console output.
//
// Everything lives inside execute: a global of this file would be a name
// the snippet could not declare.
async function execute(params) {
  if (typeof params.code !== "string") {
    throw new TypeError("js_eval: code must be a string of JavaScript, such as \"[1, 2, 3].map(x => x * 2)\"");
  }
  globalThis._env = params._env;

  // show is how the prelude's console shows a value.
  const show = (v) => {
    if (typeof v === "string") return v;
    if (v instanceof Error) return v.stack ? v.message + "\n" + v.stack : String(v);
    if (v === undefined) return "undefined";
    if (typeof v === "function") return "[Function " + (v.name || "anonymous") + "]";
    try {
      const s = JSON.stringify(v);
      return s === undefined ? String(v) : s;
    } catch (e) {
      return String(v);
    }
  };
  // Each line also goes to the real console, so that when the snippet
  // fails (a thrown error, a timeout) the host adds the lines to the error
  // the model reads (and with its showConsole set, to a success too, which
  // then shows them twice). The host's list is bounded (64 KB), so this one
  // is too, the same way.
  const MAX_LOG_BYTES = 64 << 10;
  const utf8Length = (s) => {
    let n = 0;
    for (const ch of s) {
      const c = ch.codePointAt(0);
      n += c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
    }
    return n;
  };
  const real = globalThis.console;
  const lines = [];
  let bytes = 0;
  let dropped = false;
  const logger = (level) => (...args) => {
    const text = args.map(show).join(" ");
    real[level](text);
    const n = utf8Length(text);
    if (bytes + n > MAX_LOG_BYTES) {
      if (!dropped) lines.push("warn: [console output over " + (MAX_LOG_BYTES >> 10) + " KB dropped]");
      dropped = true;
      return;
    }
    bytes += n;
    lines.push(level + ": " + text);
  };
  // The prelude's console is frozen; the global binding is not.
  globalThis.console = Object.freeze({
    log: logger("log"), info: logger("info"), debug: logger("debug"), warn: logger("warn"), error: logger("error"),
  });
  let value;
  try {
    value = await (0, eval)(params.code);
  } finally {
    globalThis.console = real;
  }

  // The value as any tool's result: a string as is, null and undefined as
  // nothing, anything else as JSON.
  let out = value === null || value === undefined ? "" : typeof value === "string" ? value : JSON.stringify(value);
  if (out === undefined) out = "";
  if (lines.length === 0) return out;
  // The runner redacts the variables' values from console lines; these are
  // the result now, so they are redacted the same way.
  const env = params._env || {};
  let note = "\n\nConsole output:\n" + lines.join("\n");
  for (const name of Object.keys(env).sort()) {
    const v = env[name];
    if (typeof v === "string" && v.length >= 4) note = note.split(v).join("[redacted " + name + "]");
  }
  return out + note;
}
