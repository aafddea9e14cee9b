// Who may use the worker. A worker is on the internet, not on localhost:
// unless the request comes to a loopback name (workerd or wrangler dev on
// this machine), it must carry the TOOLROUTE_TOKEN secret, as
// "Authorization: Bearer TOKEN" or the cookie GET /?token=TOKEN sets; or
// the TOOLROUTE_PUBLIC variable is "1" (something in front of the worker,
// such as Cloudflare Access, checks who may use it).

const COOKIE = "toolroute_token";

// tokenCookie is the Set-Cookie value keeping the token in the browser.
export function tokenCookie(token) {
  return `${COOKIE}=${encodeURIComponent(token)}; Path=/; HttpOnly; Secure; SameSite=Strict; Max-Age=31536000`;
}

// authorize gives {status, message} for a request the worker must not
// serve, or null.
export function authorize(request, url, env) {
  if (env.TOOLROUTE_PUBLIC === "1" || isLoopback(url.hostname)) return null;
  const want = env.TOOLROUTE_TOKEN;
  if (!want) {
    return deny(403, "this worker has no TOOLROUTE_TOKEN secret: set one (wrangler secret put TOOLROUTE_TOKEN) and send it as Authorization: Bearer TOKEN, or open /?token=TOKEN; or set the TOOLROUTE_PUBLIC variable to 1 if something in front of the worker (Cloudflare Access) checks who may use it");
  }
  const auth = request.headers.get("authorization") ?? "";
  const cookie = (request.headers.get("cookie") ?? "").split(";").map((c) => c.trim()).find((c) => c.startsWith(COOKIE + "="));
  const given = auth.startsWith("Bearer ") ? auth.slice(7).trim() : cookie ? decodeURIComponent(cookie.slice(COOKIE.length + 1)) : url.pathname === "/" ? url.searchParams.get("token") : null;
  if (given !== null && given !== undefined && equal(given, want)) return null;
  return deny(401, "send the worker's TOOLROUTE_TOKEN as Authorization: Bearer TOKEN, or open /?token=TOKEN in the browser once");
}

function isLoopback(hostname) {
  return hostname === "localhost" || hostname === "[::1]" || /^127\.\d+\.\d+\.\d+$/.test(hostname);
}

// equal compares secrets in time independent of where they differ.
function equal(a, b) {
  const x = new TextEncoder().encode(a);
  const y = new TextEncoder().encode(b);
  let d = x.length ^ y.length;
  for (let i = 0; i < Math.max(x.length, y.length); i++) d |= (x[i] ?? 0) ^ (y[i] ?? 0);
  return d === 0;
}

function deny(status, message) {
  return { status, message };
}
