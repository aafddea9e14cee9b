// Deep JSON to the module in workerd, the Workers runtime: the worker's
// own toolroute module replays testdata/depth/cases.json (depth-case.js)
// inside workerd, each case at 10^3 to 10^6 levels on one instance, which
// must answer each with its error and keep its session.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { startTestWorker } from "./worker-harness.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");
let worker;

before(async () => {
  worker = await startTestWorker({ name: "depth", token: "depth-token" });
});
after(() => worker?.stop());

test("deep JSON to every export in workerd: each answered with its error, and the instance keeps its session", async () => {
  const r = await fetch(worker.base + "/test/depth", { method: "POST", body: fs.readFileSync(path.join(root, "testdata/depth/cases.json")) });
  assert.equal(r.status, 200, await r.clone().text());
  const lines = await r.json();
  assert.ok(lines.length > 50, `${lines.length} lines`);
  assert.deepEqual(lines.filter((l) => l.problem !== null), []);
});
