// The edge worker's configuration from its variables and secrets, as the Go
// program reads its environment (host/app's TestResolveProvider), and who
// may use it. The worker itself runs in workerd: worker.test.js.
import { test } from "node:test";
import assert from "node:assert/strict";
import { resolveProvider, describeProvider, hint, NO_PROVIDER } from "../worker/provider.js";
import { authorize } from "../worker/auth.js";

test("the provider is chosen as the Go program chooses it", () => {
  const cases = [
    [{ OPENAI_API_KEY: "k" }, { name: "openai", format: "openai", baseURL: "https://api.openai.com/v1", apiKey: "k", model: "gpt-4.1-mini", keyVar: "OPENAI_API_KEY" }],
    [{ OPENAI_BASE_URL: "http://localhost:11434/v1" }, { name: "openai", format: "openai", baseURL: "http://localhost:11434/v1", apiKey: "", model: "llama3.2", keyVar: "OPENAI_API_KEY" }],
    [{ ANTHROPIC_API_KEY: "a" }, { name: "anthropic", format: "anthropic", baseURL: "https://api.anthropic.com", apiKey: "a", model: "claude-sonnet-4-5", keyVar: "ANTHROPIC_API_KEY" }],
    [{ ANTHROPIC_API_KEY: "a", OPENAI_API_KEY: "k", TOOLROUTE_MODEL: "gpt-x" }, { name: "openai", format: "openai", baseURL: "https://api.openai.com/v1", apiKey: "k", model: "gpt-x", keyVar: "OPENAI_API_KEY" }],
    [{ ANTHROPIC_API_KEY: "a", OPENAI_API_KEY: "k", TOOLROUTE_PROVIDER: "anthropic", ANTHROPIC_BASE_URL: "http://127.0.0.1:9" }, { name: "anthropic", format: "anthropic", baseURL: "http://127.0.0.1:9", apiKey: "a", model: "claude-sonnet-4-5", keyVar: "ANTHROPIC_API_KEY" }],
  ];
  for (const [env, want] of cases) assert.deepEqual(resolveProvider(env), want, JSON.stringify(env));
});

test("a missing or wrong provider says which secret or variable to set", () => {
  assert.equal(resolveProvider({}).error, NO_PROVIDER);
  assert.match(NO_PROVIDER, /wrangler secret put NAME/);
  assert.match(resolveProvider({ TOOLROUTE_PROVIDER: "anthropic" }).error, /needs the ANTHROPIC_API_KEY secret/);
  assert.match(resolveProvider({ TOOLROUTE_PROVIDER: "openai" }).error, /needs the OPENAI_API_KEY secret, or the OPENAI_BASE_URL variable/);
  assert.match(resolveProvider({ TOOLROUTE_PROVIDER: "demo", OPENAI_API_KEY: "k" }).error, /unknown TOOLROUTE_PROVIDER "demo": use openai or anthropic/);
  assert.equal(describeProvider(resolveProvider({})), "no model provider");
});

test("failures get the Go program's hints, naming the worker's settings", () => {
  const p = resolveProvider({ OPENAI_API_KEY: "k" });
  assert.equal(hint(p, "the model answered HTTP 401: bad key"), "the model answered HTTP 401: bad key (check the OPENAI_API_KEY secret)");
  assert.match(hint(p, "HTTP 404: no such model"), /the model is "gpt-4.1-mini": choose another with the TOOLROUTE_MODEL variable/);
  assert.match(hint(p, "the model could not be reached: connection refused"), /set the OPENAI_BASE_URL variable/);
  assert.equal(hint(p, "HTTP 500"), "HTTP 500");
});

test("only loopback names, the token's holders, or a public worker are served", () => {
  const req = (url, headers = {}) => [new Request(url, { headers }), new URL(url)];
  assert.equal(authorize(...req("http://127.0.0.1:8787/api/sessions"), {}), null);
  assert.equal(authorize(...req("http://localhost:8787/api/sessions"), {}), null);
  const open = authorize(...req("https://t.example.workers.dev/api/sessions"), {});
  assert.equal(open.status, 403);
  assert.match(open.message, /wrangler secret put TOOLROUTE_TOKEN/);
  assert.equal(authorize(...req("https://t.example.workers.dev/api/sessions"), { TOOLROUTE_PUBLIC: "1" }), null);
  const env = { TOOLROUTE_TOKEN: "s3cret" };
  assert.equal(authorize(...req("https://t.example.workers.dev/api/sessions"), env).status, 401);
  assert.equal(authorize(...req("https://t.example.workers.dev/api/sessions", { authorization: "Bearer s3cre" }), env).status, 401);
  assert.equal(authorize(...req("https://t.example.workers.dev/api/sessions", { authorization: "Bearer s3cret" }), env), null);
  assert.equal(authorize(...req("https://t.example.workers.dev/api/sessions", { cookie: "a=b; toolroute_token=s3cret" }), env), null);
  assert.equal(authorize(...req("https://t.example.workers.dev/?token=s3cret"), env), null);
  assert.equal(authorize(...req("https://t.example.workers.dev/api/sessions?token=s3cret"), env).status, 401, "the token in a query is taken on / only");
});
