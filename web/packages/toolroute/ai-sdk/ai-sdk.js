// toolroute/ai-sdk: toolroute's routing for an app that keeps its own Vercel
// AI SDK loop (generateText, streamText, ToolLoopAgent). The app passes a
// session's tools and prepareStep; the module's turn engine (wasm/ABI.md)
// runs alongside the AI SDK's loop, the AI SDK standing in for the model
// provider: each step's response is fed to the module as a model response,
// and the module decides what the hosts' turns decide: which tools the next
// step offers (activeTools) and the system prompt (instructions), the
// arguments of each call (a bad call is refused with the module's text and
// never reaches the tool), load_tool_group, load_skill, search_tools and
// unload_tool_group (run by the module), the tool budget, the user's
// policies, and which calls ask the user first (the AI SDK's own approval
// requests). The router runs only the calls the module lets through: JS
// tools through options.runJS (jsrun's Runner.call), host tools through
// options.native, and gives the model the module's result text.
//
// The module keeps each session's state between its steps and turns (ABI
// "Sessions"), so a step feeds it the step's new messages only, as the
// hosts' turns send the messages logged since their last one, and it
// builds no model request (no_body: the app's loop calls the model). The
// app's messages stay the truth: a session whose state was lost (another
// process, a recycled instance, messages the app changed) starts again
// from them, sending the whole history once.
import { jsonSchema } from "ai";
import { loadToolroute } from "../index.js";
import { RECYCLE_MEMORY } from "../driver/toolroute.js";
import { typedCatalogue, withTyped, nativeWith, refusedTyped, runJSOf, warmOf, hasJS } from "../tools.js";

// createRouter makes a router. options:
//   module: a driver instance (Toolroute) or a function (sync or async)
//     making one; the package's toolroute.wasm by default. With a
//     function, an instance that trapped, or whose memory passed
//     recycleMemory, is replaced (its sessions start again from their
//     messages);
//   tools: host tools as code (tool() and group() from "toolroute"):
//     an array of tools and groups, or an object of them by name; loaded
//     after the catalogue's, each run by its execute;
//   catalogue: the catalogue toolroute_load takes (wasm/ABI.md);
//   sources: JS sources by the manifests' source references: a Map, an
//     object or a function(ref) giving the text (or a promise of it);
//   runJS: the JS tools' runner: a Runner (toolroute/jsrun), or async
//     (call) => {status, output, error_type, message, logs}, as a Runner's
//     call. A Runner is warmed (Runner.warm: QuickJS compiled and loaded)
//     while the model answers a step that offers a JS tool, so that its
//     first call costs what a later one does; a router whose steps offer
//     none never loads QuickJS;
//   native: {name: async (input, {signal, granted, check}) => string}: host
//     tools, as toolroute/host's native (a thrown error is a failure the
//     model reads, error.type its type; signal is aborted, and the call
//     fails, at the tool's timeout_seconds, 30 by default);
//   env: the variables JS tools may read (each only those its manifest
//     declares): an object or a function(name);
//   instructions: the app's own system prompt, before the group listing;
//   memories: texts the module lists in the system prompt, or a function
//     (sync or async) giving them at each turn's start;
//   settings: {searchTools, toolBudget, allowHint, maxModelCalls,
//     allowedGroups}, in camelCase as every option (the module's
//     snake_case names, search_tools..., still work): searchTools offers
//     search_tools, toolBudget is the most tokens of tool schemas a step
//     sends (with unload_tool_group offered), allowHint ends the refusal of
//     a call that asks when no one can be asked, allowedGroups are the
//     groups the conversation sees (wasm/ABI.md, settings); maxModelCalls
//     is 1000 by default, the app's stopWhen ending its loop;
//   policies: the user's rules, [{tool | group, decision: "ask" | "allow"
//     | "deny"}], or a function (sync or async) giving them each turn;
//   approvals: true (the default): a call that asks is put to the user
//     through the AI SDK's tool approval requests; false: no one is asked,
//     and such a call is refused with how to allow it;
//   showConsole: JS tools' console output is added to successful results
//     too (settings.show_console);
//   wordVectors: the word vector table search_tools ranks with (the
//     package's wordvec.bin, loadWordVectors(): bytes, or a function,
//     sync or async, giving them), given to the module only with
//     settings.searchTools on (a function is not called otherwise);
//   recycleMemory: the memory in bytes past which an instance the module
//     function made is replaced (RECYCLE_MEMORY, 256 MiB);
//   now: () => Date, the clock stamped on the module's log;
//   onEvent: (event) => void, told what the module did, as toolroute/host's
//     events: {type: "group_loaded", session, group} and {type: "message",
//     session, message} (each message the module logged).
export async function createRouter(options = {}) {
  // A catalogue with JS tools (manifests) given a Runner: QuickJS starts
  // loading now, in Node in a thread of its own, beside the module's start.
  const warmJS = warmOf(options.runJS);
  if (hasJS(options.catalogue)) warmJS();
  const made = options.module ?? (() => loadToolroute());
  const factory = typeof made === "function" ? made : null;
  const inst = factory ? await factory() : made;
  if (!inst || typeof inst.describe !== "function" || typeof inst.turnEvent !== "function") {
    throw new Error("ai-sdk: options.module must be a Toolroute instance or a function making one");
  }
  const core = new Core(inst, factory, options, warmJS);
  await core.giveVectors(inst);
  core.load(inst);
  return new Router(core);
}

