// The chat UI worker's logic, apart from the Worker globals so that Node
// tests can drive it: it answers the page's requests (see worker.js for the
// protocol) with a toolroute/host Host over toolroute.wasm, a JS tool runner and
// a UI store (idbstore.js).

import { createHost, toolOutput, FORMATS } from "toolroute/host";
import { MemoryStore as MemoryFS } from "../../../packages/toolroute/jsrun/sandbox.js";
import { storeOps, settingsMemories, configOps, toolStates, toolFileOps, withUserTools, userReports, searchSessions } from "../../../packages/toolroute/host/ops.js";
import { McpServers, withMcp, parseMcpConfig } from "toolroute/mcp";
import { recordOps, storedProvider, fetchModels, PROVIDER_PREFIX, AGENT_PREFIX } from "../../../packages/toolroute/host/records.js";
import { agentOps, runNested, sessionAgent, setSessionAgent, SESSION_AGENT_PREFIX } from "../../../packages/toolroute/host/agents.js";
import { pdfGroup, withPdf } from "../../../packages/toolroute/host/pdf.js";
import { Tasks, TaskTimer } from "../../../packages/toolroute/host/schedules.js";
import { breakdown } from "./meter.js";
import { newID } from "./idbstore.js";

// SERVER_PREFIX starts the id the core gives a session the server keeps
// (toolroute serve's or the worker's): "server:" and the server's id. The
// page's own ids are hex, so the two never meet.
export const SERVER_PREFIX = "server:";

// PROVIDERS are the choices of the settings panel: the server's own, a wire
// format with the user's key (responses is OpenAI's Responses API), or the
// demo.
export const PROVIDERS = ["server", "openai", "anthropic", "responses", "gemini", "demo"];
// KEYED are the providers that need the user's key: one per wire format.
const KEYED = FORMATS;

// Keys of the UI store's settings: env.NAME is a variable JS tools may read,
// tool.disabled.NAME ("true") a tool the user disabled (set_tool_enabled).
export const ENV_PREFIX = "env.";
export const DISABLED_PREFIX = "tool.disabled.";
// toolfile.NAME holds a user tool made with create_js_tool in this browser:
// {"manifest": its JSON text, "code": its JS}.
export const TOOLFILE_PREFIX = "toolfile.";

// SETTINGS are the page's settings the config group lists and sets: those of
// the settings panel but the key and the address, which only the user
// enters there.
const SETTINGS = [
  { key: "provider", description: "where model calls go: server, openai, anthropic, responses, gemini, demo, or a stored provider (list_providers), which then calls its default model" },
  { key: "model", description: "the model to call" },
  { key: "routing", description: "how a tool group reaches the model: classic (load_tool_group adds its tools) or native (Anthropic's and the Responses API's own deferral, which keeps the prompt cache; the others use classic)" },
  { key: "tool_budget", description: "the most tokens of tool schemas one model call may send (0 for no limit): a load past it unloads the least recently used groups" },
  { key: "search_tools", description: "on or off: offer search_tools, which finds the tools of every group by what they do and loads just those" },
];

// budgetOf reads the tool_budget setting: a whole number of tokens, 0 (no
// budget) for anything else.
function budgetOf(v) {
  const n = Number(v);
  return Number.isInteger(n) && n > 0 ? n : 0;
}

// ROUTINGS are the values of the routing setting ("" is classic).
export const ROUTINGS = ["classic", "native"];

// MCP_WAIT_MS is how long making a host waits for MCP servers to connect;
// slower ones join the catalogue when they do.
const MCP_WAIT_MS = 5000;

// The Go program's (internal/app/provider.go).
const DEFAULT_BASE = {
  openai: "https://api.openai.com/v1",
  anthropic: "https://api.anthropic.com",
  responses: "https://api.openai.com/v1",
  gemini: "https://generativelanguage.googleapis.com",
};
const DEFAULT_MODEL = { openai: "gpt-4.1-mini", anthropic: "claude-sonnet-4-5", responses: "gpt-5.4-mini", gemini: "gemini-3.5-flash" };

// ALLOW_HINT ends the refusal of a tool that asks when no one can be asked
// (a scheduled task's run): the page has no approval rules to change, so
// such a tool runs only in a chat, where the user answers.
const ALLOW_HINT = "In this page a tool that asks runs only in a chat, where the user is asked first: the user can ask for it there.";

// PersistentFS is the fs bridge's store: synchronous reads from memory (the
// runner needs them synchronous), each write also saved to the UI store.
export class PersistentFS extends MemoryFS {
  constructor(files, save) {
    super(files);
    this.save = save;
  }

  write(rel, content, append) {
    super.write(rel, content, append);
    const text = this.files.get(rel);
    Promise.resolve(this.save(rel, text)).catch(() => {});
  }
}

// Core answers requests. deps:
//   store: the UI store (IDBStore or MemoryUIStore);
//   fetch: the fetch for the catalogue, the model calls and JS tools;
//   module: async () => a driver instance (Toolroute) on toolroute.wasm;
//   wordVectors: the word vector table search_tools ranks with, or an
//     async function giving it (the host's wordVectors option);
//   catalogue: async () => {catalogue, sources, libraries}; by default GET
//     /api/ui/catalogue;
//   runner: ({libraries, fs, fetch}) => {call(c)}: the JS tool runner;
//   pdfFetch: the fetch bridge's options the pdf tools read URLs with
//     ({fetch, cors}); by default fetch, as a browser's (cors);
//   pdfRender: what pdf_render_page draws with ({canvas, fonts}, as
//     web/packages/toolroute/host/pdf.js's pdfGroup takes it); none: the tool is not offered;
//   countTokens: async (text) => number, or none to count bytes;
//   tasks: run the scheduled tasks at their times while this Core lives,
//     which in the browser is while the page is open: true, or
//     {timers: {setTimeout, clearTimeout}} (a test's fake ones); without
//     it the tasks are kept and run_scheduled_task runs one, but none runs
//     on its own;
//   now: () => Date, the scheduled tasks' clock;
//   onTasksChanged: () => void, told when a task is added, changed,
//     removed, or its run's record written;
//   onTaskRun: ({session, title}) => void, told when a task's run, or a
//     sub-agent's (create_agent), is done (the page lists its session);
//   onElicit: (question) => void, shows the page an MCP server's question
//     for the user during a call ({ask, server, asks, message, fields}),
//     answered with an "elicit_answer" request; without it no one is asked
//     and servers that ask are refused.
export class Core {
  #d;
  #cat = null;
  #host = null;
  #mcp = null; // the current host's MCP servers
  #hostKey = "";
  #aborts = new Map();
  #questions = new Map(); // session -> {resolve, reject}: an approval the page is asked
  #asks = new Map(); // ask -> {resolve, check}: an MCP server's question the page is asked
  #nextAsk = 1;
  #running = new Map(); // page session -> how many of its turns run here
  #runner = null;
  #fs = null;

