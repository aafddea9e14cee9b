// The conformance cases of testdata/js as data, for every JS host here: the
// Node tests of web/packages/toolroute/jsrun and the worker's tests, which replay them inside
// workerd. Nothing in this file needs Node.

// loadCase reads a case: case.json and tool.js from a txtar archive, as the
// Go test's loadCase does, and all its files by name (files).
export function loadCase(text) {
  const parts = {};
  let name = null;
  for (const line of text.split(/(?<=\n)/)) {
    const m = line.match(/^-- (.+) --\n$/);
    if (m) {
      name = m[1];
      parts[name] = "";
      continue;
    }
    if (name !== null) parts[name] += line;
  }
  return { c: JSON.parse(parts["case.json"]), source: parts["tool.js"] ?? "", files: parts };
}

// PAGES_ORIGIN is where a testdata/builtins case's pages are, for its
// tools: a fetch rewrite rule sends it to a local server (builtins-case.js's
// pageServer; internal/app/builtins_test.go's servePages is the Go side), so
// every other address is checked as in use.
export const PAGES_ORIGIN = "https://pages.test";

// withServer puts the case's fake server's URL where the case says {{server}}.
export function withServer(v, url) {
  return v === undefined ? undefined : JSON.parse(JSON.stringify(v).replaceAll("{{server}}", url));
}

// runnerOptions are the Runner options a case asks for (web/packages/toolroute/jsrun's
// Runner), but for the store and the fetch function, which the host gives.
export function runnerOptions(c, serverURL) {
  return {
    libraries: c.libraries ?? [],
    memoryLimit: (c.memory_limit_mb ?? 0) << 20,
    fetch: {
      allowPrivate: c.fetch?.allow_private ?? false,
      rewrites: (c.fetch?.rewrites ?? []).map((rw) => ({ from: rw.from, to: withServer(rw.to, serverURL) })),
    },
    google: c.google ? { accessToken: async () => c.google.token, accountEmail: async () => c.google.email } : undefined,
    now: c.now ? () => new Date(c.now) : undefined,
  };
}

// FAILSAFE_MS is the timeout of a case that gives none, which is not about
// time: a busy machine does not reach it while the host is right (one with
// a load of 30 on 2 cores ran past the 10 s it was), and a call that went
// wrong still ends.
export const FAILSAFE_MS = 120_000;

// calls are the calls a case makes: {tool, sourceRef, source, function,
// params, env, timeoutMs}, repeated as it says.
export function calls(c, source, serverURL) {
  const call = {
    tool: "case_tool", sourceRef: "tool.js", source, function: c.function,
    params: withServer(c.params, serverURL), env: c.env,
    google: (c.required_permissions ?? []).includes("google"),
    timeoutMs: c.timeout_seconds > 0 ? c.timeout_seconds * 1000 : FAILSAFE_MS,
  };
  return Array.from({ length: Math.max(1, c.repeat ?? 0) }, () => call);
}

// filesOf are a case's files for a store: its text files, and its
// files_base64 as Uint8Arrays.
export function filesOf(c) {
  const out = { ...c.files };
  for (const [name, b64] of Object.entries(c.files_base64 ?? {})) out[name] = Uint8Array.from(atob(b64), (ch) => ch.charCodeAt(0));
  return out;
}

// HOSTS are the hosts that replay testdata/js: the Go program, Node
// (web/packages/toolroute/jsrun with its folder store and worker threads), a Chromium page's
// dedicated worker (web/packages/toolroute/jsrun as the chat page's worker runs it: the
// browser's fetch, bound by CORS) and workerd.
export const HOSTS = ["go", "node", "chromium", "workerd"];

// skipFor says why a case is not replayed in host, or gives undefined when
// it is. A case names its hosts only where the others cannot offer what it
// checks, and then says why (hosts_why): a runner that leaves a case out
// says so in its test's name, never silently.
export function skipFor(c, host) {
  if (!c.hosts?.length) return undefined;
  const unknown = c.hosts.filter((h) => !HOSTS.includes(h));
  if (unknown.length > 0) throw new Error(`the case names the hosts ${unknown.join(", ")}; the hosts are ${HOSTS.join(", ")}`);
  if (!c.hosts_why) throw new Error(`the case runs only in ${c.hosts.join(", ")} and does not say why (hosts_why)`);
  return c.hosts.includes(host) ? undefined : `not in ${host}: ${c.hosts_why}`;
}

// replayIn runs a case's calls on runner, whose store is store (a
// MemoryStore holding filesOf(c)), and gives what a host's test checks:
// {results, files: {name: text}, binary: {name: base64}}.
export async function replayIn(c, source, server, runner, store) {
  const results = [];
  for (const call of calls(c, source, server)) results.push(await runner.call(call));
  const files = {};
  const binary = {};
  for (const [name, v] of store.files) {
    if (typeof v === "string") files[name] = v;
    else binary[name] = btoa(Array.from(v, (b) => String.fromCharCode(b)).join(""));
  }
  return { results, files, binary };
}
