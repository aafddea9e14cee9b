// The edge worker's configuration from its variables and secrets, as the Go
// program reads its environment (internal/app's TestResolveProvider), and who
// may use it. The worker itself runs in workerd: worker.test.js.
import { test } from "node:test";
import assert from "node:assert/strict";
import { resolveProvider, describeProvider, hint, NO_PROVIDER } from "../provider.js";
import { authorize } from "../auth.js";

test("the provider is chosen as the Go program chooses it", () => {
  const cases = [
    [{ OPENAI_API_KEY: "k" }, { name: "openai", format: "openai", baseURL: "https://api.openai.com/v1", apiKey: "k", model: "gpt-4.1-mini", keyVar: "OPENAI_API_KEY", baseVar: "OPENAI_BASE_URL" }],
    [{ OPENAI_BASE_URL: "http://localhost:11434/v1" }, { name: "openai", format: "openai", baseURL: "http://localhost:11434/v1", apiKey: "", model: "llama3.2", keyVar: "OPENAI_API_KEY", baseVar: "OPENAI_BASE_URL" }],
    [{ ANTHROPIC_API_KEY: "a" }, { name: "anthropic", format: "anthropic", baseURL: "https://api.anthropic.com", apiKey: "a", model: "claude-sonnet-4-5", keyVar: "ANTHROPIC_API_KEY", baseVar: "ANTHROPIC_BASE_URL" }],
    [{ ANTHROPIC_API_KEY: "a", OPENAI_API_KEY: "k", TOOLROUTE_MODEL: "gpt-x" }, { name: "openai", format: "openai", baseURL: "https://api.openai.com/v1", apiKey: "k", model: "gpt-x", keyVar: "OPENAI_API_KEY", baseVar: "OPENAI_BASE_URL" }],
    [{ ANTHROPIC_API_KEY: "a", OPENAI_API_KEY: "k", TOOLROUTE_PROVIDER: "anthropic", ANTHROPIC_BASE_URL: "http://127.0.0.1:9" }, { name: "anthropic", format: "anthropic", baseURL: "http://127.0.0.1:9", apiKey: "a", model: "claude-sonnet-4-5", keyVar: "ANTHROPIC_API_KEY", baseVar: "ANTHROPIC_BASE_URL" }],
    [{ GEMINI_API_KEY: "g" }, { name: "gemini", format: "gemini", baseURL: "https://generativelanguage.googleapis.com", apiKey: "g", model: "gemini-3.5-flash", keyVar: "GEMINI_API_KEY", baseVar: "GEMINI_BASE_URL" }],
    [{ GEMINI_API_KEY: "g", ANTHROPIC_API_KEY: "a" }, { name: "anthropic", format: "anthropic", baseURL: "https://api.anthropic.com", apiKey: "a", model: "claude-sonnet-4-5", keyVar: "ANTHROPIC_API_KEY", baseVar: "ANTHROPIC_BASE_URL" }],
    [{ GEMINI_API_KEY: "g", OPENAI_API_KEY: "k", TOOLROUTE_PROVIDER: "gemini", GEMINI_BASE_URL: "http://127.0.0.1:9" }, { name: "gemini", format: "gemini", baseURL: "http://127.0.0.1:9", apiKey: "g", model: "gemini-3.5-flash", keyVar: "GEMINI_API_KEY", baseVar: "GEMINI_BASE_URL" }],
    [{ OPENAI_API_KEY: "k", TOOLROUTE_PROVIDER: "responses" }, { name: "responses", format: "responses", baseURL: "https://api.openai.com/v1", apiKey: "k", model: "gpt-5.4-mini", keyVar: "OPENAI_API_KEY", baseVar: "OPENAI_BASE_URL" }],
    [{ OPENAI_BASE_URL: "http://localhost:8000/v1", TOOLROUTE_PROVIDER: "responses" }, { name: "responses", format: "responses", baseURL: "http://localhost:8000/v1", apiKey: "", model: "llama3.2", keyVar: "OPENAI_API_KEY", baseVar: "OPENAI_BASE_URL" }],
  ];
  for (const [env, want] of cases) assert.deepEqual(resolveProvider(env), want, JSON.stringify(env));
});

