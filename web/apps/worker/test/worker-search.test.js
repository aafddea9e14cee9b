// search_tools in the edge worker (web/apps/worker), in workerd: with
// TOOLROUTE_SEARCH_TOOLS on, the worker hands the module the word vectors
// it imports (wordvec.bin, a data module), so a search finds a tool
// described in other words than the query's, and loads it.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { startTestWorker } from "./worker-harness.js";
import { text, toolCall, toolNames } from "../../../packages/toolroute/test/host-fakemodel.js";

let w, model, json;

before(async () => {
  w = await startTestWorker({ name: "worker-search", token: "tok-search", bindings: { TOOLROUTE_SEARCH_TOOLS: "on" } });
  ({ model, json } = w);
});

after(async () => {
  await w?.stop();
});

test("search_tools in the worker finds a tool by meaning, with the word vectors, and loads it", async () => {
  const { id } = await (await json("POST", "/api/sessions", {})).json();
  const from = model.requests.length;
  // "my appointments on Monday" shares no word with any tool's texts:
  // without word vectors nothing is found.
  model.add(toolCall("search_tools", JSON.stringify({ query: "my appointments on Monday", limit: 1 })), text("Found it."));
  const r = await json("POST", `/api/sessions/${id}/messages`, { text: "Read me a.pdf" });
  assert.equal(r.status, 200, await r.clone().text());
  await r.text();
  const log = await (await json("GET", `/api/sessions/${id}/messages`)).json();
  const [result] = log.filter((m) => m.type === "tool_result" && m.tool_name === "search_tools").map((m) => m.content);
  const found = /^Found 1 tool for 'my appointments on Monday', loaded for the rest of this conversation:\n- (\w+) \(Scheduled Tasks\): /.exec(result ?? "");
  assert.ok(found, result);
  assert.ok(toolNames(model.requests[from + 1]).includes(found[1]), toolNames(model.requests[from + 1]).join(" "));
});
