// The fetch bridge in headless Chromium, where CORS decides what a tool may
// read: web/jsrun/fetch.js as the page's runner uses it ({cors: true}),
// against a site on another origin. The site's name (pages.test) is mapped
// to loopback by Chromium's resolver, so the private-address check, which
// judges names as written, stays on. Skipped when there is no Chromium
// (set CHROMIUM to its path).
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createServer } from "node:http";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const web = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const chromiumPath = process.env.CHROMIUM || "/usr/bin/chromium";

// listen starts a server on loopback and gives its port.
async function listen(handler) {
  const srv = createServer(handler);
  await new Promise((r) => srv.listen(0, "127.0.0.1", r));
  return { srv, port: srv.address().port };
}

test("in the browser, a site that does not allow other sites' pages says so (CORS), not 'Failed to fetch'", { skip: !existsSync(chromiumPath) && "no Chromium at " + chromiumPath, timeout: 60000 }, async () => {
  const fetchJS = await readFile(path.join(web, "jsrun", "fetch.js"), "utf8");
  // The page: an empty document and fetch.js, as the UI's worker loads it.
  const page = await listen((req, res) => {
    if (req.url === "/fetch.js") return res.writeHead(200, { "content-type": "text/javascript" }).end(fetchJS);
    res.writeHead(200, { "content-type": "text/html" }).end("<!doctype html><title>t</title>");
  });
  // The site: one path that allows every origin, one that does not.
  const seen = [];
  const site = await listen((req, res) => {
    seen.push(`${req.method} ${req.url} ${req.headers["user-agent"]?.includes("toolroute") ? "toolroute" : "browser"}`);
    if (req.url === "/open") return res.writeHead(200, { "content-type": "text/plain", "access-control-allow-origin": "*" }).end("open to all");
    res.writeHead(200, { "content-type": "text/plain" }).end("for this site only");
  });
  const browser = await chromium.launch({
    executablePath: chromiumPath, headless: true,
    args: ["--no-sandbox", "--host-resolver-rules=MAP pages.test 127.0.0.1, MAP nothing.test ~NOTFOUND"],
  });
  try {
    const tab = await browser.newPage();
    await tab.goto(`http://127.0.0.1:${page.port}/`);
    const results = await tab.evaluate(async (base) => {
      const { hostFetch } = await import("/fetch.js");
      const run = async (url, method = "GET") => {
        try {
          const options = JSON.stringify({ method, headers: { "User-Agent": "toolroute webfetch" } });
          return JSON.parse(await hostFetch(url, options, { fetch: (...a) => fetch(...a), cors: true, timeoutMs: 10000 })).body;
        } catch (e) {
          return "error: " + e.message;
        }
      };
      return [await run(base + "/open"), await run(base + "/closed"), await run(base + "/closed", "DELETE"), await run("http://nothing.test/")];
    }, `http://pages.test:${site.port}`);
    assert.equal(results[0], "open to all");
    assert.equal(results[1], `error: fetch: http://pages.test:${site.port}/closed failed: the site does not let pages of other sites read it (CORS), so the browser answered but kept the response from the tool. ` +
      "In the browser only sites that allow it can be read; the Go program (toolroute serve) and the edge worker can read any public site");
    assert.match(results[2], /^error: fetch: http:\/\/pages\.test:\d+\/closed failed: the browser could not reach it \(Failed to fetch\): the site may be down, the name wrong or the network blocked, or the site does not let pages of other sites send it this request \(CORS\)$/);
    assert.equal(results[3], "error: fetch: http://nothing.test/ failed: the browser could not reach it (Failed to fetch): the site may be down, the name wrong or the network blocked");
    // No User-Agent of ours, though the tool set one: it would make the
    // browser ask first (OPTIONS).
    assert.deepEqual(seen.filter((s) => !s.startsWith("OPTIONS")), ["GET /open browser", "GET /closed browser", "GET /closed browser"]);
  } finally {
    await browser.close();
    page.srv.close();
    site.srv.close();
  }
});