// MAX_SESSIONS is how many sessions a router keeps the state of: an instance
// keeps its 64 most recent sessions' (wasm/ABI.md, Sessions).
const MAX_SESSIONS = 64;

// MODEL is the model the module's turns name: one it knows nothing of, so
// that it never compacts the conversation (the app keeps its messages) nor
// refuses a file for the model it names.
const MODEL = "ai-sdk";

// DEFAULT_SESSION is the session of router.tools and router.prepareStep.
const DEFAULT_SESSION = "default";

// Router holds one module instance loaded with the catalogue, and the
// sessions it routes.
export class Router {
  #core;
  #sessions = new Map();

  constructor(core) {
    this.#core = core;
  }

  // report is what loading the catalogue did (toolroute_load's answer).
  get report() {
    return this.#core.report;
  }

  // session gives the session of a conversation, by the app's id for it
  // (the same object for the same id): its tools and prepareStep go to
  // generateText, streamText or a ToolLoopAgent, one loop of a session at a
  // time. The router keeps the state of its MAX_SESSIONS most recent.
  session(id = DEFAULT_SESSION) {
    id = String(id);
    let s = this.#sessions.get(id);
    if (s) {
      this.#sessions.delete(id);
    } else {
      s = new Session(this.#core, id);
      if (this.#sessions.size >= MAX_SESSIONS) {
        const [oldest, old] = this.#sessions.entries().next().value;
        this.#sessions.delete(oldest);
        old.forget();
      }
    }
    this.#sessions.set(id, s);
    return s;
  }

  // tools and prepareStep are the default session's, for an app with one
  // conversation at a time.
  get tools() {
    return this.session().tools;
  }

  get prepareStep() {
    return this.session().prepareStep;
  }

  // describe is toolroute_describe for a conversation given as AI SDK
  // messages: system_prompt, active, loaded_groups, groups... It reads the
  // whole history: a step's routing is a session's (session.prepareStep).
  describe(messages = []) {
    return this.#core.inst.describe({
      system_prompt: this.#core.o.instructions ?? "",
      memories: Array.isArray(this.#core.o.memories) ? this.#core.o.memories.map(String) : [],
      history: toHistory(messages),
    });
  }

  // loadedGroups are the groups the messages loaded (docs/reference/routing.md).
  loadedGroups(messages = []) {
    return this.describe(messages).loaded_groups ?? [];
  }
}

// Core is what a router's sessions share: the instance, the options, the
// tool definitions and the settings of a turn.
class Core {
  report = null;
  #factory;
  #making = null;
  #vectors = null;
  #prompt = { key: null, text: "" };

  constructor(inst, factory, options, warmJS) {
    this.inst = inst;
    this.#factory = factory;
    // Typed tools (options.tools) load after the catalogue's, their
    // execute functions run as options.native's do.
    this.typed = typedCatalogue(options.tools);
    this.o = { ...options, native: nativeWith(options.native, this.typed), runJS: runJSOf(options.runJS, "ai-sdk") };
    this.warmJS = warmJS;
    this.catalogue = withTyped(options.catalogue ?? {}, this.typed);
    this.recycleMemory = options.recycleMemory > 0 ? options.recycleMemory : RECYCLE_MEMORY;
  }

  // load loads the catalogue into inst and reads the tool definitions the
  // sessions offer the AI SDK: every enabled tool, the meta-tools, and
  // search_tools and unload_tool_group as a turn adds them.
  load(inst) {
    this.report = inst.load(this.catalogue);
    const all = inst.describe({});
    // A typed tool the module refused is a bug in the app's code: say so now.
    const refused = refusedTyped(this.typed, all, this.report);
    if (refused) throw refused;
    const defs = all.tools.filter((t) => t.enabled);
    // The two meta-tools a turn adds by its settings, defined by the
    // module, when the router's settings offer them.
    const s = settingsOf(this.o.settings);
    const extra = s.search_tools || s.tool_budget > 0 ? inst.describe({ format: "openai", search_tools: !!s.search_tools, tool_budget: s.tool_budget > 0 ? 1 : 0, tools_json: true }) : {};
    const active = typeof extra.tools_json?.active === "string" ? JSON.parse(extra.tools_json.active) : extra.tools_json?.active ?? [];
    for (const d of active) {
      const f = d.function ?? {};
      if (!defs.some((t) => t.name === f.name)) defs.push({ name: f.name, description: f.description, parameters: f.parameters, origin: { kind: "meta" } });
    }
    this.defs = defs;
    this.byName = new Map(defs.map((t) => [t.name, t]));
    this.jsTools = new Set(defs.filter((t) => t.origin?.kind === "js").map((t) => t.name));
  }