test("a missing or wrong provider says which secret or variable to set", () => {
  assert.equal(resolveProvider({}).error, NO_PROVIDER);
  assert.match(NO_PROVIDER, /wrangler secret put NAME/);
  assert.match(resolveProvider({ TOOLROUTE_PROVIDER: "anthropic" }).error, /needs the ANTHROPIC_API_KEY secret/);
  assert.match(resolveProvider({ TOOLROUTE_PROVIDER: "openai" }).error, /needs the OPENAI_API_KEY secret, or the OPENAI_BASE_URL variable/);
  assert.match(resolveProvider({ TOOLROUTE_PROVIDER: "gemini", OPENAI_API_KEY: "k" }).error, /needs the GEMINI_API_KEY secret/);
  assert.match(resolveProvider({ TOOLROUTE_PROVIDER: "responses" }).error, /TOOLROUTE_PROVIDER=responses needs the OPENAI_API_KEY secret/);
  assert.match(resolveProvider({ TOOLROUTE_PROVIDER: "mistral", OPENAI_API_KEY: "k" }).error, /unknown TOOLROUTE_PROVIDER "mistral": use openai, anthropic, responses, gemini or demo/);
  assert.match(NO_PROVIDER, /GEMINI_API_KEY/);
  assert.match(NO_PROVIDER, /TOOLROUTE_PROVIDER=responses/);
  assert.deepEqual(resolveProvider({ TOOLROUTE_PROVIDER: "demo" }), { name: "demo", format: "openai", demo: true, baseURL: "(the module's demo model)", model: "toolroute-demo", keyVar: "", baseVar: "" });
  assert.equal(describeProvider(resolveProvider({})), "no model provider");
});

test("failures get the Go program's hints, naming the worker's settings", () => {
  const p = resolveProvider({ OPENAI_API_KEY: "k" });
  assert.equal(hint(p, "the model answered HTTP 401: bad key"), "the model answered HTTP 401: bad key (check the OPENAI_API_KEY secret)");
  assert.match(hint(p, "HTTP 404: no such model"), /the model is "gpt-4.1-mini": choose another with the TOOLROUTE_MODEL variable/);
  assert.match(hint(p, "the model could not be reached: connection refused"), /set the OPENAI_BASE_URL variable/);
  assert.equal(hint(p, "HTTP 500"), "HTTP 500");
  const g = resolveProvider({ GEMINI_API_KEY: "g" });
  assert.equal(hint(g, "HTTP 403: denied"), "HTTP 403: denied (check the GEMINI_API_KEY secret)");
  assert.match(hint(g, "the model could not be reached: refused"), /server at https:\/\/generativelanguage.googleapis.com running\? set the GEMINI_BASE_URL variable/);
  const r = resolveProvider({ OPENAI_API_KEY: "k", TOOLROUTE_PROVIDER: "responses" });
  assert.match(hint(r, "the model could not be reached: refused"), /set the OPENAI_BASE_URL variable/);
});

test("only the token's holders, a public worker, or a dev worker's loopback names are served", () => {
  const req = (url, headers = {}) => [new Request(url, { headers }), new URL(url)];
  const env = { TOOLROUTE_TOKEN: "s3cret" };
  // A loopback name is no exemption: a proxy in front sets Host to one.
  for (const url of ["http://127.0.0.1:8787/api/sessions", "http://localhost/api/sessions", "http://LOCALHOST./", "http://127.1/", "http://2130706433/", "http://0x7f000001/", "http://[::1]:8787/", "http://a.localhost/"]) {
    const open = authorize(...req(url), {});
    assert.equal(open?.status, 403, url);
    assert.match(open.message, /TOOLROUTE_DEV_NO_TOKEN variable set to 1/, url);
    assert.equal(authorize(...req(url), env)?.status, 401, url);
    assert.equal(authorize(...req(url), { ...env, TOOLROUTE_DEV_NO_TOKEN: "1" }), null, url);
    assert.equal(authorize(...req(url), { TOOLROUTE_DEV_NO_TOKEN: "1" }), null, url);
    assert.equal(authorize(...req(url), { ...env, TOOLROUTE_DEV_NO_TOKEN: "true" })?.status, 401, `${url}: only "1" turns it on`);
  }
  const open = authorize(...req("https://t.example.workers.dev/api/sessions"), {});
  assert.equal(open.status, 403);
  assert.match(open.message, /wrangler secret put TOOLROUTE_TOKEN/);
  assert.doesNotMatch(open.message, /TOOLROUTE_DEV_NO_TOKEN/);
  assert.equal(authorize(...req("https://t.example.workers.dev/api/sessions"), { TOOLROUTE_PUBLIC: "1" }), null);
  assert.equal(authorize(...req("https://t.example.workers.dev/api/sessions"), { ...env, TOOLROUTE_DEV_NO_TOKEN: "1" }).status, 401, "the dev variable opens loopback names only");
  for (const url of ["https://127.0.0.1.nip.io/", "https://localhost.example.com/", "https://128.0.0.1/", "https://[::2]/"]) {
    assert.equal(authorize(...req(url), { ...env, TOOLROUTE_DEV_NO_TOKEN: "1" })?.status, 401, url);
  }
  assert.equal(authorize(...req("https://t.example.workers.dev/api/sessions"), env).status, 401);
  assert.equal(authorize(...req("https://t.example.workers.dev/api/sessions", { authorization: "Bearer s3cre" }), env).status, 401);
  assert.equal(authorize(...req("https://t.example.workers.dev/api/sessions", { authorization: "Bearer s3cret" }), env), null);
  assert.equal(authorize(...req("https://t.example.workers.dev/api/sessions", { cookie: "a=b; toolroute_token=s3cret" }), env), null);
  assert.equal(authorize(...req("https://t.example.workers.dev/?token=s3cret"), env), null);
  assert.equal(authorize(...req("https://t.example.workers.dev/api/sessions?token=s3cret"), env).status, 401, "the token in a query is taken on / only");
});

