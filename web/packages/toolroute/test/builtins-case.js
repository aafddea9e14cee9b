// The conformance cases of testdata/builtins for the JS hosts' tests (the
// browser's, builtins.test.js, and the worker's, worker.test.js): the cases
// of a host, the scripted model's calls, and the check of the tool_result
// messages a turn gave.
import assert from "node:assert/strict";
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { loadCase, PAGES_ORIGIN } from "./conformance-case.js";

// builtinCases reads the cases of dir, sorted by name: [{name, c, pages,
// skip}], pages being its pages/PATH files as {"/PATH": text}, skip saying
// why a case is not for host (its hosts leave it out).
export function builtinCases(dir, host) {
  return fs.readdirSync(dir).filter((f) => f.endsWith(".txtar")).sort().map((f) => {
    const { c, files } = loadCase(fs.readFileSync(path.join(dir, f), "utf8"));
    const pages = {};
    for (const [name, text] of Object.entries(files)) {
      if (name.startsWith("pages/")) pages[name.slice("pages".length)] = text;
    }
    const hosts = c.hosts ?? ["go", "browser", "worker"];
    return { name: f.replace(/\.txtar$/, ""), c, pages, skip: hosts.includes(host) ? undefined : `its hosts are ${hosts.join(", ")}` };
  });
}

// PAGE_TYPES are the Content-Types of the pages, by extension.
const PAGE_TYPES = { ".html": "text/html; charset=utf-8", ".txt": "text/plain; charset=utf-8", ".json": "application/json", ".png": "image/png" };

// pageServer serves pages ({"/PATH": text}, which may be replaced) on
// loopback, 404 for any other path: {url, rewrites, pages, close()}, the
// rewrites sending PAGES_ORIGIN there.
// posts are the bodies POSTed to it, as {path, headers, raw}. With cors
// its answers let pages of every origin read them, as a site that allows
// them does, for the tools of a page in Chromium.
export async function pageServer(pages = {}, { cors = false } = {}) {
  const s = { pages, posts: [] };
  const server = http.createServer(async (req, res) => {
    if (cors) {
      res.setHeader("access-control-allow-origin", "*");
      res.setHeader("access-control-expose-headers", "*");
      if (req.method === "OPTIONS") return res.writeHead(204, { "access-control-allow-methods": "*", "access-control-allow-headers": "*" }).end();
    }
    const p = new URL(req.url, "http://x").pathname;
    if (req.method === "POST") {
      const chunks = [];
      for await (const chunk of req) chunks.push(chunk);
      s.posts.push({ path: p, headers: req.headers, raw: Buffer.concat(chunks) });
    }
    if (!Object.hasOwn(s.pages, p)) return res.writeHead(404, { "content-type": "text/plain" }).end("404 page not found\n");
    res.writeHead(200, { "content-type": PAGE_TYPES[path.extname(p)] ?? "application/octet-stream" }).end(s.pages[p]);
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  s.url = `http://127.0.0.1:${server.address().port}`;
  s.rewrites = [{ from: PAGES_ORIGIN, to: s.url }];
  s.close = () => new Promise((resolve) => { server.closeAllConnections(); server.close(resolve); });
  return s;
}

// checkResults compares a turn's tool_result messages, in order, with the
// case's calls' expectations, and fails with every call that differs.
export function checkResults(c, results) {
  const seen = results.map((m) => ({ tool: m.tool_name, status: m.status, error_type: m.error_type, content: m.content }));
  assert.equal(results.length, c.calls.length, "the tool_results: " + JSON.stringify(seen, null, 1));
  const failed = [];
  c.calls.forEach((call, i) => {
    const e = call.expect ?? {};
    const m = results[i];
    try {
      assert.equal(m.tool_name, call.tool, "the tool");
      assert.equal(m.status, e.status ?? "success", "the status");
      if (e.output !== undefined) assert.equal(m.content, e.output, "the output");
      if (e.output_matches !== undefined) assert.match(m.content, new RegExp(e.output_matches), "the output does not match " + e.output_matches);
      if (e.error_type !== undefined) assert.equal(m.error_type, e.error_type, "the error type");
      for (const s of e.message_contains ?? []) assert.ok(m.content.includes(s), `the content lacks ${JSON.stringify(s)}`);
    } catch (err) {
      failed.push(`call ${i} (${call.tool}): ${err.message}\n  gave ${JSON.stringify(seen[i])}`);
    }
  });
  if (failed.length > 0) assert.fail(failed.join("\n"));
}
