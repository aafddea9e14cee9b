// What the Chromium tests of the chat page share: a mocked `toolroute
// serve` (the built UI at /ui/, /api/health, /api/ui/catalogue, server
// tools, /api/model answering from a script in the OpenAI streaming
// format), Chromium through playwright-core, an accessibility scan with
// axe-core, and screenshots in web/apps/chat/e2e/output.
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { readFile, mkdir } from "node:fs/promises";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { chromium } from "playwright-core";
import { childrenCpuMs, WAIT_MS } from "./busy.js";

const here = path.dirname(new URL(import.meta.url).pathname);
export const outDir = path.join(here, "..", "..", "..", "apps", "chat", "e2e", "output");
export const chromiumPath = process.env.CHROMIUM || "/usr/bin/chromium";
export const noChromium = !existsSync(chromiumPath) && "no Chromium at " + chromiumPath;
export { WAIT_MS } from "./busy.js";
const axePath = createRequire(import.meta.url).resolve("axe-core/axe.min.js");

const TYPES = { ".html": "text/html", ".js": "text/javascript", ".css": "text/css", ".wasm": "application/wasm" };

const chunk = (delta, finish = null) => "data: " + JSON.stringify({ id: "c", object: "chat.completion.chunk", model: "fake-1", choices: [{ index: 0, delta, finish_reason: finish }] }) + "\n\n";
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// fakeServe serves dist and answers model calls from script, in order:
//   "text"                      a reply streamed in two chunks
//   ["tool", {args}]            a tool call
//   {stream: [...], gap: ms}    a reply streamed chunk by chunk, gap apart
//   {status, message}           an HTTP error with an OpenAI error body
//   a function                  one of these, made when the call comes
// The Nth call's usage is 1000·N tokens in (900 cached after the first)
// and 10·N out.
// tools maps a server tool's name to its answer ({status, output, images}),
// or to a function that resolves to it; a function given the response
// (res) may answer itself, as serve's NDJSON answer does.
// routes, when given, answers other requests: (url, body, res) => true
// when it answered.
// models, when given, is what GET /api/models answers ({model, models}).
// With cpu, cpus holds the CPU time in ms that this process's children (the
// browser's processes) had used when each model call came (busy.js).
export async function fakeServe({ dist, catalogue, script, tools = {}, cpu = false, models, routes }) {
  const requests = [];
  const times = []; // when each model call came, Date.now()
  const cpus = [];
  let n = 0;
  const srv = createServer(async (req, res) => {
    let body = "";
    for await (const d of req) body += d;
    const u = req.url;
    const json = (v, status = 200) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(v));
    };
    if (u === "/api/health") return json({ ok: true, provider: "openai (fake)", format: "openai", model: "fake-1" });
    if (u === "/api/ui/catalogue") return json(catalogue);
    if (u === "/api/sessions") return json([]); // serve's own sessions: none
    // The provider's models (serve's GET /api/models), when the test gives them.
    if (u === "/api/models" && models) return json(models);
    const tool = u.match(/^\/api\/ui\/tools\/(\w+)$/);
    // A tool given as a function answers what it resolves to (one that
    // never resolves never answers).
    if (tool && tools[tool[1]]) {
      const out = typeof tools[tool[1]] === "function" ? await tools[tool[1]]({ req, res }) : tools[tool[1]];
      return res.headersSent ? undefined : json(out);
    }
    if (routes && (await routes(u, body, res))) return;
    if (u === "/api/model") {
      requests.push(JSON.parse(body));
      times.push(Date.now());
      if (cpu) cpus.push(childrenCpuMs());
      let r = script[n++];
      if (typeof r === "function") r = r();
      if (r === undefined) return json({ error: { message: "the script has no more replies" } }, 500);
      if (r.status) return json({ error: { message: r.message, type: "invalid_request_error" } }, r.status);
      res.writeHead(200, { "content-type": "text/event-stream" });
      if (typeof r === "string") {
        res.write(chunk({ role: "assistant", content: r.slice(0, 5) }));
        res.write(chunk({ content: r.slice(5) }));
        res.write(chunk({}, "stop"));
      } else if (Array.isArray(r)) {
        res.write(chunk({ role: "assistant", tool_calls: [{ index: 0, id: "call_" + n, type: "function", function: { name: r[0], arguments: JSON.stringify(r[1]) } }] }));
        res.write(chunk({}, "tool_calls"));
      } else {
        for (const [i, piece] of r.stream.entries()) {
          if (res.destroyed) return;
          res.write(chunk(i === 0 ? { role: "assistant", content: piece } : { content: piece }));
          await sleep(r.gap ?? 50);
        }
        res.write(chunk({}, "stop"));
      }
      // The last chunk carries the call's usage, as stream_options.include_usage asks.
      res.write("data: " + JSON.stringify({ id: "c", object: "chat.completion.chunk", model: "fake-1", choices: [], usage: { prompt_tokens: 1000 * n, completion_tokens: 10 * n, total_tokens: 1010 * n, prompt_tokens_details: { cached_tokens: n > 1 ? 900 : 0 } } }) + "\n\n");
      return res.end("data: [DONE]\n\n");
    }
    const f = u === "/" ? "/ui/index.html" : u.split("?")[0];
    if (!f.startsWith("/ui/")) {
      res.writeHead(404);
      return res.end();
    }
    try {
      const data = await readFile(path.join(dist, f === "/ui/" ? "index.html" : f.slice(4)));
      res.writeHead(200, { "content-type": TYPES[path.extname(f)] ?? "text/html" });
      res.end(data);
    } catch {
      res.writeHead(404);
      res.end();
    }
  });
  await new Promise((r) => srv.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${srv.address().port}/ui/`, requests, times, cpus, served: () => n, close: () => new Promise((r) => srv.close(r)) };
}

// launch starts Chromium, waiting up to WAIT_MS for it (Playwright's 30 s
// default is a busy machine's); the pages it opens (browser.newPage) wait
// up to WAIT_MS by default, for an action, a locator and a navigation
// alike.
export async function launch() {
  await mkdir(outDir, { recursive: true });
  const browser = await chromium.launch({ executablePath: chromiumPath, headless: true, args: ["--no-sandbox"], timeout: WAIT_MS });
  const newPage = browser.newPage.bind(browser);
  browser.newPage = async (...args) => {
    const page = await newPage(...args);
    page.setDefaultTimeout(WAIT_MS);
    return page;
  };
  return browser;
}

// watch keeps what a page logs, for a failure's message.
export function watch(page) {
  const lines = [];
  page.on("console", (m) => lines.push(m.type() + ": " + m.text()));
  page.on("pageerror", (e) => lines.push("pageerror: " + e.message));
  return async (e) => new Error(e.message + "\npage:\n" + (await page.locator("body").innerText().catch(() => "")) + "\nconsole:\n" + lines.join("\n"));
}

// axe runs axe-core on the page and returns its serious and critical
// violations, one line each.
export async function axe(page) {
  await page.addScriptTag({ path: axePath });
  const result = await page.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ["violations"] });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((x) => x.target.join(" ")).slice(0, 5) }));
  });
  return result.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => `${v.impact} ${v.id}: ${v.help} (${v.nodes.join(", ")})`);
}

// onPage runs steps(page, scan) on a new page (newPage's options) of a new
// Chromium: scan(what) runs axe-core and keeps its serious and critical
// violations, which must be none once the steps are done; a failure comes
// with what the page showed and logged (watch); the browser is closed
// whatever happens.
export async function onPage(options, steps) {
  const browser = await launch();
  try {
    const page = await browser.newPage(options);
    const failure = watch(page);
    const violations = [];
    const scan = async (what) => {
      for (const v of await axe(page)) violations.push(`${what}: ${v}`);
    };
    try {
      await steps(page, scan);
      assert.deepEqual(violations, [], "axe-core found serious or critical violations");
    } catch (e) {
      throw await failure(e);
    }
  } finally {
    await browser.close();
  }
}

export function shot(page, name) {
  return page.screenshot({ path: path.join(outDir, name + ".png") });
}
