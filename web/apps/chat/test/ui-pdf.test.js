// The pdf group in the browser UI's core (web/apps/chat/core.js) in Node: it runs
// in the page over this browser's files, after the server's catalogue,
// with pdf_info and pdf_extract_text only: pdf_render_page needs the
// page's OffscreenCanvas (web/apps/chat/test/ui-pdf-browser.test.js), which Node
// has not.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { MemoryUIStore } from "../src/idbstore.js";
import { web, fakeServer, newCore, ask } from "./ui-harness.js";

const toolNames = (req) => (req.body.tools ?? []).map((t) => t.function?.name ?? t.name);

test("load the PDF tools and read a PDF kept in this browser", async () => {
  const store = new MemoryUIStore();
  const pdf = await readFile(path.join(web, "..", "..", "..", "testdata", "pdf", "two-pages.pdf"));
  await store.putFile("docs/q.pdf", pdf.toString("latin1"));
  const server = fakeServer([
    { call: ["load_tool_group", { group_name: "pdf" }] },
    { call: ["pdf_info", { path: "docs/q.pdf" }] },
    { call: ["pdf_extract_text", { path: "docs/q.pdf", pages: "2" }] },
    { call: ["pdf_render_page", { path: "docs/q.pdf" }] },
    { text: "It says goodbye." },
  ], { catalogue: { catalogue: {}, sources: {}, libraries: {} } });
  const core = newCore(store, server.fetch);
  const turn = await ask(core, { type: "send", session: "s1", text: "Load the PDF tools" });
  assert.equal(turn.last.type, "done", JSON.stringify(turn.last));
  const results = turn.events.filter((e) => e.type === "message" && e.message.type === "tool_result").map((e) => e.message);
  assert.match(results[0].content, /^Loaded 2 tools from group 'PDF Tools':\n- pdf_info: .*\n- pdf_extract_text: /);
  assert.match(results[1].content, /^File: docs\/q\.pdf\nPages: 2\nPDF version: 1\.7\nSize: 1325 bytes\nTitle: Quarterly notes\n/);
  assert.equal(results[2].content, "[Page 2 of 2]\nPage two says goodbye.\nThe end.");
  // pdf_render_page is in no catalogue here: the model's call is unknown.
  assert.equal(results[3].status, "error");
  assert.match(server.requests[0].body.system ?? JSON.stringify(server.requests[0].body.messages), /- pdf: Extract text, get info, and render pages from PDF files/);
  assert.deepEqual(toolNames(server.requests[1]).filter((n) => n.startsWith("pdf_")), ["pdf_info", "pdf_extract_text"]);
});
