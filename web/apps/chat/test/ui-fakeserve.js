// A mocked `toolroute serve` for web/apps/chat/core.js, as a fetch function: its
// catalogue, its sessions API and a scripted model behind /api/model.
// Nothing in this file needs Node: ui-harness.js gives it to the Node tests,
// builtins-browser-entry.js to Chromium's.
import { sessionTitle, newSessionID } from "../../../packages/toolroute/host/session-names.js";

function sse(chunks) {
  const body = chunks.map((c) => "data: " + JSON.stringify(c) + "\n\n").join("") + "data: [DONE]\n\n";
  return new Response(body, { status: 200, headers: { "content-type": "text/event-stream" } });
}

const chunk = (delta, finish = null) => ({ id: "c", object: "chat.completion.chunk", model: "fake-1", choices: [{ index: 0, delta, finish_reason: finish }] });

// modelReply is the streamed OpenAI answer of a script's reply: {text} or
// {call: [name, args]}, the call's id "call_N" for the Nth request.
export function modelReply(reply, n) {
  if (reply.text) return sse([chunk({ role: "assistant", content: reply.text }), chunk({}, "stop")]);
  const [name, args] = reply.call;
  return sse([
    chunk({ role: "assistant", tool_calls: [{ index: 0, id: "call_" + n, type: "function", function: { name, arguments: JSON.stringify(args) } }] }),
    chunk({}, "tool_calls"),
  ]);
}

// fakeServer is fetch for a mocked `toolroute serve` whose /api/ui/catalogue
// answers with catalogue and /api/model with the script's replies: {text}
// or {call: [name, args]}; requests keeps what the module asked for. Its
// sessions API is sessions (a FakeSessions, made with sessionOptions).
export function fakeServer(script, { hold, catalogue, sessionOptions } = {}) {
  const requests = [];
  const sessions = new FakeSessions(sessionOptions);
  const fetch = async (url, init = {}) => {
    const u = String(url);
    if (u === "/api/health") return Response.json({ ok: true, provider: "openai (fake)", format: "openai", model: "fake-1", problems: [] });
    if (u.startsWith("/api/sessions") || u.startsWith("/api/catalogue")) return sessions.fetch(u, init);
    if (u === "/api/ui/catalogue" && catalogue) return Response.json(catalogue);
    if (u === "/api/model") {
      const req = JSON.parse(init.body);
      requests.push(req);
      if (hold) await hold(init.signal);
      const reply = script[requests.length - 1];
      if (!reply) return Response.json({ error: { message: "no more replies" } }, { status: 500 });
      return modelReply(reply, requests.length);
    }
    return new Response("not found", { status: 404 });
  };
  return { fetch, requests, sessions };
}

// FakeSessions is the sessions API of serve and the worker, in memory: a
// session is stored with its first message and titled after it, renamed
// (PATCH), deleted (DELETE, 409 while its turn runs); a turn streams its
// events as server-sent events. Its times are written in another zone than
// UTC, as serve writes them on a machine that is not in UTC. options:
//   turn: async function* ({id, text, attachments, append, ask, signal}) yielding a
//     turn's events (append(m) stores a message and gives its event; ask
//     (calls) gives the approval event's answers once posted); by default
//     the reply "Server heard: TEXT";
//   keepAlive: a comment line before each event, as the worker's stream has.
// requests keeps {method, path, body} of every request; aborted counts the
// turns whose client went away.
export class FakeSessions {
  sessions = new Map();
  requests = [];
  aborted = 0;
  #running = new Map(); // id -> its question, {calls, resolve} or null
  #clock = 0;

  // checkTitle(title) gives the module's answer to a session_title check
  // ({args: {title}} or {error}), as serve asks its module: a PATCH needs it.
  constructor({ turn, keepAlive, checkTitle } = {}) {
    this.turn = turn ?? defaultTurn;
    this.keepAlive = keepAlive;
    this.checkTitle = checkTitle;
  }

