// The worker's durable state: one Durable Object per session holding its
// message log, its turn's lease and the question that turn is waiting on
// (SessionLog), one listing the sessions (SessionIndex), and
// one holding the files JS tools reach through fs (SandboxFiles), the Go
// program's sandbox folder.
// The log is the only session state (docs/reference/routing.md): whichever worker serves a
// turn reads the whole log here and the module finds the loaded groups in
// it. Both use SQLite-backed storage (ctx.storage.sql).
import { DurableObject } from "cloudflare:workers";
import { answer as record, given, pending, sameCalls, view } from "./approvals.js";

// PART_CHARS bounds one stored piece of a message's JSON: a SQLite-backed
// Durable Object keeps strings up to 2 MB, and a tool result may be larger.
export const PART_CHARS = 256 << 10;
// LEASE_MS is how long a turn holds its session without storing anything
// before another turn may take the session over (a worker that died).
export const LEASE_MS = 10 * 60 * 1000;
// INDEX_NAME names the one SessionIndex; FILES_NAME the one SandboxFiles.
export const INDEX_NAME = "sessions";
export const FILES_NAME = "files";
// TASK_KEY prefixes a scheduled task's name in taskSettings.
const TASK_KEY = "task.";

// SessionLog is one session: its title and times, its messages, the lease
// of the turn running in it and that turn's pending approval question. The
// question lives here, not in the turn's isolate, because the POST that
// answers it may reach another isolate: the turn records it (ask), the
// answers are written here (answer), and the turn polls for them (poll).
export class SessionLog extends DurableObject {
  constructor(ctx, env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    this.sql.exec(`CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`);
    this.sql.exec(`CREATE TABLE IF NOT EXISTS parts (seq INTEGER NOT NULL, part INTEGER NOT NULL, text TEXT NOT NULL, PRIMARY KEY (seq, part))`);
  }