  // giveVectors hands inst the word vector table, if the router has one
  // and offers search_tools, the one thing that reads it.
  async giveVectors(inst) {
    const v = this.o.wordVectors;
    if (!v || !settingsOf(this.o.settings).search_tools) return;
    this.#vectors ??= (async () => (typeof v === "function" ? v() : v))();
    inst.wordVectors(await this.#vectors);
  }

  // instance is the instance to call now: a new one in place of one that
  // trapped or whose memory passed recycleMemory, when the router can
  // make one. Sessions whose turns were on the old one start again from
  // their messages.
  async instance() {
    const cur = this.inst;
    const over = this.#factory && cur.memorySize > this.recycleMemory;
    if (!cur.broken && !over) return cur;
    if (!this.#factory) throw new Error(`ai-sdk: the module instance is dead and no factory was given to replace it: ${cur.broken.message}`);
    this.#making ??= (async () => {
      const inst = await this.#factory();
      await this.giveVectors(inst);
      this.load(inst);
      this.inst = inst;
      return inst;
    })().finally(() => (this.#making = null));
    return this.#making;
  }

  // settings are a turn's settings (wasm/ABI.md, settings), the memories
  // and policies read now.
  async settings() {
    const o = this.o;
    const s = settingsOf(o.settings);
    const memories = typeof o.memories === "function" ? await o.memories() : o.memories;
    const policies = typeof o.policies === "function" ? await o.policies() : o.policies;
    const out = {
      format: "openai",
      model: MODEL,
      system_prompt: o.instructions ?? "",
      max_model_calls: s.max_model_calls > 0 ? s.max_model_calls : 1000,
      approvals: o.approvals !== false,
      // The app's loop calls its model: the module builds no request, so
      // that a step costs its new messages whatever the conversation's
      // length (a module that does not know the setting builds one).
      no_body: true,
    };
    if (Array.isArray(memories) && memories.length) out.memories = memories.map(String);
    if (Array.isArray(policies) && policies.length) out.policies = policies;
    if (s.search_tools) out.search_tools = true;
    if (s.tool_budget > 0) out.tool_budget = s.tool_budget;
    if (s.allow_hint) out.allow_hint = String(s.allow_hint);
    if (s.allowed_groups?.length) out.allowed_groups = s.allowed_groups.map(String);
    if (o.showConsole) out.show_console = true;
    return out;
  }

  // instructions is the system prompt a turn with these settings sends,
  // the module's (the same on every step: it lists the groups, not what
  // is loaded), asked again only when the settings change it.
  instructions(set) {
    const req = { system_prompt: set.system_prompt, memories: set.memories ?? [], allowed_groups: set.allowed_groups ?? [] };
    const key = JSON.stringify(req);
    if (this.#prompt.key !== key || this.#prompt.inst !== this.inst) {
      this.#prompt = { key, inst: this.inst, text: this.inst.describe(req).system_prompt };
    }
    return this.#prompt.text;
  }

  now() {
    return (this.o.now?.() ?? new Date()).toISOString();
  }

  async source(ref) {
    const s = this.o.sources;
    if (!s) return undefined;
    if (typeof s === "function") return s(ref);
    if (s instanceof Map) return s.get(ref);
    return Object.hasOwn(s, ref) ? s[ref] : undefined;
  }

  envFor(names) {
    const e = this.o.env;
    const out = {};
    for (const name of names ?? []) {
      const v = typeof e === "function" ? e(name) : e && Object.hasOwn(e, name) ? e[name] : undefined;
      if (v !== undefined && v !== null) out[name] = String(v);
    }
    return out;
  }
}

// settingsOf reads the router's settings, each by its camelCase name or
// the module's snake_case one.
function settingsOf(given = {}) {
  const pick = (camel, snake) => given[camel] ?? given[snake];
  return {
    search_tools: pick("searchTools", "search_tools"),
    tool_budget: pick("toolBudget", "tool_budget"),
    allow_hint: pick("allowHint", "allow_hint"),
    max_model_calls: pick("maxModelCalls", "max_model_calls"),
    allowed_groups: pick("allowedGroups", "allowed_groups"),
  };
}

// REBUILD is thrown inside a session when the module's state no longer
// follows the app's messages: the session then starts again from them.
const REBUILD = Symbol("rebuild");

// Session is one conversation: the module turn running alongside the AI
// SDK's loop, and the state the module keeps between its turns.
class Session {
  #core;
  #turn = null;
  // kept is the module's state of the session after its last turn (the
  // cache action): {fingerprint, messages}.
  #kept = null;
  // seen is how many of the app's messages the module has been given, and
  // the last one's key: the next call gives only those after it.
  #seen = { count: 0, key: "" };
  #queue = Promise.resolve();
  #tools = null;

  constructor(core, id) {
    this.#core = core;
    this.id = id;
  }

  // tools are the tools to give the AI SDK: every enabled tool and the
  // meta-tools; prepareStep chooses the active ones.
  get tools() {
    this.#tools ??= this.#makeTools();
    return this.#tools;
  }

  // prepareStep is the AI SDK's prepareStep: the module is given the
  // messages added since it last saw them, and answers with the step's
  // active tools and system prompt. Bound, to pass as it is.
  prepareStep = ({ messages, stepNumber }) => this.#locked(async () => {
    await this.#sync(messages);
    const t = this.#turn;
    if (t.state === "over") {
      throw new Error(t.failure ? `ai-sdk: the turn ended: ${t.failure.message}` : "ai-sdk: the turn is over: the messages end with the model's answer; add the user's next message");
    }
    if (t.state !== "model") {
      throw new Error(`ai-sdk: session ${JSON.stringify(this.id)} is waiting for ${t.state === "approval" ? "the user's answers to its approval requests" : "tool results"} (step ${stepNumber}): run one loop of a session at a time`);
    }
    t.step = { open: true, calls: [] };
    const activeTools = t.tools.filter((n) => Object.hasOwn(this.tools, n));
    // A step that offers a JS tool readies the runner while the model
    // answers (its first call would otherwise load QuickJS).
    if (activeTools.some((n) => this.#core.jsTools.has(n))) this.#core.warmJS();
    return { activeTools, instructions: t.instructions };
  });

  // forget drops the session's turn: the module forgets it too.
  forget() {
    this.#free();
    this.#kept = null;
    this.#seen = { count: 0, key: "" };
  }

  #locked(fn) {
    const run = this.#queue.then(fn);
    this.#queue = run.catch(() => {});
    return run;
  }

  #makeTools() {
    const out = {};
    for (const def of this.#core.defs) {
      out[def.name] = {
        description: def.description,
        inputSchema: jsonSchema(def.parameters ?? { type: "object", properties: {} }),
        // The module decides whether a call asks the user first: the AI
        // SDK then puts its approval request to the app.
        needsApproval: (input, opts = {}) => this.#asks(def, input, opts.toolCallId),
        execute: (input, opts = {}) => this.#execute(def, opts),
      };
    }
    return out;
  }

