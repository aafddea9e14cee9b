// The conformance cases of testdata/builtins in headless Chromium: each in
// a new dedicated worker running web/apps/chat/core.js as the chat page's worker
// does (builtins-browser-entry.js: IndexedDB, the browser's fetch in cors
// mode), with the catalogue of `toolroute export --builtin`. The cases'
// pages let every origin read them (a site that does not is
// fetch-cors-browser.test.js's). builtins.test.js runs the same core in
// Node. Skipped when there is no Chromium (set CHROMIUM).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import { createServer } from "node:http";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { preludePlugin, quickjsWasm } from "../../../packages/toolroute/scripts/pack-assets.mjs";
import { patchQuickJS } from "../../../packages/toolroute/jsrun/patch.js";
import { launch, noChromium, WAIT_MS } from "../../../packages/toolroute/test/browser-harness.js";
import { builtinCases, checkResults, pageServer } from "../../../packages/toolroute/test/builtins-case.js";

const web = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const root = path.join(web, "..", "..", "..");

// KNOWN_DIFFERENCES are the cases Chromium cannot pass yet, with the
// reason; they run as todo tests, so a fix shows as a passing todo.
const KNOWN_DIFFERENCES = {};

let srv, browser, page, bundle;

before(async () => {
  if (noChromium) return;
  const exported = JSON.parse(execFileSync("go", ["run", "./cmd/toolroute", "export", "--builtin"], { cwd: root, maxBuffer: 256 << 20 }).toString());
  bundle = { catalogue: exported.catalogue, sources: exported.sources, libraries: exported.libraries };
  const built = await build({
    entryPoints: [path.join(web, "test/builtins-browser-entry.js")], bundle: true, format: "esm", platform: "browser",
    target: ["es2022"], write: false, external: ["node:*"], plugins: [preludePlugin], logLevel: "error",
    define: { "process.env.NODE_ENV": '"production"' },
  });
  const entry = built.outputFiles[0].contents;
  const files = {
    "/entry.js": ["text/javascript", entry],
    "/quickjs.wasm": ["application/wasm", await patchQuickJS(fs.readFileSync(quickjsWasm()))],
    "/toolroute.wasm": ["application/wasm", fs.readFileSync(path.join(root, "wasm/toolroute.wasm"))],
  };
  srv = createServer((req, res) => {
    if (req.url === "/") return res.writeHead(200, { "content-type": "text/html" }).end("<!doctype html><title>builtins</title>");
    const f = files[req.url];
    if (!f) return res.writeHead(404).end();
    res.writeHead(200, { "content-type": f[0] }).end(f[1]);
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

// replay runs a case in a worker of its own, over an IndexedDB database of
// its own.
function replay(c, rewrites, db) {
  return page.evaluate(([c, bundle, rewrites, db]) => new Promise((resolve) => {
    const w = new Worker("/entry.js", { type: "module" });
    w.onmessage = (e) => { w.terminate(); resolve(e.data); };
    w.onerror = (e) => { w.terminate(); resolve({ error: e.message }); };
    w.postMessage({ c, bundle, rewrites, db });
  }), [c, bundle, rewrites, db]);
}

// The page is the browser host: the cases whose hosts name "browser".
for (const { name, c, pages, skip } of builtinCases(path.join(root, "testdata", "builtins"), "browser")) {
  test(`builtins ${name} in Chromium`, { skip: noChromium || skip, todo: KNOWN_DIFFERENCES[name], timeout: 4 * WAIT_MS }, async (t) => {
    const site = await pageServer(pages, { cors: true });
    t.after(site.close);
    const out = await replay(c, site.rewrites, "case-" + name);
    assert.equal(out.error, undefined, out.error);
    assert.equal(out.last?.type, "done", JSON.stringify(out.last) + "\n" + JSON.stringify(out.results.map((m) => [m.tool_name, m.status, m.content.slice(0, 80)])));
    checkResults(c, out.results);
  });
}
