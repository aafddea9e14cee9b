// The host cases of testdata/approvals and testdata/redaction in the JS
// host (web/packages/toolroute/host's createHost, as the page's worker and the edge worker
// make it), against a scripted model on loopback; host/hostcases_test.go is
// the Go host's replay. testdata/README.md says the format.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Toolroute } from "../driver/toolroute.js";
import { createHost, MemoryStore } from "../host/host.js";
import { skipFor, checkTurn, KITS } from "./hostcases.js";
import { startFakeModel, text, toolCall, error } from "./host-fakemodel.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");
const wasm = await WebAssembly.compile(await readFile(path.join(root, "wasm/toolroute.wasm")));

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
    let logged = 0;
    let requests = 0;
    for (const [i, turn] of c.turns.entries()) {
      asked = [];
      ran = [];
      answers = [...(turn.answers ?? [])];
      const events = [];
      for await (const ev of h.send("s", turn.user, { attachments: turn.attachments })) events.push(ev);
      const msgs = (await store.messages("s")).slice(logged);
      logged += msgs.length;
      const read = model.requests.slice(requests).map((r) => r.body).join("\n");
      requests = model.requests.length;
      checkTurn(c, i, { asked, ran, msgs, read, events });
    }
  } finally {
    await model.close();
  }
}

for (const kit of KITS) {
  const file = JSON.parse(await readFile(path.join(root, "testdata", kit, "cases.json"), "utf8"));
  test(`testdata/${kit} has cases`, () => assert.ok(file.cases.length > 0));
  for (const c of file.cases) test(`${kit}: ${c.name}`, { skip: skipFor(c, "node") }, () => replay(c));
}
