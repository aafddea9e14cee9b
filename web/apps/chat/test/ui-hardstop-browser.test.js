// Issue 33's item 5 in the chat page, in headless Chromium: a JS tool the
// page's worker runs ends at its timeout whatever it runs, Chromium using
// at most a second of CPU time past it (busy.js), with an error the model
// reads, and the turn and the next message go on.
// QuickJS runs on the worker's thread, so a call nothing stopped kept the
// worker busy for good (Stop restarted it; a tool's timeout did not): each
// of the attacks of attacks.js is a user tool with a 1 s timeout the model
// calls in turn. Skipped when there is no Chromium.
import { test } from "node:test";
import assert from "node:assert/strict";
import { rm } from "node:fs/promises";
import path from "node:path";
import { tmpdir } from "node:os";
import { buildUI } from "../build.mjs";
import { fakeServe, launch, watch, noChromium, WAIT_MS } from "../../../packages/toolroute/test/browser-harness.js";
import { ATTACKS } from "../../../packages/toolroute/test/attacks.js";

const dist = path.join(tmpdir(), "toolroute-ui-hardstop-" + process.pid);
const tool = (i) => `attack${i}`;
const CAT = {
  catalogue: {
    manifests: ATTACKS.map((a, i) => ({
      file: `${tool(i)}.json`, source: `user/${tool(i)}.js`,
      text: JSON.stringify({ name: tool(i), description: a.name, parameters: { type: "object", properties: {} }, timeoutSeconds: 1 }),
    })),
  },
  sources: Object.fromEntries(ATTACKS.map((a, i) => [`user/${tool(i)}.js`, `function execute() { ${a.body} }`])),
  libraries: {},
};

test("every attack on a JS tool's timeout ends within a second of CPU time past it in the page, and the turn goes on", { skip: noChromium, timeout: 5 * WAIT_MS }, async (t) => {
  await buildUI({ out: dist });
  const serve = await fakeServe({ dist, catalogue: CAT, script: [...ATTACKS.map((_, i) => [tool(i), {}]), "All done.", "Still here."], cpu: true });
  const browser = await launch();
  const page = await browser.newPage();
  const failure = watch(page);
  try {
    await page.goto(serve.url);
    const input = page.getByRole("textbox", { name: "Message" });
    const log = page.locator("#log");
    await input.fill("attack");
    await input.press("Enter");
    // One call that does not end keeps the turn from here.
    await log.getByText("All done.").waitFor({ timeout: 2 * WAIT_MS });
    for (const [i, a] of ATTACKS.entries()) {
      // The model's next call carries the tool's result: the CPU time
      // Chromium used in between is the call's, with the page's work
      // around it (by the clock where it is not measured).
      const msgs = serve.requests[i + 1].body.messages;
      const result = msgs.findLast((m) => m.role === "tool");
      const ms = serve.times[i + 1] - serve.times[i];
      const cpu = serve.cpus[i] === null ? null : serve.cpus[i + 1] - serve.cpus[i];
      t.diagnostic(`${a.name}: ${ms} ms between the model's calls, ${cpu} ms of Chromium's CPU time: ${String(result?.content).slice(0, 160)}`);
      assert.ok(result, `${a.name}: no tool result`);
      // The bound (at most a second of the call's CPU time before
      // its 1 s timeout, a second after it), and a second for the page's
      // work and the model call around it.
      assert.ok((cpu ?? ms) < 3000, `${a.name}: ${cpu ?? ms} ms of ${cpu === null ? "time" : "CPU time"} between the model's calls`);
      assert.match(String(result.content), /Maximum call stack size exceeded|stack overflow|timed out after 1s|out of memory/, a.name);
    }
    await input.fill("hello");
    await input.press("Enter");
    await log.getByText("Still here.").waitFor({ timeout: WAIT_MS });
  } catch (e) {
    throw await failure(e);
  } finally {
    await browser.close();
    await serve.close();
    await rm(dist, { recursive: true, force: true });
  }
});
