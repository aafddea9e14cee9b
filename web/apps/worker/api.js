// The worker's HTTP API: `toolroute serve`'s (internal/server), the same paths,
// bodies and server-sent events, over a host (web/host) whose message log
// lives in Durable Objects (sessions.js). Its routes are
// docs/reference/http.md's, which says what the worker leaves out and
// adds; TestHTTPReference (cmd/toolroute) checks the table against
// route's cases below and serve's mux.
//
// A worker is on the internet, not on localhost: it answers only requests
// carrying the TOOLROUTE_TOKEN secret, as "Authorization: Bearer TOKEN" or
// the cookie GET /?token=TOKEN sets; every request when the TOOLROUTE_PUBLIC
// variable is "1" (behind Cloudflare Access, say); and requests to a
// loopback name when the TOOLROUTE_DEV_NO_TOKEN variable is "1" (workerd or
// wrangler dev on this machine; see auth.js). Every POST and PATCH takes
// JSON, as serve's do.
import { Toolroute } from "toolroute";
import { createHost, modelRequest, sleep, RETRIES_HEADER } from "toolroute/host";
import { storeOps, configOps, withoutTools, toolFileOps, withUserTools, userReports, ENV_NAME } from "../../packages/toolroute/host/ops.js";
import { McpServers, withMcp } from "toolroute/mcp";
import { pdfGroup, withPdf } from "../../packages/toolroute/host/pdf.js";
import { Tasks } from "../../packages/toolroute/host/schedules.js";
import { agentOps, runNested, SESSION_AGENT_PREFIX } from "../../packages/toolroute/host/agents.js";
import { AGENT_PREFIX } from "../../packages/toolroute/host/records.js";

// ALLOW_HINT ends the refusal of a tool that asks when no one can be asked
// (a scheduled task): the worker's approval rules are a variable
// (policies.js).
export const ALLOW_HINT = "The user can allow it by adding tool:{tool}=allow to the worker's TOOLROUTE_POLICIES variable.";

// MAX_SEARCHED bounds the sessions search_history reads, most recent first:
// each is a Durable Object to ask.
const MAX_SEARCHED = 200;
import { Runner, MemoryStore, NotConnected } from "toolroute/jsrun";
import { resolveProvider, describeProvider, hint } from "./provider.js";
import { authorize, tokenCookie } from "./auth.js";
import { INDEX_NAME, FILES_NAME } from "./sessions.js";
import { parsePolicies } from "./policies.js";
import { createApprover, expiry, snapshot } from "./approvals.js";
import { byteLength } from "../../packages/toolroute/jsrun/sandbox.js";
import { sessionTitle, newSessionID } from "../../packages/toolroute/host/session-names.js";

// MAX_BODY bounds a request body, as serve's MaxBody; MAX_MESSAGE_BODY a
// message's, with its attached files, as serve's MaxMessageBody.
export const MAX_BODY = 1 << 20;
export const MAX_MESSAGE_BODY = 8 << 20;
// WORKER_STACK_SIZE is QuickJS's stack limit in the worker. QuickJS's wasm
// frames use V8's own stack too, and workerd's is smaller than Node's and
// Chrome's: with web/jsrun's 360 KB, once V8 has optimised QuickJS's
// interpreter a deep recursion overflows V8's stack before QuickJS's check,
// and the tool cannot catch it. At 288 KB QuickJS's RangeError comes first,
// after about 1,650 levels (worker.test.js checks both).
export const WORKER_STACK_SIZE = 288 << 10;
// SANDBOX_MAX_BYTES bounds the files JS tools keep, all together: each JS
// call loads them all.
export const SANDBOX_MAX_BYTES = 16 << 20;
// MAX_MODEL_BODY bounds a proxied model call's body (a whole conversation),
// as serve's MaxModelBody.
export const MAX_MODEL_BODY = 32 << 20;
// MODEL_RETRIES: how often the page's module tries a call the proxy sent again
// (a 429 or 5xx), waiting from 1 s, doubling, as the Go program's provider does.
const MODEL_RETRIES = 3;
const MODEL_MAX_WAIT_MS = 60_000;
// SESSION_ID is what a session id may be. POST /api/sessions makes ids
// such as 20260102-150405-a1b2c3 (app.NewSessionID's form); an id names a
// Durable Object and comes back in messages and logs, so one with a NUL, a
// newline or kilobytes of text is refused first.
const SESSION_ID = /^[A-Za-z0-9._-]{1,128}$/;
const BAD_SESSION_ID = "a session id is 1 to 128 characters of A-Z, a-z, 0-9, '.', '_' and '-': POST /api/sessions makes one, GET /api/sessions lists them";

// createWorker makes the worker's fetch handler. deps:
//   toolrouteModule, quickjsModule: the WebAssembly.Modules (module imports);
//   wordVectors: the word vector table (wordvec.bin, a data module's
//     ArrayBuffer), handed to the module when TOOLROUTE_SEARCH_TOOLS is on,
//     for search_tools to rank with (it costs a new isolate's first request
//     a few milliseconds, so only then);
//   bundle: {catalogue, sources, libraries}, `toolroute export`'s output;
//   page: the chat page's HTML;
//   fetchOptions: (env) => the JS tools' fetch options beyond the worker's
//     fetch ({rewrites}, see jsrun's Runner), none by default: the tests'
//     entry sends a test site to a local server with it;
//   now: the clock (new Date by default).
// The module is instantiated on the first request, inside the handler (a
// worker may not ask for random bytes at global scope), and reused by every
// later request this isolate serves. That first request loads the catalogue
// into it once, the user's tools included: the load is most of a new
// isolate's first request (web/apps/worker/bench.mjs).
export function createWorker(deps) {
  let state = null;
  const now = deps.now ?? (() => new Date());

  // ready gives the isolate's host, with the user's tools as they are in
  // storage now (sync: false skips that look, for the model proxy).
  // The request that starts the host has just read the user's tools with
  // it, and looks no further.
  async function ready(env, { sync = true } = {}) {
    let started = false;
    if (!state) {
      started = true;
      state = start(env, deps, now).catch((e) => {
        state = null;
        throw e;
      });
    }
    const st = await state;
    if (sync && !started) await st.syncTools();
    return st;
  }

  return {
    async fetch(request, env, ctx) {
      try {
        return await route(request, env, ctx, deps, now, ready);
      } catch (e) {
        return fail(500, `the worker failed: ${e?.message ?? e}`);
      }
    },
  };
}

