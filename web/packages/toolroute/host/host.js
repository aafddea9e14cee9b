// The JS host of toolroute.wasm: the Go host's session loop (host/session.go)
// for the browser chat UI and the edge worker. It drives the module through
// the ABI driver (web/driver) and performs its actions: the model calls
// (direct to the provider, or through `toolroute serve`'s /api/model proxy),
// the tool calls (JS tools through an injected runner, host-native tools
// through injected functions) and the message log (an injected store).
//
// It uses no Node-only API: fetch, storage, the clock, sleeping and the tool
// runners are all given to it, so the same code runs in a page, a worker
// and the Node tests.
//
// The message log is the only state (docs/reference/routing.md): a session is a name for a log
// in the store, and the groups it loaded are found again in that log by the
// module on every turn, in this host instance or another.

import { TrapError, RECYCLE_MEMORY } from "../driver/toolroute.js";
import { Redactor } from "./redact.js";
import { typedCatalogue, withTyped, nativeWith, refusedTyped, runJSOf, warmOf, hasJS } from "../tools.js";

const decoder = new TextDecoder();

// MAX_RESULT_CHARS is the most characters (code points) of a tool's result
// the model reads: the module cuts a longer one, with a note saying so
// (wasm/ABI.md, "tool_results"). A tool that stops before it (pdf.js)
// reads it here.
export const MAX_RESULT_CHARS = 30000;
// DEFAULT_MAX_PARALLEL_TOOLS is how many tool calls run at once, in all the
// host's sessions, when options.maxParallelTools sets none (the Go host's
// MaxParallelTools).
export const DEFAULT_MAX_PARALLEL_TOOLS = 4;

// MAX_RESPONSE_BODY bounds a model's reply, whole or streamed, in bytes as
// fetch gives them (decompressed): past it the turn fails and no more is read.
export const MAX_RESPONSE_BODY = 64 << 20;
// MAX_ERROR_BODY bounds the body of a failed model call passed to the module.
const MAX_ERROR_BODY = 1 << 20;

// FORMATS are the wire formats the module speaks.
export const FORMATS = ["openai", "anthropic", "responses", "gemini"];

// DEMO_MODEL is the demo model's name (registry/demo.Model), the model a
// demo provider calls when it names none.
export const DEMO_MODEL = "toolroute-demo";

// MemoryStore keeps message logs in memory: {messages(id), append(id, msgs)},
// and messagesFrom(id, n), which a store may offer: the messages after the
// first n and how many the log holds ({messages, total}), so that a turn on
// the instance keeping its session reads only the messages logged since.
export class MemoryStore {
  #logs = new Map();

  async messages(id) {
    return structuredClone(this.#logs.get(id) ?? []);
  }

  async messagesFrom(id, n) {
    const log = this.#logs.get(id) ?? [];
    return { messages: structuredClone(log.slice(n)), total: log.length };
  }

  async append(id, messages) {
    const log = this.#logs.get(id) ?? [];
    log.push(...structuredClone(messages));
    this.#logs.set(id, log);
  }
}

// createHost makes a host. options:
//   module: a driver instance (Toolroute), or a function (sync or async)
//     making one; with a function, an instance that trapped, or whose
//     memory passed recycleMemory, is replaced;
//   tools: host tools as code (toolroute's tool() and group(), from
//     tools.js): an array of tools ({name, description, inputSchema,
//     execute}) and groups ({name, description, tools}), or an object of
//     them by name; loaded after the catalogue's, each run by its execute
//     as a native function is;
//   catalogue: the catalogue toolroute_load takes (see wasm/ABI.md);
//   sources: JS sources by the manifests' source references: a Map, an
//     object, or a function(ref) giving the text (or a promise of it);
//   provider: {format: "openai"|"anthropic"|"responses"|"gemini", baseURL,
//     apiKey, model,
//     headers, proxyURL, browser, demo}; with proxyURL the module's whole
//     model request is POSTed there (`toolroute serve`'s /api/model) and
//     the server adds the key; browser (default true) adds Anthropic's
//     anthropic-dangerous-direct-browser-access header; demo: true (format
//     "openai", no URL) answers with the module's demo model instead, which
//     says in every reply that it is one (model defaults to DEMO_MODEL);
//   settings: {systemPrompt, maxModelCalls, maxTokens, temperature,
//     stream, routing ("classic" or "native": see ABI.md), searchTools (true offers search_tools), toolBudget (tokens of tool schemas per call), contextLimit (the model's window in tokens, for compaction), allowHint (how the user allows a tool that asks when no one can be asked, "{tool}" for its name: see ABI.md)}, in camelCase as every option; the module's snake_case names (system_prompt...) still work; prompt: an async function giving the base system prompt at
//     the start of each turn instead of settings.systemPrompt;
//   memories: the user's memories (save_memory's), an array of texts or a
//     function (sync or async) giving them each turn: the module lists them
//     in the system prompt;
//   store: {messages(id), append(id, messages)}, sync or async; a new
//     MemoryStore by default;
//   runJS: a Runner (toolroute/jsrun), readied (Runner.warm) as the host
//     starts when the catalogue has JS tools, or async (call) => {status,
//     output, error_type, message, logs}, called with {tool, sourceRef, source, function, params, env,
//     timeoutMs, google, signal}, as web/jsrun's Runner.call takes; signal
//     is the turn's (send's options.signal), so a canceled turn stops it;
//   native: {name: async (input, {signal, granted, check, progress,
//     callId}) => string}: host-native tools (granted: the secrets the
//     user granted the call at approval; progress(): the work goes on, so
//     the call's timeout starts again; callId: the model's id of the
//     call);
//     a thrown error is a failure the model reads, with error.type (or
//     error.error_type) as its error type;
//   env: the variables JS tools may read (each only those its manifest
//     declares): an object or a function(name);
//   approve: async (sessionId, calls, {signal}) => [{id, answer: "once" |
//     "session" | "deny", grant}]: asks the user before tools that act on the
//     world run (the "approval" event shows the calls first); without it
//     such calls are refused with how to allow them;
//   policies: the user's rules, [{tool | group, decision: "ask" | "allow" |
//     "deny"}], or a function (sync or async) giving them each turn;
//   secrets: the values that must never leave the host ([{name, value}],
//     or a function, sync or async, giving them now): each is replaced by
//     "[redacted NAME]" in tool results, stored messages and model requests;
//   ops: the toolroute bridge's operations this host serves, {"memories.save":
//     async (args, {signal}) => value, ...}: the built-in tools' view of the
//     host's storage (docs/design/builtin-tools.md); a JS tool reaches those
//     whose namespace (before the dot) its manifest lists in
//     requiredPermissions;
//   showConsole: the module adds JS tools' console output to successful
//     results too (settings.show_console);
//   fetch: the fetch to use (globalThis.fetch by default);
//   now: () => Date, the clock stamped on the log;
//   retries: {count (3; negative for none), backoffMs (1000), maxBackoffMs
//     (60000), sleep: (ms, signal) => Promise}: the policy the module
//     applies to a failed model call (model_error's retries), the host
//     sleeping as its retry action says; proxied calls are not tried
//     again, the proxy's own provider retries;
//   wordVectors: the word vector table search_tools ranks with (the
//     package's wordvec.bin: bytes, or a function, sync or async, giving
//     them, called once), handed to every module instance the host makes;
//     without it search_tools finds only tools sharing a word with the query;
//   maxParallelTools: how many tool calls run at once in all sessions (4):
//     the others wait their turn, their timeout starting when they run. A
//     JS call may take its memory limit, so this bounds the host's memory;
//   recycleMemory: the memory in bytes past which an instance the module
//     function made is replaced with a new one (RECYCLE_MEMORY, 256 MiB, as
//     wasm/ABI.md says): its memory never shrinks. The turns open on it
//     end there; the sessions it kept send their whole log to the next.
export async function createHost(options = {}) {
  const host = new Host(options);
  await host.init();
  return host;
}

// Host runs sessions' turns on one module instance. Its methods may be
// called while turns are running: driver calls are synchronous, so the
// instance is never called by two callers at once.
export class Host {
  #o;
  #factory = null;
  #inst = null;
  #catalogue;
  #generation = 0;
  #report = null;
  #locks = new Map();
  // kept is, by session, the state of its log the instance keeps (the
  // last turn's cache action): {inst, fingerprint, messages}.
  #kept = new Map();
  #slots; // tool calls that may still start
  #waiting = []; // calls waiting for a slot, first come first served
  #recycleMemory;
  #making = null; // the instance being made, while it is
  #typed; // options.tools as catalogue entries (tools.js)
  #warmJS; // readies a Runner given as runJS, once

