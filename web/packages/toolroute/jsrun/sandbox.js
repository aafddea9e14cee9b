// The fs bridge's rules, the Go host's (host/jsrun/sandbox.go): paths are
// relative to one sandbox root, nothing outside it can be reached, and files
// are limited to 1 MB. Where the files live is a store's business: a store
// sees only clean relative paths ("a/b.txt", "" for the root).
//
// A store is synchronous (fs.readFile returns a string) and has:
//   root: an absolute path shown to tools, or "" (absolute paths then
//     are refused);
//   stat(rel): null, or {dir: boolean, size: bytes};
//   read(rel): the file's text, or its bytes (a Uint8Array) when it holds
//     what downloadToFile saved;
//   readBytes(rel): the file's bytes;
//   write(rel, content, append): content a string or a Uint8Array,
//     creating parent folders.
// A store throws AccessDenied for a path that leads out (a symbolic link).

import { refused } from "./words.js";

export const MAX_FILE_BYTES = 1 << 20;
// MAX_TRANSFER_BYTES bounds what downloadToFile saves and uploadMultipart
// sends, as the Go host's MaxTransferBytes: fetch's largest body.
export const MAX_TRANSFER_BYTES = 5 << 20;

// AccessDenied is what fs answers for any path outside the sandbox.
export class AccessDenied extends Error {
  constructor(message) {
    super(message);
    this.name = "AccessDenied";
  }
}

const encoder = new TextEncoder();

// byteLength is a string's length in UTF-8, as Go's len counts it, or a
// Uint8Array's.
export function byteLength(s) {
  return s instanceof Uint8Array ? s.length : encoder.encode(s).length;
}

// clean is Go's path.Clean.
export function clean(p) {
  if (p === "") return ".";
  const rooted = p.startsWith("/");
  const out = [];
  for (const part of p.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") {
      if (out.length > 0 && out[out.length - 1] !== "..") out.pop();
      else if (!rooted) out.push("..");
      continue;
    }
    out.push(part);
  }
  const s = (rooted ? "/" : "") + out.join("/");
  return s === "" ? "." : s;
}

// Sandbox applies the rules over a store; with no store, fs says so.
export class Sandbox {
  constructor(store) {
    this.store = store ?? null;
  }

  // rel turns a tool's path into one relative to the root.
  rel(p) {
    if (this.store === null) throw refused(new Error("fs: no sandbox folder"), { code: "sandbox_none" });
    if (p === "" || p.includes("\0")) throw new Error(`fs: invalid path ${JSON.stringify(p)}`);
    if (p.startsWith("/")) {
      const root = this.store.root ? clean(this.store.root) : "";
      const c = clean(p);
      const inside = root && c.startsWith(root) ? c.slice(root.length) : null;
      if (inside === null || (inside !== "" && !inside.startsWith("/"))) {
        throw refused(new AccessDenied("Access denied"), { code: "sandbox_outside", path: p });
      }
      p = inside.replace(/^\//, "");
    }
    const c = clean(p);
    if (c === ".." || c.startsWith("../")) {
      throw refused(new AccessDenied("Access denied"), { code: "sandbox_outside", path: p });
    }
    return c === "." ? "" : c;
  }

  #stat(p, rel) {
    try {
      return this.store.stat(rel);
    } catch (e) {
      throw denied(p, e);
    }
  }

  // read gives a text file's text. A file holding a NUL byte is refused,
  // as the Go host refuses it (its strings end at NUL).
  read(p) {
    const rel = this.#file(p, MAX_FILE_BYTES);
    let text;
    try {
      text = this.store.read(rel);
    } catch (e) {
      throw denied(p, e);
    }
    if (text instanceof Uint8Array) {
      if (text.includes(0)) text = "\0";
      else text = new TextDecoder().decode(text);
    }
    if (text.includes("\0")) throw refused(new Error("fs: a NUL byte"), { code: "sandbox_nul", path: p });
    return text;
  }