  // #asks records a call of the step (the AI SDK asks this of every call it
  // parsed, in the response's order, before it runs any) and says whether
  // the module asks the user before it runs (toolroute_check's model_call,
  // as the turn decides it: the same rules, the turn's policies).
  #asks(def, input, id) {
    const t = this.#turn;
    if (t && t.state === "model" && t.step.open && !t.step.calls.some((c) => c.id === id)) {
      t.step.calls.push({ id, name: def.name, args: typeof input === "string" ? input : JSON.stringify(input ?? {}) });
    }
    if (this.#core.o.approvals === false || def.origin?.kind === "meta") return false;
    // Asked again when the app answered (the AI SDK checks an approved
    // call again): it asked.
    if (t?.known.get(id) === "awaiting_approval") return true;
    const r = this.#core.inst.check({ op: "model_call", args: { id: String(id ?? ""), tool: def.name, input: input ?? {}, loaded: null, policies: t?.policies ?? [] } });
    return !!r?.args?.ask;
  }

  // #execute runs a call the module let through and answers with the
  // module's result: its text, or a ToolError with its failure.
  async #execute(def, { toolCallId: id, messages, abortSignal }) {
    const o = await this.#locked(async () => {
      // The AI SDK runs the calls the app approved when its next loop
      // starts, before that loop's first prepareStep: the answers are in
      // the messages. A step's own calls come with the messages its
      // prepareStep gave the module.
      if (Array.isArray(messages) && (!this.#turn || messages.length > this.#seen.count)) await this.#sync(messages);
      this.#feedStep();
      return this.#outcome(def, id);
    });
    if (o.result) return deliver(o.result);
    const res = await this.#run(o.call, abortSignal);
    return this.#locked(async () => {
      const t = this.#turn;
      if (t?.run.has(id)) {
        this.#feed(t, { type: "tool_results", now: this.#core.now(), results: [res] });
        return deliver(t.results.get(id) ?? resultMessage(res));
      }
      // A call that ran before the module asked for it (its response
      // waits for an approval): given to the module when it asks.
      t?.ahead.set(id, res);
      return deliver(resultMessage(res));
    });
  }

  // #outcome is what the module made of a call: its result, or the call to
  // run.
  #outcome(def, id) {
    const t = this.#turn;
    if (!t) throw new Error(`ai-sdk: session ${JSON.stringify(this.id)} has no turn for '${def.name}': give the AI SDK the session's prepareStep with its tools`);
    if (t.results.has(id)) return { result: t.results.get(id) };
    if (t.run.has(id) && !t.running.has(id)) {
      t.running.add(id);
      return { call: t.run.get(id) };
    }
    if (t.known.get(id) === "pending" && t.state === "approval") {
      // Let through, and held until the user answers about the other calls
      // of its response; the AI SDK runs it now.
      const m = t.calls.get(id);
      return { call: { id, tool: def.name, input: parseInput(m?.tool_input), origin: def.origin, timeout_seconds: def.timeout_seconds, env: def.env, required_permissions: def.required_permissions } };
    }
    if (t.known.get(id) === "awaiting_approval") {
      throw new Error(`ai-sdk: '${def.name}' waits for the user's approval, and the AI SDK ran it without asking: give no toolApproval option that overrides the tools' needsApproval`);
    }
    throw new Error(`ai-sdk: the router did not see the call ${id} of '${def.name}': give the AI SDK the session's tools and prepareStep, and no toolApproval option`);
  }

  // #feedStep gives the module the step's response: the calls the AI SDK
  // asked about, in order, once, when the first of them runs.
  #feedStep() {
    const t = this.#turn;
    if (!t || t.state !== "model" || !t.step.open || t.step.calls.length === 0) return;
    for (const c of t.step.calls) t.live.add(c.id);
    this.#respond(t, "", t.step.calls);
  }

  // #sync gives the module the app's messages it has not seen: the
  // previous step's response (when no call of it ran), results, the
  // user's answers to approval requests, and a new user message, which
  // ends the turn and starts the next from the state the module kept. A
  // session whose state does not follow the messages starts again from
  // them.
  async #sync(messages) {
    if (!Array.isArray(messages)) throw new Error("ai-sdk: messages must be an array of AI SDK model messages");
    const inst = await this.#core.instance();
    if (this.#turn && this.#turn.inst !== inst) this.forget();
    const from = this.#seen.count;
    if (from === 0 || messages.length < from || keyOf(messages[from - 1]) !== this.#seen.key) return this.#rebuild(messages);
    try {
      for (let i = from; i < messages.length; i++) await this.#consume(messages[i]);
    } catch (err) {
      if (err !== REBUILD) throw err;
      return this.#rebuild(messages);
    }
    this.#saw(messages);
  }

  #saw(messages) {
    this.#seen = { count: messages.length, key: messages.length ? keyOf(messages.at(-1)) : "" };
  }

  // #rebuild starts the session again from the messages: a turn whose
  // history is every message before the user's last, then the rest of
  // that turn given as it went.
  async #rebuild(messages) {
    this.forget();
    let u = messages.length - 1;
    while (u >= 0 && messages[u]?.role !== "user") u--;
    if (u < 0) throw new Error("ai-sdk: the messages have no user message: a turn starts from the user's message");
    await this.#start(messages[u], toHistory(messages.slice(0, u)));
    for (let i = u + 1; i < messages.length; i++) {
      try {
        await this.#consume(messages[i]);
      } catch (err) {
        if (err !== REBUILD) throw err;
        throw new Error(`ai-sdk: message ${i} (${messages[i]?.role}) does not follow the turn before it: after the user's last message come the model's responses and their tool results`);
      }
    }
    this.#saw(messages);
  }

  // #consume gives the module one message of the app's it has not seen.
  async #consume(m) {
    const t = this.#turn;
    switch (m?.role) {
      case "user":
        await this.#end();
        if (!this.#kept) throw REBUILD;
        await this.#start(m, []);
        return;
      case "assistant": {
        if (!t || t.state !== "model") throw REBUILD;
        const parts = Array.isArray(m.content) ? m.content : [];
        const calls = [];
        for (const p of parts) {
          if (p?.type === "tool-approval-request") t.approvals.set(p.approvalId, p.toolCallId);
          if (p?.type === "tool-call") calls.push({ id: p.toolCallId, name: p.toolName, args: typeof p.input === "string" ? p.input : JSON.stringify(p.input ?? {}) });
        }
        // A response the module had when its calls ran.
        if (calls.some((c) => t.live.has(c.id))) return;
        this.#respond(t, textOf(m.content), calls);
        return;
      }
      case "tool": {
        if (!t) throw REBUILD;
        let answered = false;
        for (const p of Array.isArray(m.content) ? m.content : []) {
          if (p?.type === "tool-approval-response") {
            const id = t.approvals.get(p.approvalId);
            if (id !== undefined) {
              t.answers.set(id, !!p.approved);
              answered = true;
            }
          } else if (p?.type === "tool-result") {
            this.#resultOf(t, p);
          }
        }
        if (answered && t.state === "approval") this.#approve(t);
        return;
      }
      default: // system: the router's
    }
  }

  // #resultOf gives the module a tool result the app's messages hold, when
  // the module is waiting for it.
  #resultOf(t, p) {
    const id = p.toolCallId;
    if (t.results.has(id)) return;
    const r = outputResult(id, p.output);
    if (!r) return; // a denial: the approval answer says it
    if (t.run.has(id)) {
      this.#feed(t, { type: "tool_results", now: this.#core.now(), results: [r] });
    } else if (t.known.has(id)) {
      t.ahead.set(id, r);
    }
  }

  // #approve gives the module the user's answers to its approval requests:
  // approved runs once (with the secrets it asked for), denied or
  // unanswered does not; a call whose result is in already ran.
  #approve(t) {
    const approvals = t.asking.map((c) => {
      const yes = t.answers.get(c.id) ?? (t.ahead.has(c.id) ? true : false);
      if (!yes) return { id: c.id, answer: "deny" };
      return c.secrets?.length ? { id: c.id, answer: "once", grant: c.secrets } : { id: c.id, answer: "once" };
    });
    this.#feed(t, { type: "approval", now: this.#core.now(), approvals });
  }

  // #end ends the session's turn before its next: one whose loop stopped
  // before the model's answer is stopped (the module logs that, and keeps
  // the session); one waiting for tools or approvals the app never gave
  // starts the session again from the messages.
  async #end() {
    const t = this.#turn;
    if (!t) return;
    if (t.state === "model") this.#feed(t, { type: "stop", now: this.#core.now() });
    const over = t.state === "over";
    this.#free();
    if (!over) {
      this.#kept = null;
      throw REBUILD;
    }
  }

  // #start opens the module's turn for the user's message m: with the
  // state the module kept when there is one, history being the messages
  // since; with the whole history otherwise.
  async #start(m, history) {
    const core = this.#core;
    const inst = await core.instance();
    const settings = await core.settings();
    const kept = this.#kept;
    this.#kept = null;
    const handle = inst.turnNew();
    const t = newTurn(inst, handle, settings, core.instructions(settings));
    this.#turn = t;
    const ev = { type: "start", now: core.now(), session: this.id, user: textOf(m.content) || "[no text]", settings, history };
    if (kept) ev.fingerprint = kept.fingerprint;
    let acts = this.#event(t, ev);
    if (acts.length === 1 && acts[0].type === "need_history") {
      this.#free();
      throw REBUILD;
    }
    this.#perform(t, acts);
  }

  #free() {
    const t = this.#turn;
    this.#turn = null;
    if (t && !t.inst.broken) t.inst.turnFree(t.handle);
  }

  // #respond gives the module a step's response, as an OpenAI Chat
  // Completions body: the module reads it as it reads a provider's.
  #respond(t, text, calls) {
    t.step = { open: false, calls: [] };
    const message = { role: "assistant", content: text };
    if (calls.length) message.tool_calls = calls.map((c) => ({ id: c.id, type: "function", function: { name: c.name, arguments: c.args } }));
    const body = JSON.stringify({ choices: [{ index: 0, message, finish_reason: calls.length ? "tool_calls" : "stop" }] });
    this.#feed(t, { type: "response", now: this.#core.now(), body });
  }

  #feed(t, ev) {
    this.#perform(t, this.#event(t, ev));
  }

  #event(t, ev) {
    try {
      return t.inst.turnEvent(t.handle, ev);
    } catch (err) {
      throw new Error(`ai-sdk: the module refused a ${ev.type} event: ${err.message}`, { cause: err });
    }
  }

  // #perform takes the module's actions: what it logged, what it runs, asks
  // and offers next.
  #perform(t, acts) {
    const tell = this.#core.o.onEvent;
    for (const a of acts) {
      switch (a.type) {
        case "append":
          for (const m of a.messages) {
            if (m.type === "tool_call") {
              t.known.set(m.tool_call_id, m.status);
              t.calls.set(m.tool_call_id, m);
            } else if (m.type === "tool_result") {
              t.results.set(m.tool_call_id, m);
              t.run.delete(m.tool_call_id);
            }
            tell?.({ type: "message", session: this.id, message: m });
          }
          break;
        case "group_loaded":
          tell?.({ type: "group_loaded", session: this.id, group: a.group });
          break;
        case "call_model":
          t.state = "model";
          t.tools = a.request?.tools ?? [];
          break;
        case "ask_approval":
          t.state = "approval";
          t.asking = a.calls;
          break;
        case "run_tools": {
          t.state = "tools";
          for (const c of a.calls) t.run.set(c.id, c);
          // Results the app had before the module asked for them.
          const ready = a.calls.filter((c) => t.ahead.has(c.id)).map((c) => t.ahead.get(c.id));
          if (ready.length) this.#feed(t, { type: "tool_results", now: this.#core.now(), results: ready });
          break;
        }
        case "cache":
          this.#kept = a.cache;
          break;
        case "done":
          t.state = "over";
          break;
        case "failed":
          t.state = "over";
          t.failure = a.error ?? { code: "failed", message: "the turn failed" };
          break;
        default: // ABI.md: hosts ignore actions they do not know
      }
    }
  }

  // #run performs a call the module let through: its result for the
  // module (wasm/ABI.md, tool_results).
  async #run(c, signal) {
    const core = this.#core;
    const fail = (type, message) => ({ id: c.id, status: "error", error_type: type, message });
    const check = (op, args) => core.inst.check({ op, args });
    try {
      switch (c.origin?.kind) {
        case "js": {
          if (typeof core.o.runJS !== "function") return fail("execution_error", `JS tool '${c.tool}' cannot run: give options.runJS (a Runner's call, from toolroute/jsrun)`);
          const source = await core.source(c.origin.source);
          if (source === undefined) return fail("execution_error", `the source ${c.origin.source} of JS tool '${c.tool}' is missing from options.sources`);
          const out = await core.o.runJS({
            tool: c.tool, sourceRef: c.origin.source, source, function: c.origin.function,
            params: c.input ?? {}, env: core.envFor([...(c.env ?? []), ...(c.granted ?? []).filter((g) => g !== "google")]),
            timeoutMs: (c.timeout_seconds > 0 ? c.timeout_seconds : 30) * 1000, signal,
            google: (c.required_permissions ?? []).includes("google") || (c.granted ?? []).includes("google"),
            // The module words the bridges' refusals (jsrun/words.js).
            check,
          });
          return jsResult(c.id, out);
        }
        case "host": {
          const fn = core.o.native?.[c.tool];
          if (typeof fn !== "function") return fail("execution_error", `host tool '${c.tool}' has no implementation: give it in options.native`);
          return await hostCall(c, signal, fail, (s) => fn(c.input ?? {}, { signal: s, granted: c.granted ?? [], check }));
        }
        default:
          return fail("execution_error", `tool '${c.tool}' has origin ${JSON.stringify(c.origin?.kind ?? "")}, which the router cannot run`);
      }
    } catch (e) {
      return fail("execution_error", `tool '${c.tool}' failed in the router: ${e?.message ?? e}`);
    }
  }
}