// start makes the isolate's host: the provider, the module instance, the
// JS tool runner, and the store over the Durable Objects.
async function start(env, deps, now) {
  const provider = resolveProvider(env);
  const tokens = new Map(); // session id -> the lease token of its running turn
  // unreleased: session id -> the lease of a turn of this isolate that
  // ended but whose release could not be written (a full disk); the
  // session's next turn here takes it at once, as the Go store does.
  const unreleased = new Map();
  // lease begins a turn of session id (SessionLog.begin): null while
  // another turn holds it, else {token, end}; end lets the session go.
  const lease = async (id, title) => {
    const stub = sessionStub(env, id);
    const token = crypto.randomUUID();
    const begun = await stub.begin(id, token, title, now().toISOString(), unreleased.get(id) ?? null);
    if (begun.busy) return null;
    unreleased.delete(id);
    tokens.set(id, token);
    const end = async () => {
      if (tokens.get(id) === token) tokens.delete(id);
      await stub.end(token).catch(() => unreleased.set(id, token));
    };
    return { token, end };
  };
  const store = {
    messages: (id) => sessionStub(env, id).messages(),
    append: (id, messages) => sessionStub(env, id).append(tokens.get(id) ?? "", messages, now().toISOString()),
  };
  const bundle = deps.bundle ?? {};
  const memories = {
    list: () => indexStub(env).memories(),
    add: (text, time) => indexStub(env).addMemory(text, time),
  };
  // The user's tools (create_js_tool) are kept in the SessionIndex, after
  // the bundle's catalogue; tools.generation is the version this isolate
  // loaded, compared before each request (syncTools).
  // The pdf group reads the SandboxFiles and, as JS tools' fetch does,
  // URLs; no pdf_render_page, as workerd has no canvas (web/packages/toolroute/host/pdf.js).
  const pdf = pdfGroup({
    files: async () => new MemoryStore(await env.SANDBOX_FILES.get(env.SANDBOX_FILES.idFromName(FILES_NAME)).all()),
    fetch: { fetch: (...a) => fetch(...a), ...deps.fetchOptions?.(env) },
  });
  const agents = workerAgents(env);
  const unoffered = agents.list.length ? UNOFFERED : [...UNOFFERED, "create_agent"];
  const base = withPdf(withoutTools(bundle.catalogue ?? {}, unoffered, { config: CONFIG_DESCRIPTION }), pdf);
  // The tools as stored now go into the first load: syncTools, on this
  // first request, then finds them current rather than loading the whole
  // catalogue into the module a second time.
  const tools = await indexStub(env).toolFiles();
  // MCP servers (the TOOLROUTE_MCP variable, mcp.json's text) are groups
  // after the JS tools; a server's change loads the catalogue again.
  let host = null;
  const native = {};
  const mcp = new McpServers({ config: env.TOOLROUTE_MCP, configName: "the TOOLROUTE_MCP variable", onChange: () => host && apply(tools.files), check: (op, args) => host?.check(op, args) });
  await Promise.race([mcp.start(), new Promise((r) => setTimeout(r, MCP_WAIT_MS))]);
  // The module names the MCP servers' tools (withMcp asks it): the first
  // catalogue, before the host is made, has none of them; a load adds them.
  const merged = async () => {
    const m = withUserTools(base, bundle.sources ?? {}, tools.files, WORKER_TOOLS);
    return { ...m, catalogue: await withMcp(m.catalogue, mcp, native, pdf.native, host && ((op, args) => host.check(op, args))) };
  };
  const apply = async (files) => {
    tools.files = files;
    const m = await merged();
    return userReports(await host.load(m.catalogue, m.sources), files, WORKER_TOOLS);
  };
  // The scheduled tasks, in the SessionIndex, whose alarm runs the due
  // ones through POST /api/tasks/due: each a turn in a session of its own,
  // unattended.
  const tasks = new Tasks({
    store: { settings: () => indexStub(env).taskSettings(), setSettings: (patch) => indexStub(env).setTaskSettings(patch) },
    check: (op, args) => host.check(op, args),
    now,
    run: async (id, title, prompt) => {
      if (provider.error) throw new Error(provider.error);
      const turn = await lease(id, title);
      if (!turn) throw new Error(`a turn is already running in session ${id}`);
      let answer = "";
      let failure = null;
      try {
        for await (const ev of host.send(id, prompt, { unattended: true })) {
          if (ev.type === "done") answer = ev.text ?? "";
          if (ev.type === "failed") failure = hint(provider, ev.failure?.message ?? "the turn failed");
        }
      } finally {
        await turn.end();
      }
      if (failure !== null) throw new Error(failure);
      return answer;
    },
  });
  const first = await merged();
  host = await createHost({
    // The built-in tools' storage: memories in the SessionIndex, history
    // search over the sessions' logs (the most recent MAX_SEARCHED).
    // The config group reads the worker's variables: get_config only (see
    // UNOFFERED).
    ops: {
      ...storeOps({
        memories,
        sessions: async () => (await indexStub(env).list()).slice(0, MAX_SEARCHED),
        messages: (id) => sessionStub(env, id).messages(),
        now,
      }),
      ...configOps({ settings: { list: async () => workerSettings(env) }, env: { names: async () => toolVarNames(env) } }),
      ...tasks.ops(),
      // create_agent runs the deployment's agents, each a turn nested in
      // the call, in a session of its own that remembers its agent.
      ...agentOps({
        store: {
          settings: async () => agents.settings,
          setSettings: async (patch) => {
            for (const [k, v] of Object.entries(patch)) {
              if (k.startsWith(SESSION_AGENT_PREFIX) && v) await indexStub(env).setAgentOf(k.slice(SESSION_AGENT_PREFIX.length), v);
            }
          },
        },
        update: async (a) => {
          throw Object.assign(new Error(`the worker's agents are its TOOLROUTE_AGENTS variable, which only a deployment changes: run one of ${agents.list.map((x) => x.name).join(", ")} with its name and the task`), { type: "invalid_arguments", agent: a.name });
        },
        now,
        run: async ({ session, title, task, turn, signal, agent }) => {
          const held = await lease(session, title);
          if (!held) throw new Error(`a turn is already running in session ${session}`);
          try {
            const out = await runNested(host, { session, title, task, turn, signal, agent });
            return out.failure !== undefined ? { failure: hint(provider, out.failure) } : out;
          } finally {
            await held.end();
          }
        },
      }),
      ...toolFileOps({
        files: {
          list: async () => (await indexStub(env).toolFiles()).files,
          put: async (name, manifest, code) => {
            tools.generation = await indexStub(env).putToolFile(name, manifest, code);
          },
          remove: async (name) => {
            tools.generation = await indexStub(env).removeToolFile(name);
          },
        },
        apply,
        loaded: async (list) => userReports(host.report, list, WORKER_TOOLS),
        check: (file, code) => newRunner(env, deps.quickjsModule, bundle.libraries).check(file, code),
        tools: async () => (await host.describe()).tools ?? [],
        place: "in the worker's storage",
      }),
    },
    memories: async () => (await memories.list()).map((m) => m.text),
    // A session started with an agent is that agent's.
    agentOf: async (id) => agents.byName(await indexStub(env).agentOf(id)),
    module: () => Toolroute.instantiate(deps.toolrouteModule, { stderr: (l) => console.warn("toolroute.wasm:", l) }),
    wordVectors: env.TOOLROUTE_SEARCH_TOOLS === "on" ? deps.wordVectors : undefined,
    catalogue: first.catalogue,
    sources: first.sources,
    native,
    // Without a provider the host still describes the catalogue; turns are
    // refused before they start (see send).
    provider: provider.error ? { format: "openai", baseURL: "http://provider.invalid" } : { ...provider, browser: false },
    settings: { stream: true, system_prompt: env.TOOLROUTE_SYSTEM_PROMPT ?? "", routing: workerRouting(env, provider.format).used, search_tools: env.TOOLROUTE_SEARCH_TOOLS === "on",
      tool_budget: Number.parseInt(env.TOOLROUTE_TOOL_BUDGET ?? "0", 10) || 0, context_limit: Number.parseInt(env.TOOLROUTE_CONTEXT_LIMIT ?? "0", 10) || 0,
      allow_hint: ALLOW_HINT },
    store,
    runJS: (call) => runWithFiles(env, deps.quickjsModule, bundle.libraries, call, deps.fetchOptions?.(env)),
    // A tool's variable NAME is the worker's TOOL_NAME: never the worker's
    // own secrets (the provider key, Google's, the token).
    env: (name) => (typeof env[TOOL_ENV_PREFIX + name] === "string" ? env[TOOL_ENV_PREFIX + name] : undefined),
    policies: parsePolicies(env.TOOLROUTE_POLICIES).policies,
    approve: createApprover({ session: (id) => sessionStub(env, id), token: (id) => tokens.get(id) ?? "", now, sleep }),
    secrets: () => workerSecrets(env),
    now,
  });
  if (mcp.configured) await apply(tools.files);
  // syncTools loads the user's tools again when another isolate changed
  // them: one look at the SessionIndex per request.
  const syncTools = async () => {
    // A request is when a worker can try a server that was down again:
    // its timers do not run between requests.
    mcp.retryDue();
    const index = indexStub(env);
    if ((await index.toolGeneration()) === tools.generation) return;
    const { generation, files } = await index.toolFiles();
    await apply(files);
    tools.generation = generation;
  };
  return { host, provider, lease, syncTools, mcp, tasks, agents };
}

