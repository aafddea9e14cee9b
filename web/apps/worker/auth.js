// Who may use the worker. Every request must carry the TOOLROUTE_TOKEN
// secret, as "Authorization: Bearer TOKEN" or the cookie GET /?token=TOKEN
// sets, unless one of two variables says otherwise:
//
//   - TOOLROUTE_PUBLIC "1": every request is served (something in front of
//     the worker, such as Cloudflare Access, checks who may use it);
//   - TOOLROUTE_DEV_NO_TOKEN "1": requests to a loopback name (localhost,
//     127.0.0.1, [::1]) are served, for workerd or wrangler dev on this
//     machine. The name is the request's Host header, which the client or a
//     proxy in front sets (nginx sets 127.0.0.1 by default): a worker
//     anything else can reach must not have it.
//
// A loopback name alone was once enough; it opened every self-hosted workerd
// behind a proxy.

const COOKIE = "toolroute_token";

// tokenCookie is the Set-Cookie value keeping the token in the browser.
export function tokenCookie(token) {
  return `${COOKIE}=${encodeURIComponent(token)}; Path=/; HttpOnly; Secure; SameSite=Strict; Max-Age=31536000`;
}

// authorize gives {status, message} for a request the worker must not
// serve, or null.
export function authorize(request, url, env) {
  if (env.TOOLROUTE_PUBLIC === "1") return null;
  const loopback = isLoopback(url.hostname);
  if (loopback && env.TOOLROUTE_DEV_NO_TOKEN === "1") return null;
  // On a loopback name, say how a developer does without the token.
  const dev = loopback ? "; on this machine only, with nothing else reaching the worker, the TOOLROUTE_DEV_NO_TOKEN variable set to 1 lets requests to localhost through without it" : "";
  const want = env.TOOLROUTE_TOKEN;
  if (!want) {
    return deny(403, "this worker has no TOOLROUTE_TOKEN secret: set one (wrangler secret put TOOLROUTE_TOKEN) and send it as Authorization: Bearer TOKEN, or open /?token=TOKEN; or set the TOOLROUTE_PUBLIC variable to 1 if something in front of the worker (Cloudflare Access) checks who may use it" + dev);
  }
  const auth = request.headers.get("authorization") ?? "";
  const cookie = (request.headers.get("cookie") ?? "").split(";").map((c) => c.trim()).find((c) => c.startsWith(COOKIE + "="));
  let given = null;
  if (auth.startsWith("Bearer ")) {
    given = auth.slice(7).trim();
  } else if (cookie) {
    try {
      given = decodeURIComponent(cookie.slice(COOKIE.length + 1));
    } catch {
      return deny(400, `the ${COOKIE} cookie is not valid percent-encoding: open /?token=TOKEN to set it again, or send Authorization: Bearer TOKEN`);
    }
  } else if (url.pathname === "/") {
    given = url.searchParams.get("token");
  }
  if (given !== null && equal(given, want)) return null;
  return deny(401, "send the worker's TOOLROUTE_TOKEN as Authorization: Bearer TOKEN, or open /?token=TOKEN in the browser once" + dev);
}

// isLoopback reports a loopback host name; the URL parser has already
// written 127.1 and 2130706433 as 127.0.0.1, and lowered the case.
function isLoopback(hostname) {
  const h = hostname.replace(/\.$/, "");
  return h === "localhost" || h.endsWith(".localhost") || h === "[::1]" || /^127\.\d+\.\d+\.\d+$/.test(h);
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
