// The fetch bridge in headless Chromium, where CORS decides what a tool may
// read and where a redirect's target is hidden: web/packages/toolroute/jsrun/fetch.js and
// transfer.js as the page's runner uses them ({cors: true}), against a site
// on another origin. The site's name (pages.test) is mapped to loopback by
// Chromium's resolver, so the private-address check, which judges names as
// written, stays on. Skipped when there is no Chromium (set CHROMIUM to its
// path).
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createServer } from "node:http";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import { WAIT_MS } from "./browser-harness.js";

const web = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const chromiumPath = process.env.CHROMIUM || "/usr/bin/chromium";
const noChromium = !existsSync(chromiumPath) && "no Chromium at " + chromiumPath;

// servePage serves the page: an empty document, web/jsrun's and
// web/driver's files, and the module, which words the bridges' refusals
// (web/packages/toolroute/jsrun/words.js); the page's moduleCheck loads it.
async function servePage(req, res) {
  const m = req.url.match(/^\/(jsrun|driver)\/(\w+\.js)$/);
  if (m) return res.writeHead(200, { "content-type": "text/javascript" }).end(await readFile(path.join(web, m[1], m[2]), "utf8"));
  if (req.url === "/toolroute.wasm") return res.writeHead(200, { "content-type": "application/wasm" }).end(await readFile(path.join(web, "..", "..", "..", "wasm", "toolroute.wasm")));
  res.writeHead(200, { "content-type": "text/html" }).end(`<!doctype html><title>t</title><script type="module">
    window.moduleCheck = async () => {
      const { Toolroute } = await import("/driver/toolroute.js");
      const inst = await Toolroute.instantiate(await WebAssembly.compileStreaming(fetch("/toolroute.wasm")));
      return (op, args) => inst.check({ op, args });
    };
  </script>`);
}

// listen starts a server on loopback and gives its port.
async function listen(handler) {
  const srv = createServer(handler);
  await new Promise((r) => srv.listen(0, "127.0.0.1", r));
  return { srv, port: srv.address().port };
}

test("in the browser, a request the browser fails says what may have stopped it (CORS, or nothing there), not only 'Failed to fetch'", { skip: noChromium, timeout: 5 * WAIT_MS }, async () => {
  // The page: an empty document and fetch.js, as the UI's worker loads it,
  // with the module that words its refusals.
  const page = await listen(servePage);
  // The site: one path that allows every origin, one that does not.
  const seen = [];
  const site = await listen((req, res) => {
    seen.push(`${req.method} ${req.url} ${req.headers["user-agent"]?.includes("toolroute") ? "toolroute" : "browser"}`);
    if (req.url === "/open") return res.writeHead(200, { "content-type": "text/plain", "access-control-allow-origin": "*" }).end("open to all");
    res.writeHead(200, { "content-type": "text/plain" }).end("for this site only");
  });
  const browser = await chromium.launch({
    executablePath: chromiumPath, headless: true, timeout: WAIT_MS,
    args: ["--no-sandbox", "--host-resolver-rules=MAP pages.test 127.0.0.1, MAP nothing.test ~NOTFOUND"],
  });
  try {
    const tab = await browser.newPage();
    tab.setDefaultTimeout(WAIT_MS);
    await tab.goto(`http://127.0.0.1:${page.port}/`);
    const results = await tab.evaluate(async ([base, waitMs]) => {
      const { hostFetch } = await import("/jsrun/fetch.js");
      const check = await moduleCheck();
      const run = async (url, method = "GET") => {
        try {
          const options = JSON.stringify({ method, headers: { "User-Agent": "toolroute webfetch" } });
          return JSON.parse(await hostFetch(url, options, { fetch: (...a) => fetch(...a), cors: true, timeoutMs: waitMs, check })).body;
        } catch (e) {
          return "error: " + e.message;
        }
      };
      return [await run(base + "/open"), await run(base + "/closed"), await run(base + "/closed", "DELETE"), await run("http://nothing.test/")];
    }, [`http://pages.test:${site.port}`, WAIT_MS]); // the page has no WAIT_MS of its own
    assert.equal(results[0], "open to all");
    const failed = (url) => `error: fetch: ${url} failed: the browser could not read it (Failed to fetch): the site may not let pages of other sites read it (CORS), ` +
      "or it may be down, the name wrong or the network blocked. In the browser only sites that allow other sites' pages can be read; " +
      "the Go program (toolroute serve) and the edge worker can read any public site";
    assert.equal(results[1], failed(`http://pages.test:${site.port}/closed`));
    assert.equal(results[2], failed(`http://pages.test:${site.port}/closed`));
    assert.equal(results[3], failed("http://nothing.test/"));
    // No User-Agent of ours, though the tool set one: it would make the
    // browser ask first (OPTIONS). Each request is sent once: a failed one
    // is not asked again in another mode.
    assert.deepEqual(seen.filter((s) => !s.startsWith("OPTIONS")), ["GET /open browser", "GET /closed browser"]);
  } finally {
    await browser.close();
    page.srv.close();
    site.srv.close();
  }
});

