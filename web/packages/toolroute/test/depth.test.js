// Deep JSON to the module in Node: testdata/depth/cases.json replayed
// (depth-case.js), each case at 10^3 to 10^6 levels on one instance, which
// answers each with its error and keeps its session. Chromium's and
// workerd's replays are in depth-browser.test.js and worker.test.js.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import path from "node:path";
import { Toolroute } from "../driver/toolroute.js";
import { replayDepthCases } from "./depth-case.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");
const wasm = await WebAssembly.compile(await readFile(path.join(root, "wasm/toolroute.wasm")));
const file = JSON.parse(await readFile(path.join(root, "testdata/depth/cases.json"), "utf8"));

const lines = await replayDepthCases(file, () => Toolroute.instantiate(wasm));
for (const { name, problem } of lines) {
  test(name, () => assert.equal(problem, null));
}
