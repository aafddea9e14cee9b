// What the chat page shows after a reload is what the session's log holds
// (wasm/ABI.md, turn_end): in headless Chromium against a mocked `toolroute
// serve` (browser-harness.js), a reload while a reply streams keeps the
// text that came, a reload while a tool runs says the call was
// interrupted, and a failed turn, a stopped one and the token lines read
// back as they showed live. 1280x800 and 390x844, axe-core in each state,
// screenshots in web/apps/chat/e2e/output. Skipped without Chromium.
import { test } from "node:test";
import assert from "node:assert/strict";
import { rm } from "node:fs/promises";
import path from "node:path";
import { tmpdir } from "node:os";
import { buildUI } from "../build.mjs";
import { fakeServe, onPage, shot, noChromium, WAIT_MS } from "../../../packages/toolroute/test/browser-harness.js";

const dist = path.join(tmpdir(), "toolroute-ui-reload-" + process.pid);
const CAT = {
  catalogue: {
    tools: [{ name: "slow_lookup", description: "Look something up, slowly", parameters: { type: "object", properties: {} }, timeout_seconds: 600 }],
  },
  sources: {},
  libraries: {},
  server_tools: ["slow_lookup"],
};
// STORY streams for a minute: the page reloads while it does.
const STORY = ["Once ", "upon ", "a ", "time ", ...Array(150).fill("and on ")];

for (const [width, height] of [[1280, 800], [390, 844]]) {
  test(`the chat page at ${width}x${height}: a reload mid-stream and mid-tool-call, a failure, a stop and the tokens read back from the log`, { skip: noChromium, timeout: 6 * WAIT_MS }, async () => {
    await buildUI({ out: `${dist}-${width}` });
    const serve = await fakeServe({
      dist: `${dist}-${width}`, catalogue: CAT,
      script: [
        "Hello there.", // a turn that answers: its token line
        { status: 400, message: "The model 'x' does not exist" }, // a failure
        { stream: STORY, gap: 300 }, // reloaded mid-stream
        ["slow_lookup", {}], // reloaded while the tool runs
        { stream: STORY, gap: 300 }, // stopped
      ],
      tools: { slow_lookup: () => new Promise(() => {}) },
    });
    try {
      await onPage({ viewport: { width, height } }, async (page, scan) => {
        await page.goto(serve.url);
        const input = page.getByRole("textbox", { name: "Message" });
        const log = page.locator("#log");
        const send = async (text) => {
          await input.fill(text);
          await input.press("Enter");
        };
        await page.locator("#welcome").waitFor();

        await send("Say hello");
        await log.getByText("Hello there.").waitFor();
        await log.locator(".msg.assistant .foot").getByText("1,000 tokens in · 10 out").waitFor();
        await send("Use model x");
        await log.locator(".turn-error").getByText("The model 'x' does not exist").waitFor();

        await send("Tell me a story");
        await log.getByText("Once upon a time").waitFor();
        await page.waitForTimeout(400); // the page notes what streamed
        await page.reload();
        // Before the fix: the reply was lost, and so were the error and the token line.
        await log.getByText("Once upon a time").waitFor();
        await log.getByText("Interrupted: the turn was cut off before it ended").waitFor();
        await log.locator(".turn-error").getByText("The model 'x' does not exist").waitFor();
        await log.locator(".msg.assistant .foot").getByText("1,000 tokens in · 10 out").waitFor();
        assert.equal(await log.locator(".msg.user").count(), 3);
        await shot(page, `ui-reload-${width}-mid-stream`);
        await scan("after a reload mid-stream");

        await send("Look it up");
        await page.locator(".card.tool .state", { hasText: "running…" }).waitFor();
        await page.reload();
        // Before the fix: the card said "running…" for good.
        const card = log.locator(".card.tool").filter({ hasText: "slow_lookup" });
        await card.locator(".state", { hasText: "interrupted" }).waitFor();
        await card.getByText("The page was closed before the tool answered: its outcome is unknown.").waitFor();
        assert.equal(await log.getByText("running…").count(), 0);
        assert.equal(await log.getByText("Interrupted: the turn was cut off before it ended").count(), 2);
        await shot(page, `ui-reload-${width}-mid-tool`);
        await scan("after a reload mid-tool-call");

        await send("Another story");
        await log.getByText("Once upon a time").nth(1).waitFor();
        await page.getByRole("button", { name: "Stop" }).click();
        await log.locator(".foot.stopped").waitFor();
        await page.reload();
        // Before the fix: the Stopped note was gone after a reload.
        await log.locator(".msg.assistant").last().locator(".foot.stopped").getByText("Stopped: what came before Stop is kept.").waitFor();
        assert.equal(await log.locator(".msg.user").count(), 5);
        await shot(page, `ui-reload-${width}-stopped`);
        await scan("after a stop and a reload");
        // The next turn's model reads what the user saw: the replies cut off
        // and the call interrupted.
        assert.equal(serve.requests.length, 5);
      });
    } finally {
      await serve.close();
      await rm(`${dist}-${width}`, { recursive: true, force: true });
    }
  });
}
