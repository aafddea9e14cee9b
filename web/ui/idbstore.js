// The browser chat UI's storage: sessions with titles, each session's
// message log, settings (provider, model, key, tools' environment) and the
// files of the JS tools' fs sandbox, in IndexedDB. MemoryUIStore has the same
// API in memory, for Node tests and as a fallback when IndexedDB is missing.
//
// API (all async):
//   sessions()                    -> [{id, title, created, updated, messages}], newest first
//   createSession(title?)         -> session
//   session(id)                   -> session or null
//   deleteSession(id)
//   messages(id)                  -> [message], oldest first
//   append(id, messages)          (the web/host store API; creates the session if missing)
//   settings()                    -> {key: value}
//   setSettings(patch)            (a null or "" value deletes the key)
//   files()                       -> {path: text, or a Uint8Array for bytes}
//   putFile(path, text)           (text or a Uint8Array)

export function newID() {
  const b = new Uint8Array(8);
  crypto.getRandomValues(b);
  return Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
}

// titleFrom makes a session's title from its first user message.
export function titleFrom(messages) {
  const u = messages.find((m) => m.type === "user" && m.content);
  if (!u) return "";
  const t = String(u.content).replace(/\s+/g, " ").trim();
  return t.length > 60 ? t.slice(0, 57) + "…" : t;
}

function newSession(id, title, now) {
  return { id, title: title ?? "", created: now, updated: now, messages: 0 };
}

export class MemoryUIStore {
  #sessions = new Map();
  #logs = new Map();
  #settings = {};
  #files = {};

  async sessions() {
    return [...this.#sessions.values()].map((s) => ({ ...s })).sort(byUpdated);
  }

  async createSession(title) {
    const s = newSession(newID(), title, new Date().toISOString());
    this.#sessions.set(s.id, s);
    return { ...s };
  }

  async session(id) {
    const s = this.#sessions.get(id);
    return s ? { ...s } : null;
  }

  async deleteSession(id) {
    this.#sessions.delete(id);
    this.#logs.delete(id);
  }

  async messages(id) {
    return structuredClone(this.#logs.get(id) ?? []);
  }

  async append(id, messages) {
    const log = this.#logs.get(id) ?? [];
    log.push(...structuredClone(messages));
    this.#logs.set(id, log);
    const now = new Date().toISOString();
    const s = this.#sessions.get(id) ?? newSession(id, "", now);
    s.updated = now;
    s.messages = log.length;
    if (!s.title) s.title = titleFrom(log);
    this.#sessions.set(id, s);
  }

  async settings() {
    return { ...this.#settings };
  }

  async setSettings(patch) {
    for (const [k, v] of Object.entries(patch)) {
      if (v === null || v === undefined || v === "") delete this.#settings[k];
      else this.#settings[k] = v;
    }
  }

  async files() {
    return { ...this.#files };
  }

  async putFile(path, text) {
    this.#files[path] = text;
  }
}

function byUpdated(a, b) {
  return a.updated < b.updated ? 1 : a.updated > b.updated ? -1 : a.id < b.id ? -1 : 1;
}

const DB_VERSION = 1;

function req(r) {
  return new Promise((resolve, reject) => {
    r.onsuccess = () => resolve(r.result);
    r.onerror = () => reject(r.error);
  });
}

function done(tx) {
  return new Promise((resolve, reject) => {
    tx.oncomplete = () => resolve();
    tx.onerror = () => reject(tx.error);
    tx.onabort = () => reject(tx.error ?? new Error("transaction aborted"));
  });
}

// IDBStore keeps everything in one IndexedDB database: object stores
// sessions (key id), messages (auto key, index by session: insertion order is
// the log's order), settings (key = setting name) and files (key = path).
export class IDBStore {
  #db;

  constructor(db) {
    this.#db = db;
  }

  static async open(name = "toolroute", idb = globalThis.indexedDB) {
    const open = idb.open(name, DB_VERSION);
    open.onupgradeneeded = () => {
      const db = open.result;
      db.createObjectStore("sessions", { keyPath: "id" });
      const m = db.createObjectStore("messages", { autoIncrement: true });
      m.createIndex("session", "session");
      db.createObjectStore("settings");
      db.createObjectStore("files");
    };
    return new IDBStore(await req(open));
  }

  async sessions() {
    const tx = this.#db.transaction("sessions");
    const all = await req(tx.objectStore("sessions").getAll());
    return all.sort(byUpdated);
  }

  async createSession(title) {
    const s = newSession(newID(), title, new Date().toISOString());
    const tx = this.#db.transaction("sessions", "readwrite");
    tx.objectStore("sessions").put(s);
    await done(tx);
    return s;
  }

  async session(id) {
    const tx = this.#db.transaction("sessions");
    return (await req(tx.objectStore("sessions").get(id))) ?? null;
  }

  async deleteSession(id) {
    const tx = this.#db.transaction(["sessions", "messages"], "readwrite");
    tx.objectStore("sessions").delete(id);
    const idx = tx.objectStore("messages").index("session");
    const keys = await req(idx.getAllKeys(id));
    for (const k of keys) tx.objectStore("messages").delete(k);
    await done(tx);
  }

  async messages(id) {
    const tx = this.#db.transaction("messages");
    const store = tx.objectStore("messages");
    const idx = store.index("session");
    // getAll on the index orders by the index key then the primary key: the
    // auto-increment key keeps the log's order.
    const rows = await req(idx.getAll(id));
    return rows.map((r) => r.message);
  }

  // append stores the messages and the session's counters in one
  // transaction: committed when the promise resolves.
  async append(id, messages) {
    const tx = this.#db.transaction(["sessions", "messages"], "readwrite");
    const ms = tx.objectStore("messages");
    for (const m of messages) ms.add({ session: id, message: m });
    const ss = tx.objectStore("sessions");
    const now = new Date().toISOString();
    const s = (await req(ss.get(id))) ?? newSession(id, "", now);
    s.updated = now;
    s.messages = (s.messages ?? 0) + messages.length;
    if (!s.title) s.title = titleFrom(messages);
    ss.put(s);
    await done(tx);
  }

  async settings() {
    const tx = this.#db.transaction("settings");
    const st = tx.objectStore("settings");
    const [keys, values] = await Promise.all([req(st.getAllKeys()), req(st.getAll())]);
    const out = {};
    keys.forEach((k, i) => (out[k] = values[i]));
    return out;
  }

  async setSettings(patch) {
    const tx = this.#db.transaction("settings", "readwrite");
    const st = tx.objectStore("settings");
    for (const [k, v] of Object.entries(patch)) {
      if (v === null || v === undefined || v === "") st.delete(k);
      else st.put(v, k);
    }
    await done(tx);
  }

  async files() {
    const tx = this.#db.transaction("files");
    const st = tx.objectStore("files");
    const [keys, values] = await Promise.all([req(st.getAllKeys()), req(st.getAll())]);
    const out = {};
    keys.forEach((k, i) => (out[k] = values[i]));
    return out;
  }

  async putFile(path, text) {
    const tx = this.#db.transaction("files", "readwrite");
    tx.objectStore("files").put(text, path);
    await done(tx);
  }
}