// workerAgents reads the TOOLROUTE_AGENTS variable: a JSON array of agents,
// each {name, system_prompt, model?, groups?, tool_budget?}, as the Go program stores
// them (AgentRecord). list is the good ones, settings them as agent.NAME
// settings (agentOps reads those), problems what is wrong with the rest.
export function workerAgents(env) {
  const list = [];
  const problems = [];
  const raw = typeof env.TOOLROUTE_AGENTS === "string" ? env.TOOLROUTE_AGENTS.trim() : "";
  if (raw) {
    let v;
    try {
      v = JSON.parse(raw);
    } catch (e) {
      problems.push(`TOOLROUTE_AGENTS is not JSON (${e.message}): give an array of {"name", "system_prompt", "model", "groups"}`);
    }
    if (v !== undefined && !Array.isArray(v)) problems.push('TOOLROUTE_AGENTS is not an array: give [{"name", "system_prompt", "model", "groups"}, ...]');
    for (const [i, a] of (Array.isArray(v) ? v : []).entries()) {
      const name = String(a?.name ?? "");
      const budget = a?.tool_budget ?? 0;
      if (!/^[a-z][a-z0-9_-]{0,39}$/.test(name) || typeof a?.system_prompt !== "string" || !a.system_prompt.trim() || (a.groups !== undefined && !Array.isArray(a.groups)) ||
        !Number.isInteger(budget) || budget < 0 || list.some((x) => x.name === name)) {
        problems.push(`TOOLROUTE_AGENTS[${i}] is left out: an agent is {"name": lower-case letters, digits, _ and -, "system_prompt": not empty, "model", "groups": [names], "tool_budget": tokens}, each name once`);
        continue;
      }
      const agent = { name, system_prompt: a.system_prompt.trim(), model: typeof a.model === "string" ? a.model.trim() : "", groups: (a.groups ?? []).map(String) };
      if (budget > 0) agent.tool_budget = budget;
      list.push(agent);
    }
  }
  const settings = Object.fromEntries(list.map((a) => [AGENT_PREFIX + a.name, JSON.stringify(a)]));
  return { list, problems, settings, byName: (name) => list.find((a) => a.name === name) ?? null };
}

