// MCP servers as tool groups in the JS hosts (the browser and the worker):
// Streamable HTTP servers reached with the official client
// (@modelcontextprotocol/client), each a group of host-native tools whose
// calls go out as tools/call. What the model sees of them (names, listing,
// approval, result text) the module decides, as for the Go program
// (toolroute_check's mcp_catalogue and mcp_result; docs/design/mcp.md):
// this file connects, lists and calls, and asks.
//
// A server that cannot be reached, drops or sends garbage is reported
// (problems()) and tried again with backoff (1 s, doubling, at most 60 s);
// its group stays listed with its last known tools, whose calls fail with
// "unavailable" saying why and when it is tried next. Every other group
// keeps working. A server that refuses the host for want of authorization
// (the module decides from the server's answer, mcp_refusal: HTTP 401, or
// 403 insufficient_scope) needs the user: it is not tried again on a
// timer, but when the config changes (a new McpServers) or the user asks
// (retry()); the module words what to do, a token in the server's
// "headers" here, as these hosts hold no OAuth client. A refusal before
// the host has a module to ask (no check option, no listing yet) counts as
// the server being down until the next listing asks. A server's
// tools/list_changed lists its tools again and calls onChange, after
// which the host loads its catalogue again.
//
// A server may ask the user something while one of its tools runs
// (elicitation/create): with an onElicit option (the page, which asks),
// the client declares it can be asked, the module reads the question into
// the fields to ask (toolroute_check's elicitation op, as the Go program
// does), onElicit asks and the module checks the answer sent. Without one
// (the worker) the question is refused in the module's words.

import { toolOutput } from "./host.js";
// DEFAULT_TIMEOUT_SECONDS is a call's timeout when the config gives none.
export const DEFAULT_TIMEOUT_SECONDS = 60;

// McpToolError is a call's failure the model reads, with its type.
export class McpToolError extends Error {
  constructor(type, message) {
    super(message);
    this.type = type;
  }
}

// mcpClient imports the official client when the first server connects:
// with zod under it, evaluating it cost a new worker isolate about 40 ms of
// CPU, and the page's worker its download, with no server configured.
let sdk = null;
function mcpClient() {
  sdk ??= import("./mcp-sdk.js").catch((e) => {
    sdk = null;
    throw e;
  });
  return sdk;
}

const CLIENT_INFO = { name: "toolroute", version: "1" };
const FIRST_RETRY_MS = 1000;
const MAX_RETRY_MS = 60_000;
// CONNECT_TIMEOUT_MS bounds a connection's handshake and first listing.
const CONNECT_TIMEOUT_MS = 15_000;

// parseMcpConfig reads an mcp.json text ({"mcpServers": {KEY: {url,
// headers, disabled, timeoutSeconds}}}) into {servers: [{key, url, headers,
// timeoutSeconds}], problems: [text]}. Servers come in the order of their
// keys, sorted; a stdio server (command) is a problem here: only the Go
// program starts processes.
export function parseMcpConfig(text) {
  const out = { servers: [], problems: [] };
  if (text === undefined || text === null || String(text).trim() === "") return out;
  let cfg;
  try {
    cfg = JSON.parse(text);
  } catch (e) {
    out.problems.push(`the MCP config is not JSON: ${e.message}; give {"mcpServers": {"NAME": {"url": "https://..."}}}`);
    return out;
  }
  const servers = cfg?.mcpServers;
  if (!servers || typeof servers !== "object" || Array.isArray(servers)) {
    out.problems.push('the MCP config has no "mcpServers" object: give {"mcpServers": {"NAME": {"url": "https://..."}}}');
    return out;
  }
  for (const key of Object.keys(servers).sort()) {
    const s = servers[key];
    if (!s || typeof s !== "object") {
      out.problems.push(`MCP server '${key}': its entry is not an object: give {"url": "https://..."}`);
      continue;
    }
    if (s.disabled === true) continue;
    if (s.command !== undefined && s.url === undefined) {
      out.problems.push(`MCP server '${key}': stdio servers ("command") run only in the Go program (toolroute chat or serve); here give its Streamable HTTP "url"`);
      continue;
    }
    let url;
    try {
      url = new URL(String(s.url));
      if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error(`${url.protocol} is not http or https`);
    } catch (e) {
      out.problems.push(`MCP server '${key}': "url" ${JSON.stringify(s.url)} is not an http or https URL (${e.message})`);
      continue;
    }
    const headers = {};
    for (const [k, v] of Object.entries(s.headers ?? {})) headers[k] = String(v);
    const t = Number(s.timeoutSeconds);
    out.servers.push({ key, url: url.href, headers, timeoutSeconds: t > 0 ? t : DEFAULT_TIMEOUT_SECONDS });
  }
  return out;
}

