// The browser chat UI's storage: sessions with titles, each session's
// message log, settings (provider, model, key, tools' environment) and the
// files of the JS tools' fs sandbox, in IndexedDB. MemoryUIStore has the same
// API in memory, for Node tests and as a fallback when IndexedDB is missing.
//
// A session is stored with its first message and titled after it
// (sessionTitle, as the Go program titles one); there is no empty session.
//
// API (all async):
//   sessions()                    -> [{id, title, created, updated, messages}], newest first
//   session(id)                   -> session or null
//   renameSession(id, title)      -> the session, or null if there is none (title: the module's session_title check's)
//   deleteSession(id)             -> whether there was one
//   messages(id)                  -> [message], oldest first
//   append(id, messages)          (the toolroute/host store API; creates the session if missing)
//   settings()                    -> {key: value}
//   setSettings(patch)            (a null or "" value deletes the key)
//   files()                       -> {path: text, or a Uint8Array for bytes}
//   putFile(path, text)           (text or a Uint8Array)

import { sessionTitle } from "../../../packages/toolroute/host/session-names.js";

export function newID() {
  const b = new Uint8Array(8);
  crypto.getRandomValues(b);
  return Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
}

// titleFrom makes a session's title from the first user message among
// messages, "" when there is none.
export function titleFrom(messages) {
  const u = messages.find((m) => m.type === "user" && m.content);
  return u ? sessionTitle(u.content) : "";
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
    return [...this.#sessions.values()].filter((s) => s.messages > 0).map((s) => ({ ...s })).sort(byUpdated);
  }

  async session(id) {
    const s = this.#sessions.get(id);
    return s ? { ...s } : null;
  }

  async renameSession(id, title) {
    const s = this.#sessions.get(id);
    if (!s) return null;
    s.title = title;
    return { ...s };
  }

  async deleteSession(id) {
    this.#logs.delete(id);
    return this.#sessions.delete(id);
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

// DB_VERSION 2 dropped the empty sessions version 1 kept ("new chat"
// stored one).
const DB_VERSION = 2;

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
    open.onupgradeneeded = (e) => {
      const db = open.result;
      if (e.oldVersion < 1) {
        db.createObjectStore("sessions", { keyPath: "id" });
        const m = db.createObjectStore("messages", { autoIncrement: true });
        m.createIndex("session", "session");
        db.createObjectStore("settings");
        db.createObjectStore("files");
      }
      if (e.oldVersion >= 1 && e.oldVersion < 2) {
        const cursor = open.transaction.objectStore("sessions").openCursor();
        cursor.onsuccess = () => {
          const c = cursor.result;
          if (!c) return;
          if (!(c.value.messages > 0)) c.delete();
          c.continue();
        };
      }
    };
    return new IDBStore(await req(open));
  }

  async sessions() {
    const tx = this.#db.transaction("sessions");
    const all = await req(tx.objectStore("sessions").getAll());
    return all.filter((s) => s.messages > 0).sort(byUpdated);
  }

  async session(id) {
    const tx = this.#db.transaction("sessions");
    return (await req(tx.objectStore("sessions").get(id))) ?? null;
  }

  async renameSession(id, title) {
    const tx = this.#db.transaction("sessions", "readwrite");
    const ss = tx.objectStore("sessions");
    const s = await req(ss.get(id));
    if (s) {
      s.title = title;
      ss.put(s);
    }
    await done(tx);
    return s ?? null;
  }

  async deleteSession(id) {
    const tx = this.#db.transaction(["sessions", "messages"], "readwrite");
    const ss = tx.objectStore("sessions");
    const found = (await req(ss.getKey(id))) !== undefined;
    ss.delete(id);
    const idx = tx.objectStore("messages").index("session");
    const keys = await req(idx.getAllKeys(id));
    for (const k of keys) tx.objectStore("messages").delete(k);
    await done(tx);
    return found;
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