// MCP_WAIT_MS is how long an isolate's start waits for MCP servers to
// connect; slower ones join the catalogue when they do.
const MCP_WAIT_MS = 5000;

// WORKER_TOOLS is the folder of the user's tools in the worker's catalogue.
const WORKER_TOOLS = "worker/";

// runWithFiles runs a JS call with the sandbox's files (SandboxFiles) and
// stores the ones it wrote; fetchOptions add to the fetch bridge's.
async function runWithFiles(env, quickjsModule, libraries, call, fetchOptions) {
  const files = env.SANDBOX_FILES.get(env.SANDBOX_FILES.idFromName(FILES_NAME));
  const store = new BoundedStore(await files.all());
  const extra = fetchOptions ? { store, fetch: { fetch: (...a) => fetch(...a), ...fetchOptions } } : { store };
  const out = await newRunner(env, quickjsModule, libraries, extra).call(call);
  const written = store.written();
  if (Object.keys(written).length > 0) {
    try {
      await files.put(written);
    } catch (e) {
      return { status: "error", error_type: "execution_error", message: `the files JS tool '${call.tool}' wrote could not be stored: ${e?.message ?? e}; run it again`, logs: out.logs ?? [] };
    }
  }
  return out;
}

// BoundedStore is a MemoryStore that remembers what was written and keeps
// all files together within SANDBOX_MAX_BYTES.
export class BoundedStore extends MemoryStore {
  #written = new Set();
  #bytes = 0;

  constructor(files) {
    super(files);
    for (const t of this.files.values()) this.#bytes += byteLength(t);
  }

  write(rel, content, append) {
    const before = this.files.has(rel) ? byteLength(this.files.get(rel)) : 0;
    const after = (append ? before : 0) + byteLength(content);
    if (this.#bytes - before + after > SANDBOX_MAX_BYTES) {
      throw new Error(`the worker's sandbox holds at most ${SANDBOX_MAX_BYTES} bytes of files, all together`);
    }
    super.write(rel, content, append);
    this.#bytes += after - before;
    this.#written.add(rel);
  }