// hostCall runs a host tool's function (options.native, or a typed tool's
// execute) as toolroute/host does: given a signal aborted when the app's
// loop is (the AI SDK's abortSignal, when it gives one) or when the call's
// timeout_seconds pass (30 by default), the call then failing as timed
// out though the function goes on.
async function hostCall(c, signal, fail, run) {
  const seconds = c.timeout_seconds > 0 ? c.timeout_seconds : 30;
  const ctl = new AbortController();
  const onAbort = () => ctl.abort(signal.reason);
  if (signal?.aborted) onAbort();
  else signal?.addEventListener("abort", onAbort, { once: true });
  let timer;
  const timeout = new Promise((resolve) => {
    timer = setTimeout(() => {
      ctl.abort(new Error("timeout"));
      resolve(fail("timeout", `tool '${c.tool}' timed out after ${seconds}s`));
    }, seconds * 1000);
  });
  const work = (async () => {
    try {
      const out = await run(ctl.signal);
      return { id: c.id, status: "success", output: typeof out === "string" ? out : out === undefined ? "" : JSON.stringify(out) };
    } catch (e) {
      return fail(e?.type ?? e?.error_type ?? "execution_error", String(e?.message ?? e));
    }
  })();
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener("abort", onAbort);
  }
}

// newTurn is a session's turn on inst: what the module said of it so far.
function newTurn(inst, handle, settings, instructions) {
  return {
    inst, handle, instructions,
    policies: settings.policies ?? [],
    // state: what the turn waits for: "model", "tools", "approval" or
    // "over" (done or failed).
    state: "model",
    failure: null,
    tools: [], // the tools the next model call offers
    step: { open: false, calls: [] }, // the calls of the step under way
    live: new Set(), // calls given to the module as their step ran
    known: new Map(), // call id -> its status as the module logged it
    calls: new Map(), // call id -> its tool_call message
    results: new Map(), // call id -> its tool_result message
    run: new Map(), // call id -> the call the module asks the router to run
    running: new Set(),
    ahead: new Map(), // call id -> a result in before the module asked
    asking: [], // the calls the module asks the user about
    approvals: new Map(), // the AI SDK's approval id -> call id
    answers: new Map(), // call id -> the user approved it
  };
}

