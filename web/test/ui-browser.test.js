// The chat page in headless Chromium against a mocked `toolroute serve`
// (the built web/ui/dist, /api/health, /api/ui/catalogue, /api/model with a
// scripted model): a group load, a JS tool in QuickJS, a reload that brings
// the conversation and the loaded groups back, /clear. Skipped when there is
// no Chromium (set CHROMIUM to its path). The full page against the real
// server is web/e2e/.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { buildUI } from "../build.mjs";
import { createServer } from "node:http";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { tmpdir } from "node:os";
import { rm, mkdir } from "node:fs/promises";
import { chromium } from "playwright-core";
import { deflateSync } from "node:zlib";
const dist = path.join(tmpdir(), "toolroute-ui-browser-" + process.pid);
const outDir = path.join(path.dirname(new URL(import.meta.url).pathname), "..", "e2e", "output");
const chromiumPath = process.env.CHROMIUM || "/usr/bin/chromium";
// The real config group (manifests/config.*) and a user's notes group.
const manifests = path.join(path.dirname(new URL(import.meta.url).pathname), "..", "..", "manifests");
const CAT = { catalogue: {
  manifests: [{ file: "builtin/config.json", source: "builtin/config.js", text: await readFile(path.join(manifests, "config.json"), "utf8") },
    { file: "notes.json", source: "user/notes.js", text: JSON.stringify([{ _meta: true, display_name: "Notes", description: "Keep notes" }, { name: "write_note", description: "Write", function: "writeNote", requiredPermissions: ["write"], parameters: { properties: { text: { type: "string" } } } }]) }] },
  sources: { "builtin/config.js": await readFile(path.join(manifests, "config.js"), "utf8"),
    "user/notes.js": "function writeNote(p){ fs.appendFile('n.txt', p.text+'\\n'); return 'notes: ' + fs.readFile('n.txt').trim(); }" }, libraries: {} };
