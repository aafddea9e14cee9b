// toolroute's JS tool bridges: the API tools see (fetch, fs, console, _time,
// lib, google, toolroute, downloadToFile, uploadMultipart, btoa and atob),
// built on the host functions named __tr_*, which this script
// captures and removes from the global object. It runs once in each fresh
// QuickJS runtime, before the tool's source, in every host: the Go host
// embeds this file, and the browser's and the worker's runner
// (web/packages/toolroute/jsrun/runner.js) gets it through prelude.js
// beside it, which reads it in Node; the esbuild builds inline the text.
//
// __tr_fetch and __tr_host give a string in the Go host, which blocks on
// them, and a promise of one in the browser and the worker, which cannot
// block: the bridges await them, which takes either. __tr_host(op, args)
// serves the google bridge (ops google.token and google.email), the
// toolroute bridge (the host's storage for the built-in tools: memories,
// history, settings, env, tools, toolfiles), JSON in and out, and the file
// transfers (net.download, net.upload); the host refuses what the tool's
// manifest does not grant. The Go host keeps to eight host functions (see
// docs/design/builtin-tools.md), so a new bridge is a new op, not a new function.
(function () {
  "use strict";
  const host = {
    console: globalThis.__tr_console,
    time: globalThis.__tr_time,
    fsRead: globalThis.__tr_fs_read,
    fsWrite: globalThis.__tr_fs_write,
    fsExists: globalThis.__tr_fs_exists,
    fetch: globalThis.__tr_fetch,
    lib: globalThis.__tr_lib,
    op: globalThis.__tr_host,
  };
  for (const name of Object.keys(globalThis)) {
    if (name.startsWith("__tr_")) delete globalThis[name];
  }
  // The QuickJS helpers tools must not use, where a build has them.
  delete globalThis.print;
  delete globalThis.scriptArgs;

  function show(v) {
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
  }
  function logger(level) {
    return function (...args) {
      host.console(level, args.map(show).join(" "));
    };
  }
  globalThis.console = Object.freeze({
    log: logger("log"),
    info: logger("info"),
    debug: logger("debug"),
    warn: logger("warn"),
    error: logger("error"),
  });

  globalThis._time = function (timezone, format) {
    return host.time(timezone === undefined || timezone === null ? "" : String(timezone),
      format === undefined || format === null ? "" : String(format));
  };

  // text refuses a NUL character, which the Go host's strings would end at:
  // a file written with one would be cut there without a word. Every host
  // refuses it, so they keep one behaviour.
  const text = (content) => {
    const s = String(content);
    if (s.includes("\0")) throw new Error("fs: the content holds a NUL character: files hold text; write binary data as base64");
    return s;
  };
  globalThis.fs = Object.freeze({
    readFile: (path) => host.fsRead(String(path)),
    writeFile: (path, content) => { host.fsWrite(String(path), text(content), false); },
    appendFile: (path, content) => { host.fsWrite(String(path), text(content), true); },
    exists: (path) => host.fsExists(String(path)),
  });

  // btoa and atob are the browser's: btoa encodes a string of characters
  // U+0000 to U+00FF (one byte each, a "binary string") as base64, atob
  // decodes base64 (ASCII whitespace ignored, "=" padding optional) to such
  // a string; anything else throws a DOMException named
  // InvalidCharacterError, as in a browser. QuickJS has neither.
  const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  // The tables, made at the first call: a character's code and a base64
  // character's value by the character (a property read costs less than a
  // charCodeAt call in QuickJS, where every call polls the interrupt
  // handler), the base64 of every 12 bits, each code's character.
  let enc = null;
  let dec = null;
  const invalidCharacter = (message) => (typeof DOMException === "function"
    ? new DOMException(message, "InvalidCharacterError")
    : Object.assign(new Error(message), { name: "InvalidCharacterError", code: 5 }));
  const CHUNK = 8190; // characters a step of btoa reads, a multiple of 3 (and atob 4/3 of it)
  globalThis.btoa = function btoa(data) {
    if (arguments.length === 0) throw new TypeError("btoa: 1 argument required, but only 0 present");
    const s = `${data}`;
    const wide = /[^\u0000-\u00ff]/.exec(s);
    if (wide) {
      const hex = wide[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, "0");
      throw invalidCharacter("btoa: the string holds '" + wide[0] + "' (U+" + hex + ") at index " + wide.index +
        ", outside Latin-1 (U+0000 to U+00FF), which btoa cannot encode; for text, btoa(unescape(encodeURIComponent(text))) encodes its UTF-8");
    }
    if (enc === null) {
      enc = { code: {}, pairs: new Array(4096) };
      for (let i = 0; i < 256; i++) enc.code[String.fromCharCode(i)] = i;
      for (let i = 0; i < 4096; i++) enc.pairs[i] = B64[i >> 6] + B64[i & 63];
    }
    const { code, pairs } = enc;
    const out = [];
    const whole = s.length - (s.length % 3);
    for (let start = 0; start < whole; start += CHUNK) {
      const c = s.slice(start, Math.min(start + CHUNK, whole)).split("");
      const piece = new Array(c.length / 3);
      for (let i = 0, j = 0; i < c.length; i += 3, j++) {
        const t = (code[c[i]] << 16) | (code[c[i + 1]] << 8) | code[c[i + 2]];
        piece[j] = pairs[t >> 12] + pairs[t & 4095];
      }
      out.push(piece.join(""));
    }
    if (s.length - whole === 1) {
      out.push(pairs[code[s[whole]] << 4] + "==");
    } else if (s.length - whole === 2) {
      const t = (code[s[whole]] << 16) | (code[s[whole + 1]] << 8);
      out.push(pairs[t >> 12] + B64[(t >> 6) & 63] + "=");
    }
    return out.join("");
  };
  globalThis.atob = function atob(data) {
    if (arguments.length === 0) throw new TypeError("atob: 1 argument required, but only 0 present");
    let s = `${data}`.replace(/[\t\n\f\r ]+/g, "");
    if (s.length % 4 === 0) s = s.replace(/==?$/, "");
    const bad = /[^A-Za-z0-9+/]/.exec(s);
    if (bad || s.length % 4 === 1) {
      throw invalidCharacter("atob: the string is not valid base64: " + (bad
        ? "'" + bad[0] + "' at index " + bad.index + " is not one of A-Z, a-z, 0-9, '+' and '/' (base64url's '-' and '_' are not base64: replace them with '+' and '/')"
        : "its length, padding aside, leaves one character over"));
    }
    if (dec === null) {
      dec = { value: {}, chars: new Array(256) };
      for (let i = 0; i < 64; i++) dec.value[B64[i]] = i;
      for (let i = 0; i < 256; i++) dec.chars[i] = String.fromCharCode(i);
    }
    const { value, chars } = dec;
    const out = [];
    const whole = s.length - (s.length % 4);
    for (let start = 0; start < whole; start += CHUNK / 3 * 4) {
      const c = s.slice(start, Math.min(start + CHUNK / 3 * 4, whole)).split("");
      const piece = new Array(c.length / 4 * 3);
      for (let i = 0, j = 0; i < c.length; i += 4, j += 3) {
        const t = (value[c[i]] << 18) | (value[c[i + 1]] << 12) | (value[c[i + 2]] << 6) | value[c[i + 3]];
        piece[j] = chars[t >> 16];
        piece[j + 1] = chars[(t >> 8) & 255];
        piece[j + 2] = chars[t & 255];
      }
      out.push(piece.join(""));
    }
    const left = s.length - whole; // 2 or 3 characters: 1 or 2 bytes, the bits past them dropped
    if (left >= 2) {
      const t = (value[s[whole]] << 18) | (value[s[whole + 1]] << 12) | (left === 3 ? value[s[whole + 2]] << 6 : 0);
      out.push(left === 3 ? chars[t >> 16] + chars[(t >> 8) & 255] : chars[t >> 16]);
    }
    return out.join("");
  };

  // headerMap is the headers a tool gives, as strings.
  const headerMap = (h) => {
    const out = {};
    for (const [k, v] of Object.entries(h || {})) out[k] = String(v);
    return out;
  };
  const hasHeader = (h, name) => Object.keys(h).some((k) => k.toLowerCase() === name);

  globalThis.fetch = async function (url, options) {
    options = options || {};
    if (options.body !== undefined && options.body !== null && typeof options.body !== "string") {
      throw new TypeError("fetch: body must be a string: use JSON.stringify for JSON");
    }
    // maxBytes keeps more (or less) of the body than the host's 100 KB;
    // each host keeps at most 5 MB, whatever is asked.
    let maxBytes = null;
    if (options.maxBytes !== undefined && options.maxBytes !== null) {
      maxBytes = Math.floor(Number(options.maxBytes));
      if (!(maxBytes >= 1)) throw new TypeError("fetch: maxBytes must be a number of bytes, 1 or more (at most 5 MB are kept)");
    }
    const headers = headerMap(options.headers);
    // A string body the tool did not type is JSON, as tool files written
    // for other agent hosts expect (a browser would say text/plain).
    if (typeof options.body === "string" && !hasHeader(headers, "content-type")) {
      headers["Content-Type"] = "application/json; charset=utf-8";
    }
    const raw = JSON.parse(await host.fetch(String(url), JSON.stringify({
      method: options.method === undefined ? "GET" : String(options.method),
      headers,
      body: options.body === undefined || options.body === null ? null : options.body,
      maxBytes,
    })));
    return Object.freeze({
      ok: raw.status >= 200 && raw.status <= 299,
      status: raw.status,
      statusText: raw.statusText,
      headers: Object.freeze(raw.headers),
      url: raw.url,
      text: async () => raw.body,
      json: async () => {
        if (raw.truncated) {
          throw new Error("fetch: the response body was cut at " + raw.kept + " bytes and is not valid JSON; fetch something smaller");
        }
        return JSON.parse(raw.body);
      },
    });
  };

  // downloadToFile(url, savePath, headers) saves a GET's body in the
  // sandbox folder and gives {success, path, size, error, status};
  // uploadMultipart(url, parts, headers) POSTs parts as one multipart body
  // and gives {status, body, ok, error}. The file transfers tool files
  // written for other agent hosts expect, through fetch's guard and rewrites, binary-safe, 5 MB at
  // most, inside the sandbox folder. They never throw: a failure is an
  // answer with its error, which is null on success.
  const transfer = async (op, args, fail) => {
    try {
      const r = JSON.parse(await host.op(op, JSON.stringify(args)));
      return r.error ? fail(r.error.message) : r.ok;
    } catch (e) {
      return fail(String((e && e.message) || e));
    }
  };
  const given = (v) => v !== undefined && v !== null;
  globalThis.downloadToFile = async function (url, savePath, headers) {
    const path = given(savePath) ? String(savePath) : "";
    const fail = (error) => ({ success: false, path, size: 0, error, status: 0 });
    if (!given(url) || url === "") return fail("downloadToFile: give the URL to download, such as 'https://example.com/report.pdf'");
    if (path === "") return fail("downloadToFile: give the path to save to, in the sandbox folder, such as 'downloads/report.pdf'");
    return transfer("net.download", { url: String(url), path, headers: headerMap(headers) }, fail);
  };
  // A part is {name?, filename?, contentType, content or filePath}: content
  // is text (sent as UTF-8; anything else is sent as JSON), filePath a file
  // of the sandbox folder (sent byte for byte). The body is
  // multipart/related, Drive's (a JSON metadata part, then the media),
  // unless a Content-Type header says another multipart/... type; with
  // multipart/form-data each part says its name (and a file's name) in a
  // Content-Disposition. The host adds the boundary.
  globalThis.uploadMultipart = async function (url, parts, headers) {
    const fail = (error) => ({ status: 0, body: "", ok: false, error });
    if (!given(url) || url === "") return fail("uploadMultipart: give the URL to upload to");
    if (!Array.isArray(parts) || parts.length === 0) {
      return fail("uploadMultipart: give the parts as an array of {name?, contentType, content or filePath}, such as " +
        "[{contentType: 'application/json; charset=UTF-8', content: JSON.stringify({name: 'a.png'})}, {contentType: 'image/png', filePath: 'a.png'}]");
    }
    const h = headerMap(headers);
    let type = null;
    for (const k of Object.keys(h)) {
      if (k.toLowerCase() === "content-type") {
        type = h[k].trim();
        delete h[k];
      }
    }
    if (type === null) {
      type = "multipart/related";
    } else if (!/^multipart\/[a-z0-9!#$&^_.+-]+\s*(;|$)/i.test(type)) {
      return fail("uploadMultipart: the Content-Type header '" + type + "' is not multipart: leave it out, or give multipart/related or multipart/form-data; the boundary is added");
    }
    type = type.replace(/\s*;\s*boundary\s*=\s*("[^"]*"|[^;]*)/gi, ""); // the host adds its own
    const formData = /^multipart\/form-data\s*(;|$)/i.test(type);
    const out = [];
    for (let i = 0; i < parts.length; i++) {
      const p = parts[i];
      const at = "uploadMultipart: part " + (i + 1);
      if (!p || typeof p !== "object") return fail(at + " is not an object: give {name?, contentType, content or filePath}");
      if (given(p.content) === given(p.filePath)) {
        return fail(at + (given(p.content) ? " has both content and filePath: give one" : " has neither content nor filePath: give its text, or the path of a file in the sandbox folder"));
      }
      if (formData && !(given(p.name) && String(p.name) !== "")) return fail(at + " has no name: every part of multipart/form-data needs one");
      const part = {};
      if (given(p.name)) part.name = String(p.name);
      if (formData && (given(p.filename) || given(p.filePath))) {
        part.filename = given(p.filename) ? String(p.filename) : String(p.filePath).split("/").pop();
      }
      let contentType = given(p.contentType) ? String(p.contentType) : null;
      if (given(p.content)) {
        if (typeof p.content === "string") part.content = p.content;
        else {
          part.content = JSON.stringify(p.content) ?? String(p.content);
          contentType = contentType ?? "application/json; charset=UTF-8";
        }
      } else {
        part.filePath = String(p.filePath);
      }
      part.contentType = contentType ?? (given(p.filePath) ? "application/octet-stream" : "text/plain; charset=UTF-8");
      out.push(part);
    }
    return transfer("net.upload", { url: String(url), headers: h, contentType: type, formData, parts: out }, fail);
  };

  const libraries = new Map();
  globalThis.lib = function (name) {
    name = String(name);
    if (libraries.has(name)) return libraries.get(name);
    const source = host.lib(name);
    const module = { exports: {} };
    libraries.set(name, module.exports);
    const fn = new Function("module", "exports", "lib", source + "\n//# sourceURL=lib/" + name + ".js");
    fn(module, module.exports, globalThis.lib);
    libraries.set(name, module.exports);
    return module.exports;
  };

  // op answers {"ok": value} or {"error": {"type", "message"}}: a refusal
  // is thrown with its type, which the call's error keeps if the tool lets
  // it through.
  const op = async (name, args) => {
    const r = JSON.parse(await host.op(name, JSON.stringify(args)));
    if (r.error) throw Object.assign(new Error(r.error.message), r.error.type ? { type: r.error.type } : {});
    return r.ok;
  };
  globalThis.google = Object.freeze({
    getAccessToken: () => op("google.token", {}),
    getAccountEmail: () => op("google.email", {}),
  });

  // toolroute is the host's own storage, for the built-in tools whose
  // manifest lists the namespace in requiredPermissions ("memories",
  // "history", "settings", "env", "providers", "models", "agents",
  // "tools", "schedules"); each host keeps it its own way
  // (SQLite, IndexedDB, Durable Objects) and answers the same. A host that
  // cannot do an operation says so; the host checks what is set.
  globalThis.toolroute = Object.freeze({
    memories: Object.freeze({
      save: (text) => op("memories.save", { text: String(text) }),
      list: () => op("memories.list", {}),
    }),
    history: Object.freeze({
      search: (query, options) => op("history.search", { query: String(query), limit: Number((options && options.limit) || 0) }),
    }),
    settings: Object.freeze({
      list: () => op("settings.list", {}),
      set: (key, value) => op("settings.set", { key: String(key), value: String(value ?? "") }),
    }),
    env: Object.freeze({
      list: () => op("env.list", {}),
      set: (name, value) => op("env.set", { name: String(name), value: String(value ?? "") }),
    }),
    // Stored model providers, their models and agents (the config
    // group): records of names and settings, never a key's value.
    providers: Object.freeze({
      list: () => op("providers.list", {}),
      create: (p) => op("providers.create", Object(p)),
      update: (p) => op("providers.update", Object(p)),
      remove: (name) => op("providers.remove", { name: String(name) }),
    }),
    models: Object.freeze({
      list: (provider) => op("models.list", { provider: String(provider ?? "") }),
      fetch: (provider) => op("models.fetch", { provider: String(provider ?? "") }),
      add: (provider, model) => op("models.add", { provider: String(provider ?? ""), model: String(model ?? "") }),
      remove: (provider, model) => op("models.remove", { provider: String(provider ?? ""), model: String(model ?? "") }),
      setDefault: (provider, model) => op("models.setDefault", { provider: String(provider ?? ""), model: String(model ?? "") }),
    }),
    agents: Object.freeze({
      list: () => op("agents.list", {}),
      update: (a) => op("agents.update", Object(a)),
      remove: (name) => op("agents.remove", { name: String(name) }),
      // run: a sub-agent's turn (create_agent), its answer or failure.
      run: (a) => op("agents.run", Object(a)),
    }),
    tools: Object.freeze({
      list: () => op("tools.list", {}),
      setEnabled: (name, enabled) => op("tools.setEnabled", { name: String(name), enabled }),
    }),
    // Scheduled tasks (the scheduled_tasks group): a prompt run as an
    // agent turn of its own, once or on a cron schedule; the host checks
    // what is given, keeps the tasks and runs them at their time.
    schedules: Object.freeze({
      list: () => op("schedules.list", {}),
      create: (t) => op("schedules.create", Object(t)),
      update: (t) => op("schedules.update", Object(t)),
      run: (name) => op("schedules.run", { name: String(name ?? "") }),
      remove: (name) => op("schedules.remove", { name: String(name ?? "") }),
    }),
    // The user's own JS tools: the host checks a file before it keeps it.
    toolfiles: Object.freeze({
      list: () => op("toolfiles.list", {}),
      read: (name) => op("toolfiles.read", { name: String(name) }),
      write: (manifest, code, options) => op("toolfiles.write", { manifest, code: String(code), replace: !!(options && options.replace) }),
      remove: (name) => op("toolfiles.remove", { name: String(name) }),
    }),
  });

  // __tr_start starts a call; __tr_outcome is "" until its promise settles,
  // then {"ok":true,"value":...} or {"ok":false,"error":...} as JSON. The host
  // drives the promise: it runs the pending jobs after each evaluation and,
  // in the browser and the worker, again as the bridges' promises settle.
  let outcome = "";
  // MAX_RESULT_CHARS bounds what a call hands back; the host cuts what the
  // model reads much shorter.
  const MAX_RESULT_CHARS = 4 << 20;
  Object.defineProperty(globalThis, "__tr_start", {
    value: function (fname, params) {
      outcome = "";
      globalThis.__tr_call(fname, params).then(
        (value) => {
          if (value.length > MAX_RESULT_CHARS) {
            outcome = JSON.stringify({ ok: false, error: "Error: the result is " + value.length + " characters; results are limited to " + MAX_RESULT_CHARS + ": return less, or write it to a file with fs" });
            return;
          }
          try {
            outcome = JSON.stringify({ ok: true, value });
          } catch (e) { // out of memory: the message must still get out
            outcome = '{"ok":false,"error":"InternalError: out of memory handing back a result of ' + value.length + ' characters: return less"}';
          }
        },
        (e) => {
          // An error's type ("not_found", say: lower case and _) is the
          // result's error type, and its message alone what the model
          // reads: a refusal meant for it, not a crash to debug. Without
          // one it is an execution_error with the stack.
          const type = e && typeof e === "object" && typeof e.type === "string" && /^[a-z][a-z_]{0,39}$/.test(e.type) ? e.type : undefined;
          let error = type ? String(e.message) : String(e);
          if (!type && e && typeof e === "object" && e.stack) error += "\n" + e.stack;
          outcome = JSON.stringify({ ok: false, error, type });
        });
    },
  });
  Object.defineProperty(globalThis, "__tr_outcome", { get: () => outcome });

  // __tr_call runs a tool function: a returned string as is, null or
  // undefined as "", anything else as JSON.
  Object.defineProperty(globalThis, "__tr_call", {
    value: async function (fname, params) {
      // A function declaration is a property of the global object; an
      // indirect eval also sees the tool's global lexical bindings, such as
      // const execute = ...; fname is a checked identifier.
      let fn = globalThis[fname];
      if (typeof fn !== "function") {
        try {
          fn = (0, eval)("typeof " + fname + " === 'function' ? " + fname + " : undefined");
        } catch (e) {
          fn = undefined; // a reserved word, such as delete, names no function
        }
      }
      if (typeof fn !== "function") {
        throw new ReferenceError("Function '" + fname + "' is not defined");
      }
      const result = await fn(JSON.parse(params));
      if (result === null || result === undefined) return "";
      if (typeof result === "string") return result;
      const json = JSON.stringify(result);
      return json === undefined ? "" : json;
    },
  });
})();