// keyOf is what tells a message again when the app gives the messages
// back: its role, text and the ids of its calls and results.
function keyOf(m) {
  const ids = Array.isArray(m?.content) ? m.content.map((p) => p?.toolCallId ?? p?.approvalId ?? "").join(",") : "";
  return `${m?.role}\u0000${ids}\u0000${textOf(m?.content)}`;
}

function parseInput(text) {
  try {
    const v = JSON.parse(text ?? "{}");
    return v && typeof v === "object" && !Array.isArray(v) ? v : {};
  } catch {
    return {};
  }
}

// jsResult is a JS call's result for the module, with its console lines
// ("level: text"), which the module adds to what the model reads.
function jsResult(id, out) {
  const res = out?.status === "success"
    ? { id, status: "success", output: typeof out.output === "string" ? out.output : JSON.stringify(out.output ?? "") }
    : { id, status: "error", error_type: out?.error_type || "execution_error", message: out?.message ?? "the JS runner gave no result" };
  const logs = (out?.logs ?? []).map((l) => (typeof l === "string" ? l : `${l.level}: ${l.text}`));
  if (logs.length) res.console = logs;
  return res;
}

// resultMessage is a result as the module logs one, for a result it has not
// taken yet.
function resultMessage(r) {
  return r.status === "success"
    ? { status: "success", content: r.output ?? "" }
    : { status: "error", error_type: r.error_type, content: `Error (${r.error_type}): ${r.message ?? ""}` };
}