// A public site that redirects to a loopback service: the browser hides a
// redirect's target from the page (redirect: "manual" gives an
// "opaqueredirect"), so no bridge may follow it, neither to read (the
// redirect allows other sites' pages) nor blind (it does not, and a
// request CORS stopped must not be asked again in a mode that follows).
// Every bridge that sends a tool's request is tried: fetch (and webfetch
// over it), the pdf tools' fetchBytes, downloadToFile and uploadMultipart.
test("in the browser, a redirect is not followed: a site redirecting to a loopback service reaches nothing there, through every bridge", { skip: noChromium, timeout: 5 * WAIT_MS }, async () => {
  const page = await listen(servePage);
  // The loopback service: it lets every origin read it.
  const reached = [];
  const loopback = await listen((req, res) => {
    reached.push(`${req.method} ${req.url}`);
    res.writeHead(200, { "content-type": "text/plain", "access-control-allow-origin": "*" }).end("the loopback secret");
  });
  // The site: /open/... redirects allowing every origin to read the
  // redirect, /closed/... without; a POST is redirected with 307, which
  // keeps its method and body.
  const site = await listen((req, res) => {
    const cors = req.url.startsWith("/open/") ? { "access-control-allow-origin": "*" } : {};
    if (req.method === "OPTIONS") return res.writeHead(204, { ...cors, "access-control-allow-methods": "POST", "access-control-allow-headers": "content-type" }).end();
    res.writeHead(req.method === "POST" ? 307 : 302, { ...cors, location: `http://127.0.0.1:${loopback.port}/secret${req.url}` }).end();
  });
  const browser = await chromium.launch({
    executablePath: chromiumPath, headless: true, timeout: WAIT_MS,
    args: ["--no-sandbox", "--host-resolver-rules=MAP pages.test 127.0.0.1"],
  });
  try {
    const tab = await browser.newPage();
    tab.setDefaultTimeout(WAIT_MS);
    await tab.goto(`http://127.0.0.1:${page.port}/`);
    const results = await tab.evaluate(async ([base, waitMs]) => {
      const { hostFetch, fetchBytes } = await import("/jsrun/fetch.js");
      const { download, upload } = await import("/jsrun/transfer.js");
      const { Sandbox, MemoryStore } = await import("/jsrun/sandbox.js");
      const o = { fetch: (...a) => fetch(...a), cors: true, timeoutMs: waitMs, check: await moduleCheck() };
      const store = new MemoryStore({ "note.txt": "a file to upload" });
      const sandbox = new Sandbox(store);
      const out = {};
      for (const kind of ["open", "closed"]) {
        const url = `${base}/${kind}/page`;
        try {
          out[kind + " fetch"] = JSON.parse(await hostFetch(url, "{}", o)).body;
        } catch (e) {
          out[kind + " fetch"] = "error: " + e.message;
        }
        try {
          const r = await fetchBytes(url, { method: "GET" }, { ...o, maxBody: 1000 });
          out[kind + " fetchBytes"] = new TextDecoder().decode(r.data);
        } catch (e) {
          out[kind + " fetchBytes"] = "error: " + e.message;
        }
        const d = await download({ url, path: kind + ".txt" }, o, sandbox);
        out[kind + " downloadToFile"] = d.success ? "saved " + store.files.get(kind + ".txt") : "error: " + d.error;
        const u = await upload({ url: `${base}/${kind}/upload`, contentType: "multipart/form-data", formData: true, parts: [{ name: "f", filename: "note.txt", filePath: "note.txt", contentType: "text/plain" }] }, o, sandbox);
        out[kind + " uploadMultipart"] = u.error === null ? "answered " + u.body : "error: " + u.error;
      }
      return out;
    }, [`http://pages.test:${site.port}`, WAIT_MS]); // the page has no WAIT_MS of its own
    const open = (bridge, p) => `error: ${bridge}: http://pages.test:${site.port}/open/${p} failed: it redirects, and a browser hides from the page where to, so the page does not follow it (it could lead to a private address): fetch the final address directly, or use the Go program (toolroute serve) or the edge worker, which check every redirect`;
    for (const [bridge, p] of [["fetch", "page"], ["fetchBytes", "page"], ["downloadToFile", "page"], ["uploadMultipart", "upload"]]) {
      assert.equal(results["open " + bridge], open(bridge === "fetchBytes" ? "fetch" : bridge, p), bridge);
      assert.match(results["closed " + bridge], /^error: \w+: http:\/\/pages\.test:\d+\/closed\/\w+ failed: the browser could not read it/, bridge);
    }
    assert.deepEqual(reached, [], "the loopback service was reached");
  } finally {
    await browser.close();
    page.srv.close();
    site.srv.close();
    loopback.srv.close();
  }
});
