// The chat UI worker's logic, apart from the Worker globals so that Node
// tests can drive it: it answers the page's requests (see worker.js for the
// protocol) with a web/host Host over toolroute.wasm, a JS tool runner and
// a UI store (idbstore.js).

import { createHost, toolOutput, FORMATS } from "../host/host.js";
import { MemoryStore as MemoryFS } from "../jsrun/sandbox.js";
import { storeOps, settingsMemories, configOps, toolStates, toolFileOps, withUserTools, userReports } from "../host/ops.js";
import { McpServers, withMcp, parseMcpConfig } from "../host/mcp.js";
import { breakdown } from "./meter.js";

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
  { key: "provider", description: "where model calls go: server, openai, anthropic, responses, gemini or demo" },
  { key: "model", description: "the model to call" },
];

// MCP_WAIT_MS is how long making a host waits for MCP servers to connect;
// slower ones join the catalogue when they do.
const MCP_WAIT_MS = 5000;

// The Go program's (host/app/provider.go).
const DEFAULT_BASE = {
  openai: "https://api.openai.com/v1",
  anthropic: "https://api.anthropic.com",
  responses: "https://api.openai.com/v1",
  gemini: "https://generativelanguage.googleapis.com",
};
const DEFAULT_MODEL = { openai: "gpt-4.1-mini", anthropic: "claude-sonnet-4-5", responses: "gpt-5.4-mini", gemini: "gemini-3.5-flash" };

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
//   catalogue: async () => {catalogue, sources, libraries}; by default GET
//     /api/ui/catalogue;
//   runner: ({libraries, fs, fetch}) => {call(c)}: the JS tool runner;
//   countTokens: async (text) => number, or none to count bytes.
export class Core {
  #d;
  #cat = null;
  #host = null;
  #mcp = null; // the current host's MCP servers
  #hostKey = "";
  #aborts = new Map();
  #questions = new Map(); // session -> {resolve, reject}: an approval the page is asked
  #runner = null;
  #fs = null;

  constructor(deps) {
    this.#d = deps;
    this.store = deps.store;
    this.fetch = deps.fetch ?? ((...a) => globalThis.fetch(...a));
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

  async #runnerFor(libraries) {
    if (this.#runner) return this.#runner;
    if (!this.#d.runner) return null;
    this.#fs ??= new PersistentFS(await this.store.files(), (p, t) => this.store.putFile(p, t));
    this.#runner = await this.#d.runner({ libraries: libraries ?? {}, fs: this.#fs, fetch: this.fetch });
    return this.#runner;
  }

  // host gives a Host for the current settings, made again when they change.
  async host() {
    const settings = await this.store.settings();
    const key = JSON.stringify([settings.provider, settings.model, settings.apiKey, settings.baseURL, settings.system_prompt, settings.mcp]);
    if (this.#host && this.#hostKey === key) return this.#host;
    // MCP servers (the settings' mcp.json text): their groups come after the
    // JS tools; a server's change (connected, its tools changed) loads the
    // catalogue again.
    await this.#mcp?.close();
    let host = null;
    const mcp = new McpServers({ config: settings.mcp, fetch: this.fetch, onChange: () => host && reload() });
    this.#mcp = mcp;
    const native = {};
    const cat = await this.#catalogue();
    // The server's host tools (its MCP servers', which a page cannot start
    // or may not reach) run there: serve's POST /api/ui/tools/{name}.
    const relay = {};
    for (const name of cat.server_tools ?? []) relay[name] = (input, { signal } = {}) => this.#serverTool(name, input, signal);
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
    const merged = () => {
      const m = withUserTools(cat.catalogue ?? {}, cat.sources ?? {}, files);
      return { ...m, catalogue: withMcp(m.catalogue, mcp, native, relay) };
    };
    const reload = async () => host.load({ ...merged().catalogue, disabled: await disabled() }, merged().sources);
    // A server slower than this joins the catalogue when it connects.
    await Promise.race([mcp.start(), new Promise((r) => setTimeout(r, MCP_WAIT_MS))]);
    const catalogue = { ...merged().catalogue, disabled: await disabled() };
    // The ops below reach host, made here, only once a tool runs.
    host = await createHost({
      module: this.#d.module,
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
        ...toolFileOps({
          files: userFiles,
          // The running turn offers the tools as they are from its next
          // model call (the host's reload event).
          apply: async (next) => {
            files = next;
            const m = merged();
            return userReports(await host.load({ ...m.catalogue, disabled: await disabled() }, m.sources), next);
          },
          loaded: async (list) => userReports(host.report, list),
          check: async (file, code) => (runner?.check ? runner.check(file, code) : ""),
          tools: async () => (await host.describe()).tools ?? [],
          place: "in this browser",
        }),
      },
      memories: async () => (await memories.list()).map((m) => m.text),
      catalogue,
      sources: merged().sources,
      native,
      provider,
      settings: { system_prompt: settings.system_prompt ?? "", stream: true },
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
      // Never stored, shown or sent to the model: the provider's key, the
      // variables set for tools and the Google tokens the page was given.
      secrets: () => [
        ...(provider.apiKey ? [{ name: "API key", value: provider.apiKey }] : []),
        ...Object.entries(env).map(([name, value]) => ({ name, value })),
        ...(runner?.options?.google?.tokens?.() ?? []).map((value) => ({ name: "Google access token", value })),
      ],
    });
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
    const defaults = { provider: "server", model };
    return SETTINGS.map(({ key, description }) => ({ key, value: s[key] ?? "", default: defaults[key], description }));
  }

  // #checkSetting refuses a value the page could not use, saying what it
  // takes.
  async #checkSetting(key, value) {
    if (key !== "provider") return "";
    if (!PROVIDERS.includes(value)) return `provider must be one of ${PROVIDERS.join(", ")}`;
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
          const q = this.#questions.get(msg.session);
          if (!q) return reply({ id, type: "error", error: "no question is waiting in this session" });
          this.#questions.delete(msg.session);
          q.resolve(Array.isArray(msg.answers) ? msg.answers : []);
          return reply({ id, type: "done", result: null });
        }
        case "describe":
          return reply({ id, type: "done", result: await this.describe(msg.session, { tokens: msg.tokens !== false }) });
        case "sessions":
          return reply({ id, type: "done", result: await this.#sessions(msg) });
        case "messages":
          return reply({ id, type: "done", result: await this.store.messages(msg.session) });
        case "settings":
          return reply({ id, type: "done", result: await this.#settings(msg) });
        default:
          return reply({ id, type: "error", error: `unknown request type ${JSON.stringify(msg.type)}` });
      }
    } catch (err) {
      reply({ id, type: "error", error: String(err?.message ?? err) });
    }
  }

  async #send(msg, reply) {
    const text = String(msg.text ?? "").trim();
    if (!msg.session) throw new Error("send: session is required");
    if (!text) throw new Error("send: the message is empty");
    const host = await this.host();
    const ctl = new AbortController();
    this.#aborts.set(msg.id, ctl);
    try {
      for await (const ev of host.send(msg.session, text, { signal: ctl.signal })) {
        reply({ id: msg.id, type: "event", event: ev });
      }
      reply({ id: msg.id, type: "done", result: null });
    } catch (err) {
      if (ctl.signal.aborted) reply({ id: msg.id, type: "done", result: { aborted: true } });
      else throw err;
    } finally {
      this.#aborts.delete(msg.id);
    }
  }

  async #sessions(msg) {
    switch (msg.action ?? "list") {
      case "list":
        return this.store.sessions();
      case "create":
        return this.store.createSession(msg.title ?? "");
      case "get":
        return this.store.session(msg.session);
      case "delete":
        await this.store.deleteSession(msg.session);
        return this.store.sessions();
      default:
        throw new Error(`sessions: unknown action ${JSON.stringify(msg.action)}`);
    }
  }

