// Deep JSON to the module in headless Chromium: testdata/depth/cases.json
// replayed (depth-case.js) in a dedicated worker, where the chat page runs
// the module and V8's stack is smallest (the old module trapped there from
// about 4,900 levels), and on the page itself. Each case runs at 10^3 to
// 10^6 levels on one instance, which must answer each with its error and
// keep its session. Skipped when there is no Chromium (set CHROMIUM).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { createServer } from "node:http";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { launch, noChromium, WAIT_MS } from "./browser-harness.js";

const web = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const root = path.join(web, "..", "..", "..");

// The files the page and its worker load, by path.
const files = {
  "/driver/toolroute.js": path.join(web, "driver/toolroute.js"),
  "/driver/wasi.js": path.join(web, "driver/wasi.js"),
  "/test/depth-case.js": path.join(web, "test/depth-case.js"),
  "/toolroute.wasm": path.join(root, "wasm/toolroute.wasm"),
  "/cases.json": path.join(root, "testdata/depth/cases.json"),
};
const types = { ".js": "text/javascript", ".wasm": "application/wasm", ".json": "application/json" };

// replay is the module script both the page and its worker run.
const replay = `
import { Toolroute } from "/driver/toolroute.js";
import { replayDepthCases } from "/test/depth-case.js";
export async function replay() {
  const wasm = await WebAssembly.compileStreaming(fetch("/toolroute.wasm"));
  const file = await (await fetch("/cases.json")).json();
  return replayDepthCases(file, () => Toolroute.instantiate(wasm));
}`;

let srv, browser, page;

before(async () => {
  if (noChromium) return;
  srv = createServer(async (req, res) => {
    if (req.url === "/") return res.writeHead(200, { "content-type": "text/html" }).end("<!doctype html><title>depth</title>");
    if (req.url === "/replay.js") return res.writeHead(200, { "content-type": "text/javascript" }).end(replay);
    if (req.url === "/worker.js") {
      return res.writeHead(200, { "content-type": "text/javascript" }).end(`import { replay } from "/replay.js";\nself.onmessage = async () => self.postMessage(await replay());`);
    }
    const f = files[req.url];
    if (!f) return res.writeHead(404).end();
    res.writeHead(200, { "content-type": types[path.extname(f)] }).end(await readFile(f));
  });
  await new Promise((r) => srv.listen(0, "127.0.0.1", r));
  browser = await launch();
  page = await browser.newPage();
  await page.goto(`http://127.0.0.1:${srv.address().port}/`);
});

after(async () => {
  await browser?.close();
  srv?.close();
});

const problems = (lines) => {
  assert.ok(lines.length > 50, `${lines.length} lines`);
  return lines.filter((l) => l.problem !== null);
};

test("deep JSON to every export in a Chromium worker: each answered with its error, and the instance keeps its session", { skip: noChromium, timeout: 5 * WAIT_MS }, async () => {
  const lines = await page.evaluate(() => new Promise((resolve, reject) => {
    const w = new Worker("/worker.js", { type: "module" });
    w.onmessage = (e) => resolve(e.data);
    w.onerror = (e) => reject(new Error(e.message));
    w.postMessage(null);
  }));
  assert.deepEqual(problems(lines), []);
});

test("deep JSON to every export on a Chromium page: each answered with its error, and the instance keeps its session", { skip: noChromium, timeout: 5 * WAIT_MS }, async () => {
  const lines = await page.evaluate(async () => (await import("/replay.js")).replay());
  assert.deepEqual(problems(lines), []);
});