// McpServers connects to the servers of a config and gives their groups
// and tools. options: {config: mcp.json's text, configName (where the
// config is, as the user knows it: "the MCP config" by default), fetch,
// onChange(), now: () => ms, setTimer: (fn, ms) => handle, clearTimer,
// check, onElicit}. check(op, args) is the module's (Host.check), which
// reads a server's refusal; without it, the last listing's.
// onElicit(question, {signal, check}) asks the user a server's question
// during a call (question: {server, asks, message, fields}, the module's
// reading) and resolves to the answer, {action: "accept", content} or
// {action: "decline"} or {action: "cancel"}; check(answer) gives the
// module's verdict on an answer before it is given ({error} says which
// value will not do); signal aborts when the call ends.
export class McpServers {
  #o;
  #servers = [];
  #configProblems = [];
  #closed = false;
  #check = null; // the module's, from the last listing: words a refusal outside a call

  constructor(options = {}) {
    this.#o = options;
    const { servers, problems } = parseMcpConfig(options.config);
    this.#configProblems = problems;
    this.#servers = servers.map((s) => ({ ...s, group: "", refused: "", client: null, status: "connecting", error: "", tools: [], info: null, instructions: "", retryMs: FIRST_RETRY_MS, nextTry: 0, timer: null }));
  }

  // configured reports whether the config has a server to connect to.
  get configured() {
    return this.#servers.length > 0;
  }