  #meta(key) {
    const row = this.sql.exec(`SELECT value FROM meta WHERE key = ?`, key).toArray()[0];
    return row ? row.value : null;
  }

  #setMeta(key, value) {
    this.sql.exec(`INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`, key, value);
  }

  // #count is the number of messages: seq counts from 0.
  #count() {
    return this.sql.exec(`SELECT COALESCE(MAX(seq), -1) + 1 AS n FROM parts`).one().n;
  }

  // info is the session as the API shows it, or null before create.
  info() {
    const id = this.#meta("id");
    if (id === null) return null;
    return { id, title: this.#meta("title") ?? "", created: this.#meta("created"), updated: this.#meta("updated"), messages: this.#count() };
  }

  // #busy says whether a turn other than token's holds the session: its
  // lease was renewed less than LEASE_MS ago.
  #busy(token, released = null) {
    const holder = this.#meta("lease");
    const renewed = Number(this.#meta("lease_renewed") ?? 0);
    return !!holder && holder !== token && holder !== released && Date.now() - renewed < LEASE_MS;
  }

  // begin starts a turn: it makes the session if needed, titled after the
  // turn's message (an untitled one too), and takes the lease for token.
  // It gives {ok: true} or {busy: true} when another turn holds the
  // session. The index learns of a new session with its first message
  // (append): a session is listed once it has one. released is the lease
  // of a turn that ended but could not say so (end failed: a full disk),
  // which holds no one: it is taken at once rather than after LEASE_MS.
  async begin(id, token, title, now, released = null) {
    if (this.#busy(token, released)) return { busy: true };
    this.ctx.storage.transactionSync(() => {
      if (this.#meta("id") === null) {
        this.#setMeta("id", id);
        this.#setMeta("created", now);
        this.#setMeta("updated", now);
      }
      if (!this.#meta("title") && title) this.#setMeta("title", title);
      this.sql.exec(`DELETE FROM meta WHERE key = 'question'`); // a dead turn's
      this.#setMeta("lease", token);
      this.#setMeta("lease_renewed", String(Date.now()));
    });
    return { ok: true };
  }

  // rename gives the session a title (the module's session_title check's): its info, or null
  // when there is no such session.
  async rename(title) {
    if (this.#meta("id") === null) return null;
    this.#setMeta("title", title);
    if (this.#count() > 0) await this.#publish();
    return this.info();
  }

  // destroy deletes the session, its log and its question, and takes it
  // out of the index: {ok: true}, {none: true} when there is no such
  // session, or {busy: true} while a turn holds it (the turn would go on
  // appending to it).
  async destroy() {
    const id = this.#meta("id");
    if (id === null) return { none: true };
    if (this.#busy(null)) return { busy: true };
    this.ctx.storage.transactionSync(() => {
      this.sql.exec(`DELETE FROM parts`);
      this.sql.exec(`DELETE FROM meta`);
    });
    const index = this.env.SESSION_INDEX.get(this.env.SESSION_INDEX.idFromName(INDEX_NAME));
    await index.remove(id);
    return { ok: true };
  }

  // end lets the session go, if token still holds it, and drops its
  // question.
  end(token) {
    if (this.#meta("lease") === token) this.sql.exec(`DELETE FROM meta WHERE key IN ('lease', 'lease_renewed', 'question')`);
  }

  // #question is the stored question, {token, calls, expires, answers}, or
  // null.
  #question() {
    const q = this.#meta("question");
    return q === null ? null : JSON.parse(q);
  }

  // ask records the question of the turn holding the lease (token) about
  // calls, denied after expires (an ISO time), and gives when it expires.
  // The same calls asked again keep their answers and expiry: the turn
  // records the question before its approval event reaches the client, and
  // again when it starts waiting.
  ask(token, calls, expires) {
    if (this.#meta("lease") !== token) {
      throw new Error("another turn took this session over (this turn stored nothing for 10 minutes); send the message again");
    }
    const q = this.#question();
    if (q && q.token === token && sameCalls(q.calls, calls)) return q.expires;
    this.#setMeta("question", JSON.stringify({ token, calls, expires, answers: {} }));
    return expires;
  }

  // poll gives the turn (token) the answers so far, in the calls' order,
  // and whether every call has one; gone when its question is no longer
  // here (the session taken over). A turn waiting on the user is alive:
  // its lease is renewed, a minute at a time.
  poll(token) {
    const q = this.#question();
    if (!q || q.token !== token) return { gone: true, answers: [], done: true };
    if (this.#meta("lease") === token && Date.now() - Number(this.#meta("lease_renewed") ?? 0) > 60_000) {
      this.#setMeta("lease_renewed", String(Date.now()));
    }
    const answers = given(q);
    return { answers, done: answers.length === q.calls.length };
  }

  // drop closes the question of the turn token.
  drop(token) {
    if (this.#question()?.token === token) this.sql.exec(`DELETE FROM meta WHERE key = 'question'`);
  }

  // question is the pending question as GET .../approvals shows it, or
  // null when none waits for an answer at now (an ISO time).
  question(now) {
    const q = this.#question();
    return pending(q, now) ? view(this.#meta("id"), q) : null;
  }

  // answer records answers ([{id, answer, grant}]), which the module
  // checked against the question as asked (approvals.js's snapshot), to the
  // pending question at now (approvals.js's answer): {waiting: [ids]},
  // {stale: true} when the question is no longer the one checked, or
  // {none: true} when no question is pending.
  answer(answers, now, asked) {
    const q = this.#question();
    if (!pending(q, now)) return { none: true };
    const r = record(q, answers, asked);
    // The question stays until the turn takes its answers (poll, then drop).
    if (!r.stale) this.#setMeta("question", JSON.stringify(q));
    return r;
  }

  // messages is the whole log, oldest first.
  messages() {
    const out = [];
    let seq = -1;
    let text = "";
    for (const row of this.sql.exec(`SELECT seq, text FROM parts ORDER BY seq, part`)) {
      if (row.seq !== seq) {
        if (seq >= 0) out.push(JSON.parse(text));
        seq = row.seq;
        text = "";
      }
      text += row.text;
    }
    if (seq >= 0) out.push(JSON.parse(text));
    return out;
  }

  // append adds messages at the end of the log in one transaction, for the
  // turn holding the lease (token), and renews it. It gives the count.
  async append(token, messages, now) {
    if (!Array.isArray(messages)) throw new TypeError("append takes an array of messages");
    if (this.#meta("id") === null) throw new Error("the session does not exist: begin a turn first");
    if (this.#meta("lease") !== token) {
      throw new Error("another turn took this session over (this turn stored nothing for 10 minutes); send the message again");
    }
    this.ctx.storage.transactionSync(() => {
      let seq = this.#count() - 1;
      for (const m of messages) {
        seq++;
        const text = JSON.stringify(m);
        let part = 0;
        for (let i = 0; i === 0 || i < text.length; i += PART_CHARS) {
          this.sql.exec(`INSERT INTO parts (seq, part, text) VALUES (?, ?, ?)`, seq, part++, text.slice(i, i + PART_CHARS));
        }
      }
      this.#setMeta("updated", now);
      this.#setMeta("lease_renewed", String(Date.now()));
    });
    await this.#publish();
    return this.#count();
  }

  // #publish tells the index what this session now is.
  async #publish() {
    const index = this.env.SESSION_INDEX.get(this.env.SESSION_INDEX.idFromName(INDEX_NAME));
    await index.put(this.info());
  }
}

// SessionIndex lists the sessions, most recent first, and keeps the
// memories save_memory saves (they belong to no one session).
export class SessionIndex extends DurableObject {
  constructor(ctx, env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    this.sql.exec(`CREATE TABLE IF NOT EXISTS sessions (id TEXT PRIMARY KEY, title TEXT NOT NULL, created TEXT NOT NULL, updated TEXT NOT NULL, messages INTEGER NOT NULL)`);
    // Sessions are listed from their first message; older versions
    // listed a new session at once, and kept it empty if nothing was sent.
    this.sql.exec(`DELETE FROM sessions WHERE messages = 0`);
    this.sql.exec(`CREATE TABLE IF NOT EXISTS memories (id INTEGER PRIMARY KEY AUTOINCREMENT, text TEXT NOT NULL, time TEXT NOT NULL)`);
    this.sql.exec(`CREATE TABLE IF NOT EXISTS tool_files (name TEXT PRIMARY KEY, manifest TEXT NOT NULL, code TEXT NOT NULL)`);
    this.sql.exec(`CREATE TABLE IF NOT EXISTS counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL)`);
    // A task is its record alone: the web host keeps tasks as settings
    // (schedules.js) and this object runs one request at a time, so no
    // next_run column is needed to claim a run, as host/store's tables
    // have for processes sharing one database.
    this.sql.exec(`CREATE TABLE IF NOT EXISTS scheduled_tasks (name TEXT PRIMARY KEY, json TEXT NOT NULL)`);
    this.sql.exec(`CREATE TABLE IF NOT EXISTS session_agents (id TEXT PRIMARY KEY, agent TEXT NOT NULL)`);
  }

  // agentOf is the agent (a TOOLROUTE_AGENTS name) session id was started
  // with, or "".
  agentOf(id) {
    for (const r of this.sql.exec(`SELECT agent FROM session_agents WHERE id = ?`, String(id))) return r.agent;
    return "";
  }

  // forgetAgentOf drops session id's agent, for a deleted session.
  forgetAgentOf(id) {
    this.sql.exec(`DELETE FROM session_agents WHERE id = ?`, String(id));
  }

  // setAgentOf makes session id's turns agent's.
  setAgentOf(id, agent) {
    this.sql.exec(`INSERT INTO session_agents (id, agent) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET agent = excluded.agent`, String(id), String(agent));
  }

  // The scheduled tasks (web/packages/toolroute/host/schedules.js keeps them, as a settings
  // store of task.NAME keys): the index's alarm is set to the earliest
  // next run, and runs the due tasks through the worker's own API (the
  // SELF service binding, POST /api/tasks/due), where the host is.

  // taskSettings gives {"task.NAME": the task's JSON}.
  taskSettings() {
    const out = {};
    for (const r of this.sql.exec(`SELECT name, json FROM scheduled_tasks ORDER BY name`)) out[TASK_KEY + r.name] = r.json;
    return out;
  }

  // setTaskSettings applies a patch of task.NAME keys (a null or "" value
  // deletes the task) and sets the alarm for the next run.
  async setTaskSettings(patch) {
    for (const [k, v] of Object.entries(patch ?? {})) {
      if (!k.startsWith(TASK_KEY)) throw new Error(`setTaskSettings: ${JSON.stringify(k)} is not a task key`);
      const name = k.slice(TASK_KEY.length);
      if (v === null || v === "") this.sql.exec(`DELETE FROM scheduled_tasks WHERE name = ?`, name);
      else this.sql.exec(`INSERT INTO scheduled_tasks (name, json) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET json = excluded.json`, name, String(v));
    }
    await this.#arm();
  }

  // #arm sets the alarm to the earliest next run, or deletes it.
  async #arm() {
    let next = Infinity;
    for (const r of this.sql.exec(`SELECT json FROM scheduled_tasks`)) {
      try {
        const t = Date.parse(JSON.parse(r.json).next_run ?? "");
        if (t < next) next = t;
      } catch {
        // not a task's record: it never runs
      }
    }
    if (Number.isFinite(next)) await this.ctx.storage.setAlarm(next);
    else await this.ctx.storage.deleteAlarm();
  }

  // alarm runs the due tasks through the worker's API, then sets the
  // alarm for the next run. A failure is thrown: the runtime tries the
  // alarm again later.
  async alarm() {
    if (!this.env.SELF) throw new Error("scheduled tasks: the worker has no SELF service binding to run them through (see wrangler.toml)");
    const headers = { "content-type": "application/json" };
    if (this.env.TOOLROUTE_TOKEN) headers.authorization = `Bearer ${this.env.TOOLROUTE_TOKEN}`;
    const r = await this.env.SELF.fetch("http://localhost/api/tasks/due", { method: "POST", headers, body: "{}" });
    const text = await r.text();
    await this.#arm();
    if (!r.ok) throw new Error(`scheduled tasks: POST /api/tasks/due answered ${r.status}: ${text.slice(0, 300)}`);
  }

  // The user's tools made with create_js_tool, which every isolate offers:
  // an isolate compares toolGeneration with the one it loaded before each
  // request and loads toolFiles again when they differ.

  // toolGeneration counts the changes to the tool files.
  toolGeneration() {
    return this.sql.exec(`SELECT value FROM counters WHERE name = 'tool_files'`).toArray()[0]?.value ?? 0;
  }

  // toolFiles gives {generation, files: [{name, manifest, code}]}, by name.
  toolFiles() {
    return {
      generation: this.toolGeneration(),
      files: this.sql.exec(`SELECT name, manifest, code FROM tool_files ORDER BY name`).toArray(),
    };
  }

  // putToolFile keeps a tool file (checked by the caller) and gives the
  // generation it makes.
  putToolFile(name, manifest, code) {
    return this.ctx.storage.transactionSync(() => {
      this.sql.exec(`INSERT INTO tool_files (name, manifest, code) VALUES (?, ?, ?)
        ON CONFLICT (name) DO UPDATE SET manifest = excluded.manifest, code = excluded.code`, name, manifest, code);
      return this.#bump();
    });
  }

  // removeToolFile drops a tool file and gives the generation it makes.
  removeToolFile(name) {
    return this.ctx.storage.transactionSync(() => {
      this.sql.exec(`DELETE FROM tool_files WHERE name = ?`, name);
      return this.#bump();
    });
  }

  #bump() {
    return this.sql.exec(`INSERT INTO counters (name, value) VALUES ('tool_files', 1)
      ON CONFLICT (name) DO UPDATE SET value = value + 1 RETURNING value`).one().value;
  }

  // memories gives every memory, oldest first: [{id, text, time}].
  memories() {
    return this.sql.exec(`SELECT id, text, time FROM memories ORDER BY id`).toArray();
  }

  // addMemory saves a memory (checked by the caller) and gives it.
  addMemory(text, time) {
    const row = this.sql.exec(`INSERT INTO memories (text, time) VALUES (?, ?) RETURNING id`, text, time).one();
    return { id: row.id, text, time };
  }

  put(s) {
    this.sql.exec(
      `INSERT INTO sessions (id, title, created, updated, messages) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET title = excluded.title, updated = excluded.updated, messages = excluded.messages`,
      s.id, s.title, s.created, s.updated, s.messages);
  }

  // remove takes a deleted session out of the list.
  remove(id) {
    this.sql.exec(`DELETE FROM sessions WHERE id = ?`, id);
  }

  list() {
    return this.sql.exec(`SELECT id, title, created, updated, messages FROM sessions WHERE messages > 0 ORDER BY updated DESC, id`).toArray();
  }
}

// SandboxFiles is the folder of the fs bridge: files by relative path. A
// JS call gets them all (the bridge is synchronous) and gives back those it
// wrote. A file is text, or bytes (a Uint8Array: what downloadToFile
// saved), kept as a BLOB in the same column: SQLite keeps a BLOB as it is
// whatever the column's type.
export class SandboxFiles extends DurableObject {
  constructor(ctx, env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    this.sql.exec(`CREATE TABLE IF NOT EXISTS files (path TEXT PRIMARY KEY, text TEXT NOT NULL)`);
  }

  // all gives every file: {path: text or Uint8Array}.
  all() {
    const out = {};
    for (const row of this.sql.exec(`SELECT path, text FROM files ORDER BY path`)) {
      out[row.path] = row.text instanceof ArrayBuffer ? new Uint8Array(row.text) : row.text;
    }
    return out;
  }

  // put stores files ({path: text or Uint8Array}) in one transaction.
  put(files) {
    this.ctx.storage.transactionSync(() => {
      for (const path of Object.keys(files).sort()) {
        const v = files[path];
        const value = v instanceof Uint8Array ? v.buffer.slice(v.byteOffset, v.byteOffset + v.byteLength) : v;
        this.sql.exec(`INSERT INTO files (path, text) VALUES (?, ?) ON CONFLICT (path) DO UPDATE SET text = excluded.text`, path, value);
      }
    });
  }
}
