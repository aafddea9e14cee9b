// The JS hosts' pdf tools (web/packages/toolroute/host/pdf.js, on pdf.js) against
// testdata/pdf/cases.json, which the Go program replays too
// (internal/pdf/cases_test.go): the same texts and errors from both.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { pdfGroup, withPdf, bytesOf, pdfDate, JS_TOOLS } from "../host/pdf.js";
import { MemoryStore } from "../jsrun/sandbox.js";
import { moduleCheck } from "./module-check.js";

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "..");
const dir = path.join(root, "testdata/pdf");
const cases = JSON.parse(fs.readFileSync(path.join(dir, "cases.json"), "utf8"));

// fixtures are testdata/pdf's files as a JS host keeps them: text, one
// character a byte.
export function fixtures() {
  const files = {};
  for (const e of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!e.isFile()) continue;
    const rel = path.relative(dir, path.join(e.parentPath ?? e.path, e.name)).split(path.sep).join("/");
    files[rel] = fs.readFileSync(path.join(dir, rel)).toString("latin1");
  }
  return files;
}

test("the shared cases", async () => {
  const store = new MemoryStore(fixtures());
  const { native } = pdfGroup({ files: () => store });
  for (const c of cases) {
    let got;
    try {
      got = { output: await native[c.tool](c.input) };
    } catch (e) {
      got = { error_type: e.type, message: e.message };
    }
    const want = c.output !== undefined ? { output: c.output } : { error_type: c.error_type, message: c.message };
    assert.deepEqual(got, want, c.name);
  }
});

test("the group in a catalogue: pdf_info and pdf_extract_text, as tools.json defines them", () => {
  const g = pdfGroup({});
  const cat = withPdf({ groups: [{ name: "lab", display_name: "Lab", description: "x" }], tools: [] }, g);
  assert.deepEqual(cat.groups.map((x) => x.name), ["lab", "pdf"]);
  assert.deepEqual(cat.groups[1], { name: "pdf", display_name: "PDF Tools", description: "Extract text, get info, and render pages from PDF files" });
  assert.deepEqual(cat.tools.map((t) => t.name), JS_TOOLS);
  const def = JSON.parse(fs.readFileSync(path.join(root, "assets/pdf_tools.json"), "utf8"));
  for (const t of cat.tools) {
    const d = def.tools.find((x) => x.name === t.name);
    assert.deepEqual(t, { name: d.name, description: d.description, group: "pdf", parameters: d.parameters, required_permissions: d.required_permissions, timeout_seconds: d.timeout_seconds });
  }
  assert.deepEqual(Object.keys(g.native).sort(), [...JS_TOOLS].sort());
});

test("a file kept as UTF-8 text is read as its UTF-8", () => {
  assert.deepEqual([...bytesOf("Aé")], [0x41, 0xe9]);
  assert.deepEqual([...bytesOf("A€")], [0x41, 0xe2, 0x82, 0xac]);
});

test("PDF dates", () => {
  for (const [input, want] of [
    ["D:20240102030405Z", "2024-01-02T03:04:05Z"],
    ["D:20240203040506+01'00'", "2024-02-03T04:05:06+01:00"],
    ["D:2024", "2024-01-01T00:00:00"],
    ["D:202401021530-05'30", "2024-01-02T15:30:00-05:30"],
    ["yesterday", "yesterday"],
  ]) assert.equal(pdfDate(input), want, input);
});

// A URL through the fetch bridge's rules: a public site (a local server
// played through a rewrite rule), an HTTP error, a private address refused.
test("a PDF from a URL", async (t) => {
  const pdf = fs.readFileSync(path.join(dir, "two-pages.pdf"));
  const srv = http.createServer((req, res) => {
    if (req.url !== "/q.pdf") {
      res.writeHead(404).end("no");
      return;
    }
    res.writeHead(200, { "content-type": "application/pdf" }).end(pdf);
  });
  await new Promise((r) => srv.listen(0, "127.0.0.1", r));
  t.after(() => srv.close());
  const base = `http://127.0.0.1:${srv.address().port}`;
  const { native } = pdfGroup({ fetch: { fetch: globalThis.fetch, rewrites: [{ from: "https://docs.example", to: base }] } });
  // A Host gives a native tool the module's check (web/packages/toolroute/jsrun/words.js).
  const ctx = { check: moduleCheck };
  const out = await native.pdf_extract_text({ url: "https://docs.example/q.pdf", pages: "2" }, ctx);
  assert.equal(out, "[Page 2 of 2]\nPage two says goodbye.\nThe end.");
  await assert.rejects(native.pdf_info({ url: "https://docs.example/nope.pdf" }, ctx), (e) => e.type === "fetch_error" && e.message === "fetching https://docs.example/nope.pdf answered HTTP 404");
  await assert.rejects(native.pdf_info({ url: `${base}/q.pdf` }, ctx), (e) => e.type === "fetch_error" && /private/.test(e.message));
  await assert.rejects(pdfGroup({}).native.pdf_info({ url: `${base}/q.pdf` }), (e) => e.type === "fetch_error" && /reads no URLs/.test(e.message));
});
