// search_tools in the edge worker (web/worker), in workerd: with
// TOOLROUTE_SEARCH_TOOLS on, the worker hands the module the word vectors
// it imports (wordvec.bin, a data module), so a search finds a tool
// described in other words than the query's, and loads it.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { buildWorker, workerdConfig } from "../worker/build.mjs";
import { freePort, startWorkerd } from "../worker/workerd.js";
import { startFakeModel, text, toolCall, toolNames } from "./host-fakemodel.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.dirname(path.dirname(here));
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "toolroute-worker-search-"));
const TOKEN = "tok-search";
const auth = { authorization: `Bearer ${TOKEN}` };
let model, workerd, base;

before(async () => {
  const config = path.join(tmp, "config");
  fs.mkdirSync(config, { recursive: true });
  const bundle = JSON.parse(execFileSync("go", ["run", "./host/cmd/toolroute", "export", "--config-dir", config], { cwd: root, maxBuffer: 256 << 20 }).toString());
  await buildWorker({ out: path.join(tmp, "dist"), bundle, entry: path.join(here, "worker-entry.js") });
  fs.mkdirSync(path.join(tmp, "storage"));
  model = await startFakeModel("openai");
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  fs.writeFileSync(path.join(tmp, "workerd.capnp"), workerdConfig({
    dir: "dist", port, storage: path.join(tmp, "storage"),
    bindings: { OPENAI_BASE_URL: model.baseURL, OPENAI_API_KEY: "sk-search", TOOLROUTE_MODEL: "fake-model", TOOLROUTE_TOKEN: TOKEN, TOOLROUTE_SEARCH_TOOLS: "on" },
  }));
  workerd = await startWorkerd(path.join(tmp, "workerd.capnp"), { cwd: tmp, base });
});

after(async () => {
  await workerd?.stop();
  await model?.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

const json = (method, p, body) =>
  fetch(base + p, { method, headers: body === undefined ? auth : { ...auth, "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });

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
