// Retry, Regenerate and Edit in the chat page, in headless Chromium against
// a mocked `toolroute serve` (browser-harness.js): each makes a new turn at
// the end of the chat, the turns before kept as they were, in the log and
// on screen, after a reload too (docs/design/log.md). 1280x800 and 390x844,
// axe-core in each state, screenshots in web/apps/chat/e2e/output. Skipped
// without Chromium.
import { test } from "node:test";
import assert from "node:assert/strict";
import { rm } from "node:fs/promises";
import path from "node:path";
import { tmpdir } from "node:os";
import { buildUI } from "../build.mjs";
import { fakeServe, onPage, shot, noChromium, WAIT_MS } from "../../../packages/toolroute/test/browser-harness.js";

const dist = path.join(tmpdir(), "toolroute-ui-again-" + process.pid);
const bodyOf = (r) => (typeof r.body === "string" ? JSON.parse(r.body) : r.body);

for (const [width, height] of [[1280, 800], [390, 844]]) {
  test(`retry, regenerate and edit at ${width}x${height}: each a new turn, the earlier kept`, { skip: noChromium, timeout: 5 * WAIT_MS }, async () => {
    await buildUI({ out: `${dist}-${width}` });
    const serve = await fakeServe({
      dist: `${dist}-${width}`, catalogue: { catalogue: {}, sources: {}, libraries: {} },
      script: [{ status: 400, message: "The model is busy elsewhere" }, "Hello!", "Hello again!", "Bonjour !"],
    });
    try {
      await onPage({ viewport: { width, height } }, async (page, scan) => {
        await page.goto(serve.url);
        const input = page.getByRole("textbox", { name: "Message" });
        const log = page.locator("#log");
        await page.locator("#welcome").waitFor();
        await input.fill("Say hi");
        await input.press("Enter");
        await log.locator(".turn-error").waitFor();

        // Retry after the error: the same message, a new turn.
        await log.getByRole("button", { name: "Retry: send “Say hi” again" }).click();
        await log.getByText("Hello!").waitFor();
        await scan("after a retry");
        // Regenerate the reply: a new turn too; the model reads what came before.
        await log.getByRole("button", { name: /^Regenerate: send “Say hi” again/ }).last().click();
        await log.getByText("Hello again!").waitFor();
        const regenerated = bodyOf(serve.requests[2]).messages.map((m) => m.content);
        assert.ok(regenerated.includes("Hello!"), "the earlier reply is kept and sent: " + regenerated.join(" | "));
        // Edit a sent message: back in the box, changed, sent as a new message.
        await log.getByRole("button", { name: "Edit and send again: Say hi" }).first().click();
        assert.equal(await input.inputValue(), "Say hi");
        await input.fill("Say hi in French");
        await input.press("Enter");
        await log.getByText("Bonjour !").waitFor();
        await shot(page, `ui-again-${width}`);
        await scan("after an edit");

        // Each turn is kept, in order, after a reload too.
        const users = async () => log.locator(".msg.user .bubble").allInnerTexts();
        assert.deepEqual(await users(), ["Say hi", "Say hi", "Say hi", "Say hi in French"]);
        await page.reload();
        await log.getByText("Bonjour !").waitFor();
        assert.deepEqual(await users(), ["Say hi", "Say hi", "Say hi", "Say hi in French"]);
        assert.equal(await log.locator(".turn-error").count(), 1, "the failed turn is kept");
        assert.equal(await log.getByRole("button", { name: /^Retry/ }).count(), 1);
        assert.equal(await log.getByRole("button", { name: /^Regenerate/ }).count(), 3);
        await shot(page, `ui-again-${width}-reloaded`);
        await scan("read back");
      });
    } finally {
      await serve.close();
      await rm(`${dist}-${width}`, { recursive: true, force: true });
    }
  });
}