test("a token cookie that is not percent-encoding is a 400, not a 500", () => {
  const env = { TOOLROUTE_TOKEN: "s3cret" };
  for (const cookie of ["toolroute_token=%E0%A4%A", "toolroute_token=%", "x=1; toolroute_token=%zz"]) {
    const r = authorize(new Request("https://t.example.workers.dev/api/sessions", { headers: { cookie } }), new URL("https://t.example.workers.dev/api/sessions"), env);
    assert.equal(r?.status, 400, cookie);
    assert.match(r.message, /the toolroute_token cookie is not valid percent-encoding: open \/\?token=TOKEN to set it again/);
  }
  const enc = authorize(new Request("https://t.example.workers.dev/", { headers: { cookie: "toolroute_token=s%3Bcr%25t" } }), new URL("https://t.example.workers.dev/"), { TOOLROUTE_TOKEN: "s;cr%t" });
  assert.equal(enc, null, "an encoded cookie is decoded");
});

test("TOOLROUTE_POLICIES gives the worker's approval rules, and says what it cannot read", async () => {
  const { parsePolicies } = await import("../policies.js");
  assert.deepEqual(parsePolicies("group:google_calendar=allow, tool:gmail_send=deny,,"), {
    policies: [{ group: "google_calendar", decision: "allow" }, { tool: "gmail_send", decision: "deny" }], problems: [],
  });
  assert.deepEqual(parsePolicies(undefined), { policies: [], problems: [] });
  const bad = parsePolicies("tool:Gmail=allow,gmail_send=allow,tool:x=maybe");
  assert.equal(bad.policies.length, 0);
  assert.equal(bad.problems.length, 3);
  assert.match(bad.problems[0], /"tool:Gmail=allow" is not tool:NAME=ask\|allow\|deny/);
});

// fakeLog is SessionLog's question methods over approvals.js, in memory,
// for createApprover's timing; the Durable Object itself runs in
// worker.test.js.
async function fakeLog() {
  const a = await import("../approvals.js");
  let q = null;
  const calls = [];
  return {
    calls,
    ask(token, c, expires) {
      calls.push("ask");
      if (q && q.token === token && a.sameCalls(q.calls, c)) return q.expires;
      q = { token, calls: c, expires, answers: {} };
      return expires;
    },
    poll(token) {
      calls.push("poll");
      if (!q || q.token !== token) return { gone: true, answers: [], done: true };
      const answers = a.given(q);
      return { answers, done: answers.length === q.calls.length };
    },
    drop(token) {
      calls.push("drop");
      if (q?.token === token) q = null;
    },
    answer(list, now) {
      if (!a.pending(q, now)) return { none: true };
      return a.answer(q, list, a.snapshot(q.calls, a.given(q)));
    },
    question: (now) => (a.pending(q, now) ? a.view("s", q) : null),
  };
}