// deliver gives the AI SDK a tool_result the module logged: its text, or
// its failure thrown, which the AI SDK gives the model as the same text.
function deliver(m) {
  if (m.status === "success") return m.content ?? "";
  const type = m.error_type || "execution_error";
  const content = m.content ?? "";
  const prefix = `Error (${type}): `;
  throw new ToolError(type, content.startsWith(prefix) ? content.slice(prefix.length) : content);
}

// ToolError is a tool's failure: the AI SDK gives the model the error as
// text ("NAME: MESSAGE"), the call's error result, which reads as
// toolroute's hosts give a failure to the model: "Error (TYPE): MESSAGE".
export class ToolError extends Error {
  constructor(type, message) {
    super(message);
    this.name = `Error (${type})`;
    this.type = type;
  }
}

// ERROR_OUTPUTS are the AI SDK tool result outputs that are failures.
const ERROR_OUTPUTS = new Set(["error-text", "error-json", "execution-denied"]);

// outputResult is a tool result of the app's messages as the module takes
// one (tool_results); null for a denial, which is an approval answer.
function outputResult(id, output) {
  if (output?.type === "execution-denied") return null;
  const text = outputText(output);
  if (!ERROR_OUTPUTS.has(output?.type)) return { id, status: "success", output: text };
  const m = /^Error \(([a-z0-9_]+)\): ([\s\S]*)$/.exec(text);
  return m ? { id, status: "error", error_type: m[1], message: m[2] } : { id, status: "error", error_type: "execution_error", message: text };
}