  // written gives the files written: {path: text, or bytes (a Uint8Array)
  // for what downloadToFile saved}.
  written() {
    const out = {};
    for (const rel of [...this.#written].sort()) out[rel] = this.files.get(rel);
    return out;
  }
}

// newRunner is the worker's JS tool runner: QuickJS from the module import,
// the worker's fetch, the libraries of the bundle and the Google account of
// the worker's secrets.
export function newRunner(env, quickjsModule, libraries, extra = {}) {
  return new Runner({
    wasmModule: quickjsModule,
    libraries: [libraries ?? {}],
    fetch: { fetch: (...a) => fetch(...a) },
    google: googleFor(env),
    maxStackSize: WORKER_STACK_SIZE,
    ...extra,
  });
}

// TOOL_ENV_PREFIX is the prefix of the worker variables JS tools may read:
// a manifest's env NAME is TOOL_NAME.
export const TOOL_ENV_PREFIX = "TOOL_";

// UNOFFERED are the built-in tools the worker leaves out of its catalogue,
// since it cannot do what they do: its settings, its provider and its
// tools' variables are its bindings (wrangler.toml, secrets), which only a
// deployment changes, so it keeps no providers, models or agents of its
// own, and its catalogue is the bundle's, fixed at deployment, in every
// isolate alike. Of the config group it offers get_config alone. Its agents
// are its TOOLROUTE_AGENTS variable (workerAgents): without any,
// create_agent is left out too. A tool it cannot run is never offered to
// fail.
export const UNOFFERED = [
  "list_providers", "create_provider", "update_provider", "delete_provider",
  "list_models", "fetch_models", "set_default_model", "add_model", "delete_model",
  "list_agents", "update_agent", "delete_agent",
  "set_config", "manage_env_var", "list_tool_states", "set_tool_enabled",
];
// CONFIG_DESCRIPTION is the config group's description in the worker, where
// it only reads.
// workerRouting is the TOOLROUTE_ROUTING variable: "classic" (the
// default) or "native", the provider's own deferral of tool groups, which
// formats without it replace with classic (the module's session.RoutingFor,
// said here for /api/health).
export function workerRouting(env, format) {
  const asked = typeof env.TOOLROUTE_ROUTING === "string" && env.TOOLROUTE_ROUTING.trim() ? env.TOOLROUTE_ROUTING.trim() : "classic";
  if (asked !== "classic" && asked !== "native") {
    return { asked, used: "classic", problem: `TOOLROUTE_ROUTING is ${JSON.stringify(asked)}: use classic or native (classic is used)` };
  }
  if (asked === "native" && !["anthropic", "responses"].includes(format)) {
    return { asked, used: "classic", note: `native routing asked for, but the ${format ?? "openai"} format has no native deferral of tools: classic load_tool_group is used` };
  }
  return { asked, used: asked };
}

export const CONFIG_DESCRIPTION = "See the settings, such as the model, and the names of the environment variables tools may read";

// workerSettings are the worker's settings as settings.list answers them:
// its variables, with what applies when one is unset. None is a secret.
export function workerSettings(env) {
  const get = (k) => (typeof env[k] === "string" ? env[k].trim() : "");
  const unset = resolveProvider({ ...env, TOOLROUTE_PROVIDER: "", TOOLROUTE_MODEL: "" });
  const chosen = resolveProvider({ ...env, TOOLROUTE_MODEL: "" });
  return [
    { key: "provider", value: get("TOOLROUTE_PROVIDER"), default: unset.error ? "none" : unset.name, description: "where model calls go: openai, anthropic, responses, gemini or demo (the TOOLROUTE_PROVIDER variable)" },
    { key: "model", value: get("TOOLROUTE_MODEL"), default: chosen.error ? "none" : chosen.model, description: "the model to call (the TOOLROUTE_MODEL variable)" },
    { key: "system_prompt", value: get("TOOLROUTE_SYSTEM_PROMPT"), default: "none", description: "the base system prompt (the TOOLROUTE_SYSTEM_PROMPT variable)" },
  ];
}

// toolVarNames are the names JS tools know the worker's TOOL_ variables
// by: names only, never their values, which are secrets.
export function toolVarNames(env) {
  return Object.keys(env)
    .filter((k) => k.startsWith(TOOL_ENV_PREFIX) && typeof env[k] === "string" && ENV_NAME.test(k.slice(TOOL_ENV_PREFIX.length)))
    .map((k) => k.slice(TOOL_ENV_PREFIX.length));
}

// SECRET_VARS are the worker's own secrets, redacted wherever text leaves
// it (with the variables for tools and the Google tokens handed out).
const SECRET_VARS = ["OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "TOOLROUTE_TOKEN", "GOOGLE_ACCESS_TOKEN", "GOOGLE_REFRESH_TOKEN", "GOOGLE_CLIENT_SECRET"];

// workerSecrets are the values the host redacts.
export function workerSecrets(env) {
  const out = [];
  for (const name of SECRET_VARS) if (typeof env[name] === "string") out.push({ name, value: env[name] });
  for (const [name, value] of Object.entries(env)) {
    if (name.startsWith(TOOL_ENV_PREFIX) && typeof value === "string") out.push({ name: name.slice(TOOL_ENV_PREFIX.length), value });
  }
  for (const value of google?.tokens?.() ?? []) out.push({ name: "Google access token", value });
  return out;
}

// googleFor is the isolate's Google account, its token cached between
// calls and requests (a worker's variables and secrets are the same for all
// of an isolate's requests).
let google = null;
function googleFor(env) {
  google ??= googleFromEnv(env);
  return google;
}

// googleFromEnv is the google bridge's account: GOOGLE_ACCESS_TOKEN, or
// GOOGLE_REFRESH_TOKEN with GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET
// (refreshed at GOOGLE_TOKEN_URL, Google's by default); the email from
// GOOGLE_ACCOUNT_EMAIL.
export function googleFromEnv(env, fetchFn = (...a) => fetch(...a)) {
  let cached = null;
  return {
    async accessToken() {
      if (env.GOOGLE_ACCESS_TOKEN) return env.GOOGLE_ACCESS_TOKEN;
      if (!env.GOOGLE_REFRESH_TOKEN || !env.GOOGLE_CLIENT_ID || !env.GOOGLE_CLIENT_SECRET) throw new NotConnected();
      if (cached && cached.until > Date.now()) return cached.token;
      const resp = await fetchFn(env.GOOGLE_TOKEN_URL || "https://oauth2.googleapis.com/token", {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({
          grant_type: "refresh_token", refresh_token: env.GOOGLE_REFRESH_TOKEN,
          client_id: env.GOOGLE_CLIENT_ID, client_secret: env.GOOGLE_CLIENT_SECRET,
        }).toString(),
      });
      const body = await resp.json().catch(() => ({}));
      if (!resp.ok || !body.access_token) {
        throw new Error(`refreshing the Google token answered HTTP ${resp.status} ${body.error ?? ""}: check the GOOGLE_REFRESH_TOKEN, GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET secrets`.replace("  ", " "));
      }
      const seconds = Number(body.expires_in) > 0 ? Number(body.expires_in) : 3600;
      cached = { token: body.access_token, until: Date.now() + (seconds - 60) * 1000 };
      return cached.token;
    },
    tokens: () => (cached ? [cached.token] : []),
    async accountEmail() {
      if (!env.GOOGLE_ACCESS_TOKEN && !env.GOOGLE_REFRESH_TOKEN) throw new NotConnected();
      if (!env.GOOGLE_ACCOUNT_EMAIL) throw new Error("the worker knows no email for the Google account: set the GOOGLE_ACCOUNT_EMAIL variable");
      return env.GOOGLE_ACCOUNT_EMAIL;
    },
  };
}

function sessionStub(env, id) {
  return env.SESSION_LOG.get(env.SESSION_LOG.idFromName(id));
}

function indexStub(env) {
  return env.SESSION_INDEX.get(env.SESSION_INDEX.idFromName(INDEX_NAME));
}

async function route(request, env, ctx, deps, now, ready) {
  const url = new URL(request.url);
  const path = url.pathname;
  const method = request.method;

  const denied = authorize(request, url, env);
  if (denied) return fail(denied.status, denied.message);

  if (!path.startsWith("/api/")) {
    if (method === "GET" && path === "/") {
      const token = url.searchParams.get("token");
      if (token !== null && env.TOOLROUTE_TOKEN && token === env.TOOLROUTE_TOKEN) {
        // Keep the token in a cookie and drop it from the address bar.
        return new Response(null, { status: 303, headers: { location: "/", "set-cookie": tokenCookie(token) } });
      }
      return new Response(deps.page ?? "", { headers: { "content-type": "text/html; charset=utf-8" } });
    }
    return new Response("404 page not found\n", { status: 404, headers: { "content-type": "text/plain; charset=utf-8" } });
  }

  let text = null;
  if (method === "POST" || method === "PATCH") {
    const type = (request.headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase();
    if (type !== "application/json") return fail(415, "send JSON with Content-Type: application/json");
    const limit = path === "/api/model" ? MAX_MODEL_BODY : /^\/api\/sessions\/[^/]+\/messages$/.test(path) ? MAX_MESSAGE_BODY : MAX_BODY;
    const r = await readBody(request, limit);
    if (r.error) return r.error;
    text = r.text;
  }

  const parts = path.split("/").slice(2); // after "/api/"
  const sessionRoute = parts[0] === "sessions" && parts.length >= 2 && parts.length <= 3;
  let id = null;
  if (sessionRoute) {
    try {
      id = decodeURIComponent(parts[1]);
    } catch {
      return fail(400, "the session id in the path is not valid percent-encoding");
    }
    if (!SESSION_ID.test(id)) return fail(400, BAD_SESSION_ID);
  }
  const key = sessionRoute ? `${method} /sessions/{id}${parts[2] ? "/" + parts[2] : ""}` : `${method} ${path.slice("/api".length)}`;
  let body = null;
  if (text !== null) {
    const r = await decodeBody(`${method} /api${key.slice(method.length + 1)}`, text, () => ready(env, { sync: false }));
    if (r.error) return r.error;
    body = r.value;
  }

  switch (key) {
    case "GET /health": {
      const { host, provider, mcp } = await ready(env);
      const problems = [];
      if (provider.error) problems.push(provider.error);
      problems.push(...parsePolicies(env.TOOLROUTE_POLICIES).problems);
      for (const m of host.report?.manifests ?? []) for (const p of m.skipped ?? []) problems.push(problem(p));
      problems.push(...(host.report?.errors ?? []));
      problems.push(...mcp.problems());
      problems.push(...workerAgents(env).problems);
      const routing = workerRouting(env, provider.format);
      if (routing.problem) problems.push(routing.problem);
      delete routing.problem;
      return reply({ ok: true, provider: describeProvider(provider), format: provider.format ?? "", model: provider.model ?? "", problems, mcp: mcp.status(), routing });
    }
    case "GET /sessions":
      return reply(await indexStub(env).list());
    case "POST /tasks/due": {
      // The SessionIndex's alarm: the scheduled tasks due now run, one
      // after another, before this answers.
      const { tasks } = await ready(env);
      return reply({ ran: await tasks.runDue() });
    }
    case "POST /sessions": {
      const s = newSession(now());
      if (body.agent !== undefined && body.agent !== "") {
        const refused = await setAgent(env, s.id, body.agent);
        if (refused) return refused;
        s.agent = body.agent;
      }
      return reply(s, 201);
    }
    case "POST /sessions/{id}/clear": {
      const s = newSession(now());
      const agent = await indexStub(env).agentOf(id);
      if (agent) {
        await indexStub(env).setAgentOf(s.id, agent);
        s.agent = agent;
      }
      return reply(s, 201);
    }
    case "GET /sessions/{id}": {
      const info = await sessionStub(env, id).info();
      if (!info) return noSession(id);
      const agent = await indexStub(env).agentOf(id);
      return reply(agent ? { ...info, agent } : info);
    }
    case "PATCH /sessions/{id}": {
      // body.title is the module's: cleaned, or refused with why.
      const info = await sessionStub(env, id).rename(body.title);
      return info ? reply(info) : noSession(id);
    }
    case "DELETE /sessions/{id}": {
      const r = await sessionStub(env, id).destroy();
      if (r.none) return noSession(id);
      if (r.busy) {
        return fail(409, `session ${JSON.stringify(id)} has a turn running: wait for its done or failed event, or stop it (close its stream), then delete it; a turn whose worker died lets the session go after 10 minutes`);
      }
      await indexStub(env).forgetAgentOf(id);
      return new Response(null, { status: 204 });
    }
    case "GET /sessions/{id}/messages": {
      const stub = sessionStub(env, id);
      if (!(await stub.info())) return noSession(id);
      return reply(await stub.messages());
    }
    case "POST /sessions/{id}/messages": {
      if (body.agent !== undefined && body.agent !== "") {
        const refused = await setAgent(env, id, body.agent);
        if (refused) return refused;
      }
      return send(env, ctx, ready, now, id, body, request);
    }
    case "POST /sessions/{id}/compact":
      if (!(await sessionStub(env, id).info())) return noSession(id);
      return send(env, ctx, ready, now, id, body, request, true);
    case "GET /sessions/{id}/approvals": {
      const q = await sessionStub(env, id).question(now().toISOString());
      return q ? reply(q) : noQuestion(id);
    }
    case "POST /sessions/{id}/approvals":
      return answerApprovals(env, now, ready, id, body);
    case "GET /catalogue": {
      const session = url.searchParams.get("session") ?? "";
      if (session !== "" && !SESSION_ID.test(session)) return fail(400, BAD_SESSION_ID);
      const { host } = await ready(env);
      return reply(await host.describe(session));
    }
    case "GET /ui/catalogue":
      return reply(deps.bundle ?? { catalogue: {}, sources: {}, libraries: {} });
    case "POST /model":
      return proxyModel(env, body, request.signal, () => ready(env, { sync: false }));
    case "GET /google/token":
      return googleToken(env);
  }
  return fail(404, `no such endpoint: ${method} ${path}; see GET /api/health`);
}

// setAgent makes session id's turns the TOOLROUTE_AGENTS agent name's, or
// answers why not.
async function setAgent(env, id, name) {
  const agents = workerAgents(env);
  if (typeof name !== "string" || !agents.byName(name)) {
    const names = agents.list.map((a) => a.name);
    return fail(404, `no such agent ${JSON.stringify(String(name))}: the worker's agents are its TOOLROUTE_AGENTS variable; they are: ${names.length ? names.join(", ") : "none"}`);
  }
  await indexStub(env).setAgentOf(id, name);
  return null;
}

// answerApprovals writes answers to the session's pending question into
// its Durable Object, where the waiting turn reads them. The module says
// which answers are bad (toolroute_check's approval_answers, as serve
// asks), against the question as read here (the body's shape is
// api_body's); the Durable Object, which has
// no module instance, records them only if the question is still that one,
// else it is read and checked again: another answer may come in between.
async function answerApprovals(env, now, ready, id, body) {
  const answers = { list: body.approvals };
  const stub = sessionStub(env, id);
  const { host } = await ready(env);
  for (let tries = 0; tries < 3; tries++) {
    const q = await stub.question(now().toISOString());
    if (!q) return noQuestion(id);
    const c = await host.check("approval_answers", { calls: q.calls, given: q.answers, answers: answers.list });
    if (c.error) return fail(400, c.error.message);
    const r = await stub.answer(answers.list, now().toISOString(), snapshot(q.calls, q.answers));
    if (r.none) return noQuestion(id);
    if (!r.stale) return reply({ waiting: r.waiting });
  }
  return fail(409, `the question of session ${JSON.stringify(id)} changed three times while these answers were checked: GET this URL and answer again`);
}

function noQuestion(id) {
  return fail(404, `no question is pending for session ${JSON.stringify(id)}: a turn asks when a tool that acts (writes, sends, deletes, shares) is about to run, and the approval event of its stream says so`);
}

// newSession is a new session's id and times: nothing is stored until its
// first message.
function newSession(d) {
  const at = d.toISOString();
  return { id: newSessionID(d), title: "", created: at, updated: at, messages: 0 };
}

// proxyModel forwards a model call to the worker's provider and streams
// its reply unchanged (status, content type, body) to the caller. As
// serve's proxy, it takes only the provider's format and endpoint and only
// the wire headers, and sends the call once, a 429 or 5xx answered with
// the retry policy the page's module tries again with.
async function proxyModel(env, req, signal, started) {
  const provider = resolveProvider(env);
  if (provider.error) return fail(503, provider.error);
  // The module says which calls the proxy forwards, and which of their
  // headers (toolroute_check's model_proxy), as it does serve's.
  const { host } = await started();
  const c = await host.check("model_proxy", {
    provider: provider.format, format: req.format, path: req.path, headers: req.headers ?? {},
    body: req.body !== undefined && req.body !== null && req.body !== "",
  });
  if (c.error) return fail(c.error.type === "invalid_arguments" ? 400 : 502, c.error.message);
  if (provider.demo) {
    try {
      return reply(await host.demo(req.body));
    } catch (err) {
      return fail(400, `the demo model could not read the request: ${err.message}`);
    }
  }
  const headers = c.args.headers;
  const fwd = { format: req.format, path: req.path, headers, body: req.body, stream: req.stream === true };
  let resp;
  try {
    resp = await fetch(...modelRequest({ ...provider, browser: false }, fwd, signal));
  } catch (e) {
    return fail(502, hint(provider, `the model could not be reached: ${e?.message ?? e}`));
  }
  const out = new Headers();
  for (const h of ["content-type", "retry-after"]) if (resp.headers.has(h)) out.set(h, resp.headers.get(h));
  // Sent once: the page's module tries again with this policy, as serve's
  // proxy says it, and its user sees each retry.
  if (resp.status < 200 || resp.status > 299) out.set(RETRIES_HEADER, JSON.stringify({ count: MODEL_RETRIES, backoff_ms: 1000, max_backoff_ms: MODEL_MAX_WAIT_MS }));
  return new Response(resp.body, { status: resp.status, headers: out });
}

// googleToken gives a browser host's JS tools the worker's Google account.
async function googleToken(env) {
  const g = googleFor(env);
  const headers = { "cache-control": "no-store" };
  let token;
  try {
    token = await g.accessToken();
  } catch (e) {
    if (e instanceof NotConnected) {
      return fail(404, "Google account not connected: give the worker the GOOGLE_ACCESS_TOKEN secret, or GOOGLE_REFRESH_TOKEN with GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET", headers);
    }
    return fail(502, String(e?.message ?? e), headers);
  }
  const out = { access_token: token };
  if (env.GOOGLE_ACCOUNT_EMAIL) out.email = env.GOOGLE_ACCOUNT_EMAIL;
  return reply(out, 200, headers);
}

// send runs a turn and streams its events (docs/reference/http.md); with
// compact, the session's earlier messages summarised (/compact) instead.
// An approval event's question is recorded before the event is written, so
// that an answer sent at once finds it; the turn then waits for the
// answers (createApprover), and ends if the client goes away meanwhile.
async function send(env, ctx, ready, now, id, body, request, compact = false) {
  const text = body.text ?? ""; // the module's: not blank, but for compact's
  const { host, provider, lease } = await ready(env);
  if (provider.error) return fail(503, provider.error);
  const stub = sessionStub(env, id);
  const held = await lease(id, sessionTitle(text));
  if (!held) return fail(409, "a turn is already running in this session: wait for its done or failed event, then send again");
  const { token } = held;

  const encoder = new TextEncoder();
  const { readable, writable } = new TransformStream();
  const writer = writable.getWriter();
  const abort = new AbortController();
  // A write the client takes none of for the stall limit ends the turn
  // as the client leaving does, and the stream with it: a write waits on
  // the stream's backpressure, which a client that stops reading (its
  // connection open, its buffer full) never lifts, and the session's
  // lease would be held for as long.
  const stall = Number(env.TOOLROUTE_STALL_MS) > 0 ? Number(env.TOOLROUTE_STALL_MS) : STALL_MS;
  const stalled = () => {
    const reason = new Error(`the client took nothing of the stream for ${stall / 1000} s`);
    abort.abort(reason);
    writer.abort(reason).catch(() => {});
  };
  // writing counts the writes under way: a keep-alive line while an event
  // goes out in pieces would land inside it.
  let writing = 0;
  const put = async (bytes) => {
    writing++;
    try {
      for (let i = 0; i < bytes.length; i += STALL_PIECE) {
        if (abort.signal.aborted || !(await within(writer.write(bytes.subarray(i, i + STALL_PIECE)), stall))) {
          if (!abort.signal.aborted) stalled();
          return false;
        }
      }
      return true;
    } finally {
      writing--;
    }
  };
  const write = (type, v) => put(encoder.encode(`event: ${type}\ndata: ${JSON.stringify(v)}\n\n`));
  // A comment line every keep-alive period: a turn waiting (on the model,
  // on an approval) learns that its client left when the write fails, as
  // the runtime does not always abort the request's signal; proxies keep
  // the stream open too.
  const every = Number(env.TOOLROUTE_KEEPALIVE_MS) > 0 ? Number(env.TOOLROUTE_KEEPALIVE_MS) : KEEPALIVE_MS;
  const keepAlive = setInterval(() => {
    if (writing === 0) put(encoder.encode(": still working\n\n")).then((ok) => ok || abort.abort(new Error("the client went away")));
  }, every);
  const turn = (async () => {
    try {
      const events = compact ? host.compact(id, { signal: abort.signal }) : host.send(id, text, { signal: abort.signal, attachments: body.attachments });
      for await (const ev of events) {
        if (ev.type === "failed" && ev.failure) ev.failure.message = hint(provider, ev.failure.message ?? "");
        if (ev.type === "approval") await stub.ask(token, ev.calls, expiry(now));
        if (!(await write(ev.type, ev))) {
          abort.abort(new Error("the client went away")); // the turn stops, what was done stays
        }
      }
    } catch (e) {
      if (!abort.signal.aborted) {
        // The host failed (its store, its module): the turn ends as every
        // turn does, with done or failed, serve's code for it.
        // A message the module refused (a file it cannot send) is serve's
        // refused: nothing was stored.
        await write("failed", { type: "failed", failure: { code: e?.refused ? "refused" : "host_error", message: String(e?.message ?? e).replace(/^host: /, "") } });
      }
    } finally {
      clearInterval(keepAlive);
      await held.end();
      await writer.close().catch(() => {});
    }
  })();
  ctx?.waitUntil?.(turn);
  request.signal?.addEventListener?.("abort", () => abort.abort(new Error("the client went away")));
  return new Response(readable, { headers: { "content-type": "text/event-stream", "cache-control": "no-cache" } });
}

// KEEPALIVE_MS is how often a running turn's stream gets a comment line
// (TOOLROUTE_KEEPALIVE_MS changes it).
const KEEPALIVE_MS = 15_000;

// STALL_MS is how long a write to a turn's stream may wait on its client
// (TOOLROUTE_STALL_MS changes it), as serve's: a write goes in pieces of
// STALL_PIECE bytes, each with the whole limit, so a client that reads
// slowly keeps its stream however long the whole takes.
const STALL_MS = 30_000;
const STALL_PIECE = 32 << 10;

// within settles with true once the write went through, false if it failed
// or is still waiting after ms.
function within(write, ms) {
  let timer;
  const late = new Promise((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  return Promise.race([write.then(() => true, () => false), late]).finally(() => clearTimeout(timer));
}

// DRAIN_LIMIT is how much of a body too large to take is still read (and
// dropped) before the 413: a client still sending when the answer comes may
// see only a broken connection, never the answer that says what to fix.
const DRAIN_LIMIT = 8 << 20;

async function tooLarge(request, max) {
  const reader = request.body?.getReader();
  if (reader) {
    let read = 0;
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        read += value.byteLength;
        if (read > DRAIN_LIMIT) {
          await reader.cancel();
          break;
        }
      }
    } catch {
      // The client went away: the answer reaches no one.
    }
  }
  return { error: fail(413, `the body is over ${max} bytes`) };
}

// readBody reads a request's body as text: {text}, or {error} for one
// too large or not UTF-8.
async function readBody(request, max) {
  const declared = Number(request.headers.get("content-length") ?? 0);
  if (declared > max) return tooLarge(request, max);
  try {
    const buf = await request.arrayBuffer();
    if (buf.byteLength > max) return { error: fail(413, `the body is over ${max} bytes`) };
    return { text: new TextDecoder("utf-8", { fatal: true }).decode(buf) };
  } catch (e) {
    return { error: fail(400, `reading the body: ${e.message}`) };
  }
}

// decodeBody gives a request's body as its route uses it: the module says
// what each route's body must be (toolroute_check's api_body, as serve
// asks), {value}, or {error}, its 400. A model call's body, which may be
// megabytes, is parsed here, and the module asked only to word why it
// cannot be (model_proxy checks its fields). A route that takes no body
// (the module's host error) gets {}: the route's own answer follows, a 404
// for a path nothing answers.
async function decodeBody(route, text, started) {
  let unread = null; // why JSON.parse could not read a model call's body
  if (route === "POST /api/model") {
    let value;
    try {
      value = text.trim() === "" ? {} : JSON.parse(text);
    } catch (e) {
      unread = e.message; // the module words it, below
    }
    if (value !== null && typeof value === "object" && !Array.isArray(value)) return { value };
  }
  const { host } = await started();
  let c;
  try {
    c = await host.check("api_body", { route, body: text });
  } catch (e) {
    if (e?.code === "bad_json") return { value: {} };
    throw e;
  }
  if (c.error) return { error: fail(400, c.error.message) };
  // A model call's body the module reads and JSON.parse not: its reason.
  if (route === "POST /api/model") return { error: fail(400, unread ?? "send an object") };
  return { value: c.args ?? {} };
}

function problem(p) {
  let s = p.file;
  if (p.entry >= 0) s += `: entry ${p.entry}`;
  if (p.tool) s += ` (${p.tool})`;
  return `${s}: ${p.reason}`;
}

function noSession(id) {
  return fail(404, `no session ${JSON.stringify(id)}: GET /api/sessions lists them (a session is stored with its first message)`);
}

function reply(v, status = 200, headers = {}) {
  return new Response(JSON.stringify(v) + "\n", { status, headers: { "content-type": "application/json", ...headers } });
}

function fail(status, message, headers) {
  return reply({ error: message }, status, headers);
}
