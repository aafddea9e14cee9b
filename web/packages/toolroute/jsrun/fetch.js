// The fetch bridge's host side, the Go host's (host/jsrun/fetch.go and
// internal/safehttp): http and https only, five methods, rewrite rules, loopback,
// private and link-local addresses refused unless allowPrivate, bodies cut at
// 100 KB with a note (a call's maxBytes, up to 5 MB, sets its own cut).
//
// # Notes
//
// A browser or a worker cannot resolve names, so the address check is on the
// URL's host as written (IP literals and localhost), where the Go host checks
// the address it dials after DNS. IP literals are judged in the form the URL
// parser gives them, so 2130706433, 0177.0.0.1, 0x7f.1 and 127.1 are all
// 127.0.0.1 here, as they are to the browser. Redirects are followed here, at
// most 5, each target checked the same way (Node and workerd give a
// redirect: "manual" request the 3xx and its Location). A browser hides a
// redirect's target from the page (an "opaqueredirect"), so there a
// redirect is refused: followed blind, a public site's redirect would lead
// the request to a loopback or private service, past the check.
//
// For the same reason a request a browser failed is not asked again in mode
// no-cors to tell CORS from an unreachable site: that mode follows
// redirects (the Fetch standard allows it no other), so a site answering
// with a redirect would have the browser send a GET wherever it points.
//
// A rewrite rule takes the URLs with its from's scheme, host and port and a
// path equal to from's or below it at a '/', as safehttp.Rewrite does; a
// rewritten request may redirect only within the rule's to, and its
// response's url is given under the rule's from (see shown).

import { cutNote, passes, refusal } from "./words.js";

