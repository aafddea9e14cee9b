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
const CONFIG = ["list_settings", "set_setting", "list_env_vars", "set_env_var", "list_tool_states", "set_tool_enabled"];
const script = [["load_tool_group", { group_name: "config" }], ["list_settings", {}], "The model is fake-1.", ["load_tool_group", { group_name: "notes" }], ["write_note", { text: "milk" }], "Saved.", ["list_env_vars", {}], "No variables are set."];
let n = 0; const reqs = [];
const chunk = (delta, f = null) => "data: " + JSON.stringify({ id: "c", object: "chat.completion.chunk", model: "fake-1", choices: [{ index: 0, delta, finish_reason: f }] }) + "\n\n";
const srv = createServer(async (req, res) => {
  let body = ""; for await (const d of req) body += d;
  const u = req.url;
  if (u === "/api/health") { res.setHeader("content-type", "application/json"); return res.end(JSON.stringify({ ok: true, provider: "openai (fake)", format: "openai", model: "fake-1" })); }
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
} catch (e) {
  throw new Error(e.message + "\npage:\n" + (await page.locator("body").innerText().catch(() => "")) + "\nconsole:\n" + logs.join("\n"));
} finally {
  await browser.close();
  srv.close();
  await rm(dist, { recursive: true, force: true });
}

});