// A server tool whose result carries a picture (an MCP server's, run by
// serve): a 64x32 blue PNG made here.
CAT.catalogue.groups = [{ name: "charts", display_name: "Charts", description: "Draw charts" }];
CAT.catalogue.tools = [{ name: "chart", description: "Draw a chart", group: "charts", parameters: { type: "object", properties: {} }, required_permissions: ["read"], timeout_seconds: 30 }];
CAT.server_tools = ["chart"];
const PNG = png(64, 32, [30, 90, 200]);
const CONFIG = ["list_settings", "set_setting", "list_env_vars", "set_env_var", "list_tool_states", "set_tool_enabled"];
const script = [["load_tool_group", { group_name: "config" }], ["list_settings", {}], "The model is fake-1.", ["load_tool_group", { group_name: "notes" }], ["write_note", { text: "milk" }], "Saved.", ["list_env_vars", {}], "No variables are set.", ["load_tool_group", { group_name: "charts" }], ["chart", {}], "A blue chart."];
let n = 0; const reqs = [];
const chunk = (delta, f = null) => "data: " + JSON.stringify({ id: "c", object: "chat.completion.chunk", model: "fake-1", choices: [{ index: 0, delta, finish_reason: f }] }) + "\n\n";
const srv = createServer(async (req, res) => {
  let body = ""; for await (const d of req) body += d;
  const u = req.url;
  if (u === "/api/health") { res.setHeader("content-type", "application/json"); return res.end(JSON.stringify({ ok: true, provider: "openai (fake)", format: "openai", model: "fake-1" })); }
  if (u === "/api/ui/tools/chart") { res.setHeader("content-type", "application/json"); return res.end(JSON.stringify({ status: "success", output: `The chart:\n\n[image image/png, ${PNG.length} bytes]`, images: [{ mime_type: "image/png", data: PNG.toString("base64") }] })); }
  if (u === "/api/ui/catalogue") { res.setHeader("content-type", "application/json"); return res.end(JSON.stringify(CAT)); }
  if (u === "/api/model") {
    reqs.push(JSON.parse(body)); const r = script[n++];
    res.writeHead(200, { "content-type": "text/event-stream" });
    if (typeof r === "string") { res.write(chunk({ role: "assistant", content: r.slice(0, 5) })); res.write(chunk({ content: r.slice(5) })); res.write(chunk({}, "stop")); }
    else { res.write(chunk({ role: "assistant", tool_calls: [{ index: 0, id: "call_" + n, type: "function", function: { name: r[0], arguments: JSON.stringify(r[1]) } }] })); res.write(chunk({}, "tool_calls")); }
    return res.end("data: [DONE]\n\n");
  }
  let f = u === "/" ? "/ui/index.html" : u;
  if (!f.startsWith("/ui/")) { res.writeHead(404); return res.end(); }
  try { const data = await readFile(path.join(dist, f.slice(4)));
    const ext = path.extname(f); res.setHeader("content-type", { ".html": "text/html", ".js": "text/javascript", ".css": "text/css", ".wasm": "application/wasm" }[ext] ?? "application/octet-stream"); res.end(data);
  } catch { res.writeHead(404); res.end(); }
});
test("the page chats, runs tools, and comes back after a reload", { skip: !existsSync(chromiumPath) && "no Chromium at " + chromiumPath, timeout: 120000 }, async () => {
await buildUI({ out: dist });
await mkdir(outDir, { recursive: true });
await new Promise((r) => srv.listen(0, "127.0.0.1", r));
const url = `http://127.0.0.1:${srv.address().port}/ui/index.html`;
const browser = await chromium.launch({ executablePath: chromiumPath, headless: true, args: ["--no-sandbox"] });
const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
const logs = []; page.on("console", (m) => logs.push(m.type() + ": " + m.text())); page.on("pageerror", (e) => logs.push("pageerror: " + e.message));
try {
  await page.goto(url);
  const input = page.getByRole("textbox", { name: "Message" });
  const log = page.locator("#log");
  const see = (t) => log.getByText(t).first().waitFor({ timeout: 15000 });
  await input.fill("Which model is set?"); await input.press("Enter");
  await see("The model is fake-1.");
  const first = await log.innerText();
  assert.match(first, /^you: Which model is set\?\n→ load_tool_group/);
  assert.match(first, new RegExp(`\\[loaded group config: ${CONFIG.join(", ")}\\]`));
  assert.match(first, /→ list_settings \{\}/);
  assert.match(first, /← - provider = server \(default\): where model calls go/); // the first line; the rest when opened
  await page.waitForTimeout(300);
  await page.locator("#meter").getByText("o200k_base").waitFor({ timeout: 15000 });
  await input.fill("note milk"); await input.press("Enter");
  // write_note changes the user's data: the page asks first.
  const allow = page.getByRole("button", { name: "Allow once" });
  await allow.waitFor({ timeout: 15000 });
  assert.match(await page.locator(".approval").innerText(), /Allow write_note to run\? It changes your data\.\n+\{\n  "text": "milk"\n\}/);
  await page.screenshot({ path: path.join(outDir, "ui-approval.png") });
  await allow.click();
  await see("Saved.");
  assert.match(await log.innerText(), /Allowed once\.\n+\[write_note: allowed once\]\n← notes: milk/);
  await page.reload();
  await see("Saved.");
  const back = await log.innerText();
  assert.match(back, /← notes: milk/);
  assert.match(back, /\[loaded group notes: write_note\]/);
  await input.fill("Any variables?"); await input.press("Enter");
  await see("No variables are set.");
  assert.deepEqual(reqs[6].body.tools.map((t) => t.function.name), ["load_tool_group", ...CONFIG, "write_note"]);
  await input.fill("/clear"); await input.press("Enter");
  await page.waitForTimeout(500);
  // A new chat: nothing of the old one, only the prompts to try.
  assert.equal(await log.locator(":scope > :not(#welcome)").count(), 0, await log.innerText());
  assert.ok((await page.locator("#welcome .prompts button").count()) >= 3, "a new chat offers prompts");
  assert.equal(await page.locator("#active-tools").innerText(), "load_tool_group");
  // A tool's picture is shown under its result, decoded by the browser.
  await input.fill("Draw the chart"); await input.press("Enter");
  await see("A blue chart.");
  const img = page.locator(".pictures img");
  assert.equal(await img.count(), 1);
  assert.equal(await img.getAttribute("alt"), "image 1 from chart");
  assert.deepEqual(await img.evaluate((el) => [el.complete, el.naturalWidth, el.naturalHeight]), [true, 64, 32]);
  await page.screenshot({ path: path.join(outDir, "ui-picture.png") });
} catch (e) {
  throw new Error(e.message + "\npage:\n" + (await page.locator("body").innerText().catch(() => "")) + "\nconsole:\n" + logs.join("\n"));
} finally {
  await browser.close();
  srv.close();
  await rm(dist, { recursive: true, force: true });
}

});

// png makes a w x h PNG of one colour (zlib from Node, CRC-32 here).
function png(w, h, [r, g, b]) {
  const row = Buffer.concat([Buffer.from([0]), Buffer.from(Array.from({ length: w }, () => [r, g, b]).flat())]);
  const chunk = (type, data) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, "ascii"), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([len, body, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr.set([8, 2, 0, 0, 0], 8); // 8-bit RGB
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk("IHDR", ihdr),
    chunk("IDAT", deflateSync(Buffer.concat(Array.from({ length: h }, () => row)))), chunk("IEND", Buffer.alloc(0))]);
}

function crc32(buf) {
  let c = ~0;
  for (const byte of buf) {
    c ^= byte;
    for (let k = 0; k < 8; k++) c = (c >>> 1) ^ (0xedb88320 & -(c & 1));
  }
  return ~c >>> 0;
}
