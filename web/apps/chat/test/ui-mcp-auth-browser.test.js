// An MCP server that needs authorization, in the chat page: headless
// Chromium against a mocked `toolroute serve` (browser-harness.js), the
// page's worker reaching server-everything (testdata/mcp) behind a guard
// that answers 401 without its bearer token (mcp-servers.js). The
// catalogue shows the server apart, with the module's words on what to do
// and why it refused; Try again asks it again; Edit the MCP config goes to
// the settings, and with the token there the server's group is offered.
// 1280x800 and 390x844, axe-core in each state, screenshots in
// web/apps/chat/e2e/output. Skipped without Chromium.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { rm } from "node:fs/promises";
import path from "node:path";
import { tmpdir } from "node:os";
import { buildUI } from "../build.mjs";
import { freePort } from "../../worker/workerd.js";
import { fakeServe, onPage, shot, noChromium, WAIT_MS } from "../../../packages/toolroute/test/browser-harness.js";
import { startEverything, startGuard } from "../../../packages/toolroute/test/mcp-servers.js";

const dist = path.join(tmpdir(), "toolroute-ui-mcp-auth-" + process.pid);
const ADVICE = `MCP server 'notes' needs authorization: add "headers": {"Authorization": "Bearer TOKEN"} to its entry in the MCP config, with a token the server accepts`;

let everything, guard;
before(async () => {
  if (noChromium) return;
  const port = await freePort();
  everything = await startEverything(port);
  guard = await startGuard(port);
  await buildUI({ out: dist });
});
after(async () => {
  await guard?.close();
  await everything?.stop();
  await rm(dist, { recursive: true, force: true });
});

for (const [width, height] of [[1280, 800], [390, 844]]) {
  const phone = width < 900;
  test(`an MCP server that needs authorization at ${width}x${height}: shown apart with what to do, tried again, then given its token`, { skip: noChromium, timeout: 5 * WAIT_MS }, async () => {
    const serve = await fakeServe({ dist, catalogue: { catalogue: {}, sources: {}, libraries: {} }, script: [] });
    try {
      await onPage({ viewport: { width, height } }, async (page, scan) => {
        await page.goto(serve.url);
        await page.locator("#welcome").waitFor();
        if (phone) await page.locator("#open-panels").click();
        const settings = page.locator("#panel-settings");
        if (!(await settings.evaluate((d) => d.open))) await settings.locator("> summary").click();
        const save = async (config) => {
          await page.locator("#set-mcp").fill(JSON.stringify(config));
          await settings.getByRole("button", { name: "Save settings" }).click();
          await page.locator("#settings-status").getByText(/^Saved/).waitFor();
        };
        await save({ mcpServers: { notes: { url: guard.url } } });
        await page.locator("#panel-catalogue > summary").click();
        const box = page.getByRole("group", { name: "MCP server notes needs authorization" });
        await box.waitFor();
        assert.equal(await box.locator("p").nth(1).innerText(), ADVICE);
        assert.match(await box.innerText(), /It said: it answered HTTP 401 and its entry gives no Authorization header; it offers OAuth sign-in, which only the toolroute command does\./);
        assert.equal(await page.locator("#catalogue .error").count(), 0, "the advice is said once, in its box");
        await page.locator(".cat-group .badge.auth", { hasText: "needs authorization" }).waitFor();
        await box.scrollIntoViewIfNeeded();
        await shot(page, `ui-mcp-auth-${width}`);
        await scan("needs authorization");

        // Try again: asked again, refused again, still shown.
        const refused = guard.refused;
        await box.getByRole("button", { name: "Try again" }).click();
        for (const end = Date.now() + WAIT_MS; guard.refused === refused && Date.now() < end;) await page.waitForTimeout(50);
        assert.ok(guard.refused > refused, "Try again did not reach the server");
        await box.getByRole("button", { name: "Try again" }).and(page.locator(":enabled")).waitFor();
        await box.waitFor();

        // Edit the MCP config: the settings' box, focused.
        await box.getByRole("button", { name: "Edit the MCP config" }).click();
        assert.equal(await page.evaluate(() => document.activeElement?.id), "set-mcp");
        await save({ mcpServers: { notes: { url: guard.url, headers: { Authorization: "Bearer good-token" } } } });
        await page.locator("#catalogue .cat-group .gname", { hasText: "Everything Reference Server" }).waitFor();
        assert.equal(await page.locator(".mcp-auth").count(), 0);
        await shot(page, `ui-mcp-auth-${width}-given`);
        await scan("with its token");
      });
    } finally {
      await serve.close();
    }
  });
}