  // start connects to every server; it resolves once each is connected or
  // has failed (and is being tried again).
  async start() {
    await Promise.all(this.#servers.map((s) => this.#connect(s)));
  }

  // catalogue gives the servers' groups and tools for the module's
  // catalogue, as the module names them (mcp_catalogue): base is the
  // catalogue without them, whose names theirs keep clear of; check asks
  // the module (Host.check). Without check, or without servers, none.
  async catalogue(check, base = {}) {
    for (const s of this.#servers) s.byName = new Map();
    if (typeof check !== "function" || this.#servers.length === 0) return { groups: [], tools: [] };
    this.#check = check;
    // A server found down before there was a module to ask whether its
    // answer refused the host: asked now.
    for (const s of this.#servers) {
      if (s.status !== "down" || !s.answer) continue;
      const why = await this.#refusal(s, check);
      if (why && s.status === "down") this.#needsAuthorization(s, why, false);
    }
    const said = this.#servers.map(heard);
    const a = await check("mcp_catalogue", {
      catalogue: base ?? {},
      config: this.#config(),
      authorize: "headers",
      servers: this.#servers.map((s) => ({ key: s.key, timeout_seconds: s.timeoutSeconds, server_info: s.info, instructions: s.instructions, tools: s.tools, ...pending(s) })),
    });
    if (a?.error) throw new Error(a.error.message);
    const answer = a.args;
    this.#servers.forEach((s, i) => {
      const listed = answer.servers[i];
      s.group = listed.group;
      s.refused = listed.refused ?? "";
      s.skipped = listed.tools.filter((t) => t.skipped).map((t) => `MCP server '${s.key}': its tool ${JSON.stringify(t.mcp_name)} is left out: ${t.skipped}`);
      s.byName = new Map(listed.tools.filter((t) => t.name).map((t) => [t.name, t.mcp_name]));
      s.advice = listed.advice ?? "";
      s.heard = said[i];
    });
    return { groups: answer.groups, tools: answer.tools };
  }

  // native gives the host-native tools' implementations, by name.
  native() {
    const out = {};
    for (const s of this.#servers) {
      for (const [name, mcpName] of s.byName ?? []) out[name] = (input, opts) => this.#call(s, mcpName, input, opts);
    }
    return out;
  }

  // problems gives what is wrong now: the config's, and each server not
  // connected, with why and when it is tried again.
  problems() {
    const out = [...this.#configProblems, ...this.#servers.flatMap((s) => [...(s.refused ? [`MCP server '${s.key}' is left out: ${s.refused}`] : []), ...(s.skipped ?? [])])];
    for (const s of this.#servers) {
      if (s.status === NEEDS_AUTHORIZATION) out.push(`${s.advice || `MCP server '${s.key}' needs authorization`} (${s.error})`);
      else if (s.status !== "ready") out.push(`MCP server '${s.key}' (${s.url}): ${s.status === "connecting" ? "connecting" : s.error}${s.nextTry ? `; tried again in ${Math.max(1, Math.round((s.nextTry - this.#now()) / 1000))} s` : ""}`);
    }
    return out;
  }

  // status gives each server's state, for a panel: [{key, group, url,
  // status ("connecting", "ready", "down", "needs_authorization"), error,
  // tools, advice (what the user does for one that needs authorization)}].
  status() {
    return this.#servers.map((s) => ({ key: s.key, group: s.group, url: s.url, status: s.status, error: s.error, tools: s.tools.length, ...(s.status === NEEDS_AUTHORIZATION ? { advice: s.advice ?? "" } : {}) }));
  }

  // retry connects now to the servers that are not connected, those that
  // need authorization included: the user asked. It resolves once each
  // is connected or has failed again.
  retry() {
    const tries = [];
    for (const s of this.#servers) {
      if (s.status !== "down" && s.status !== NEEDS_AUTHORIZATION) continue;
      (this.#o.clearTimer ?? clearTimeout)(s.timer);
      s.nextTry = 0;
      tries.push(this.#connect(s));
    }
    return Promise.all(tries).then(() => {});
  }

  // retryDue connects now to the servers that are down and whose next try
  // is due: a host whose timers do not run between requests (a worker)
  // calls it at each request.
  retryDue() {
    for (const s of this.#servers) {
      if (s.status === "down" && s.nextTry && this.#now() >= s.nextTry) {
        (this.#o.clearTimer ?? clearTimeout)(s.timer);
        s.nextTry = 0;
        this.#connect(s);
      }
    }
  }

  async close() {
    this.#closed = true;
    for (const s of this.#servers) {
      this.#o.clearTimer?.(s.timer) ?? clearTimeout(s.timer);
      await s.client?.close().catch(() => {});
      s.client = null;
    }
  }

  #now() {
    return this.#o.now ? this.#o.now() : Date.now();
  }

  #config() {
    return this.#o.configName || "the MCP config";
  }

  async #connect(s) {
    if (this.#closed) return;
    s.status = "connecting";
    s.answer = null;
    let Client, StreamableHTTPClientTransport;
    try {
      ({ Client, StreamableHTTPClientTransport } = await mcpClient());
    } catch (e) {
      this.#down(s, `could not load the MCP client: ${reason(e)}`, false);
      return;
    }
    if (this.#closed) return;
    const client = new Client(CLIENT_INFO, {
      ...(this.#o.onElicit ? { capabilities: { elicitation: { form: {} } } } : {}),
      listChanged: {
        tools: {
          onChanged: (error, tools) => {
            if (s.client !== client) return;
            if (error) {
              this.#down(s, `listing its tools again failed: ${error.message ?? error}`);
              return;
            }
            s.tools = Array.isArray(tools) ? tools : [];
            this.#o.onChange?.();
          },
        },
      },
    });
    client.onerror = () => {}; // a stream's hiccup: calls report what matters
    if (this.#o.onElicit) client.setRequestHandler("elicitation/create", (req) => this.#elicit(s, req.params));
    else {
      client.fallbackRequestHandler = async (req) => {
        if (req.method === "elicitation/create") await this.#elicit(s, req.params);
        throw rpcError(-32601, "Method not found");
      };
    }
    client.onclose = () => {
      if (s.client === client && !this.#closed) this.#down(s, "the connection closed");
    };
    const transport = new StreamableHTTPClientTransport(new URL(s.url), {
      requestInit: { headers: s.headers },
      fetch: this.#watched(s),
    });
    try {
      const signal = AbortSignal.timeout(CONNECT_TIMEOUT_MS);
      await client.connect(transport, { signal, timeout: CONNECT_TIMEOUT_MS });
      const { tools } = await client.listTools(undefined, { signal, timeout: CONNECT_TIMEOUT_MS });
      s.client = client;
      s.info = client.getServerVersion() ?? { name: s.key };
      s.instructions = client.getInstructions() ?? "";
      s.tools = Array.isArray(tools) ? tools : [];
      s.status = "ready";
      s.error = "";
      s.retryMs = FIRST_RETRY_MS;
      s.nextTry = 0;
    } catch (e) {
      await client.close().catch(() => {});
      const why = await this.#refusal(s, this.#o.check ?? this.#check);
      if (why) this.#needsAuthorization(s, why, false);
      else this.#down(s, `could not connect: ${reason(e)}`, false);
      return;
    }
    this.#o.onChange?.();
  }

  // #watched is the fetch of a server's transport: it notes an answer
  // that may refuse the host for want of authorization (s.answer), for
  // the module to read when the request fails (#refusal).
  #watched(s) {
    const base = this.#o.fetch ?? ((url, init) => fetch(url, init));
    return async (url, init) => {
      const r = await base(url, init);
      if (r.status === 401 || r.status === 403) {
        const token = Object.keys(s.headers ?? {}).some((k) => k.toLowerCase() === "authorization");
        s.answer = { status: r.status, challenge: r.headers?.get?.("www-authenticate") ?? "", token };
      }
      return r;
    };
  }

  // #refusal asks the module whether the server's noted answer (s.answer)
  // refused the host for want of authorization, and why (mcp_refusal): ""
  // when it did not, or when there is no module to ask, in which case the
  // answer stays noted for the next listing (catalogue) to ask.
  async #refusal(s, check) {
    const answer = s.answer;
    if (!answer || typeof check !== "function") return "";
    let a = null;
    try {
      a = await check("mcp_refusal", { ...answer, authorize: "headers" });
    } catch {
      a = null; // no module to ask yet: the answer stays noted
    }
    if (!a?.args) return "";
    if (s.answer === answer) s.answer = null;
    return a.args.needs_authorization ? String(a.args.why ?? "") : "";
  }

  // #needsAuthorization marks a server refused for want of authorization:
  // trying again would only be refused again, so it waits for the user.
  #needsAuthorization(s, why, changed = true) {
    if (this.#closed) return;
    const old = s.client;
    s.client = null;
    old?.close().catch(() => {});
    (this.#o.clearTimer ?? clearTimeout)(s.timer);
    s.status = NEEDS_AUTHORIZATION;
    s.error = why;
    s.nextTry = 0;
    s.retryMs = FIRST_RETRY_MS;
    if (changed || this.#unheard(s)) this.#o.onChange?.();
  }

  // #unheard reports whether a server never reached is no longer as the
  // catalogue last said (starting, now down): its group's text changes.
  #unheard(s) {
    return s.heard !== undefined && s.heard !== heard(s);
  }

  // #down marks a server down and tries it again after the backoff.
  #down(s, why, changed = true) {
    if (this.#closed) return;
    const old = s.client;
    s.client = null;
    old?.close().catch(() => {});
    s.status = "down";
    s.error = why;
    s.nextTry = this.#now() + s.retryMs;
    const wait = s.retryMs;
    s.retryMs = Math.min(s.retryMs * 2, MAX_RETRY_MS);
    // A retry alone does not keep a Node process alive.
    const set = this.#o.setTimer ?? ((fn, ms) => {
      const t = setTimeout(fn, ms);
      t?.unref?.();
      return t;
    });
    (this.#o.clearTimer ?? clearTimeout)(s.timer);
    s.timer = set(() => this.#connect(s), wait);
    if (changed || this.#unheard(s)) this.#o.onChange?.();
  }

  // #call runs a tools/call; the module words its outcome (mcp_result),
  // asked through check, the host's for the call. progress, the host's,
  // hears each progress notification of the call (whose timeout then
  // starts again).
  async #call(s, mcpName, input, { signal, check, progress, callId } = {}) {
    const outcome = async (q) => {
      const a = await check("mcp_result", { key: s.key, mcp_name: mcpName, authorize: "headers", config: this.#config(), ...q });
      if (a?.error) throw new McpToolError(a.error.type, a.error.message);
      return a.args;
    };
    const retryMs = () => Math.round(s.nextTry ? s.nextTry - this.#now() : s.retryMs);
    const needsAuth = () => ({ unavailable: { why: s.error, retry_ms: 0, mid_call: false, needs_authorization: true } });
    if (s.status === NEEDS_AUTHORIZATION) return outcome(needsAuth());
    const running = { check, signal, callId, said: [] };
    (s.calls ??= new Set()).add(running);
    try {
      // The user's answers to the server's questions go with the outcome,
      // for the log to keep (the result's asked).
      const out = await this.#callNow(s, mcpName, input, { signal, check, progress, outcome, retryMs, needsAuth });
      if (running.said.length === 0) return out;
      return typeof out === "string" ? toolOutput(out, [], [], running.said) : { ...out, asked: running.said };
    } catch (e) {
      if (running.said.length > 0 && e && typeof e === "object") e.asked = running.said;
      throw e;
    } finally {
      s.calls.delete(running);
    }
  }

  async #callNow(s, mcpName, input, { signal, check, progress, outcome, retryMs, needsAuth }) {
    if (!s.client) return outcome({ unavailable: { why: s.error || "it is still connecting", retry_ms: retryMs(), mid_call: false } });
    let result;
    s.answer = null;
    try {
      // A call whose server reports progress is not cut while it does.
      result = await s.client.callTool({ name: mcpName, arguments: input ?? {} }, {
        signal, timeout: s.timeoutSeconds * 1000, resetTimeoutOnProgress: true,
        onprogress: (p) => progress?.({ progress: p.progress, total: p.total, message: p.message }),
      });
    } catch (e) {
      if (signal?.aborted) throw e;
      const refused = await this.#refusal(s, check);
      if (refused) {
        // Its token was refused (revoked, or scopes it wants more of).
        this.#needsAuthorization(s, refused);
        return outcome(needsAuth());
      }
      if (e instanceof (await mcpClient()).ProtocolError) return outcome({ rpc_error: { code: Number(e.code) || 0, message: String(e.message) } });
      const why = /timed? ?out/i.test(String(e?.message ?? e) + String(e?.code ?? ""))
        ? `it did not answer a call of ${mcpName} within ${s.timeoutSeconds} s`
        : `the request to it failed: ${reason(e)}`;
      this.#down(s, why);
      return outcome({ unavailable: { why, retry_ms: retryMs(), mid_call: true } });
    }
    const out = await outcome({ result });
    return out.images.length > 0 || out.documents?.length > 0 ? toolOutput(out.text, out.images, out.documents) : out.text;
  }

  // #elicit answers a server's elicitation/create: the question goes to
  // the user of the call the server is running (the host asks one user),
  // the latest one when several run (the request does not say which: the
  // question carries that call's call_id, where the page shows it and the
  // answer is logged), or is refused, in the module's words, with no call
  // or no one to ask.
  async #elicit(s, params) {
    const call = [...(s.calls ?? [])].pop();
    const check = call?.check ?? this.#check;
    const q = { server: s.key, params: params ?? {} };
    const ask = (args) => check("elicitation", { ...q, ...args });
    const refuse = (a) => {
      throw rpcError(-32602, a?.error?.message ?? "no check was given to read the question with");
    };
    if (!check) refuse(null);
    if (!call || !this.#o.onElicit) refuse(await ask({ unasked: call ? "nobody" : "no_call" }));
    const read = await ask({});
    if (read?.error) refuse(read);
    let answer;
    try {
      answer = await this.#o.onElicit({ server: s.key, ...read.args, ...(call.callId ? { call_id: String(call.callId) } : {}) }, { signal: call.signal, check: (a) => ask({ answer: a }) });
    } catch (e) {
      throw rpcError(-32603, `the question was not answered: ${e?.message ?? e}`);
    }
    const sent = await ask({ answer: { action: String(answer?.action ?? "cancel"), ...(answer?.action === "accept" ? { content: answer.content ?? {} } : {}) } });
    if (sent?.error) refuse(sent);
    if (sent.args.said) call.said.push(sent.args.said);
    return sent.args.action === "accept" ? { action: "accept", content: sent.args.content ?? {} } : { action: sent.args.action };
  }
}

// rpcError is a JSON-RPC error the client sends as its answer to a
// server's request.
function rpcError(code, message) {
  return Object.assign(new Error(message), { code });
}

// NEEDS_AUTHORIZATION is the state of a server that refused the host for
// want of authorization (mcp_catalogue's).
const NEEDS_AUTHORIZATION = "needs_authorization";

// pending is what mcp_catalogue hears of a server never reached: starting,
// down and why, or needing authorization.
function pending(s) {
  switch (s.status) {
    case "connecting":
      return { state: "starting" };
    case "down":
      return { state: "down", why: s.error };
    case NEEDS_AUTHORIZATION:
      return { state: NEEDS_AUTHORIZATION, why: s.error };
  }
  return {};
}

// heard is what the catalogue says of a server: for one never reached, its
// state and why.
function heard(s) {
  return s.info || s.tools.length > 0 ? "" : JSON.stringify(pending(s));
}

function reason(e) {
  const msg = String(e?.cause?.message ?? e?.message ?? e);
  if (/^(Failed to fetch|fetch failed|NetworkError|Load failed)/i.test(String(e?.message ?? ""))) {
    return `no answer (${msg}): the server is not running at that URL, or it does not allow requests from this page's origin (CORS)`;
  }
  return msg;
}

// withMcp is catalogue with the MCP servers' groups and tools after its
// own, as the module names them (check: the host's Host.check; without it,
// before a host is made, none); native (an object the host calls host
// tools through) is made to hold exactly their implementations and those
// of fixed (the host's other host tools).
export async function withMcp(catalogue, mcp, native, fixed = {}, check = null) {
  const { groups, tools } = await mcp.catalogue(check, catalogue);
  const impl = { ...fixed, ...mcp.native() };
  for (const k of Object.keys(native)) if (!Object.hasOwn(impl, k)) delete native[k];
  Object.assign(native, impl);
  if (groups.length === 0 && tools.length === 0) return catalogue;
  return { ...catalogue, groups: [...(catalogue?.groups ?? []), ...groups], tools: [...(catalogue?.tools ?? []), ...tools] };
}
