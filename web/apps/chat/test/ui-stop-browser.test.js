// Stop in the chat page ends a JS tool that never waits (`for (;;) {}`)
// within a few seconds of Chromium's CPU time (busy.js), not at its
// timeout: QuickJS runs on the page's worker thread, so the page restarts
// the worker when the turn does not stop by itself; the next message then
// works. Headless Chromium against a mocked `toolroute serve`, as
// ui-browser.test.js; skipped without Chromium.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { readFile, rm } from "node:fs/promises";
import path from "node:path";
import { tmpdir } from "node:os";
import { buildUI } from "../build.mjs";
import { launch, noChromium, WAIT_MS } from "../../../packages/toolroute/test/browser-harness.js";
import { childrenCpuMs } from "../../../packages/toolroute/test/busy.js";

const dist = path.join(tmpdir(), "toolroute-ui-stop-" + process.pid);
const CAT = {
  catalogue: { manifests: [{ file: "spin.json", source: "user/spin.js",
    text: JSON.stringify({ name: "spin", description: "Spins", parameters: { type: "object", properties: {} }, timeoutSeconds: 3600 }) }] },
  sources: { "user/spin.js": "function execute() { for (;;) {} }" },
  libraries: {},
};
const script = [["spin", {}], "Still here."];

test("Stop ends a JS tool that never waits, and the next message works", { skip: noChromium, timeout: 5 * WAIT_MS }, async () => {
  let n = 0;
  const chunk = (delta, f = null) => "data: " + JSON.stringify({ id: "c", object: "chat.completion.chunk", model: "fake-1", choices: [{ index: 0, delta, finish_reason: f }] }) + "\n\n";
  const srv = createServer(async (req, res) => {
    for await (const _ of req);
    const u = req.url;
    const json = (v) => {
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify(v));
    };
    if (u === "/api/health") return json({ ok: true, provider: "openai (fake)", format: "openai", model: "fake-1" });
    if (u === "/api/ui/catalogue") return json(CAT);
    if (u === "/api/model") {
      const r = script[n++];
      res.writeHead(200, { "content-type": "text/event-stream" });
      if (typeof r === "string") res.write(chunk({ role: "assistant", content: r }) + chunk({}, "stop"));
      else res.write(chunk({ role: "assistant", tool_calls: [{ index: 0, id: "call_" + n, type: "function", function: { name: r[0], arguments: JSON.stringify(r[1]) } }] }) + chunk({}, "tool_calls"));
      return res.end("data: [DONE]\n\n");
    }
    const f = u === "/" ? "/ui/index.html" : u;
    if (!f.startsWith("/ui/")) {
      res.writeHead(404);
      return res.end();
    }
    try {
      const data = await readFile(path.join(dist, f.slice(4)));
      res.setHeader("content-type", { ".html": "text/html", ".js": "text/javascript", ".css": "text/css", ".wasm": "application/wasm" }[path.extname(f)] ?? "application/octet-stream");
      res.end(data);
    } catch {
      res.writeHead(404);
      res.end();
    }
  });
  await buildUI({ out: dist });
  await new Promise((r) => srv.listen(0, "127.0.0.1", r));
  const browser = await launch();
  const page = await browser.newPage();
  const logs = [];
  page.on("console", (m) => logs.push(m.type() + ": " + m.text()));
  page.on("pageerror", (e) => logs.push("pageerror: " + e.message));
  try {
    await page.goto(`http://127.0.0.1:${srv.address().port}/ui/index.html`);
    const input = page.getByRole("textbox", { name: "Message" });
    const log = page.locator("#log");
    const see = (t) => log.getByText(t).first().waitFor({ timeout: WAIT_MS });
    await input.fill("spin");
    await input.press("Enter");
    await page.locator(".card.tool .state", { hasText: "running…" }).waitFor({ timeout: WAIT_MS });
    await page.waitForTimeout(300); // the tool is running: the worker is busy
    const stop = page.getByRole("button", { name: "Stop" });
    const t = Date.now();
    const cpu = childrenCpuMs();
    await stop.click();
    await see("Stopped: what came before Stop is kept.");
    const took = Date.now() - t;
    const used = cpu === null ? null : childrenCpuMs() - cpu;
    // The loop runs on through Stop's 1 s grace, then a new worker starts.
    assert.ok((used ?? took) < 3000, `stopped after ${took} ms, ${used} ms of Chromium's CPU time`);
    assert.equal(await stop.isDisabled(), true);

    await input.fill("hello");
    await input.press("Enter");
    await see("Still here.");
    assert.equal(n, 2);
    // The restarted worker could not log the stop: the page did, so a
    // reload shows it, and the tool's card says why it has no result.
    await page.reload();
    await see("Still here.");
    await see("Stopped: what came before Stop is kept.");
    await see("Stop came before the tool answered: its outcome is unknown.");
  } catch (e) {
    throw new Error(e.message + "\npage:\n" + (await page.locator("body").innerText().catch(() => "")) + "\nconsole:\n" + logs.join("\n"));
  } finally {
    await browser.close();
    srv.close();
    await rm(dist, { recursive: true, force: true });
  }
});