  constructor(options) {
    const p = options.provider ?? {};
    if (!FORMATS.includes(p.format)) {
      throw new Error(`host: provider.format must be one of ${FORMATS.map((f) => JSON.stringify(f)).join(", ")}, not ${JSON.stringify(p.format)}`);
    }
    if (p.demo && p.format !== "openai") throw new Error(`host: the demo model speaks format "openai", not ${JSON.stringify(p.format)}`);
    if (!p.proxyURL && !p.baseURL && !p.demo) {
      throw new Error("host: provider.baseURL (or provider.proxyURL) is required: it is where the model calls go");
    }
    if (!options.module) throw new Error("host: options.module is required: a driver instance or a function making one");
    this.#typed = typedCatalogue(options.tools);
    this.#o = { ...options, native: nativeWith(options.native, this.#typed), settings: moduleNames(options.settings), runJS: runJSOf(options.runJS, "host") };
    // A catalogue with JS tools: a Runner starts loading QuickJS now, in
    // Node in a thread of its own, beside the module's start.
    this.#warmJS = warmOf(options.runJS);
    if (hasJS(options.catalogue)) this.#warmJS();
    this.store = options.store ?? new MemoryStore();
    this.#catalogue = options.catalogue ?? {};
    if (typeof options.module === "function") this.#factory = options.module;
    else this.#inst = options.module;
    this.fetch = options.fetch ?? ((...a) => globalThis.fetch(...a));
    this.now = options.now ?? (() => new Date());
    const r = options.retries ?? {};
    this.#slots = options.maxParallelTools > 0 ? Math.floor(options.maxParallelTools) : DEFAULT_MAX_PARALLEL_TOOLS;
    this.#recycleMemory = options.recycleMemory > 0 ? options.recycleMemory : RECYCLE_MEMORY;
    this.retries = {
      count: r.count === undefined || r.count === 0 ? 3 : Math.max(r.count, 0),
      backoffMs: r.backoffMs > 0 ? r.backoffMs : 1000,
      maxBackoffMs: r.maxBackoffMs > 0 ? r.maxBackoffMs : 60_000,
      sleep: r.sleep ?? sleep,
    };
  }