test("a waiting turn polls the session's question until it is answered, times out or its client goes", async () => {
  const { createApprover } = await import("../approvals.js");
  const two = [{ id: "c1", tool: "post_mail" }, { id: "c2", tool: "post_note" }];
  let t = Date.parse("2026-01-02T03:04:05Z");
  const now = () => new Date(t);
  const setup = async (onSleep) => {
    const log = await fakeLog();
    const approve = createApprover({ session: () => log, token: () => "tok", now, timeoutMs: 60_000, pollMs: 300, sleep: async (ms, signal) => { t += ms; await onSleep(log, signal); } });
    return { log, approve };
  };

  // Answered one call at a time, from elsewhere, while the turn waits.
  let step = 0;
  const answered = await setup((log) => {
    const at = now().toISOString();
    if (step === 0) assert.deepEqual(log.answer([{ id: "c2", answer: "deny" }], at), { waiting: ["c1"] });
    if (step === 1) assert.deepEqual(log.answer([{ id: "c1", answer: "once" }], at), { waiting: [] });
    step++;
  });
  assert.deepEqual(await answered.approve("s", two), [{ id: "c1", answer: "once" }, { id: "c2", answer: "deny" }]);
  assert.equal(answered.log.calls.at(-1), "drop");
  assert.equal(answered.log.question(now().toISOString()), null);

  // No answer within the timeout: every call is denied (the host denies
  // the calls missing from the answers), even one already answered.
  const start = t;
  const late = await setup((log) => {
    if (log.calls.filter((c) => c === "poll").length === 1) log.answer([{ id: "c1", answer: "once" }], now().toISOString());
  });
  assert.deepEqual(await late.approve("s", two), []);
  assert.equal(t - start, 60_000, "it waited the timeout, no longer");
  assert.equal(late.log.question(now().toISOString()), null, "the question went with it");

  // The client went away: the turn stops waiting, the calls not run.
  const abort = new AbortController();
  const gone = await setup(() => abort.abort(new Error("the client went away")));
  await assert.rejects(gone.approve("s", two, { signal: abort.signal }), /the client went away/);
  assert.equal(gone.log.calls.at(-1), "drop");
});

test("answers to a question are checked all or none, saying what to fix", async () => {
  const { answer, pending, view, snapshot } = await import("../approvals.js");
  // The body's shape is the module's (testdata/checks/cases.json, api_body).
  // Which answers are bad is the module's (testdata/checks/cases.json,
  // approval_answers); answer records those it checked against the
  // question as it still is, and nothing when the question changed since.
  const fresh = () => ({ token: "t", calls: [{ id: "c1", secrets: ["google", "KEY"] }, { id: "c2" }], expires: "2026-01-02T03:14:05.000Z", answers: { c2: "session" } });
  const asked = (q) => snapshot(q.calls, view("s", q).answers);
  const cases = [
    { name: "the last", input: [{ id: "c1", answer: "deny" }], want: { waiting: [] } },
    { name: "a grant", input: [{ id: "c1", answer: "once", grant: ["KEY"] }], want: { waiting: [] }, wantAnswers: [{ id: "c1", answer: "once", grant: ["KEY"] }, { id: "c2", answer: "session" }] },
    { name: "a denied call is granted nothing", input: [{ id: "c1", answer: "deny", grant: ["KEY"] }], want: { waiting: [] }, wantAnswers: [{ id: "c1", answer: "deny" }, { id: "c2", answer: "session" }] },
  ];
  for (const c of cases) {
    const q = fresh();
    assert.deepEqual(answer(q, c.input, asked(q)), c.want, c.name);
    if (c.wantAnswers) assert.deepEqual(view("s", q).answers, c.wantAnswers, c.name);
  }
  // Answered in between, or asked again about other calls: stale, nothing recorded.
  const before = fresh();
  const then = asked(before);
  before.answers.c1 = "once";
  assert.deepEqual(answer(before, [{ id: "c1", answer: "deny" }], then), { stale: true });
  assert.deepEqual(before.answers, { c2: "session", c1: "once" });
  const other = fresh();
  other.calls = [{ id: "c3" }, { id: "c2" }];
  assert.deepEqual(answer(other, [{ id: "c3", answer: "once" }], then), { stale: true });
  assert.deepEqual(other.answers, { c2: "session" });
  const q = fresh();
  assert.equal(pending(q, "2026-01-02T03:14:04.999Z"), true);
  assert.equal(pending(q, "2026-01-02T03:14:05.000Z"), false, "expired");
  assert.equal(pending(null, "2026-01-02T03:04:05Z"), false);
  assert.deepEqual(view("s", q), { session: "s", calls: q.calls, answers: [{ id: "c2", answer: "session" }], waiting: ["c1"], expires: q.expires });
});