// toHistory converts AI SDK model messages (ModelMessage: system, user,
// assistant, tool) to toolroute's log (wasm/ABI.md, "Messages"): a tool
// call's status is its result's (success or error), "pending" while it has
// none. System messages are left out: the router makes the system prompt.
export function toHistory(messages) {
  if (!Array.isArray(messages)) throw new Error("ai-sdk: messages must be an array of AI SDK model messages");
  const results = new Map();
  for (const m of messages) {
    if (m?.role !== "tool" || !Array.isArray(m.content)) continue;
    for (const p of m.content) if (p?.type === "tool-result") results.set(p.toolCallId, p);
  }
  const out = [];
  for (const m of messages) {
    switch (m?.role) {
      case "user":
        out.push({ type: "user", content: textOf(m.content) });
        break;
      case "assistant": {
        const text = textOf(m.content);
        if (text !== "") out.push({ type: "assistant", content: text });
        if (!Array.isArray(m.content)) break;
        let index = 0;
        for (const p of m.content) {
          if (p?.type !== "tool-call") continue;
          const r = results.get(p.toolCallId);
          out.push({
            type: "tool_call",
            tool_call_id: p.toolCallId,
            tool_name: p.toolName,
            tool_input: typeof p.input === "string" ? p.input : JSON.stringify(p.input ?? {}),
            status: r ? statusOf(r.output) : "pending",
            index: index++,
          });
        }
        break;
      }
      case "tool":
        for (const p of Array.isArray(m.content) ? m.content : []) {
          if (p?.type !== "tool-result") continue;
          out.push({ type: "tool_result", tool_call_id: p.toolCallId, tool_name: p.toolName, content: outputText(p.output), status: statusOf(p.output) });
        }
        break;
      default: // system: the router's; anything else is not the model's
    }
  }
  return out;
}

function statusOf(output) {
  return ERROR_OUTPUTS.has(output?.type) ? "error" : "success";
}

function textOf(content) {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.filter((p) => p?.type === "text").map((p) => p.text).join("");
}

function outputText(o) {
  if (!o) return "";
  if (o.type === "text" || o.type === "error-text") return String(o.value);
  if (o.type === "json" || o.type === "error-json") return JSON.stringify(o.value);
  if (o.type === "execution-denied") return o.reason ?? "denied";
  if (o.type === "content") return (o.value ?? []).filter((p) => p.type === "text").map((p) => p.text).join("");
  return "";
}