  // now is the time, later than the last one given, in UTC+02:00.
  now() {
    this.#clock = Math.max(Date.now(), this.#clock + 1);
    return new Date(this.#clock + 2 * 3600e3).toISOString().replace("Z", "+02:00");
  }

  // add stores a session with messages, as another client (toolroute chat)
  // would have: {id, title?, messages}.
  add({ id, title, messages }) {
    const at = this.now();
    this.sessions.set(id, { id, title: title ?? sessionTitle(messages.find((m) => m.type === "user")?.content ?? ""), created: at, updated: at, log: structuredClone(messages) });
  }

  info(s) {
    return { id: s.id, title: s.title, created: s.created, updated: s.updated, messages: s.log.length };
  }

  async fetch(url, init = {}) {
    const u = new URL(url, "http://fake");
    const method = init.method ?? "GET";
    const body = init.body === undefined ? undefined : JSON.parse(init.body);
    this.requests.push({ method, path: u.pathname + u.search, body });
    const fail = (status, error) => Response.json({ error }, { status });
    if (u.pathname === "/api/catalogue") {
      const s = this.sessions.get(u.searchParams.get("session") ?? "");
      return Response.json({ groups: [{ name: "config" }], active: ["load_tool_group"], loaded_groups: s ? ["config"] : [] });
    }
    const [, , , id, sub] = u.pathname.split("/").map(decodeURIComponent);
    const s = id === undefined ? undefined : this.sessions.get(id);
    const none = () => fail(404, `no session ${JSON.stringify(id)}: GET /api/sessions lists them (a session is stored with its first message)`);
    switch (`${method} ${id === undefined ? "" : "{id}"}${sub ? "/" + sub : ""}`) {
      case "GET ":
        return Response.json([...this.sessions.values()].filter((x) => x.log.length > 0).sort((a, b) => (Date.parse(b.updated) - Date.parse(a.updated)) || (a.id < b.id ? -1 : 1)).map((x) => this.info(x)));
      case "POST ": {
        const at = this.now();
        return Response.json({ id: newSessionID(), title: "", created: at, updated: at, messages: 0 }, { status: 201 });
      }
      case "GET {id}":
        return s ? Response.json(this.info(s)) : none();
      case "PATCH {id}": {
        // As serve, the module checks the title.
        if (typeof body?.title !== "string") return fail(400, 'give the new title as {"title": "..."}');
        if (!this.checkTitle) throw new Error("FakeSessions: a PATCH needs the checkTitle option (the module's session_title check)");
        const t = await this.checkTitle(body.title);
        if (t.error) return fail(400, t.error.message);
        if (!s) return none();
        s.title = t.args.title;
        return Response.json(this.info(s));
      }
      case "DELETE {id}":
        if (!s) return none();
        if (this.#running.has(id)) return fail(409, `session ${JSON.stringify(id)} has a turn running: wait for its done or failed event, or stop it (close its stream), then delete it`);
        this.sessions.delete(id);
        return new Response(null, { status: 204 });
      case "GET {id}/messages":
        return s ? Response.json(structuredClone(s.log)) : none();
      case "POST {id}/approvals": {
        const q = this.#running.get(id);
        if (!q) return fail(404, `no question is pending for session ${JSON.stringify(id)}`);
        this.#running.set(id, null);
        q.resolve(body.approvals);
        return Response.json({ waiting: [] });
      }
      case "POST {id}/messages":
        if (this.#running.has(id)) return fail(409, "a turn is already running in this session: wait for its done or failed event, then send again");
        return this.#stream(id, String(body.text), init.signal, body.attachments);
    }
    return fail(404, `no such endpoint: ${method} ${u.pathname}`);
  }

  #stream(id, text, signal, attachments) {
    this.#running.set(id, null);
    const encoder = new TextEncoder();
    const append = (m) => {
      const at = this.now();
      let s = this.sessions.get(id);
      if (!s) {
        s = { id, title: "", created: at, updated: at, log: [] };
        this.sessions.set(id, s);
      }
      if (!s.title && m.type === "user") s.title = sessionTitle(m.content);
      s.log.push(structuredClone(m));
      s.updated = at;
      return { type: "message", message: m };
    };
    const ask = (calls) => new Promise((resolve) => this.#running.set(id, { calls, resolve }));
    const events = this.turn({ id, text, attachments, append, ask, signal });
    const done = () => this.#running.delete(id);
    const keepAlive = this.keepAlive;
    const fake = this;
    let canceled = false;
    const stream = new ReadableStream({
      async pull(c) {
        let next;
        try {
          next = await events.next();
        } catch (e) {
          done();
          if (!canceled) c.error(e);
          return;
        }
        if (canceled) return;
        if (next.done) {
          done();
          return c.close();
        }
        if (keepAlive) c.enqueue(encoder.encode(": still working\n\n"));
        c.enqueue(encoder.encode(`event: ${next.value.type}\ndata: ${JSON.stringify(next.value)}\n\n`));
      },
      cancel() {
        canceled = true;
        leave();
        events.return().catch(() => {});
      },
    });
    // The client went away: the turn ends, what it stored stays.
    const leave = () => {
      if (!fake.#running.has(id)) return;
      fake.aborted++;
      done();
    };
    signal?.addEventListener("abort", leave, { once: true });
    return new Response(stream, { status: 200, headers: { "content-type": "text/event-stream" } });
  }
}

// defaultTurn is a server's turn answering "Server heard: TEXT".
async function* defaultTurn({ text, append }) {
  const now = new Date().toISOString();
  yield append({ type: "user", content: text, time: now });
  yield { type: "model_call", tools: ["load_tool_group"] };
  yield { type: "text", text: "Server heard: " + text };
  yield append({ type: "assistant", content: "Server heard: " + text, time: now });
  yield { type: "done", text: "Server heard: " + text };
}