  async init() {
    const given = this.#inst;
    const inst = await this.#instance();
    if (given) {
      await this.#giveVectors(given);
      // A given instance gets the catalogue here, a made one as it is made;
      // one given already loaded, with no catalogue or tools, is kept so.
      if (this.#o.catalogue !== undefined || this.#typed.tools.length || this.#typed.groups.length) this.#report = given.load(this.#offered(this.#catalogue));
    }
    // A typed tool the module refused is a bug in the app's code: say so now.
    if (this.#typed.tools.length || this.#typed.groups.length) {
      const refused = refusedTyped(this.#typed, inst.describe({}), this.#report);
      if (refused) throw refused;
    }
  }

  #vectors = null;

  // #giveVectors hands inst the word vector table, if the host has one. A
  // table that cannot be had or read leaves search to shared words, with a
  // warning: the host works on without it.
  async #giveVectors(inst) {
    const v = this.#o.wordVectors;
    if (!v) return;
    this.#vectors ??= (async () => (typeof v === "function" ? v() : v))();
    try {
      inst.wordVectors(await this.#vectors);
    } catch (err) {
      console.warn(`host: search_tools ranks by shared words alone: the word vectors could not be given to the module: ${err.message}`);
    }
  }

  // report is what loading the catalogue did (toolroute_load's answer).
  get report() {
    return this.#report;
  }

  get provider() {
    return this.#o.provider;
  }

  // load hands the module a new catalogue (a tool created or deleted). A
  // running turn uses it from its next model call after a tool call (the
  // reload event); others, from their next turn.
  async load(catalogue, sources) {
    this.#catalogue = catalogue;
    if (hasJS(catalogue)) this.#warmJS();
    if (sources !== undefined) this.#o = { ...this.#o, sources };
    this.#generation++;
    const inst = await this.#instance();
    this.#report = inst.load(this.#offered(catalogue));
    return this.#report;
  }

  // #offered is catalogue with the typed tools (options.tools) after its
  // own, without the built-in tools that run only where
  // the host serves an operation (create_agent: agents.run), when it does
  // not: it never offers a tool that then fails (the Go host's needsOps).
  #offered(given) {
    const catalogue = withTyped(given, this.#typed);
    const ops = this.#o.ops ?? {};
    const drop = Object.entries(NEEDS_OPS).filter(([, op]) => typeof ops[op] !== "function").map(([file]) => file);
    if (!drop.length || !catalogue?.manifests) return catalogue;
    return { ...catalogue, manifests: catalogue.manifests.filter((m) => !drop.includes(m.file)) };
  }

  // #instance is the instance new calls go to: a new one in place of one
  // that trapped, or whose memory passed recycleMemory (wasm/ABI.md's
  // Lifecycle), when the host can make one. The turns open on the old
  // instance end there, and it goes once they have; the sessions it kept
  // are forgotten, so their next turns send the whole log (Sessions).
  async #instance() {
    const cur = this.#inst;
    const over = cur && this.#factory && cur.memorySize > this.#recycleMemory;
    if (cur && !cur.broken && !over) return cur;
    if (!this.#factory) {
      if (cur) throw new Error(`host: the module instance is dead and no factory was given to replace it: ${cur.broken.message}`);
      throw new Error("host: no module instance");
    }
    // One replacement for the calls that find the instance gone at once.
    this.#making ??= (async () => {
      const inst = await this.#factory();
      await this.#giveVectors(inst);
      this.#report = inst.load(this.#offered(this.#catalogue));
      if (cur) {
        for (const [id, k] of this.#kept) if (k.inst === cur) this.#kept.delete(id);
      }
      this.#inst = inst;
      return inst;
    })().finally(() => (this.#making = null));
    return this.#making;
  }

  // messages returns a session's log.
  async messages(sessionId) {
    return this.store.messages(sessionId);
  }

  // describe returns the catalogue for display, with the tools a session's
  // next model call would send (when sessionId is given).
  // With options.toolsJSON, tools_json gives the active and all tools'
  // schemas as a model call sends them, for a token meter.
  async describe(sessionId, options = {}) {
    const history = sessionId ? await this.store.messages(sessionId) : [];
    const system_prompt = await this.#basePrompt();
    const memories = await this.#memories();
    const s = this.#o.settings ?? {};
    // A session's agent sees its own prompt, only its groups and its tool
    // budget.
    const agent = moduleNames(sessionId && typeof this.#o.agentOf === "function" ? await this.#o.agentOf(sessionId) : null);
    const budget = agent?.tool_budget > 0 ? agent.tool_budget : s.tool_budget > 0 ? s.tool_budget : 0;
    // Asked with the turn's format, routing and search_tools, the active
    // list has search_tools where a turn offers it.
    const turn = s.search_tools || budget > 0
      ? { format: this.#o.provider?.format || "openai", routing: s.routing || "classic", search_tools: !!s.search_tools, tool_budget: budget }
      : {};
    return (await this.#instance()).describe({
      system_prompt: agent?.system_prompt || system_prompt, history, ...(memories.length ? { memories } : {}), ...(options.toolsJSON ? { tools_json: true } : {}), ...turn,
      ...(agent?.groups?.length ? { allowed_groups: agent.groups } : {}),
    });
  }

  // op serves one toolroute bridge operation for call c: only namespaces its
  // manifest lists in requiredPermissions, as the Go host's opsFor.
  async op(c, op, args, { signal, turn } = {}) {
    // Only the namespaces the manifest lists: the module's rule (bridge_op).
    const allowed = await this.check("bridge_op", { op: String(op), tool: String(c.tool ?? ""), required_permissions: c.required_permissions ?? [] });
    if (allowed?.error) throw new Error(allowed.error.message);
    const f = this.#o.ops?.[op];
    if (typeof f !== "function" || !Object.hasOwn(this.#o.ops, op)) throw new Error(`toolroute.${op}: this host does not offer it`);
    // granted: what the user granted the call at approval (toolfiles.write
    // keeps it in a created tool's manifest).
    // turn: the calling turn's place among agents (agents.run nests a
    // sub-agent's turn in it): {depth, askAs, relay, unattended}.
    // check: the module's argument checks the operation asks before its
    // I/O (checks.js).
    return f(args ?? {}, { signal, granted: c.granted ?? [], turn, check: (o, a) => this.check(o, a) });
  }

  // check asks the module whether an operation's arguments pass
  // (wasm/ABI.md, "toolroute_check"): {}, {args} to use instead, or
  // {error: {type, message}}. Any instance answers.
  async check(op, args) {
    return (await this.#instance()).check({ op, args });
  }

  // checkNow is check answered at once, by the instance the host holds:
  // the JS runner's bridges (fs, lib, _time) answer QuickJS synchronously
  // (web/packages/toolroute/jsrun/words.js). A tool runs within a turn, which holds one.
  checkNow(op, args) {
    const inst = this.#inst;
    if (!inst || inst.broken) throw new Error(`host: no live module instance to ask (${op}): ${inst?.broken?.message ?? "none was made yet"}`);
    return inst.check({ op, args });
  }

  // demo answers a model request's body as the module's demo model does.
  async demo(body) {
    return (await this.#instance()).demo(typeof body === "string" ? body : JSON.stringify(body));
  }

  async #memories() {
    const m = typeof this.#o.memories === "function" ? await this.#o.memories() : this.#o.memories;
    return Array.isArray(m) ? m.map(String) : [];
  }

  async #basePrompt() {
    if (this.#o.prompt) return this.#o.prompt();
    return this.#o.settings?.system_prompt ?? "";
  }

  // send runs one turn and yields its events, as the Go host's Event JSON:
  // {type: "text", text}, {type: "message", message}, {type: "model_call",
  // tools}, {type: "tool_calls", calls}, {type: "group_loaded", group},
  // {type: "retry", retry: {status, attempt, wait (ns), wait_ms}}, and last
  // {type: "done", text, usage} or {type: "failed", failure, usage}. Each
  // message is committed to the store before the turn goes on. A host
  // failure (the store, the module) is thrown; so is options.signal's
  // reason when it aborts the turn, which keeps every message committed.
  // options.unattended: no one is there to answer approval questions.
  // options.agent: {system_prompt, model, groups, max_model_calls,
  // max_turn_tokens}, who the turn is (a sub-agent's, create_agent);
  // without it, the host's agentOf option (async (sessionId) => agent or
  // null) says, for a session started with an agent. options.parent: the
  // turn info an op got (agents.run), making this turn a sub-agent nested
  // in that one: one level deeper, its questions asked under the outermost
  // session and its approval events also among that turn's events.
  // options.attachments: [{name, data}] (the file's bytes in base64) or
  // [{name, text}], files attached to the message (wasm/ABI.md,
  // Attachments): the start is refused, and nothing logged, over any the
  // module cannot send.
  // Turns of one session run one at a time.
  async *send(sessionId, text, options = {}) {
    yield* this.#turn(sessionId, text, false, options);
  }

  // cutOff ends in the log a turn of the session cut off with no turn
  // left to feed (a page reloaded or closed mid-turn, a worker ended
  // after Stop): the module's turn_cut says what the log keeps, given the
  // text streamed of its reply (text) and whether the user had stopped it.
  // It appends nothing to a log whose turn ended. Returns what it appended.
  async cutOff(sessionId, text, stopped = false) {
    const release = await this.#lock(sessionId);
    try {
      const log = await this.store.messages(sessionId);
      const r = await this.check("turn_cut", { text: String(text ?? ""), last: log.at(-1)?.type ?? "", stopped: !!stopped });
      const msgs = r?.args?.messages ?? [];
      if (msgs.length === 0) return [];
      for (const m of msgs) m.time = this.now().toISOString();
      (await this.redactor()).messages(msgs);
      await this.store.append(sessionId, msgs);
      return msgs;
    } finally {
      release();
    }
  }

  // compact summarises the session's earlier messages now (a chat's
  // /compact) and yields the events of that one-call turn: a message with
  // the summary, then done (what was compacted) or failed. The store keeps
  // every message; later calls send the summary in their place.
  async *compact(sessionId, options = {}) {
    yield* this.#turn(sessionId, "", true, options);
  }

  async *#turn(sessionId, text, compact, options) {
    const signal = options.signal;
    const release = await this.#lock(sessionId);
    let inst, handle;
    try {
      signal?.throwIfAborted();
      inst = await this.#instance();
      handle = inst.turnNew();
      const t = new Turn(this, this.#o, inst, handle, sessionId, signal, this.#generation, options.parent);
      const s = this.#o.settings ?? {};
      const settings = {
        format: this.#o.provider.format,
        // The demo model needs no name of the caller's: it has one.
        model: this.#o.provider.model || (this.#o.provider.demo ? DEMO_MODEL : undefined),
        system_prompt: await this.#basePrompt(),
      };
      for (const k of ["max_model_calls", "max_tokens", "temperature", "stream", "routing", "search_tools", "tool_budget", "context_limit", "allow_hint"]) {
        if (s[k] !== undefined) settings[k] = s[k];
      }
      // An unattended turn (a scheduled task's) has no one to answer: a
      // tool that asks is refused as when the host has no approve.
      const unattended = !!(options.unattended || options.parent?.unattended);
      if (typeof this.#o.approve === "function" && !unattended) settings.approvals = true;
      if (unattended) settings.unattended = true;
      // The module adds a JS call's console output to a success too.
      if (this.#o.showConsole) settings.show_console = true;
      const agent = moduleNames(options.agent ?? (typeof this.#o.agentOf === "function" ? await this.#o.agentOf(sessionId) : null));
      if (agent) {
        if (agent.system_prompt) settings.system_prompt = String(agent.system_prompt);
        if (agent.model) settings.model = String(agent.model);
        if (agent.groups?.length) settings.allowed_groups = agent.groups.map(String);
        if (agent.max_model_calls > 0) settings.max_model_calls = agent.max_model_calls;
        if (agent.max_turn_tokens > 0) settings.max_turn_tokens = agent.max_turn_tokens;
        if (agent.tool_budget > 0) settings.tool_budget = agent.tool_budget;
      }
      const memories = await this.#memories();
      if (memories.length) settings.memories = memories;
      const policies = typeof this.#o.policies === "function" ? await this.#o.policies() : this.#o.policies;
      if (policies?.length) settings.policies = policies;
      // The instance that ran the session's last turn keeps its state:
      // then only the messages logged since go with the fingerprint it
      // handed out, and the whole history only if it asks for it.
      const start = compact ? { type: "start", now: t.stamp(), compact: true, settings, session: sessionId } : { type: "start", now: t.stamp(), user: text, settings, session: sessionId };
      // Files attached to the message, as the module takes them: it tells
      // what each is and refuses what it cannot send (wasm/ABI.md).
      if (!compact && options.attachments?.length) start.attachments = options.attachments;
      const kept = this.#kept.get(sessionId);
      this.#kept.delete(sessionId);
      let acts = null;
      const since = kept?.inst === inst ? await this.#since(sessionId, kept.messages) : null;
      if (since) {
        acts = t.event({ ...start, history: since, fingerprint: kept.fingerprint });
        if (acts.length === 1 && acts[0].type === "need_history") acts = null;
      }
      acts ??= t.event({ ...start, history: await this.store.messages(sessionId) });
      try {
        for (;;) {
          const next = yield* t.perform(acts);
          if (!next) break;
          signal?.throwIfAborted();
          if (next.type === "call_model") acts = yield* t.callModel(next.request);
          else if (next.type === "ask_approval") acts = yield* t.askApproval(next.calls);
          else acts = yield* t.runTools(next.calls);
          if (!acts) break;
        }
      } catch (err) {
        // Stopped: the module logs what the user saw of the turn (the
        // reply streamed so far, and that it was stopped), so that the
        // next turn and a reload see it.
        if (signal?.aborted && !t.over && !inst.broken) await t.stop();
        throw err;
      }
    } finally {
      if (inst && handle && !inst.broken) inst.turnFree(handle);
      release();
    }
  }

  get generation() {
    return this.#generation;
  }

  // #since reads a session's messages after the first n: with the store's
  // messagesFrom when it has one, else from the whole log; null when the
  // log holds fewer (it is not the one the instance kept).
  async #since(id, n) {
    if (typeof this.store.messagesFrom === "function") {
      const r = await this.store.messagesFrom(id, n);
      return r.total >= n ? r.messages : null;
    }
    const all = await this.store.messages(id);
    return all.length >= n ? all.slice(n) : null;
  }

  // keep records the state of a session's log that inst keeps, from a
  // turn's cache action.
  keep(sessionId, inst, cache) {
    this.#kept.delete(sessionId);
    // An instance replaced while the turn ran keeps nothing for anyone.
    if (inst !== this.#inst) return;
    this.#kept.set(sessionId, { inst, fingerprint: cache.fingerprint, messages: cache.messages });
    // Instances keep at most 64 sessions; remembering more is useless.
    if (this.#kept.size > 4096) this.#kept.delete(this.#kept.keys().next().value);
  }

  // source gives a JS tool's source text by reference.
  async source(ref) {
    const s = this.#o.sources;
    if (!s) return undefined;
    if (typeof s === "function") return s(ref);
    if (s instanceof Map) return s.get(ref);
    return Object.hasOwn(s, ref) ? s[ref] : undefined;
  }

  // redactor is a Redactor of the secrets known now, the provider's key
  // among them whether or not options.secrets lists it.
  async redactor() {
    const s = this.#o.secrets;
    const known = typeof s === "function" ? await s() : s ?? [];
    const key = this.#o.provider?.apiKey;
    return new Redactor(key ? [...known, { name: "the provider's key", value: key }] : known);
  }

  envFor(names) {
    const e = this.#o.env;
    const out = {};
    for (const name of names ?? []) {
      const v = typeof e === "function" ? e(name) : e && Object.hasOwn(e, name) ? e[name] : undefined;
      if (v !== undefined && v !== null) out[name] = String(v);
    }
    return out;
  }

  // slot waits for one of the tool calls that may run at once and gives the
  // function that frees it, or null when signal aborts first.
  slot(signal) {
    const release = () => {
      const next = this.#waiting.shift();
      if (next) next();
      else this.#slots++;
    };
    if (signal?.aborted) return Promise.resolve(null);
    if (this.#slots > 0) {
      this.#slots--;
      return Promise.resolve(once(release));
    }
    return new Promise((resolve) => {
      const mine = () => {
        signal?.removeEventListener("abort", onAbort);
        resolve(once(release));
      };
      const onAbort = () => {
        const i = this.#waiting.indexOf(mine);
        if (i >= 0) this.#waiting.splice(i, 1);
        resolve(null);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#waiting.push(mine);
    });
  }

  async #lock(id) {
    const prev = this.#locks.get(id) ?? Promise.resolve();
    let release;
    const mine = new Promise((r) => (release = r));
    const chain = prev.then(() => mine);
    this.#locks.set(id, chain);
    await prev;
    return () => {
      release();
      if (this.#locks.get(id) === chain) this.#locks.delete(id);
    };
  }
}

// Turn is one turn in progress on a module instance.
class Turn {
  over = false;

  constructor(host, options, inst, handle, sessionId, signal, generation, parent) {
    this.h = host;
    this.o = options;
    this.inst = inst;
    this.handle = handle;
    this.id = sessionId;
    this.signal = signal;
    this.generation = generation;
    // relayed are sub-agents' approval events waiting to be yielded among
    // this turn's (the outermost one's); wake wakes runTools for them.
    this.relayed = [];
    this.wake = null;
    this.nested = !!parent;
    // info is what this turn's ops know of it (agents.run).
    this.info = {
      depth: parent ? parent.depth + 1 : 0,
      askAs: parent?.askAs ?? sessionId,
      unattended: !!parent?.unattended,
      relay: parent?.relay ?? ((ev) => {
        this.relayed.push(ev);
        this.wake?.();
      }),
    };
  }

  stamp() {
    return this.h.now().toISOString();
  }

  // stop feeds the module a stop event and stores the messages it logs,
  // redacted as every message is; on an error the turn's own is the one
  // thrown, and what the stop would have logged is all that is lost.
  async stop() {
    try {
      for (const a of this.event({ type: "stop", now: this.stamp() })) {
        if (a.type !== "append") continue;
        (await this.h.redactor()).messages(a.messages);
        await this.h.store.append(this.id, a.messages);
      }
    } catch {}
  }

  event(ev) {
    try {
      return this.inst.turnEvent(this.handle, ev);
    } catch (err) {
      if (err instanceof TrapError) throw err;
      // A message the module refused before the turn began (a file it
      // cannot send): its sentence alone, for the user to change and send
      // again; nothing was logged.
      if (ev.type === "start" && err.code === "bad_event") {
        throw Object.assign(new Error(err.message.replace(/^session: bad event: start: /, ""), { cause: err }), { refused: true });
      }
      throw new Error(`host: the module refused a ${ev.type} event: ${err.message}`, { cause: err });
    }
  }

  // perform carries out every action but the last call_model or run_tools,
  // which it returns for the caller to perform.
  async *perform(acts) {
    for (const a of acts) {
      switch (a.type) {
        case "append":
          // A message redacted is not what the module keeps: its state of
          // the session must not be used.
          if ((await this.h.redactor()).messages(a.messages)) this.redacted = true;
          try {
            await this.h.store.append(this.id, a.messages);
          } catch (err) {
            throw new Error(`host: storing messages of session ${JSON.stringify(this.id)}: ${err.message}`, { cause: err });
          }
          for (const m of a.messages) yield { type: "message", message: m };
          break;
        case "text_delta":
          yield { type: "text", text: a.text };
          break;
        case "group_loaded":
          yield { type: "group_loaded", group: a.group };
          break;
        case "done":
          this.over = true;
          yield withUsage({ type: "done", text: a.text ?? "" }, a.usage);
          break;
        case "failed":
          this.over = true;
          // A failure quotes what the provider answered, which may echo
          // the key it was sent.
          yield withUsage({ type: "failed", failure: a.error && { ...a.error, message: (await this.h.redactor()).text(a.error.message ?? "") } }, a.usage);
          break;
        case "cache":
          if (!this.redacted) this.h.keep(this.id, this.inst, a.cache);
          break;
        case "call_model":
        case "run_tools":
        case "ask_approval":
          return a;
        default: // ABI.md: hosts ignore actions they do not know
      }
    }
    return null;
  }

  // callModel makes a model call and feeds the module its response:
  // streamed bodies chunk by chunk, as they arrive.
  async *callModel(req) {
    // The module hands the body out apart from the action, raw.
    const body = this.inst.turnBody(this.handle);
    if (!body) throw new Error("host: the module gave no request body for the model call");
    req = { ...req, body: decoder.decode(body) };
    yield { type: "model_call", tools: req.tools ?? [], call: req.call, routing: req.routing, schema: req.schema };
    let resp;
    // The module decides whether a failed call is tried again (its retry
    // action): the host waits as it says and sends the same body. A
    // proxied call is tried again with the policy the proxy answers with
    // (its Toolroute-Retries header), the proxy sending each call once.
    const { count, backoffMs, maxBackoffMs, sleep } = this.h.retries;
    const p = this.o.provider;
    const own = p.proxyURL || p.demo ? null : { count, backoff_ms: Math.ceil(backoffMs), max_backoff_ms: Math.ceil(maxBackoffMs) };
    for (;;) {
      try {
        resp = await this.post(req);
      } catch (err) {
        if (this.signal?.aborted) throw this.signal.reason;
        return this.event({ type: "model_error", now: this.stamp(), error: unreachable(this.o.provider, req, err) });
      }
      if (resp.status >= 200 && resp.status <= 299) break;
      const body = ((await readText(resp, this.signal, MAX_ERROR_BODY).catch(() => "")) ?? "").slice(0, MAX_ERROR_BODY);
      const ev = { type: "model_error", now: this.stamp(), status: resp.status, body: (await this.h.redactor()).text(body) };
      const after = resp.headers.get("retry-after");
      if (after !== null) ev.retry_after = after;
      const retries = p.proxyURL ? proxyRetries(resp) : own;
      if (retries) ev.retries = retries;
      const acts = this.event(ev);
      const retry = acts.length === 1 && acts[0].type === "retry" ? acts[0].retry : null;
      if (!retry) return acts;
      yield { type: "retry", retry: { status: retry.status, attempt: retry.attempt, wait: retry.wait_ms * 1e6, wait_ms: retry.wait_ms, message: retry.message } };
      await sleep(retry.wait_ms, this.signal);
      this.signal?.throwIfAborted();
    }
    const tooLarge = () => this.event({ type: "model_error", now: this.stamp(), error: `the response is over ${MAX_RESPONSE_BODY} bytes` });
    if (!isEventStream(resp) || !resp.body) {
      let body;
      try {
        body = await readText(resp, this.signal, MAX_RESPONSE_BODY);
      } catch (err) {
        if (this.signal?.aborted) throw this.signal.reason;
        return this.event({ type: "model_error", now: this.stamp(), error: "reading the response: " + err.message });
      }
      if (body === null) return tooLarge();
      return this.event({ type: "response", now: this.stamp(), body });
    }
    const reader = resp.body.getReader();
    let read = 0;
    try {
      for (;;) {
        let r;
        try {
          r = await reader.read();
        } catch (err) {
          if (this.signal?.aborted) throw this.signal.reason;
          return this.event({ type: "model_error", now: this.stamp(), error: "the stream broke: " + err.message });
        }
        if (r.done) return this.event({ type: "stream_end", now: this.stamp() });
        if (r.value.length === 0) continue;
        if ((read += r.value.length) > MAX_RESPONSE_BODY) return tooLarge();
        let acts;
        try {
          acts = this.inst.turnChunk(this.handle, r.value);
        } catch (err) {
          if (err instanceof TrapError) throw err;
          throw new Error(`host: the module refused a chunk: ${err.message}`, { cause: err });
        }
        yield* this.perform(acts);
        if (this.over) return null;
      }
    } finally {
      reader.cancel().catch(() => {});
    }
  }

  // post sends the request once, redacted: the module decides retries.
  async post(req) {
    const red = await this.h.redactor();
    const body = red.text(typeof req.body === "string" ? req.body : JSON.stringify(req.body));
    req = { ...req, body };
    if (this.o.provider.demo) {
      // The demo answers whole, streamed or not, as the Go host's does.
      return new Response(JSON.stringify(this.inst.demo(body)), { status: 200, headers: { "content-type": "application/json" } });
    }
    return this.h.fetch(...this.request(req));
  }

  // request gives fetch's arguments for a model request.
  request(req) {
    return modelRequest(this.o.provider, req, this.signal);
  }

  // askApproval puts calls to the user (options.approve) and feeds the
  // answers; a call left unanswered is denied.
  async *askApproval(calls) {
    yield { type: "approval", calls };
    if (this.nested) this.info.relay({ type: "approval", calls });
    const answers = await this.o.approve(this.info.askAs, calls, { signal: this.signal });
    this.signal?.throwIfAborted();
    const given = new Map((answers ?? []).map((a) => [a.id, a]));
    const approvals = calls.map((c) => {
      const a = given.get(c.id);
      if (a?.answer !== "once" && a?.answer !== "session") return { id: c.id, answer: "deny" };
      // grant: the secrets the user lets the call read, of its secrets.
      const grant = Array.isArray(a.grant) ? a.grant.filter((g) => (c.secrets ?? []).includes(g)) : [];
      return grant.length ? { id: c.id, answer: a.answer, grant } : { id: c.id, answer: a.answer };
    });
    return this.event({ type: "approval", now: this.stamp(), approvals });
  }

  // runTools runs a response's calls in parallel and feeds each result as
  // it finishes, so each is committed as soon as it is known.
  async *runTools(calls) {
    yield { type: "tool_calls", calls };
    const done = [];
    for (const c of calls) {
      this.run(c).then((r) => {
        done.push(r);
        this.wake?.();
      });
    }
    let aborted = null;
    const onAbort = () => {
      aborted = this.signal.reason;
      this.wake?.();
    };
    this.signal?.addEventListener("abort", onAbort, { once: true });
    let next = null;
    try {
      for (let n = 0; n < calls.length; ) {
        while (done.length === 0 && !aborted && this.relayed.length === 0) {
          await new Promise((resolve) => (this.wake = resolve));
          this.wake = null;
        }
        this.signal?.throwIfAborted();
        // A sub-agent's question, while its create_agent call runs.
        while (this.relayed.length) yield this.relayed.shift();
        if (done.length === 0) continue;
        n++;
        const r = done.shift();
        // A tool that changed the catalogue (create_js_tool, say) makes the
        // next model call offer the new tools.
        if (this.h.generation !== this.generation) {
          this.generation = this.h.generation;
          this.event({ type: "reload" });
        }
        const acts = this.event({ type: "tool_results", now: this.stamp(), results: [r] });
        const a = yield* this.perform(acts);
        if (a) next = a;
      }
    } finally {
      this.signal?.removeEventListener("abort", onAbort);
    }
    return next ? [next] : [];
  }

  // run performs one call the module asked for, when one of the host's
  // slots for tool calls is free, and gives its result with the known
  // secrets redacted, its console lines too: the module then adds them
  // and cuts the result at MAX_RESULT_CHARS (a cut must not leave half a
  // secret).
  async run(c) {
    // A sub-agent's calls run in the slot of the create_agent call that
    // started it: slots of their own would deadlock once the outer calls
    // held them all.
    const release = this.nested ? () => {} : await this.h.slot(this.signal);
    if (!release) {
      return { id: c.id, status: "error", error_type: "canceled", message: `tool '${c.tool}' was canceled before it ran` };
    }
    let r;
    try {
      r = await this.runCall(c);
    } finally {
      release();
    }
    const red = await this.h.redactor();
    const out = red.result(r);
    return r.console ? { ...out, console: r.console.map((l) => red.text(l)) } : out;
  }

  async runCall(c) {
    const fail = (type, message) => ({ id: c.id, status: "error", error_type: type, message });
    const seconds = c.timeout_seconds > 0 ? c.timeout_seconds : 30;
    try {
      switch (c.origin?.kind) {
        case "host": {
          const fn = this.o.native?.[c.tool];
          if (typeof fn !== "function") return fail("execution_error", `the host has no implementation of tool '${c.tool}'`);
          const ctl = new AbortController();
          const onAbort = () => ctl.abort(this.signal.reason);
          this.signal?.addEventListener("abort", onAbort, { once: true });
          let timer, arm;
          const timeout = new Promise((resolve) => {
            arm = () => {
              clearTimeout(timer);
              timer = setTimeout(() => {
                ctl.abort(new Error("timeout"));
                resolve(fail("timeout", `tool '${c.tool}' timed out after ${seconds}s`));
              }, seconds * 1000);
            };
            arm();
          });
          // progress: the tool reports that its work goes on (an MCP
          // server's progress), so its time starts again; what it says of
          // it goes out among the turn's events, for the call's card.
          const progress = (p) => {
            if (ctl.signal.aborted) return;
            arm();
            if (typeof p?.progress !== "number" || !Number.isFinite(p.progress)) return;
            this.info.relay({ type: "progress", call_id: c.id, progress: p.progress, ...(p.total > 0 ? { total: Number(p.total) } : {}), ...(p.message ? { message: String(p.message) } : {}) });
          };
          const work = (async () => {
            try {
              const out = await fn(c.input ?? {}, { signal: ctl.signal, granted: c.granted ?? [], check: (op, args) => this.h.checkNow(op, args), progress, callId: c.id });
              if (out?.[OUTPUT]) return { id: c.id, status: "success", output: String(out.text ?? ""), images: imagesOf(out.images), documents: documentsOf(out.documents), ...askedOf(out.asked) };
              return { id: c.id, status: "success", output: typeof out === "string" ? out : out === undefined ? "" : JSON.stringify(out) };
            } catch (err) {
              return { ...fail(err?.type ?? err?.error_type ?? "execution_error", String(err?.message ?? err)), ...askedOf(err?.asked) };
            }
          })();
          try {
            return await Promise.race([work, timeout]);
          } finally {
            clearTimeout(timer);
            this.signal?.removeEventListener("abort", onAbort);
          }
        }
        case "js": {
          if (!this.o.runJS) return fail("execution_error", `JS tools cannot run here: no JS runner is configured (tool '${c.tool}')`);
          const source = await this.h.source(c.origin.source);
          const out = await this.o.runJS({
            tool: c.tool, sourceRef: c.origin.source, source: source ?? "", function: c.origin.function,
            // granted: the secrets the user granted at approval, added to
            // the manifest's.
            params: c.input ?? {}, env: this.h.envFor([...(c.env ?? []), ...(c.granted ?? []).filter((g) => g !== "google")]),
            timeoutMs: seconds * 1000, signal: this.signal,
            google: (c.required_permissions ?? []).includes("google") || (c.granted ?? []).includes("google"),
            ops: (op, args, opts) => this.h.op(c, op, args, { ...opts, turn: this.info }),
            // check: the module's, which words the bridges' refusals
            // (web/packages/toolroute/jsrun/words.js).
            check: (op, args) => this.h.checkNow(op, args),
          });
          return jsResult(c.id, out);
        }
        default:
          return fail("execution_error", `tool '${c.tool}' has origin ${JSON.stringify(c.origin?.kind ?? "")}, which the host cannot run`);
      }
    } catch (err) {
      return fail("execution_error", `tool '${c.tool}' failed in the host: ${err?.message ?? err}`);
    }
  }
}

// SETTING_NAMES gives, for each camelCase name of a setting or an agent's
// field (the style of every option of the package), the module's
// snake_case name, which the host uses and which callers may still give.
const SETTING_NAMES = {
  systemPrompt: "system_prompt", maxModelCalls: "max_model_calls", maxTokens: "max_tokens", searchTools: "search_tools",
  toolBudget: "tool_budget", contextLimit: "context_limit", allowHint: "allow_hint", maxTurnTokens: "max_turn_tokens",
};

// moduleNames is settings (or an agent) with its camelCase names given
// the module's snake_case ones; a camelCase name wins over its old name.
function moduleNames(o) {
  if (!o || typeof o !== "object") return o;
  const out = { ...o };
  for (const [camel, snake] of Object.entries(SETTING_NAMES)) {
    if (!Object.hasOwn(o, camel)) continue;
    if (o[camel] !== undefined) out[snake] = o[camel];
    delete out[camel];
  }
  return out;
}

// NEEDS_OPS are the built-in manifests that run only where the host serves
// an operation, by file.
const NEEDS_OPS = { "builtin/create_agent.json": "agents.run" };

// OUTPUT marks a native tool's result that carries images (toolOutput).
const OUTPUT = Symbol.for("toolroute.output");

// toolOutput is what a native tool returns for a result with pictures: its
// text, whose placeholders ("[image image/png, 1234 bytes]") name the images
// for the wire formats that carry none, and images [{mime_type, data}]
// (standard base64), which the model sees beside the text where the format
// carries them, and documents [{mime_type, data, name}] (PDFs) likewise;
// asked, the user's answers to an MCP server's questions during the call,
// which the log keeps on the result. The module leaves out, with a note, what a model cannot
// take (wasm/ABI.md, "tool_results").
export function toolOutput(text, images, documents, asked) {
  return { [OUTPUT]: true, text, images, documents, ...(asked?.length ? { asked } : {}) };
}

// askedOf keeps the strings of a native tool's asked (the user's answers
// to its MCP server's questions, which the log keeps on its result).
function askedOf(asked) {
  const out = Array.isArray(asked) ? asked.filter((a) => typeof a === "string") : [];
  return out.length ? { asked: out } : {};
}

// imagesOf keeps the well-formed entries of a native tool's images: the
// module checks their types, data and sizes.
function imagesOf(images) {
  if (!Array.isArray(images)) return undefined;
  const out = images
    .filter((i) => i && typeof i.mime_type === "string" && typeof i.data === "string")
    .map((i) => ({ mime_type: i.mime_type, data: i.data }));
  return out.length > 0 ? out : undefined;
}

// documentsOf keeps the well-formed entries of a native tool's documents
// ([{mime_type, data, name}], PDFs an MCP server embedded): the module
// checks their types, data and sizes.
function documentsOf(docs) {
  if (!Array.isArray(docs)) return undefined;
  const out = docs
    .filter((d) => d && typeof d.mime_type === "string" && typeof d.data === "string")
    .map((d) => (typeof d.name === "string" && d.name !== "" ? { mime_type: d.mime_type, data: d.data, name: d.name } : { mime_type: d.mime_type, data: d.data }));
  return out.length > 0 ? out : undefined;
}

// unreachable says why a model call got no response, naming where it went
// and what to check.
function unreachable(p, req, err) {
  const why = String(err?.message ?? err);
  if (p.proxyURL) return `POST ${p.proxyURL} (the server's model proxy) failed: ${why}: is the server still running?`;
  if (!p.baseURL) return why;
  const url = p.baseURL.replace(/\/+$/, "") + req.path;
  const network = /^(Failed to fetch|fetch failed|NetworkError|Load failed)/i.test(why);
  return network
    ? `POST ${url} failed (${why}): check the base URL and that the provider is up; a provider called from a browser must also allow this page's origin (CORS)`
    : `POST ${url} failed: ${why}`;
}

// modelRequest gives fetch's arguments for a model request the module made
// ({format, path, headers, body, stream}), sent to provider ({baseURL,
// apiKey, headers, browser}, or {proxyURL}: the whole request POSTed there).
// The key goes as each format's API takes it: x-api-key for Anthropic,
// x-goog-api-key for Gemini, a bearer token for OpenAI and the Responses API.
export function modelRequest(p, req, signal) {
  const body = typeof req.body === "string" ? req.body : JSON.stringify(req.body);
  if (p.proxyURL) {
    const whole = { ...req, body: typeof req.body === "string" ? JSON.parse(req.body) : req.body };
    return [p.proxyURL, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(whole), signal }];
  }
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers ?? {})) headers.set(k, v);
  for (const [k, v] of Object.entries(p.headers ?? {})) headers.append(k, v);
  if (p.apiKey) {
    if (req.format === "anthropic") headers.set("x-api-key", p.apiKey);
    else if (req.format === "gemini") headers.set("x-goog-api-key", p.apiKey);
    else headers.set("authorization", "Bearer " + p.apiKey);
  }
  if (req.format === "anthropic" && p.browser !== false) {
    headers.set("anthropic-dangerous-direct-browser-access", "true");
  }
  if (req.stream) headers.set("accept", "text/event-stream");
  const url = p.baseURL.replace(/\/+$/, "") + req.path;
  return [url, { method: "POST", headers, body, signal }];
}

// once wraps f so that only its first call does anything.
function once(f) {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    f();
  };
}

function withUsage(ev, usage) {
  if (usage) ev.usage = usage;
  return ev;
}

// jsResult is a JS call's result for the module, with its console lines
// ("level: text"), which the module adds to what the model reads
// (wasm/ABI.md, "tool_results").
function jsResult(id, out) {
  const res = out?.status === "success"
    ? { id, status: "success", output: out.output ?? "" }
    : { id, status: "error", error_type: out?.error_type || "execution_error", message: out?.message ?? "the JS runner gave no result" };
  const logs = (out?.logs ?? []).map((l) => (typeof l === "string" ? l : `${l.level}: ${l.text}`));
  if (logs.length) res.console = logs;
  return res;
}

function isEventStream(resp) {
  const ct = resp.headers.get("content-type") ?? "";
  return ct.split(";")[0].trim().toLowerCase() === "text/event-stream";
}

// readText reads a body as text, up to max bytes: null past them, when it
// stops reading (a body may not end, or inflate without end).
async function readText(resp, signal, max) {
  signal?.throwIfAborted();
  if (!resp.body) return resp.text();
  const reader = resp.body.getReader();
  const parts = [];
  let n = 0;
  try {
    for (;;) {
      const r = await reader.read();
      if (r.done) break;
      if ((n += r.value.length) > max) return null;
      parts.push(r.value);
    }
  } finally {
    reader.cancel().catch(() => {});
  }
  const all = new Uint8Array(n);
  let at = 0;
  for (const p of parts) {
    all.set(p, at);
    at += p.length;
  }
  return new TextDecoder().decode(all);
}

// RETRIES_HEADER is the header of a model proxy's answer that gives the
// retry policy of its provider, the proxy sending each call once
// (docs/reference/http.md, POST /api/model).
export const RETRIES_HEADER = "toolroute-retries";

// proxyRetries reads a proxy's retry policy, as a model_error event's
// retries: null for none, or for a header that is not one.
function proxyRetries(resp) {
  let r;
  try {
    r = JSON.parse(resp.headers.get(RETRIES_HEADER) ?? "null");
  } catch {
    return null;
  }
  const n = (v) => (Number.isSafeInteger(v) && v >= 0 ? v : undefined);
  if (r === null || typeof r !== "object" || n(r.count) === undefined) return null;
  return { count: r.count, ...(n(r.backoff_ms) ? { backoff_ms: r.backoff_ms } : {}), ...(n(r.max_backoff_ms) ? { max_backoff_ms: r.max_backoff_ms } : {}) };
}

// sleep waits ms, or until signal aborts (rejecting with its reason).
export function sleep(ms, signal) {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