export const DEFAULT_MAX_BODY = 100 << 10;
// MAX_FETCH_BYTES bounds a call's maxBytes option, as the Go host's
// MaxFetchBytes: fetch(url, {maxBytes}) keeps up to that many body bytes
// instead of the host's maxBody; a larger maxBytes keeps this many.
export const MAX_FETCH_BYTES = 5 << 20;
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
// site-local, unspecified, multicast, reserved, broadcast and shared (CGNAT)
// addresses, and the IPv6 forms carrying such an IPv4 address, as
// safehttp.Blocked does. A host is read as the URL parser reads it, so odd
// IPv4 spellings are judged as the address they name; a string that is not a
// host is refused.
//
// IPv4-mapped (::ffff:0:0/96) and NAT64 (64:ff9b::/96) addresses are judged
// by the IPv4 address they carry, since an IPv6-only network reaches every
// public IPv4 site through 64:ff9b::; local-use NAT64 (64:ff9b:1::/48), 6to4
// (2002::/16) and IPv4-compatible (::/96) addresses are refused whole.
export function blockedHost(hostname) {
  if (/[/?#@\\\s]/.test(hostname)) return true;
  const bare = hostname.includes(":") && !hostname.startsWith("[");
  let h;
  try {
    h = new URL(`http://${bare ? `[${hostname}]` : hostname}/`).hostname;
  } catch {
    return true;
  }
  h = h.replace(/\.$/, "");
  if (h === "localhost" || h.endsWith(".localhost")) return true;
  if (h.startsWith("[")) {
    const g = ipv6Groups(h.slice(1, -1));
    return g === null || blockedIPv6(g);
  }
  const m = h.match(/^(\d+)\.(\d+)\.(\d+)\.(\d+)$/);
  if (!m) return false; // a name: the browser resolves it
  return blockedIPv4(m.slice(1).map(Number));
}

// blockedIPv4 takes the four bytes of an address.
function blockedIPv4([a, b]) {
  return a === 0 || a === 10 || a === 127 || (a === 169 && b === 254) || (a === 172 && b >= 16 && b <= 31) ||
    (a === 192 && b === 168) || (a === 100 && b >= 64 && b <= 127) ||
    a >= 224; // multicast 224.0.0.0/4, reserved 240.0.0.0/4 and broadcast 255.255.255.255
}

// blockedIPv6 takes the eight 16-bit groups of an address.
function blockedIPv6(g) {
  const zero = (from, to) => g.slice(from, to).every((x) => x === 0);
  const embedded = () => blockedIPv4([g[6] >> 8, g[6] & 255, g[7] >> 8, g[7] & 255]);
  if (zero(0, 5) && g[5] === 0xffff) return embedded(); // IPv4-mapped
  if (g[0] === 0x64 && g[1] === 0xff9b && zero(2, 6)) return embedded(); // NAT64
  if (zero(0, 6)) return true; // IPv4-compatible, :: and ::1 included
  if (g[0] === 0x64 && g[1] === 0xff9b && g[2] === 1) return true; // local-use NAT64
  if (g[0] === 0x2002) return true; // 6to4
  return (g[0] & 0xfe00) === 0xfc00 || // unique local fc00::/7
    (g[0] & 0xffc0) === 0xfe80 || // link-local fe80::/10
    (g[0] & 0xffc0) === 0xfec0 || // site-local fec0::/10
    (g[0] & 0xff00) === 0xff00; // multicast ff00::/8
}

// ipv6Groups parses an IPv6 address as the URL parser writes it (hex groups,
// one "::" at most) into its eight groups, or null.
function ipv6Groups(s) {
  const halves = s.split("::");
  if (halves.length > 2) return null;
  const groups = (part) => (part === "" ? [] : part.split(":").map((x) => (/^[0-9a-f]{1,4}$/.test(x) ? parseInt(x, 16) : NaN)));
  const head = groups(halves[0]);
  const tail = halves.length === 2 ? groups(halves[1]) : [];
  const fill = 8 - head.length - tail.length;
  if (halves.length === 2 ? fill < 1 : fill !== 0) return null;
  const g = [...head, ...new Array(fill).fill(0), ...tail];
  return g.some(Number.isNaN) ? null : g;
}

// parseURL reads a URL a request may be sent to.
function parseURL(raw) {
  let u;
  try {
    u = new URL(raw);
  } catch {
    throw new Error(`invalid URL '${raw}': give a full http:// or https:// URL`);
  }
  if (u.host === "") throw new Error(`invalid URL '${raw}': give a full http:// or https:// URL`);
  if (u.protocol !== "http:" && u.protocol !== "https:") throw new Error(`'${raw}' is not an http or https URL`);
  if (u.username !== "" || u.password !== "") {
    throw new Error(`URL '${redacted(u)}' has a user name or password before '@', which is refused: send credentials in an Authorization header, and the host right after '//'`);
  }
  return u;
}

// redacted writes a URL without its password.
function redacted(u) {
  if (u.password === "") return u.href;
  const c = new URL(u.href);
  c.password = "xxxxx";
  return c.href;
}

// origin is a URL's scheme, host and port, the scheme's default port spelt
// out and a trailing dot dropped, for comparing two URLs.
function origin(u) {
  return `${u.protocol}//${u.hostname.replace(/\.$/, "")}:${u.port || (u.protocol === "https:" ? "443" : "80")}`;
}

// place reads a rule's from or to: an origin and a path prefix.
function place(raw) {
  const u = parseURL(raw);
  if (u.search !== "" || u.hash !== "" || raw.includes("?") || raw.includes("#")) {
    throw new Error(`'${raw}' has a query or fragment: give scheme://host[:port][/path]`);
  }
  return { url: u, origin: origin(u), path: u.pathname.replace(/\/$/, "") };
}

// rest returns the path of u below the place p, or null if u is not under p.
function rest(p, u) {
  if (origin(u) !== p.origin) return null;
  if (p.path === "" || u.pathname === p.path) return u.pathname.slice(p.path.length);
  return u.pathname.startsWith(p.path + "/") ? u.pathname.slice(p.path.length) : null;
}

// dotSegment reports a path with a "." or ".." segment once decoded: the
// URL parser resolves those it sees, not "..%2F".
function dotSegment(pathname) {
  let decoded;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    decoded = pathname.replace(/%2e/gi, ".").replace(/%2f/gi, "/");
  }
  return decoded.split(/[/\\]/).some((s) => s === "." || s === "..");
}

// target applies the rewrite rules and checks the URL; it returns the
// rule's to when one applied. bridge names the bridge in errors.
function target(raw, rewrites, bridge) {
  const rules = rewrites.map((rw) => {
    try {
      return { from: place(rw.from), to: place(rw.to) };
    } catch (e) {
      throw new Error(`${bridge}: rewrite rule '${rw.from}' to '${rw.to}': ${e.message}`);
    }
  });
  let u;
  try {
    u = parseURL(raw);
  } catch (e) {
    throw new Error(`${bridge}: ${e.message}`);
  }
  for (const r of rules) {
    if (origin(u) !== r.from.origin) continue;
    // A rule's path prefix is its boundary: /v1/..%2Fadmin must not reach
    // the target's /admin.
    if (dotSegment(u.pathname)) throw new Error(`${bridge}: URL '${raw}' has a '.' or '..' path segment: give the path without them`);
    const tail = rest(r.from, u);
    if (tail === null) continue;
    const out = new URL(r.to.url.href);
    out.pathname = r.to.path + tail;
    out.search = u.search;
    out.hash = u.hash;
    return { url: out, from: r.from, to: r.to };
  }
  return { url: u, from: null, to: null };
}

// shown gives final, the URL a request ended at, as the tool should see it,
// as safehttp's Shown: under the rule's from when a rule rewrote the
// request (final is then inside its to), as it is otherwise, and without a
// fragment, which is never sent.
function shown(final, from, to) {
  const tail = to === null ? null : rest(to, final);
  let out = new URL(final.href);
  if (tail !== null) {
    out = new URL(from.url.href);
    out.pathname = from.path + tail;
    out.search = final.search;
  }
  out.hash = "";
  return out.href;
}

// hostFetch performs a tool's fetch and returns the response as JSON for the
// prelude. o: {fetch, allowPrivate, rewrites, timeoutMs, maxBody, cors,
// signal}; cors says o.fetch is a browser's, which reads another site's
// answer only when the site allows it (CORS) and hides a redirect's target:
// a request that fails there says what may have stopped it, not only
// "Failed to fetch", and carries no User-Agent header, not even a tool's:
// Chromium drops it, and Firefox sends it, which makes the browser ask the
// site first (a preflight many sites refuse). The browser sends its own.
export async function hostFetch(rawURL, options, o) {
  const req = JSON.parse(options);
  const maxBody = req.maxBytes >= 1 ? Math.min(req.maxBytes, MAX_FETCH_BYTES) : (o.maxBody ?? DEFAULT_MAX_BODY);
  const { data, ...out } = await fetchBytes(rawURL, req, { ...o, maxBody });
  out.body = new TextDecoder().decode(data.subarray(0, maxBody));
  if (data.length > maxBody) {
    out.truncated = true;
    out.kept = maxBody;
    const length = Number(out.headers["content-length"]);
    out.body += cutNote(o.check, maxBody, length > 0 ? length : 0);
  }
  return JSON.stringify(out);
}

// fetchBytes performs a request as fetch does ({method, headers, body} in
// req; o as hostFetch's, o.maxBody the bytes to keep) and gives {status,
// statusText, headers, url, data}: data holds up to o.maxBody + 1 bytes of
// the body, so that a caller sees it was longer. fetch (hostFetch) and the
// pdf tools read through it.
export async function fetchBytes(rawURL, req, o) {
  passes(o.check, { code: "fetch_method", method: req.method ?? "" });
  const method = (req.method || "GET").toUpperCase();
  const maxBody = o.maxBody ?? DEFAULT_MAX_BODY;
  const { resp, shownURL, signal } = await send("fetch", rawURL, { method, headers: req.headers, body: req.body ?? undefined }, o);
  let data;
  try {
    data = await readAtMost(resp, maxBody + 1);
  } catch (e) {
    throw new Error(refusal(o.check, { code: "read_failed", url: rawURL, reason: signal.aborted ? "timed out" : e.message }).message);
  }
  const out = { status: resp.status, statusText: statusText(resp), headers: {}, url: shownURL, data };
  for (const [k, v] of resp.headers) out.headers[k.toLowerCase()] = v;
  return out;
}

// statusText is a response's reason phrase, or the standard one when it
// has none (HTTP/2 sends none).
export function statusText(resp) {
  return resp.statusText || STATUS_TEXT[resp.status] || "";
}

// send makes one request of a tool's, for fetch, downloadToFile and
// uploadMultipart alike, as the Go host's callState.send: the rewrite
// rules, the address guard, redirects (each target checked, or refused
// where a browser hides it), the host's timeout and the call's signal.
// bridge names the bridge in errors. It gives {resp, shownURL (the final
// URL in the tool's terms), signal}; the caller reads the body.
export async function send(bridge, rawURL, { method, headers: given, body }, o) {
  const { url, from, to } = target(rawURL, o.rewrites ?? [], bridge);
  const headers = new Headers();
  for (const k of Object.keys(given ?? {}).sort()) headers.set(k, given[k]);
  if (o.cors) headers.delete("User-Agent");
  else if (!headers.has("User-Agent")) headers.set("User-Agent", "toolroute");
  const timeout = AbortSignal.timeout(o.timeoutMs ?? 30000);
  const signal = o.signal ? AbortSignal.any([o.signal, timeout]) : timeout;

  let resp;
  let u = url, m = method; // the URL and method asked last, after the redirects followed here
  try {
    for (let hops = 0; ; hops++) {
      if (to === null && !o.allowPrivate && blockedHost(u.hostname)) throw new PrivateAddress();
      resp = await o.fetch(u.href, { method: m, headers, body, signal, redirect: "manual" });
      if (resp.type === "opaqueredirect") {
        if (to !== null) {
          throw new Error(`redirect from a rewritten URL cannot be checked here: give the rewrite target's final URL`);
        }
        throw new Error("it redirects, and a browser hides from the page where to, so the page does not follow it (it could lead to a private address): " +
          "fetch the final address directly, or use the Go program (toolroute serve) or the edge worker, which check every redirect");
      }
      const location = resp.headers.get("location");
      if (![301, 302, 303, 307, 308].includes(resp.status) || location === null) break;
      await resp.body?.cancel();
      if (hops + 1 > MAX_REDIRECTS) throw new Error("more than 5 redirects");
      u = new URL(location, u);
      if (u.protocol !== "http:" && u.protocol !== "https:") throw new Error(`redirect to a ${u.protocol.slice(0, -1)} URL`);
      if (u.username !== "" || u.password !== "") {
        throw new Error(`redirect to ${redacted(u)} is refused: a URL with a user name or password before '@' is never followed`);
      }
      if (to !== null && rest(to, u) === null) {
        throw new Error(`redirect to ${u.href} leaves the rewrite target: a rewritten URL may redirect only within ${to.url.href}; fetch the new URL directly if it is public`);
      }
      if (resp.status === 303 || ((resp.status === 301 || resp.status === 302) && m === "POST")) {
        m = "GET";
        body = undefined;
      }
    }
  } catch (e) {
    if (e instanceof PrivateAddress) {
      throw new Error(refusal(o.check, { code: "private_address", bridge, url: rawURL }).message);
    }
    if (signal.aborted) throw new Error(`${bridge}: ${rawURL} timed out`);
    const why = e.cause?.message ?? e.message;
    // A browser fails a request CORS stopped, one that reached nothing and
    // a redirect CORS stopped alike, and nothing it may do tells them apart
    // without following the redirect (see the package notes).
    if (o.cors && e?.name === "TypeError") {
      throw new Error(`${bridge}: ${rawURL} failed: the browser could not read it (${why}): the site may not let pages of other sites read it (CORS), ` +
        "or it may be down, the name wrong or the network blocked. In the browser only sites that allow other sites' pages can be read; " +
        "the Go program (toolroute serve) and the edge worker can read any public site");
    }
    throw new Error(`${bridge}: ${rawURL} failed: ${why}`);
  }
  return { resp, shownURL: shown(resp.url ? new URL(resp.url) : u, from, to), signal };
}

// readAtMost reads up to n bytes of a response's body and drops the rest.
export async function readAtMost(resp, n) {
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