  async #settings(msg) {
    if (msg.set) {
      const patch = {};
      for (const k of ["provider", "model", "apiKey", "baseURL", "system_prompt", "mcp"]) {
        if (Object.hasOwn(msg.set, k)) patch[k] = msg.set[k];
      }
      await this.store.setSettings(patch);
    }
    const s = await this.store.settings();
    const out = { provider: s.provider ?? "server", model: s.model ?? "", baseURL: s.baseURL ?? "", system_prompt: s.system_prompt ?? "", hasKey: !!s.apiKey, mcp: s.mcp ?? "", mcp_problems: parseMcpConfig(s.mcp).problems };
    if (msg.withKey) out.apiKey = s.apiKey ?? "";
    try {
      const p = await this.provider(s);
      out.effective = { format: p.format, model: p.model, label: p.label };
    } catch (err) {
      out.effective = { error: err.message };
    }
    return out;
  }

  // #serverTool runs one of the server's tools there, for this page's turn,
  // which asked the user first when the tool's permissions say to.
  async #serverTool(name, input, signal) {
    const fail = (type, message) => Object.assign(new Error(message), { type });
    let r;
    try {
      r = await this.fetch(`/api/ui/tools/${encodeURIComponent(name)}`, {
        method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ input: input ?? {} }), signal,
      });
    } catch (e) {
      if (signal?.aborted) throw e;
      throw fail("unavailable", `the server that runs ${name} could not be reached (${e?.message ?? e}): is toolroute serve still running?`);
    }
    const body = await r.json().catch(() => ({}));
    if (!r.ok) throw fail("unavailable", `the server could not run ${name}: ${body.error ?? `it answered ${r.status}`}`);
    if (body.status === "success") return Array.isArray(body.images) ? toolOutput(body.output ?? "", body.images) : body.output ?? "";
    throw fail(body.error_type ?? "execution_error", body.message ?? `${name} failed and said nothing more`);
  }

  // close ends what the core keeps open: its MCP servers' connections.
  async close() {
    await this.#mcp?.close();
    this.#mcp = null;
  }

  // describe is the module's describe for a session, with the token meter:
  // the schemas of the tools the next call sends against all tools, counted
  // in the text the module sends them as (tools_json), as `toolroute tokens`
  // counts it, split into core tools, the group listing and each loaded
  // group (meter.parts), with each group's cost (meter.groups). Tokens only
  // when msg.tokens asks (the meter is on screen): the tokenizer is a large
  // download; UTF-8 bytes otherwise.
  async describe(session, { tokens = true } = {}) {
    const host = await this.host();
    const { tools_json: tj, ...d } = await host.describe(session, { toolsJSON: true });
    let meter;
    const count = this.#d.countTokens;
    if (count && tokens) {
      try {
        meter = { unit: "tokens", encoding: "o200k_base", ...(await breakdown({ ...d, tools_json: tj }, count)) };
      } catch {
        meter = null;
      }
    }
    meter ??= { unit: "bytes", ...(await breakdown({ ...d, tools_json: tj }, async (t) => utf8(t))) };
    const serverTools = (await this.#catalogue().catch(() => ({}))).server_tools ?? [];
    return { ...d, meter, server_tools: serverTools, provider: host.provider.label, model: host.provider.model, mcp: this.#mcp?.status() ?? [], mcp_problems: this.#mcp?.problems() ?? [] };
  }
}

function utf8(s) {
  return new TextEncoder().encode(s).length;
}
