// The host cases of testdata/approvals and testdata/redaction in the JS
// host (web/host's createHost, as the page's worker and the edge worker
// make it), against a scripted model on loopback; host/hostcases_test.go is
// the Go host's replay. testdata/README.md says the format.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Toolroute } from "../driver/toolroute.js";
import { createHost, MemoryStore } from "../host/host.js";
import { MIN_SECRET_LENGTH } from "../host/redact.js";
import { startFakeModel, text, toolCall, error } from "./host-fakemodel.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const wasm = await WebAssembly.compile(await readFile(path.join(root, "wasm/toolroute.wasm")));

// skipFor says why a case is not for this host ("node"), or undefined.
function skipFor(c) {
  if (!c.hosts?.length) return undefined;
  if (!c.hosts_why) throw new Error(`the case runs only in ${c.hosts.join(", ")} and does not say why (hosts_why)`);
  return c.hosts.includes("node") ? undefined : `not in node: ${c.hosts_why}`;
}

// jsonForms are the ways s may appear in JSON text: as written, escaped in a
// JSON string, and with HTML escapes as Go's encoder writes it.
function jsonForms(s) {
  const plain = JSON.stringify(s).slice(1, -1);
  return [s, plain, plain.replace(/[<>&]/g, (ch) => "\\u00" + ch.charCodeAt(0).toString(16))];
}

async function replay(c) {
  const replies = c.turns.flatMap((t) => t.model.map((m) =>
    m.error ? error(m.error.status, m.error.body) : m.tool ? toolCall(m.tool, JSON.stringify(m.input ?? {})) : text(m.text)));
  const model = await startFakeModel("openai", ...replies);
  const store = new MemoryStore();
  let ran = [];
  let asked = [];
  let answers = [];
  const native = {};
  for (const t of c.tools ?? []) {
    native[t.name] = async () => {
      ran.push(t.name);
      if (t.error) throw new Error(t.error);
      return t.output;
    };
  }
  try {
    const h = await createHost({
      module: () => Toolroute.instantiate(wasm),
      catalogue: {
        groups: c.groups ?? [],
        tools: (c.tools ?? []).map(({ output, error, ...tool }) => ({ timeout_seconds: 10, parameters: { type: "object", properties: {} }, ...tool })),
      },
      provider: { format: "openai", baseURL: model.baseURL, apiKey: c.api_key ?? "test-key", model: "fake-model" },
      settings: { stream: false, ...(c.allow_hint ? { allow_hint: c.allow_hint } : {}) },
      store,
      native,
      policies: c.policies ?? [],
      secrets: c.secrets ?? [],
      approve: c.approver === false ? undefined : async (_session, calls) => {
        if (answers.length === 0) throw new Error("the case has no answer left for this question");
        asked.push(calls.map((call) => call.tool));
        const a = answers.shift();
        return calls.map((call) => ({ id: call.id, answer: a }));
      },
    });
    const secrets = [...(c.secrets ?? []).map((s) => s.value), ...(c.api_key ? [c.api_key] : [])].filter((v) => v.length >= MIN_SECRET_LENGTH);
    let logged = 0;
    let requests = 0;
    for (const [i, turn] of c.turns.entries()) {
      asked = [];
      ran = [];
      answers = [...(turn.answers ?? [])];
      const events = [];
      for await (const ev of h.send("s", turn.user)) events.push(ev);
      const msgs = (await store.messages("s")).slice(logged);
      logged += msgs.length;
      const read = model.requests.slice(requests).map((r) => r.body).join("\n");
      requests = model.requests.length;
      const stored = JSON.stringify(msgs);
      const want = turn.expect;
      if (want.asked) assert.deepEqual(asked, want.asked, `turn ${i} asked`);
      if (want.ran) assert.deepEqual(ran, want.ran, `turn ${i} ran`);
      if (want.log) assert.deepEqual(msgs.map((m) => `${m.type}:${m.status ?? ""}:${m.type === "tool_call" ? "" : m.content ?? ""}`), want.log, `turn ${i} log`);
      for (const s of want.stored ?? []) assert.ok(stored.includes(jsonForms(s)[1]), `turn ${i}: the stored messages do not hold ${JSON.stringify(s)}: ${stored}`);
      for (const s of want.model_read ?? []) assert.ok(jsonForms(s).some((f) => read.includes(f)), `turn ${i}: the model read no ${JSON.stringify(s)}: ${read}`);
      const last = events.at(-1);
      for (const s of want.failure ?? []) assert.ok(last.type === "failed" && last.failure?.message?.includes(s), `turn ${i}: the turn's end ${JSON.stringify(last)} does not say ${JSON.stringify(s)}`);
      // The events but done's text: the reply as shown to the user, which
      // neither host redacts (its stored message is redacted).
      for (const v of secrets) {
        for (const [what, t] of [["stored messages", stored], ["model requests", read], ["events", JSON.stringify(events.map((ev) => (ev.type === "done" ? { ...ev, text: "" } : ev)))]]) {
          assert.ok(!jsonForms(v).some((f) => t.includes(f)), `turn ${i}: the ${what} hold the secret ${JSON.stringify(v)}: ${t}`);
        }
      }
    }
  } finally {
    await model.close();
  }
}

for (const kit of ["approvals", "redaction"]) {
  const file = JSON.parse(await readFile(path.join(root, "testdata", kit, "cases.json"), "utf8"));
  test(`testdata/${kit} has cases`, () => assert.ok(file.cases.length > 0));
  for (const c of file.cases) test(`${kit}: ${c.name}`, { skip: skipFor(c) }, () => replay(c));
}
