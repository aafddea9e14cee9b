// The golden transcripts of testdata/transcripts replayed in headless
// Chromium, in a dedicated worker as the chat page runs the module: every
// transcript gives the same actions as the native engine, with its
// sessions kept by the instance too (module.test.js does the same in
// Node). Skipped when there is no Chromium (set CHROMIUM).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFile, readdir } from "node:fs/promises";
import { createServer } from "node:http";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { launch, noChromium, WAIT_MS } from "./browser-harness.js";

const web = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const root = path.join(web, "..", "..", "..");
const dir = path.join(root, "testdata/transcripts");
const names = (await readdir(dir)).filter((f) => f.endsWith(".txtar")).sort();

const files = {
  "/driver/toolroute.js": path.join(web, "driver/toolroute.js"),
  "/driver/wasi.js": path.join(web, "driver/wasi.js"),
  "/test/transcript.js": path.join(web, "test/transcript.js"),
  "/toolroute.wasm": path.join(root, "wasm/toolroute.wasm"),
};
for (const n of names) files["/transcripts/" + n] = path.join(dir, n);
const types = { ".js": "text/javascript", ".wasm": "application/wasm", ".txtar": "text/plain" };

// The worker replays each transcript it is sent, twice (plain, and with
// sessions), and answers each output's lines that differ from the golden.
const worker = `
import { Toolroute } from "/driver/toolroute.js";
import { loadTranscript, replay } from "/test/transcript.js";
const wasm = WebAssembly.compileStreaming(fetch("/toolroute.wasm"));
// canon is JSON with sorted keys: the golden's key order is not the point.
const canon = (v) => JSON.stringify(v, (k, x) => (x && typeof x === "object" && !Array.isArray(x) ? Object.fromEntries(Object.entries(x).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : x));
function driverFor(t) {
  let turn = 0;
  const bodies = (actions) => {
    for (const a of actions) if (a.type === "call_model") a.request.body = JSON.parse(new TextDecoder().decode(t.turnBody(turn)));
    return actions;
  };
  return {
    build: (catalogue) => t.load(catalogue),
    newTurn() { if (turn) t.turnFree(turn); turn = t.turnNew(); },
    event: (ev) => bodies(t.turnEvent(turn, ev)),
    chunk: (data) => bodies(t.turnChunk(turn, data)),
  };
}
self.onmessage = async (e) => {
  const problems = [];
  for (const name of e.data) {
    const t = loadTranscript(await (await fetch("/transcripts/" + name)).text());
    for (const sessions of [false, true]) {
      try {
        const got = await replay(t, driverFor(await Toolroute.instantiate(await wasm)), { sessions });
        if (got.length !== t.golden.length) problems.push(name + (sessions ? " (sessions)" : "") + ": " + got.length + " lines, want " + t.golden.length);
        for (const [i, line] of got.entries()) {
          if (canon(line) !== canon(t.golden[i])) problems.push(name + (sessions ? " (sessions)" : "") + " line " + (i + 1) + ": " + canon(line).slice(0, 300));
        }
      } catch (err) {
        problems.push(name + ": " + err.message);
      }
    }
  }
  self.postMessage(problems);
};`;

let srv, browser, page;

before(async () => {
  if (noChromium) return;
  srv = createServer(async (req, res) => {
    if (req.url === "/") return res.writeHead(200, { "content-type": "text/html" }).end("<!doctype html><title>transcripts</title>");
    if (req.url === "/worker.js") return res.writeHead(200, { "content-type": "text/javascript" }).end(worker);
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

test("every golden transcript in a Chromium worker: the native engine's actions, with and without sessions kept", { skip: noChromium, timeout: 5 * WAIT_MS }, async () => {
  assert.ok(names.length > 10 && names.includes("user_attachments.txtar"));
  const problems = await page.evaluate((list) => new Promise((resolve, reject) => {
    const w = new Worker("/worker.js", { type: "module" });
    w.onmessage = (e) => resolve(e.data);
    w.onerror = (e) => reject(new Error(e.message));
    w.postMessage(list);
  }), names);
  assert.deepEqual(problems, []);
});