  // readBytes gives a file's bytes, whatever it holds, up to limit:
  // uploadMultipart's parts.
  readBytes(p, limit) {
    const rel = this.#file(p, limit);
    try {
      const b = this.store.readBytes(rel);
      return b instanceof Uint8Array ? b : encoder.encode(b);
    } catch (e) {
      throw denied(p, e);
    }
  }

  // #file is the path of a file to read, of limit bytes at most.
  #file(p, limit) {
    const rel = this.rel(p);
    const info = this.#stat(p, rel);
    if (info === null) throw new Error(`fs: file not found: '${p}'`);
    if (info.dir) throw new Error(`fs: '${p}' is a folder, not a file`);
    if (info.size > limit) {
      throw new Error(`fs: '${p}' is ${info.size} bytes; files are limited to ${limit}`);
    }
    return rel;
  }

  write(p, content, append) {
    this.#put(p, content, append, MAX_FILE_BYTES);
  }

  // writeBytes writes a whole file whatever it holds (downloadToFile's),
  // up to MAX_TRANSFER_BYTES, replacing one there.
  writeBytes(p, data) {
    this.#put(p, data, false, MAX_TRANSFER_BYTES);
  }

  #put(p, content, append, limit) {
    const rel = this.rel(p);
    if (rel === "") throw refused(new Error("fs: the sandbox folder"), { code: "sandbox_root", path: p });
    const n = byteLength(content);
    if (n > limit) {
      throw new Error(`fs: content is ${n} bytes; files are limited to ${limit}`);
    }
    if (append) {
      const info = this.#stat(p, rel);
      if (info !== null && !info.dir && info.size + n > limit) {
        throw new Error(`fs: appending would make '${p}' ${info.size + n} bytes; files are limited to ${limit}`);
      }
    }
    try {
      this.store.write(rel, content, append);
    } catch (e) {
      throw denied(p, e);
    }
  }

  exists(p) {
    try {
      return this.store.stat(this.rel(p)) !== null;
    } catch {
      return false;
    }
  }
}

function denied(p, e) {
  if (e instanceof AccessDenied) return refused(new AccessDenied("Access denied"), { code: "sandbox_leads_outside", path: p });
  if (e?.code === "ENOENT") return new Error(`fs: file not found: '${p}'`);
  return new Error(`fs: '${p}': ${e?.message ?? e}`);
}

// MemoryStore keeps the files in a Map from relative path to text, or to
// bytes (a Uint8Array) for what downloadToFile saved: the browser's and the
// worker's store, and the tests'. Folders are implied by the files under
// them.
export class MemoryStore {
  constructor(files = {}) {
    this.root = "";
    this.files = new Map(Object.entries(files));
  }

  stat(rel) {
    if (rel === "") return { dir: true, size: 0 };
    const text = this.files.get(rel);
    if (text !== undefined) return { dir: false, size: byteLength(text) };
    for (const name of this.files.keys()) {
      if (name.startsWith(rel + "/")) return { dir: true, size: 0 };
    }
    return null;
  }

  read(rel) {
    const text = this.files.get(rel);
    if (text === undefined) throw Object.assign(new Error("not found"), { code: "ENOENT" });
    return text;
  }

  readBytes(rel) {
    const v = this.read(rel);
    return v instanceof Uint8Array ? v : encoder.encode(v);
  }

  write(rel, content, append) {
    const parts = rel.split("/");
    for (let i = 1; i < parts.length; i++) {
      if (this.files.has(parts.slice(0, i).join("/"))) throw new Error("not a folder");
    }
    if (this.stat(rel)?.dir) throw new Error("is a folder");
    const old = append ? this.files.get(rel) : undefined;
    if (old === undefined) this.files.set(rel, content);
    else if (typeof old === "string" && typeof content === "string") this.files.set(rel, old + content);
    else this.files.set(rel, concatBytes(this.readBytes(rel), content instanceof Uint8Array ? content : encoder.encode(content)));
  }
}

function concatBytes(a, b) {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}