  #timer = null;

  constructor(deps) {
    this.#d = deps;
    this.store = deps.store;
    this.fetch = deps.fetch ?? ((...a) => globalThis.fetch(...a));
    const now = deps.now ?? (() => new Date());
    // The scheduled tasks, in the settings; each run is a turn of its own.
    const changed = () => {
      this.#timer?.wake();
      this.#d.onTasksChanged?.();
    };
    this.tasks = new Tasks({ store: this.store, run: (id, title, prompt) => this.#runTask(id, title, prompt), check: async (op, args) => (await this.host()).check(op, args), now, changed });
    if (deps.tasks) {
      this.#timer = new TaskTimer(this.tasks, { now, timers: deps.tasks.timers ?? globalThis });
      this.#timer.start();
    }
  }

  // #runTask is a scheduled task's run: prompt as the first message of the
  // new page session id, unattended, titled title once done; its answer,
  // or the turn's failure thrown.
  async #runTask(id, title, prompt) {
    const host = await this.host();
    let answer = "";
    let failure = null;
    for await (const ev of host.send(id, prompt, { unattended: true })) {
      if (ev.type === "done") answer = ev.text ?? "";
      if (ev.type === "failed") failure = ev.failure?.message ?? "the turn failed";
    }
    await this.store.renameSession(id, title);
    this.#d.onTaskRun?.({ session: id, title });
    if (failure !== null) throw new Error(failure);
    return answer;
  }

  async #catalogue() {
    this.#cat ??= (async () => {
      if (this.#d.catalogue) return this.#d.catalogue();
      const r = await this.fetch("/api/ui/catalogue");
      if (!r.ok) throw new Error(`GET /api/ui/catalogue answered ${r.status}: ${(await r.text()).slice(0, 300)}`);
      return r.json();
    })().catch((e) => {
      this.#cat = null;
      throw e;
    });
    return this.#cat;
  }

  // provider works out the host's provider from the settings.
  async provider(settings) {
    // A stored provider (create_provider) with the key of its secret.
    const stored = PROVIDERS.includes(settings.provider) ? null : storedProvider(settings, settings.provider);
    if (stored) {
      const p = stored.record;
      if (p.key_secret && !stored.key) throw new Error(`the provider ${p.name} needs its key: set the variable ${p.key_secret}`);
      return {
        format: p.format,
        baseURL: p.base_url,
        apiKey: stored.key,
        model: p.default_model || DEFAULT_MODEL[p.format],
        label: p.name,
      };
    }
    const kind = PROVIDERS.includes(settings.provider) ? settings.provider : "server";
    if (kind === "server") {
      const r = await this.fetch("/api/health");
      const h = r.ok ? await r.json() : {};
      const format = FORMATS.includes(h.format) ? h.format : "openai";
      return { format, proxyURL: "/api/model", model: settings.model || h.model || "", label: `server (${h.provider ?? format})` };
    }
    if (kind === "demo") return { format: "openai", demo: true, model: "toolroute-demo", label: "demo (scripted, no model)" };
    if (!settings.apiKey) throw new Error(`the ${kind} provider needs an API key: set it in the settings`);
    return {
      format: kind,
      baseURL: settings.baseURL || DEFAULT_BASE[kind],
      apiKey: settings.apiKey,
      model: settings.model || DEFAULT_MODEL[kind],
      label: kind,
    };
  }

  // #files is the sandbox's store: the files JS tools reach with fs, and
  // the pdf tools read.
  async #files() {
    this.#fs ??= new PersistentFS(await this.store.files(), (p, t) => this.store.putFile(p, t));
    return this.#fs;
  }

  async #runnerFor(libraries) {
    if (this.#runner) return this.#runner;
    if (!this.#d.runner) return null;
    await this.#files();
    this.#runner = await this.#d.runner({ libraries: libraries ?? {}, fs: this.#fs, fetch: this.fetch });
    return this.#runner;
  }

  // host gives a Host for the current settings, made again when they change.
  async host() {
    const settings = await this.store.settings();
    const stored = storedProvider(settings, settings.provider);
    const key = JSON.stringify([settings.provider, settings.model, settings.apiKey, settings.baseURL, settings.system_prompt, settings.mcp, settings.routing, settings.search_tools, settings.tool_budget, stored]);
    if (this.#host && this.#hostKey === key) return this.#host;
    // MCP servers (the settings' mcp.json text): their groups come after the
    // JS tools; a server's change (connected, its tools changed) loads the
    // catalogue again.
    await this.#mcp?.close();
    let host = null;
    const mcp = new McpServers({ config: settings.mcp, fetch: this.fetch, onChange: () => host && reload(), check: (op, args) => host?.check(op, args), ...(this.#d.onElicit ? { onElicit: (q, o) => this.#elicit(q, o) } : {}) });
    this.#mcp = mcp;
    const native = {};
    const cat = await this.#catalogue();
    // The server's host tools (its MCP servers', which a page cannot start
    // or may not reach) run there: serve's POST /api/ui/tools/{name}.
    const relay = {};
    for (const name of cat.server_tools ?? []) relay[name] = (input, { signal, callId, progress } = {}) => this.#serverTool(name, input, signal, callId, progress);
    // The pdf group runs here, over this browser's files (the server's
    // catalogue leaves its own out); it comes after the server's groups.
    const pdf = pdfGroup({ files: () => this.#files(), fetch: this.#d.pdfFetch ?? { fetch: this.fetch, cors: true }, render: this.#d.pdfRender });
    const provider = await this.provider(settings);
    const runner = await this.#runnerFor(cat.libraries);
    let env = {};
    const refreshEnv = async () => {
      const s = await this.store.settings();
      env = {};
      for (const [k, v] of Object.entries(s)) if (k.startsWith(ENV_PREFIX)) env[k.slice(ENV_PREFIX.length)] = v;
    };
    await refreshEnv();
    const memories = settingsMemories(this.store);
    const disabled = async () => {
      const s = await this.store.settings();
      return Object.keys(s).filter((k) => k.startsWith(DISABLED_PREFIX) && s[k] === "true").map((k) => k.slice(DISABLED_PREFIX.length)).sort();
    };
    // The user's own tools, kept in this browser, come after the server's
    // catalogue; the toolfiles ops below load it again as they change.
    const userFiles = {
      list: async () => {
        const s = await this.store.settings();
        return Object.keys(s).filter((k) => k.startsWith(TOOLFILE_PREFIX)).sort().flatMap((k) => {
          try {
            const f = JSON.parse(s[k]);
            return [{ name: k.slice(TOOLFILE_PREFIX.length), manifest: String(f.manifest), code: String(f.code) }];
          } catch {
            return []; // not written by toolfiles.write
          }
        });
      },
      put: (name, manifest, code) => this.store.setSettings({ [TOOLFILE_PREFIX + name]: JSON.stringify({ manifest, code }) }),
      remove: (name) => this.store.setSettings({ [TOOLFILE_PREFIX + name]: null }),
    };
    let files = await userFiles.list();
    // The module names the MCP servers' tools (withMcp asks it): before the
    // host is made, the catalogue has none of them; a reload adds them.
    const merged = async () => {
      const m = withUserTools(withPdf(cat.catalogue ?? {}, pdf), cat.sources ?? {}, files);
      return { ...m, catalogue: await withMcp(m.catalogue, mcp, native, { ...relay, ...pdf.native }, host && ((op, args) => host.check(op, args))) };
    };
    const reload = async () => {
      const m = await merged();
      return host.load({ ...m.catalogue, disabled: await disabled() }, m.sources);
    };
    // A server slower than this joins the catalogue when it connects.
    await Promise.race([mcp.start(), new Promise((r) => setTimeout(r, MCP_WAIT_MS))]);
    const first = await merged();
    const catalogue = { ...first.catalogue, disabled: await disabled() };
    const records = recordOps({
      store: this.store,
      groups: async () => [...new Set(toolStates(await host.describe()).map((t) => t.group).filter(Boolean))],
      fetch: this.fetch,
    });
    // The ops below reach host, made here, only once a tool runs.
    host = await createHost({
      module: this.#d.module,
      wordVectors: this.#d.wordVectors,
      // The built-in tools' storage: memories in the settings, history
      // search over the sessions kept in this browser; the config group's
      // settings, variables and disabled tools in the settings too.
      ops: {
        ...storeOps({ memories, sessions: () => this.store.sessions(), messages: (id) => this.store.messages(id) }),
        ...configOps({
          settings: {
            list: async () => this.#configSettings(),
            check: async (key, value) => this.#checkSetting(key, value),
            set: (key, value) => this.store.setSettings({ [key]: value }),
          },
          env: {
            names: () => Object.keys(env),
            set: async (name, value) => {
              await this.store.setSettings({ [ENV_PREFIX + name]: value });
              await refreshEnv();
            },
          },
          tools: {
            list: async () => toolStates(await host.describe()),
            // Kept in the store, and handed to the module at once: the
            // running turn offers the tools as they are from its next call.
            setEnabled: async (name, enabled) => {
              await this.store.setSettings({ [DISABLED_PREFIX + name]: enabled ? null : "true" });
              await reload();
            },
          },
        }),
        // Scheduled tasks, in the settings too.
        ...this.tasks.ops(),
        // Stored providers, their models and agents, in the settings too.
        ...records,
        // create_agent: the agent's turn nested in the call's, on this host.
        ...agentOps({
          store: this.store,
          update: (a, ctx) => records["agents.update"](a, ctx),
          run: (r) => runNested(host, r, async (id, title) => {
            await this.store.renameSession(id, title);
            this.#d.onTaskRun?.({ session: id, title });
          }),
        }),
        ...toolFileOps({
          files: userFiles,
          // The running turn offers the tools as they are from its next
          // model call (the host's reload event).
          apply: async (next) => {
            files = next;
            const m = await merged();
            return userReports(await host.load({ ...m.catalogue, disabled: await disabled() }, m.sources), next);
          },
          loaded: async (list) => userReports(host.report, list),
          check: async (file, code) => (runner?.check ? runner.check(file, code) : ""),
          tools: async () => (await host.describe()).tools ?? [],
          place: "in this browser",
        }),
      },
      memories: async () => (await memories.list()).map((m) => m.text),
      // A session started with an agent (the New chat picker, or
      // create_agent's) is that agent's.
      agentOf: (id) => sessionAgent(this.store, id),
      catalogue,
      sources: first.sources,
      native,
      provider,
      settings: { system_prompt: settings.system_prompt ?? "", stream: true, routing: ROUTINGS.includes(settings.routing) ? settings.routing : "classic", search_tools: settings.search_tools === "on", tool_budget: budgetOf(settings.tool_budget), allow_hint: ALLOW_HINT },
      store: this.store,
      fetch: this.fetch,
      runJS: runner ? (c) => runner.call(c) : undefined,
      env: (name) => env[name],
      // The page shows the "approval" event's calls and answers with an
      // "approve" request.
      // The listener goes once the question is answered: a turn asks many.
      approve: (sessionId, calls, { signal } = {}) => new Promise((resolve, reject) => {
        const onAbort = () => {
          this.#questions.delete(sessionId);
          reject(signal.reason);
        };
        this.#questions.set(sessionId, {
          resolve: (answers) => {
            signal?.removeEventListener("abort", onAbort);
            resolve(answers);
          },
          reject,
        });
        signal?.addEventListener("abort", onAbort, { once: true });
      }),
      // Never stored, shown or sent to the model: the variables set for
      // tools and the Google tokens the page was given. The host adds the
      // provider's key itself, named as every host names it ("the
      // provider's key") unless a variable holds it (testdata/redaction).
      secrets: () => [
        ...Object.entries(env).map(([name, value]) => ({ name, value })),
        ...(runner?.options?.google?.tokens?.() ?? []).map((value) => ({ name: "Google access token", value })),
      ],
    });
    // The MCP servers' tools, named by the module now there is one.
    if (mcp.configured) await reload();
    this.#host = host;
    this.#hostKey = key;
    return host;
  }

  // #configSettings are the page's settings as settings.list answers them:
  // each default is what applies when it is unset, the model's the
  // provider's own.
  async #configSettings() {
    const s = await this.store.settings();
    let model = "the provider's default";
    try {
      model = (await this.provider({ ...s, model: "" })).model || model;
    } catch {
      // A provider without its key: the panel says so.
    }
    const defaults = { provider: "server", model, routing: "classic", search_tools: "off", tool_budget: "0" };
    return SETTINGS.map(({ key, description }) => ({ key, value: s[key] ?? "", default: defaults[key], description }));
  }

  // #checkSetting refuses a value the page could not use, saying what it
  // takes.
  async #checkSetting(key, value) {
    if (key === "tool_budget") return /^\d{1,7}$/.test(value) ? "" : "tool_budget must be a number of tokens, such as 4000, or 0 for no limit";
    if (key === "search_tools") return ["", "on", "off"].includes(value) ? "" : "search_tools must be on or off";
    if (key === "routing") return value === "" || ROUTINGS.includes(value) ? "" : `routing must be one of ${ROUTINGS.join(", ")}`;
    if (key !== "provider") return "";
    const settings = await this.store.settings();
    const stored = PROVIDERS.includes(value) ? null : storedProvider(settings, value);
    if (stored) {
      const p = stored.record;
      return p.key_secret && !stored.key ? `${p.name}'s key, the secret ${p.key_secret}, is not set: the user sets it, or manage_env_var does, asking first` : "";
    }
    if (!PROVIDERS.includes(value)) {
      const names = Object.keys(settings).filter((k) => k.startsWith(PROVIDER_PREFIX)).sort().map((k) => k.slice(PROVIDER_PREFIX.length));
      return `provider must be one of ${[...PROVIDERS, ...names].join(", ")}`;
    }
    if (KEYED.includes(value) && !(await this.store.settings()).apiKey) {
      return `the ${value} provider needs an API key, which only the user enters, in the settings panel`;
    }
    return "";
  }

  // handle answers one request; reply(message) sends a reply to the page.
  async handle(msg, reply) {
    const id = msg.id;
    try {
      switch (msg.type) {
        case "send":
          return await this.#send(msg, reply);
        case "compact":
          return await this.#send(msg, reply, true);
        case "reload": {
          // The server's catalogue changed: the next turn (and describe)
          // fetch it again and make a host on it; a running turn keeps its own.
          this.#cat = null;
          this.#host = null;
          this.#hostKey = "";
          return reply({ id, type: "done", result: null });
        }
        case "abort": {
          const ctl = this.#aborts.get(msg.target);
          ctl?.abort(new DOMException("stopped by the user", "AbortError"));
          return reply({ id, type: "done", result: { aborted: !!ctl } });
        }
        case "approve": {
          const sid = serverID(msg.session);
          if (sid !== null) {
            const answers = (Array.isArray(msg.answers) ? msg.answers : []).filter((a) => a && typeof a.id === "string");
            await this.#api("POST", `/api/sessions/${encodeURIComponent(sid)}/approvals`, { approvals: answers });
            return reply({ id, type: "done", result: null });
          }
          const q = this.#questions.get(msg.session);
          if (!q) return reply({ id, type: "error", error: "no question is waiting in this session" });
          this.#questions.delete(msg.session);
          q.resolve(Array.isArray(msg.answers) ? msg.answers : []);
          return reply({ id, type: "done", result: null });
        }
        case "elicit_answer":
          return reply({ id, type: "done", result: await this.#elicitAnswer(msg) });
        case "describe":
          return reply({ id, type: "done", result: await this.describe(msg.session, { tokens: msg.tokens !== false }) });
        case "sessions":
          return reply({ id, type: "done", result: await this.#sessions(msg) });
        case "messages": {
          const sid = serverID(msg.session);
          const result = sid === null ? await this.store.messages(msg.session) : await this.#api("GET", `/api/sessions/${encodeURIComponent(sid)}/messages`, undefined, { missing: [] });
          return reply({ id, type: "done", result });
        }
        case "cut_off": {
          // A turn of this page cut off (a reload, a closed tab, a worker
          // restarted after Stop): its end goes in the log. A server's
          // turn is the server's to end, and so is a turn running here.
          if (serverID(msg.session) !== null || this.#running.has(msg.session)) return reply({ id, type: "done", result: [] });
          const host = await this.host();
          return reply({ id, type: "done", result: await host.cutOff(msg.session, String(msg.text ?? ""), !!msg.stopped) });
        }
        case "settings":
          return reply({ id, type: "done", result: await this.#settings(msg) });
        case "models":
          return reply({ id, type: "done", result: await this.#models(msg) });
        case "mcp_retry": {
          // The user asks: the page's MCP servers not connected (one that
          // needs authorization included) are tried again now (answered
          // once they are up or refused again); their coming up reloads
          // the catalogue.
          await Promise.race([this.#mcp?.retry(), new Promise((r) => setTimeout(r, MCP_WAIT_MS))]);
          return reply({ id, type: "done", result: null });
        }
        case "tasks":
          // The page's scheduled tasks, for its panel: the server's own
          // (serve's) are the server's, listed by list_scheduled_tasks there.
          return reply({ id, type: "done", result: await this.tasks.list() });
        default:
          return reply({ id, type: "error", error: `unknown request type ${JSON.stringify(msg.type)}` });
      }
    } catch (err) {
      // refused: the module refused the message before the turn began (a
      // file it cannot send): the page gives it back to the user to change.
      reply({ id, type: "error", error: String(err?.message ?? err), ...(err?.refused ? { refused: true } : {}) });
    }
  }

  // #send runs a turn: a page session's here, a server session's on the
  // server (#sendToServer), its events forwarded in the same shapes. With
  // compact it is /compact's: the session's earlier messages summarised.
  async #send(msg, reply, compact = false) {
    const text = String(msg.text ?? "").trim();
    // attachments: [{name, data}], the files' bytes in base64, for the
    // module to tell and check (wasm/ABI.md, Attachments).
    const files = !compact && Array.isArray(msg.attachments) ? msg.attachments : [];
    if (!msg.session) throw new Error(`${msg.type}: session is required`);
    if (!text && !files.length && !compact) throw new Error("send: the message is empty");
    const sid = serverID(msg.session);
    const ctl = new AbortController();
    this.#aborts.set(msg.id, ctl);
    if (sid === null) this.#running.set(msg.session, (this.#running.get(msg.session) ?? 0) + 1);
    try {
      if (sid !== null) {
        await this.#sendToServer(sid, compact ? null : text, ctl.signal, (ev) => reply({ id: msg.id, type: "event", event: ev }), msg.agent ? String(msg.agent) : "", msg.model ? String(msg.model) : "", files);
      } else {
        const host = await this.host();
        // agent: the page's session starts with (or turns to) a stored agent.
        if (msg.agent) await setSessionAgent(this.store, msg.session, String(msg.agent), (op, args) => host.check(op, args));
        const events = compact ? host.compact(msg.session, { signal: ctl.signal }) : host.send(msg.session, text, { signal: ctl.signal, ...(files.length ? { attachments: files } : {}) });
        for await (const ev of events) {
          reply({ id: msg.id, type: "event", event: ev });
        }
      }
      reply({ id: msg.id, type: "done", result: null });
    } catch (err) {
      if (ctl.signal.aborted) reply({ id: msg.id, type: "done", result: { aborted: true } });
      else throw err;
    } finally {
      this.#aborts.delete(msg.id);
      if (sid === null) {
        const n = this.#running.get(msg.session) - 1;
        if (n > 0) this.#running.set(msg.session, n);
        else this.#running.delete(msg.session);
      }
    }
  }

  // #models is the model picker's list for a session: {model, models,
  // where}. A server session's turns call the server's provider: its list
  // is serve's (GET /api/models), and a send's model goes with the
  // message. A page session's are the page's provider's: the server's
  // through its proxy (serve's list, the model setting first), a stored
  // provider's kept list, a key's provider's own list (fetchModels, read
  // by the module), the demo's one model; choosing one sets the model
  // setting.
  async #models(msg) {
    const sid = msg.session === undefined ? null : serverID(msg.session);
    const theirs = async () => {
      const r = await this.#api("GET", "/api/models", undefined, { missing: null });
      if (!r) throw new Error("this server lists no models (GET /api/models answered 404)");
      return r;
    };
    if (sid !== null) {
      const r = await theirs();
      return { model: String(r.model ?? ""), models: (r.models ?? []).map(String), where: "server" };
    }
    const settings = await this.store.settings();
    const p = await this.provider(settings);
    const kind = PROVIDERS.includes(settings.provider) ? settings.provider : settings.provider ? "stored" : "server";
    let models;
    if (kind === "server") models = (await theirs()).models ?? [];
    else if (kind === "demo") models = [p.model];
    else if (kind === "stored") models = storedProvider(settings, settings.provider)?.record?.models ?? [];
    else models = await fetchModels(this.fetch, p.format, p.baseURL, p.apiKey, { check: async (op, args) => (await this.host()).check(op, args) });
    models = models.map(String);
    if (p.model && !models.includes(p.model)) models.unshift(p.model);
    return { model: p.model, models, where: "page" };
  }

  // #sendToServer runs a turn on the server (POST .../messages; with text
  // null POST .../compact) and gives emit its events, read from the stream
  // as the page's own turns give them. Aborting closes the request: serve
  // and the worker then end the turn, keeping what it did.
  async #sendToServer(sid, text, signal, emit, agent = "", model = "", files = []) {
    const path = `/api/sessions/${encodeURIComponent(sid)}/${text === null ? "compact" : "messages"}`;
    let r;
    try {
      const body = text === null ? {} : { text, ...(agent ? { agent } : {}), ...(model ? { model } : {}), ...(files.length ? { attachments: files } : {}) };
      r = await this.fetch(path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body), signal });
    } catch (e) {
      if (signal.aborted) throw e;
      throw unreachable(e);
    }
    if (!r.ok) {
      const v = await r.json().catch(() => null);
      // A 400 refuses the message as sent (a file that is neither an
      // image nor text): nothing was stored.
      throw Object.assign(new Error(v?.error ?? `the server answered ${r.status} to POST ${path}`), r.status === 400 ? { refused: true } : {});
    }
    let ended = false;
    for await (const ev of serverSentEvents(r.body, signal)) {
      // Every turn's stream ends with done or failed: a failed event of
      // code turn_running or host_error when the server, not the turn,
      // ended it (a turn running there, its store or module failing).
      if (ev.type === "done" || ev.type === "failed") ended = true;
      emit(pageEvent(ev));
    }
    signal.throwIfAborted();
    if (!ended) throw new Error("the server's stream ended before the turn did: is the server still running? What the turn did is kept there");
  }

  async #sessions(msg) {
    const sid = msg.session === undefined ? null : serverID(msg.session);
    switch (msg.action ?? "list") {
      case "list":
        return this.#list(msg.q);
      case "create": {
        // Nothing is stored: a session is, with its first message.
        if (msg.title) throw new Error("sessions: a session is titled after its first message; rename it once it has one");
        if (msg.where !== undefined && msg.where !== "page" && msg.where !== "server") throw new Error(`sessions: where is "page" or "server", not ${JSON.stringify(msg.where)}`);
        const where = msg.where ?? (await this.#keeper(await this.#server())).keep;
        if (where === "server") return fromServer(await this.#api("POST", "/api/sessions", {}));
        const now = new Date().toISOString();
        return { id: newID(), title: "", created: now, updated: now, messages: 0, where: "page" };
      }
      case "get": {
        if (sid !== null) {
          const s = await this.#api("GET", `/api/sessions/${encodeURIComponent(sid)}`, undefined, { missing: null });
          return s && fromServer(s);
        }
        const s = await this.store.session(msg.session);
        return s && { ...s, where: "page" };
      }
      case "rename": {
        if (typeof msg.title !== "string") throw new Error('give the new title as {"title": "..."}');
        // The module decides what a title becomes, or why it cannot be one.
        const t = await (await this.host()).check("session_title", { title: msg.title });
        if (t.error) throw new Error(t.error.message);
        if (sid !== null) return fromServer(await this.#api("PATCH", `/api/sessions/${encodeURIComponent(sid)}`, { title: t.args.title }));
        const s = await this.store.renameSession(msg.session, t.args.title);
        if (!s) throw noPageSession(msg.session);
        return { ...s, where: "page" };
      }
      case "delete": {
        if (sid !== null) {
          await this.#api("DELETE", `/api/sessions/${encodeURIComponent(sid)}`);
        } else {
          if (this.#running.has(msg.session)) {
            throw new Error(`a turn is running in session ${JSON.stringify(msg.session)}: wait for it to end, or stop it (abort), then delete it`);
          }
          if (!(await this.store.deleteSession(msg.session))) throw noPageSession(msg.session);
          await this.store.setSettings({ [SESSION_AGENT_PREFIX + msg.session]: null });
        }
        return this.#list();
      }
      default:
        throw new Error(`sessions: unknown action ${JSON.stringify(msg.action)}`);
    }
  }

  // #list is the page's sessions and, when a server answers, the server's,
  // most recent first: {sessions, problems, server, keep, provider}. A
  // server that does not answer leaves the page's, with a problem saying
  // so. keep says where a new chat is kept ("server" or "page"), and
  // provider why a page served by serve keeps it in the page (#keeper).
  // With q, the sessions whose title or messages have every word of it,
  // each with its snippet: serve searches its own (GET /api/sessions?q=),
  // the worker's are matched by title.
  async #list(q) {
    const searching = typeof q === "string" && q.trim() !== "";
    let sessions = (await this.store.sessions()).map((s) => ({ ...s, where: "page" }));
    if (searching) sessions = await searchSessions(sessions, (id) => this.store.messages(id), q);
    const problems = [];
    const server = await this.#server();
    if (server.problem) problems.push(server.problem);
    const serves = server.health?.page_chats === "server";
    if (server.ok) {
      try {
        const list = await this.#api("GET", searching && serves ? `/api/sessions?q=${encodeURIComponent(q)}` : "/api/sessions");
        if (!Array.isArray(list)) throw new Error("GET /api/sessions did not answer a list");
        let theirs = list.map(fromServer);
        if (searching && !serves) theirs = await searchSessions(theirs, async () => [], q);
        sessions.push(...theirs);
      } catch (e) {
        problems.push(`the server's sessions are not listed: ${e.message}`);
      }
    }
    sessions.sort(byRecent);
    return { sessions, problems, server: !!server.ok, ...(await this.#keeper(server)) };
  }

  // #keeper says where a new chat is kept: {keep: "server"} when serve
  // keeps the page's chats (its health's page_chats) and the page's
  // provider is the server's, so the turns run in the program; {keep:
  // "page"} otherwise, with provider set when only the page's own
  // provider (a key kept in this browser, the demo) keeps it here.
  async #keeper(server) {
    if (server.health?.page_chats !== "server") return { keep: "page" };
    const provider = (await this.store.settings()).provider ?? "server";
    return provider === "server" ? { keep: "server" } : { keep: "page", provider };
  }

  // #server says whether a toolroute server (serve or the worker) is
  // there: {ok: true, health}, {none: true} when the page is served by
  // something else, or {problem} when one should be there and does not
  // answer.
  async #server() {
    let r;
    try {
      r = await this.fetch("/api/health");
    } catch (e) {
      return { problem: `the server's sessions are not listed: it could not be reached (${e?.message ?? e}); is toolroute serve, or the worker, still running?` };
    }
    const body = await r.json().catch(() => null);
    if (r.ok && body?.ok === true) return { ok: true, health: body };
    if (r.status === 401 || r.status === 403) {
      return { problem: `the server's sessions are not listed: it refused the page (${r.status}: ${body?.error ?? "no reason given"})` };
    }
    if (r.status >= 500) return { problem: `the server's sessions are not listed: it answered ${r.status} to GET /api/health` };
    return { none: true };
  }

  // #api makes a JSON request to the server and gives its answer: null for
  // 204, options.missing (when given) for 404; otherwise a non-2xx answer
  // throws the server's error.
  async #api(method, path, body, { missing, signal } = {}) {
    let r;
    try {
      r = await this.fetch(path, {
        method,
        ...(body === undefined ? {} : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
        signal,
      });
    } catch (e) {
      if (signal?.aborted) throw e;
      throw unreachable(e);
    }
    if (r.status === 404 && missing !== undefined) return missing;
    if (r.status === 204) return null;
    const v = await r.json().catch(() => undefined);
    if (!r.ok) throw new Error(v?.error ?? `the server answered ${r.status} to ${method} ${path}`);
    return v;
  }

  async #settings(msg) {
    if (msg.set) {
      const patch = {};
      for (const k of ["provider", "model", "apiKey", "baseURL", "system_prompt", "mcp", "routing", "search_tools", "tool_budget"]) {
        if (Object.hasOwn(msg.set, k)) patch[k] = msg.set[k];
      }
      if (patch.routing !== undefined && patch.routing !== "" && !ROUTINGS.includes(patch.routing)) {
        throw new Error(`routing ${JSON.stringify(patch.routing)}: use classic or native`);
      }
      if (patch.tool_budget !== undefined && !/^\d{0,7}$/.test(String(patch.tool_budget))) {
        throw new Error(`tool_budget ${JSON.stringify(patch.tool_budget)}: give a number of tokens, such as 4000, or 0 for no limit`);
      }
      if (patch.search_tools !== undefined && !["", "on", "off"].includes(patch.search_tools)) {
        throw new Error(`search_tools ${JSON.stringify(patch.search_tools)}: use on or off`);
      }
      await this.store.setSettings(patch);
    }
    const s = await this.store.settings();
    const out = { provider: s.provider ?? "server", model: s.model ?? "", baseURL: s.baseURL ?? "", system_prompt: s.system_prompt ?? "", hasKey: !!s.apiKey, mcp: s.mcp ?? "", mcp_problems: parseMcpConfig(s.mcp).problems,
      routing: ROUTINGS.includes(s.routing) ? s.routing : "classic", search_tools: s.search_tools === "on" ? "on" : "off", tool_budget: String(budgetOf(s.tool_budget)) };
    if (msg.withKey) out.apiKey = s.apiKey ?? "";
    // The providers stored with create_provider, for the panel's choices.
    out.stored_providers = Object.keys(s).filter((k) => k.startsWith(PROVIDER_PREFIX)).sort().map((k) => k.slice(PROVIDER_PREFIX.length));
    // The stored agents, for the New chat picker.
    out.agents = Object.keys(s).filter((k) => k.startsWith(AGENT_PREFIX)).sort().map((k) => k.slice(AGENT_PREFIX.length));
    try {
      const p = await this.provider(s);
      out.effective = { format: p.format, model: p.model, label: p.label };
      if (out.routing === "native" && !["anthropic", "responses"].includes(p.format)) {
        // What the module does too (session.RoutingFor): said once here.
        out.effective.routing = "classic";
        out.effective.routing_note = `native routing asked for, but the ${p.format} format has no native deferral of tools: classic load_tool_group is used`;
      }
    } catch (err) {
      out.effective = { error: err.message };
    }
    return out;
  }

  // #elicit asks the page an MCP server's question (one of the page's own
  // servers, mcp.js): it resolves to the user's answer, which check (the
  // module's) has passed; the call's end (signal) takes the question back.
  #elicit(question, { signal, check }) {
    return new Promise((resolve, reject) => {
      const ask = `page:${this.#nextAsk++}`;
      const done = () => this.#asks.delete(ask);
      this.#asks.set(ask, { check, resolve: (a) => (done(), resolve(a)) });
      signal?.addEventListener("abort", () => (done(), reject(signal.reason)), { once: true });
      this.#d.onElicit({ ask, ...question });
    });
  }

  // #elicitAnswer gives the user's answer to the question ask: serve's
  // (server:ID, POST /api/ui/elicitations/{id}) or one of the page's
  // servers'. A value that will not do fails with the module's sentence,
  // and the question stays open; else it answers what was sent.
  async #elicitAnswer(msg) {
    const answer = { action: String(msg.action ?? ""), ...(msg.action === "accept" ? { content: msg.content ?? {} } : {}) };
    const ask = String(msg.ask ?? "");
    if (ask.startsWith("server:")) return this.#api("POST", `/api/ui/elicitations/${encodeURIComponent(ask.slice(7))}`, answer);
    const q = this.#asks.get(ask);
    if (!q) throw new Error("this question is no longer waiting: it was answered, or the call that asked it ended");
    const verdict = await q.check(answer);
    if (verdict?.error) throw new Error(verdict.error.message);
    q.resolve(answer);
    return { action: verdict.args.action, content: verdict.args.content ?? {} };
  }

  // #serverTool runs one of the server's tools there, for this page's turn,
  // which asked the user first when the tool's permissions say to. Its MCP
  // server may ask the user meanwhile, or report its progress (serve
  // answers NDJSON then): the question goes to the page (onElicit), the
  // progress to the page's host (progress), which shows it on the card.
  async #serverTool(name, input, signal, callId, progress) {
    const fail = (type, message) => Object.assign(new Error(message), { type });
    const asks = !!this.#d.onElicit;
    let r;
    try {
      r = await this.fetch(`/api/ui/tools/${encodeURIComponent(name)}`, {
        method: "POST", headers: { "content-type": "application/json", ...(asks ? { accept: "application/x-ndjson, application/json" } : {}) }, body: JSON.stringify({ input: input ?? {} }), signal,
      });
    } catch (e) {
      if (signal?.aborted) throw e;
      throw fail("unavailable", `the server that runs ${name} could not be reached (${e?.message ?? e}): is toolroute serve still running?`);
    }
    let body;
    if (asks && r.ok && (r.headers.get("content-type") ?? "").startsWith("application/x-ndjson")) {
      for await (const ev of ndjson(r.body, signal)) {
        // The question is for this call, which serve ran apart from any turn of its own.
        if (ev.type === "elicitation") this.#d.onElicit({ ...ev, ask: `server:${ev.id}`, ...(callId ? { call_id: String(callId) } : {}) });
        else if (ev.type === "progress") progress?.(ev);
        else if (ev.type === "result") body = ev.result ?? {};
        else if (ev.type === "error") throw fail("unavailable", `the server could not run ${name}: ${ev.error}`);
      }
      signal?.throwIfAborted();
      if (!body) throw fail("unavailable", `the server's answer for ${name} ended before its result: is toolroute serve still running?`);
    } else {
      body = await r.json().catch(() => ({}));
    }
    if (!r.ok) throw fail("unavailable", `the server could not run ${name}: ${body.error ?? `it answered ${r.status}`}`);
    if (body.status === "success") {
      return Array.isArray(body.images) || Array.isArray(body.documents) || Array.isArray(body.asked) ? toolOutput(body.output ?? "", body.images, body.documents, body.asked) : body.output ?? "";
    }
    throw Object.assign(fail(body.error_type ?? "execution_error", body.message ?? `${name} failed and said nothing more`), Array.isArray(body.asked) ? { asked: body.asked } : {});
  }

  // close ends what the core keeps open: the scheduled tasks' timer and
  // its MCP servers' connections.
  async close() {
    this.#timer?.stop();
    await this.#mcp?.close();
    this.#mcp = null;
  }

  // describe is the module's describe for a session, with the token meter:
  // the schemas of the tools the next call sends against all tools, counted
  // in the text the module sends them as (tools_json), as `toolroute tokens`
  // counts it, split into core tools, the group listing and each loaded
  // group (meter.parts), with each group's cost (meter.groups). Tokens only
  // when msg.tokens asks (the meter is on screen): the tokenizer is a large
  // download; UTF-8 bytes otherwise. A server session's describe is the
  // server's (GET /api/catalogue), its meter counted in the schemas' text
  // serve gives (tools_json); null from the worker, which gives none.
  // #counted keeps the token counts of the texts the meter measured: each
  // tool's definition is counted once, not at every describe.
  #counted = new Map();

  async describe(session, { tokens = true } = {}) {
    const sid = session === undefined || session === null ? null : serverID(session);
    let d, tj, extra, host;
    if (sid !== null) {
      // serve's schemas, as its next call sends them (tools_json): the
      // meter counts them as it counts the page's; the worker gives none.
      ({ tools_json: tj, ...d } = await this.#api("GET", `/api/catalogue?session=${encodeURIComponent(sid)}&tools_json=1`));
      const h = (await this.#server()).health ?? {};
      extra = { provider: `server (${h.provider ?? "?"})`, model: h.model ?? "", mcp: h.mcp ?? [], mcp_problems: [], where: "server" };
      if (!tj?.active || !tj?.all) return { ...d, meter: null, ...extra };
    } else {
      host = await this.host();
      ({ tools_json: tj, ...d } = await host.describe(session, { toolsJSON: true }));
    }
    let meter;
    const count = this.#d.countTokens;
    if (count && tokens) {
      try {
        if (this.#counted.size > 5000) this.#counted.clear(); // bounded: catalogues change
        meter = { unit: "tokens", encoding: "o200k_base", ...(await breakdown({ ...d, tools_json: tj }, count, this.#counted)) };
      } catch {
        meter = null;
      }
    }
    meter ??= { unit: "bytes", ...(await breakdown({ ...d, tools_json: tj }, async (t) => utf8(t))) };
    if (extra) return { ...d, meter, ...extra };
    const serverTools = (await this.#catalogue().catch(() => ({}))).server_tools ?? [];
    return { ...d, meter, server_tools: serverTools, provider: host.provider.label, model: host.provider.model, mcp: this.#mcp?.status() ?? [], mcp_problems: this.#mcp?.problems() ?? [], where: "page" };
  }
}

// serverID is the server's id of a core session id ("server:ID"), or null
// for a page session.
function serverID(session) {
  const s = String(session ?? "");
  if (!s.startsWith(SERVER_PREFIX)) return null;
  const id = s.slice(SERVER_PREFIX.length);
  if (!id) throw new Error(`a server session's id is ${SERVER_PREFIX}ID, not ${JSON.stringify(s)}`);
  return id;
}

// fromServer is a server's session as the core lists it: its id
// prefixed, its times in UTC (serve writes its own zone's).
function fromServer(s) {
  const iso = (t) => {
    const ms = Date.parse(t);
    return Number.isNaN(ms) ? String(t ?? "") : new Date(ms).toISOString();
  };
  return { id: SERVER_PREFIX + s.id, title: s.title ?? "", created: iso(s.created), updated: iso(s.updated), messages: s.messages ?? 0, where: "server", ...(s.snippet ? { snippet: String(s.snippet) } : {}) };
}

// byRecent orders sessions the most recently updated first, then the
// page's before the server's, then by id.
function byRecent(a, b) {
  const d = Date.parse(b.updated) - Date.parse(a.updated);
  if (d) return d;
  if (a.where !== b.where) return a.where === "page" ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

function noPageSession(id) {
  return new Error(`no session ${JSON.stringify(id)} in this page: a session is stored with its first message`);
}

function unreachable(e) {
  return new Error(`the server could not be reached (${e?.message ?? e}): is toolroute serve, or the worker, still running?`);
}

// pageEvent is a server's turn event as the page's host gives it: the Go
// host's retry has wait in nanoseconds only.
function pageEvent(ev) {
  // serve's question during a call of its turn: answered by its id.
  if (ev.type === "elicitation" && typeof ev.id === "string") return { ...ev, ask: `server:${ev.id}` };
  if (ev.type === "retry" && ev.retry && ev.retry.wait_ms === undefined) {
    return { ...ev, retry: { ...ev.retry, wait_ms: Math.round((ev.retry.wait ?? 0) / 1e6) } };
  }
  return ev;
}

// ndjson reads serve's NDJSON answer, an event a line, until it ends or
// signal aborts.
async function* ndjson(body, signal) {
  const reader = body.getReader();
  const stop = () => reader.cancel(signal.reason).catch(() => {});
  signal?.addEventListener("abort", stop, { once: true });
  const decoder = new TextDecoder();
  let buf = "";
  try {
    for (let done = false; !done; ) {
      const chunk = await reader.read();
      done = chunk.done;
      buf += done ? decoder.decode() + "\n" : decoder.decode(chunk.value, { stream: true });
      for (let i; (i = buf.indexOf("\n")) >= 0; ) {
        const line = buf.slice(0, i).trim();
        buf = buf.slice(i + 1);
        if (line) yield JSON.parse(line);
      }
    }
  } finally {
    signal?.removeEventListener("abort", stop);
  }
}

// serverSentEvents reads a turn's stream: "event: TYPE" and "data: JSON"
// per event, comments (the worker's keep-alive) skipped. Each event is its
// data, with the event's name as type when the data has none. The reading
// stops when signal aborts.
async function* serverSentEvents(body, signal) {
  const reader = body.getReader();
  const stop = () => reader.cancel(signal.reason).catch(() => {});
  signal?.addEventListener("abort", stop, { once: true });
  const decoder = new TextDecoder();
  let buf = "";
  let finished = false;
  try {
    while (!finished) {
      const { value, done } = await reader.read();
      finished = done;
      buf += done ? decoder.decode() + "\n\n" : decoder.decode(value, { stream: true });
      buf = buf.replace(/\r\n/g, "\n");
      for (let i; (i = buf.indexOf("\n\n")) >= 0; ) {
        const block = buf.slice(0, i);
        buf = buf.slice(i + 2);
        let name = "message";
        const data = [];
        for (const line of block.split("\n")) {
          if (line === "" || line.startsWith(":")) continue;
          const c = line.indexOf(":");
          const field = c < 0 ? line : line.slice(0, c);
          const v = c < 0 ? "" : line.slice(c + 1).replace(/^ /, "");
          if (field === "event") name = v;
          else if (field === "data") data.push(v);
        }
        if (data.length === 0) continue;
        const ev = JSON.parse(data.join("\n"));
        yield { ...ev, type: ev.type ?? name };
      }
    }
  } finally {
    signal?.removeEventListener("abort", stop);
    if (!finished) reader.cancel().catch(() => {});
  }
}

function utf8(s) {
  return new TextEncoder().encode(s).length;
}
