// The fetch bridge's host side, the Go host's (host/jsrun/fetch.go and
// host/safehttp): http and https only, five methods, rewrite rules, loopback,
// private and link-local addresses refused unless allowPrivate, bodies cut at
// 100 KB with a note.
//
// # Notes
//
// A browser or a worker cannot resolve names, so the address check is on the
// URL's host as written (IP literals and localhost), where the Go host checks
// the address it dials after DNS. Redirects are followed here, at most 5,
// each target checked the same way; a browser that hides them
// ("opaqueredirect") follows them itself.

export const DEFAULT_MAX_BODY = 100 << 10;
const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"];
const MAX_REDIRECTS = 5;

const STATUS_TEXT = {
  200: "OK", 201: "Created", 202: "Accepted", 204: "No Content", 301: "Moved Permanently",
  302: "Found", 304: "Not Modified", 400: "Bad Request", 401: "Unauthorized", 403: "Forbidden",
  404: "Not Found", 405: "Method Not Allowed", 409: "Conflict", 422: "Unprocessable Entity",
  429: "Too Many Requests", 500: "Internal Server Error", 502: "Bad Gateway",
  503: "Service Unavailable", 504: "Gateway Timeout",
};

// PrivateAddress is the error of a request to a refused address.
class PrivateAddress extends Error {}

// blockedHost reports hosts naming loopback, private, link-local,
// unspecified, multicast and shared (CGNAT) addresses.
export function blockedHost(hostname) {
  let h = hostname.toLowerCase().replace(/\.$/, "");
  if (h === "localhost" || h.endsWith(".localhost")) return true;
  if (h.startsWith("[")) return blockedIPv6(h.slice(1, -1));
  const m = h.match(/^(\d+)\.(\d+)\.(\d+)\.(\d+)$/);
  if (!m) return false; // a name: the browser resolves it
  return blockedIPv4(m.slice(1).map(Number));
}

function blockedIPv4([a, b]) {
  return a === 0 || a === 10 || a === 127 || (a === 169 && b === 254) || (a === 172 && b >= 16 && b <= 31) ||
    (a === 192 && b === 168) || (a === 100 && b >= 64 && b <= 127) || a >= 224;
}

function blockedIPv6(h) {
  const mapped = h.match(/^::ffff:(\d+)\.(\d+)\.(\d+)\.(\d+)$/);
  if (mapped) return blockedIPv4(mapped.slice(1).map(Number));
  const hex = h.match(/^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/);
  if (hex) {
    const hi = parseInt(hex[1], 16);
    return blockedIPv4([hi >> 8, hi & 255]);
  }
  if (h === "::" || h === "::1") return true;
  const first = parseInt(h.split(":")[0] || "0", 16);
  return (first & 0xfe00) === 0xfc00 || (first & 0xffc0) === 0xfe80 || (first & 0xff00) === 0xff00;
}

// target applies the rewrite rules and checks the scheme; it reports
// whether a rule applied.
function target(raw, rewrites) {
  let t = raw, rewritten = false;
  for (const rw of rewrites) {
    if (raw.startsWith(rw.from)) {
      t = rw.to + raw.slice(rw.from.length);
      rewritten = true;
      break;
    }
  }
  let u;
  try {
    u = new URL(t);
  } catch {
    throw new Error(`fetch: invalid URL '${raw}': give a full http:// or https:// URL`);
  }
  if (u.host === "") throw new Error(`fetch: invalid URL '${raw}': give a full http:// or https:// URL`);
  if (u.protocol !== "http:" && u.protocol !== "https:") throw new Error(`fetch: '${raw}' is not an http or https URL`);
  return { url: u, rewritten };
}

// hostFetch performs a tool's fetch and returns the response as JSON for the
// prelude. o: {fetch, allowPrivate, rewrites, timeoutMs, maxBody, signal}.
export async function hostFetch(rawURL, options, o) {
  const req = JSON.parse(options);
  const method = (req.method || "GET").toUpperCase();
  if (!METHODS.includes(method)) {
    throw new Error(`fetch: method '${req.method}' is not allowed: use GET, POST, PUT, PATCH or DELETE`);
  }
  const { url, rewritten } = target(rawURL, o.rewrites ?? []);
  const headers = new Headers();
  for (const k of Object.keys(req.headers ?? {}).sort()) headers.set(k, req.headers[k]);
  if (!headers.has("User-Agent")) headers.set("User-Agent", "toolroute");
  const timeout = AbortSignal.timeout(o.timeoutMs ?? 30000);
  const signal = o.signal ? AbortSignal.any([o.signal, timeout]) : timeout;
  const maxBody = o.maxBody ?? DEFAULT_MAX_BODY;

  let resp;
  try {
    let u = url, m = method, body = req.body ?? undefined;
    for (let hops = 0; ; hops++) {
      if (!rewritten && !o.allowPrivate && blockedHost(u.hostname)) throw new PrivateAddress();
      resp = await o.fetch(u.href, { method: m, headers, body, signal, redirect: "manual" });
      if (resp.type === "opaqueredirect") {
        resp = await o.fetch(u.href, { method: m, headers, body, signal, redirect: "follow" });
        break;
      }
      const location = resp.headers.get("location");
      if (![301, 302, 303, 307, 308].includes(resp.status) || location === null) break;
      await resp.body?.cancel();
      if (hops + 1 > MAX_REDIRECTS) throw new Error("more than 5 redirects");
      u = new URL(location, u);
      if (u.protocol !== "http:" && u.protocol !== "https:") throw new Error(`redirect to a ${u.protocol.slice(0, -1)} URL`);
      if (resp.status === 303 || ((resp.status === 301 || resp.status === 302) && m === "POST")) {
        m = "GET";
        body = undefined;
      }
    }
  } catch (e) {
    if (e instanceof PrivateAddress) {
      throw new Error(`fetch: ${rawURL} is refused: loopback, private and link-local addresses cannot be reached from tools`);
    }
    if (signal.aborted) throw new Error(`fetch: ${rawURL} timed out`);
    throw new Error(`fetch: ${rawURL} failed: ${e.cause?.message ?? e.message}`);
  }

  let data;
  try {
    data = await readAtMost(resp, maxBody + 1);
  } catch (e) {
    throw new Error(`fetch: reading the response from ${rawURL}: ${signal.aborted ? "timed out" : e.message}`);
  }
  const out = {
    status: resp.status,
    statusText: resp.statusText || STATUS_TEXT[resp.status] || "",
    headers: {},
    url: resp.url || url.href,
    body: new TextDecoder().decode(data.subarray(0, maxBody)),
  };
  for (const [k, v] of resp.headers) out.headers[k.toLowerCase()] = v;
  if (data.length > maxBody) {
    out.truncated = true;
    out.kept = maxBody;
    const length = Number(resp.headers.get("content-length"));
    const total = length > 0 ? String(length) : "more";
    out.body += `\n\n[toolroute: the body was cut at ${maxBody >> 10} KB: kept ${maxBody} of ${total} bytes]`;
  }
  return JSON.stringify(out);
}

// readAtMost reads up to n bytes of a response's body and drops the rest.
async function readAtMost(resp, n) {
  if (!resp.body) return new Uint8Array(0);
  const reader = resp.body.getReader();
  const chunks = [];
  let size = 0;
  while (size < n) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    size += value.length;
  }
  if (size >= n) await reader.cancel().catch(() => {});
  const all = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    all.set(c, at);
    at += c.length;
  }
  return all.subarray(0, Math.min(size, n));
}
