// The google bridge of the page's JS tools: the account of the toolroute
// serve that served the page, from GET /api/google/token (404: none).
import { NotConnected } from "toolroute/jsrun";

// tokens() gives the access tokens handed out so far, for redaction.
export function serverGoogle(fetchFn, base) {
  let email = "";
  const seen = new Set();
  async function get() {
    const resp = await fetchFn(new URL("/api/google/token", base), { cache: "no-store" });
    if (resp.status === 404) throw new NotConnected();
    const body = await resp.json().catch(() => ({}));
    if (!resp.ok || !body.access_token) throw new Error(body.error || "the server gave no Google token (HTTP " + resp.status + ")");
    if (body.email) email = body.email;
    seen.add(body.access_token);
    return body;
  }
  return {
    tokens: () => [...seen],
    accessToken: async () => (await get()).access_token,
    accountEmail: async () => {
      if (!email) await get();
      if (!email) throw new Error("the server knows no email for the Google account");
      return email;
    },
  };
}
