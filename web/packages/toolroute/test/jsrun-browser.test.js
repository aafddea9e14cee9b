// The conformance cases of testdata/js in headless Chromium: each in a new
// dedicated worker running web/packages/toolroute/jsrun as the chat page's worker does
// (jsrun-browser-entry.js), the case's server letting every origin read it
// (a site that does not is fetch-cors-browser.test.js's). Skipped when
// there is no Chromium (set CHROMIUM).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import { createServer } from "node:http";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { preludePlugin } from "../scripts/pack-assets.mjs";
import { patchQuickJS } from "../jsrun/patch.js";
import { quickjsWasm } from "../scripts/pack-assets.mjs";
import { launch, noChromium, WAIT_MS } from "./browser-harness.js";
import { loadCase, skipFor, FAILSAFE_MS } from "./conformance-case.js";
import { fakeServer, checkReplay } from "./conformance.js";

const web = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const casesDir = path.join(web, "..", "..", "..", "testdata/js");

// KNOWN_DIFFERENCES are the cases Chromium cannot pass yet, with the
// reason; they run as todo tests, so a fix shows as a passing todo.
const KNOWN_DIFFERENCES = {
  moderate_recursion: "in a Chromium dedicated worker 2,000 levels overflow V8's stack before QuickJS's check at web/packages/toolroute/jsrun's 360 KB (the call ends 'crashed: stack overflow'), as in workerd (see WORKER_STACK_SIZE)",
};

let srv, browser, page;

before(async () => {
  if (noChromium) return;
  const bundle = await build({
    entryPoints: [path.join(web, "test/jsrun-browser-entry.js")], bundle: true, format: "esm", platform: "browser",
    target: ["es2022"], write: false, external: ["node:*"], plugins: [preludePlugin], logLevel: "warning",
  });
  const entry = bundle.outputFiles[0].contents;
  const quickjs = await patchQuickJS(fs.readFileSync(quickjsWasm()));
  const toolroute = fs.readFileSync(new URL("../../../../wasm/toolroute.wasm", import.meta.url));
  srv = createServer((req, res) => {
    if (req.url === "/") return res.writeHead(200, { "content-type": "text/html" }).end("<!doctype html><title>jsrun</title>");
    if (req.url === "/entry.js") return res.writeHead(200, { "content-type": "text/javascript" }).end(entry);
    if (req.url === "/quickjs.wasm") return res.writeHead(200, { "content-type": "application/wasm" }).end(quickjs);
    if (req.url === "/toolroute.wasm") return res.writeHead(200, { "content-type": "application/wasm" }).end(toolroute);
    res.writeHead(404).end();
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

// replay runs a case in a worker of its own, as each call of the page's
// runner gets a fresh QuickJS runtime; the worker ends with the case.
function replay(c, source, server) {
  return page.evaluate(([c, source, server]) => new Promise((resolve) => {
    const w = new Worker("/entry.js", { type: "module" });
    w.onmessage = (e) => { w.terminate(); resolve(e.data); };
    w.onerror = (e) => { w.terminate(); resolve({ error: e.message }); };
    w.postMessage({ c, source, server });
  }), [c, source, server]);
}

const files = fs.readdirSync(casesDir).filter((f) => f.endsWith(".txtar")).sort();

for (const file of files) {
  const name = file.replace(/\.txtar$/, "");
  const { c, source } = loadCase(fs.readFileSync(path.join(casesDir, file), "utf8"));
  test(`conformance ${name} in Chromium`, { skip: noChromium || skipFor(c, "chromium"), todo: KNOWN_DIFFERENCES[name], timeout: FAILSAFE_MS + WAIT_MS }, async () => {
    const fake = await fakeServer(c.server, { cors: true });
    try {
      const out = await replay(c, source, fake.url);
      assert.equal(out.error, undefined, out.error);
      checkReplay(c, out, fake.seen);
    } finally {
      await fake.close();
    }
  });
}
