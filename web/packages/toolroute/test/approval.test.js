// Approval in the JS host: a tool whose requiredPermissions say it sends asks
// first through options.approve; the answers are logged; with no approve
// option the call is refused with how to allow it; a policy allows it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import path from "node:path";
import { Toolroute } from "../driver/toolroute.js";
import { createHost, MemoryStore } from "../host/host.js";
import { startFakeModel, text, toolCall } from "./host-fakemodel.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");
const wasm = await WebAssembly.compile(await readFile(path.join(root, "wasm/toolroute.wasm")));

const catalogue = {
  tools: [{ name: "send_note", description: "Send a note", required_permissions: ["send"], timeout_seconds: 5,
    parameters: { type: "object", properties: { text: { type: "string" } } } }],
};

async function run(options) {
  const model = await startFakeModel("openai", toolCall("send_note", '{"text":"hi"}'), toolCall("send_note", '{"text":"again"}'), text("Done."));
  const store = new MemoryStore();
  const sent = [];
  try {
    const h = await createHost({
      module: () => Toolroute.instantiate(wasm), catalogue, store,
      provider: { format: "openai", baseURL: model.baseURL, apiKey: "k", model: "m" },
      native: { send_note: async (input) => (sent.push(input.text), options.onSend?.(), "sent") },
      ...options,
    });
    const events = [];
    for await (const ev of h.send("s", "Send notes")) events.push(ev);
    return { events, log: await store.messages("s"), sent, requests: model.requests };
  } finally {
    await model.close();
  }
}

test("the user is asked before a sending tool runs; once runs it, deny does not", async () => {
  const asked = [];
  const answers = ["once", "deny"];
  let ran = 0;
  const { events, log, sent, requests } = await run({
    onSend: () => ran++,
    approve: async (sessionId, calls) => {
      asked.push(`${sessionId}:${calls.map((c) => c.tool).join(",")}:${ran}`);
      return [{ id: calls[0].id, answer: answers.shift() }];
    },
  });
  assert.deepEqual(asked, ["s:send_note:0", "s:send_note:1"]);
  assert.deepEqual(sent, ["hi"]);
  assert.equal(events.filter((e) => e.type === "approval").length, 2);
  assert.deepEqual(log.map((m) => m.type + ":" + (m.status ?? m.content ?? "")).slice(2),
    ["tool_call:awaiting_approval", "approval:once", "tool_result:success", "assistant:", "tool_call:awaiting_approval", "approval:deny", "tool_result:error", "assistant:Done."]);
  assert.match(requests[2].body, /The user denied this call of 'send_note'/);
});

test("with no one to ask the call is refused; a policy allows it", async () => {
  const refused = await run({});
  assert.deepEqual(refused.sent, []);
  assert.match(refused.requests[1].body, /approval_needed/);
  const allowed = await run({ policies: async () => [{ tool: "send_note", decision: "allow" }] });
  assert.deepEqual(allowed.sent, ["hi", "again"]);
});
