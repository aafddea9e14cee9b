// A running call's progress in the chat page, in headless Chromium against
// a mocked `toolroute serve` (browser-harness.js) whose server tool
// reports its MCP server's progress as serve does (NDJSON progress events
// before the result): the call's card shows a bar and the share done, the
// server's message as its preview, and the result takes them away.
// 1280x800 and 390x844, axe-core in each state, screenshots in
// web/apps/chat/e2e/output. Skipped without Chromium.
import { test } from "node:test";
import assert from "node:assert/strict";
import { rm } from "node:fs/promises";
import path from "node:path";
import { tmpdir } from "node:os";
import { buildUI } from "../build.mjs";
import { fakeServe, onPage, shot, noChromium, WAIT_MS } from "../../../packages/toolroute/test/browser-harness.js";

const dist = path.join(tmpdir(), "toolroute-ui-progress-" + process.pid);
const CAT = {
  catalogue: { tools: [{ name: "pack_tea", description: "Packs the tea, saying how far it got", parameters: { type: "object", properties: {} }, timeout_seconds: 600 }] },
  sources: {},
  libraries: {},
  server_tools: ["pack_tea"],
};

for (const [width, height] of [[1280, 800], [390, 844]]) {
  test(`a call's progress at ${width}x${height}: a bar and the share done on its card, the server's message, gone with the result`, { skip: noChromium, timeout: 5 * WAIT_MS }, async () => {
    await buildUI({ out: `${dist}-${width}` });
    // step lets the tool's next line go: the test looks at each state.
    const steps = [];
    const step = () => steps.shift()?.();
    const next = () => new Promise((resolve) => steps.push(resolve));
    const serve = await fakeServe({
      dist: `${dist}-${width}`, catalogue: CAT,
      script: [["pack_tea", {}], "Your tea is packed."],
      tools: {
        pack_tea: async ({ res }) => {
          res.writeHead(200, { "content-type": "application/x-ndjson" });
          res.write(JSON.stringify({ type: "progress", progress: 1, total: 4, message: "Weighing the leaves" }) + "\n");
          await next();
          res.write(JSON.stringify({ type: "progress", progress: 3, total: 4 }) + "\n");
          await next();
          res.end(JSON.stringify({ type: "result", result: { status: "success", output: "packed: 4 tins" } }) + "\n");
        },
      },
    });
    try {
      await onPage({ viewport: { width, height } }, async (page, scan) => {
        await page.goto(serve.url);
        const input = page.getByRole("textbox", { name: "Message" });
        const log = page.locator("#log");
        await page.locator("#welcome").waitFor();
        await input.fill("Pack my tea");
        await input.press("Enter");
        const card = log.locator(".card.tool").filter({ hasText: "pack_tea" });
        const bar = card.getByRole("progressbar", { name: "Progress of pack_tea" });
        await bar.waitFor();
        await card.getByText("running… 25%").waitFor();
        assert.equal(await bar.evaluate((b) => [b.value, b.max].join("/")), "1/4");
        assert.equal(await card.locator(".preview").innerText(), "Weighing the leaves");
        await shot(page, `ui-progress-${width}-quarter`);
        await scan("a quarter done");

        step();
        await card.getByText("running… 75%").waitFor();
        assert.equal(await bar.evaluate((b) => [b.value, b.max].join("/")), "3/4");
        assert.equal(await card.locator(".preview").innerText(), "Weighing the leaves", "a report without a message keeps the last one");

        step();
        await log.getByText("Your tea is packed.").waitFor();
        assert.equal(await card.locator("progress").count(), 0, "the bar goes with the result");
        assert.equal(await card.locator(".state").innerText(), "done");
        assert.match(await card.locator(".preview").innerText(), /packed: 4 tins/);
        await shot(page, `ui-progress-${width}-done`);
        await scan("done");
      });
    } finally {
      while (steps.length) step();
      await serve.close();
      await rm(`${dist}-${width}`, { recursive: true, force: true });
    }
  });
}
