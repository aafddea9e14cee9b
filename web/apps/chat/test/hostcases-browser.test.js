// The host cases of testdata/approvals and testdata/redaction in headless
// Chromium: each case in a new dedicated worker running web/apps/chat/core.js as
// the chat page's worker does (hostcases-browser-entry.js), over an
// IndexedDB database of its own, set up as a user would: the case's tools
// the user's own JS tools, its secrets variables, its key the openai
// provider's. The page has no approval policies: the cases that need them
// leave chromium out of their hosts. hostcases.test.js is web/packages/toolroute/host's replay
// in Node, worker-hostcases.test.js workerd's, host/hostcases_test.go the
// Go host's. Skipped when there is no Chromium (set CHROMIUM).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import { readFile } from "node:fs/promises";
import { createServer } from "node:http";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { preludePlugin, quickjsWasm } from "../../../packages/toolroute/scripts/pack-assets.mjs";
import { patchQuickJS } from "../../../packages/toolroute/jsrun/patch.js";
import { launch, noChromium, WAIT_MS } from "../../../packages/toolroute/test/browser-harness.js";
import { pageServer } from "../../../packages/toolroute/test/builtins-case.js";
import { skipFor, checkTurn, toolFiles, KITS } from "../../../packages/toolroute/test/hostcases.js";
import { ENV_PREFIX, TOOLFILE_PREFIX } from "../src/core.js";

const web = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const root = path.join(web, "..", "..", "..");

let srv, browser, page;

before(async () => {
  if (noChromium) return;
  const built = await build({
    entryPoints: [path.join(web, "test/hostcases-browser-entry.js")], bundle: true, format: "esm", platform: "browser",
    target: ["es2022"], write: false, external: ["node:*"], plugins: [preludePlugin], logLevel: "error",
    define: { "process.env.NODE_ENV": '"production"' },
  });
  const files = {
    "/entry.js": ["text/javascript", built.outputFiles[0].contents],
    "/quickjs.wasm": ["application/wasm", await patchQuickJS(fs.readFileSync(quickjsWasm()))],
    "/toolroute.wasm": ["application/wasm", fs.readFileSync(path.join(root, "wasm/toolroute.wasm"))],
  };
  srv = createServer((req, res) => {
    if (req.url === "/") return res.writeHead(200, { "content-type": "text/html" }).end("<!doctype html><title>hostcases</title>");
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

// settingsOf are the page's settings for case c: its secrets as the
// variables the user sets, its tools as the user's tool files.
function settingsOf(c) {
  const s = {};
  for (const v of c.secrets ?? []) s[ENV_PREFIX + v.name] = v.value;
  const files = toolFiles(c);
  for (const f of Object.keys(files).filter((f) => f.endsWith(".json"))) {
    const name = f.slice(0, -".json".length);
    s[TOOLFILE_PREFIX + name] = JSON.stringify({ manifest: files[f], code: files[name + ".js"] });
  }
  return s;
}

async function replay(c, db) {
  if (c.policies?.length) assert.fail("the page has no approval policies: the case must leave chromium out of its hosts (hosts, hosts_why)");
  const site = await pageServer({}, { cors: true }); // records the tools' POSTs, and each turn's end
  try {
    const out = await page.evaluate(([c, settings, rewrites, db]) => new Promise((resolve) => {
      const w = new Worker("/entry.js", { type: "module" });
      w.onmessage = (e) => { w.terminate(); resolve(e.data); };
      w.onerror = (e) => { w.terminate(); resolve({ error: e.message }); };
      w.postMessage({ c, settings, rewrites, db });
    }), [c, settingsOf(c), site.rewrites, db]);
    assert.equal(out.error, undefined, out.error);
    // The tools that ran in each turn: the site's POSTs up to the turn's end.
    const paths = site.posts.map((p) => p.path);
    for (const [i, t] of out.turns.entries()) {
      const end = paths.indexOf("/turn-end");
      assert.ok(end >= 0, `turn ${i} did not say it ended`);
      const ran = paths.splice(0, end + 1).slice(0, -1).map((p) => p.slice("/ran/".length));
      checkTurn(c, i, { ...t, ran });
    }
  } finally {
    await site.close();
  }
}

for (const kit of KITS) {
  const file = JSON.parse(await readFile(path.join(root, "testdata", kit, "cases.json"), "utf8"));
  for (const [n, c] of file.cases.entries()) {
    test(`${kit}: ${c.name} in Chromium`, { skip: noChromium || skipFor(c, "chromium"), timeout: 4 * WAIT_MS }, () => replay(c, `${kit}-${n}`));
  }
}
