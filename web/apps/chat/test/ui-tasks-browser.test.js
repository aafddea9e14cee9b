// The chat page's scheduled tasks panel, in headless Chromium: the model
// schedules a task (the real scheduled_tasks manifest), the page runs it
// at its time while open, and the panel shows the task, its last run and
// opens that run's chat. Skipped when there is no Chromium.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFile, rm } from "node:fs/promises";
import path from "node:path";
import { tmpdir } from "node:os";
import { buildUI } from "../build.mjs";
import { fakeServe, launch, watch, axe, shot, noChromium, WAIT_MS } from "../../../packages/toolroute/test/browser-harness.js";

const dist = path.join(tmpdir(), "toolroute-ui-tasks-" + process.pid);
const manifests = path.join(path.dirname(new URL(import.meta.url).pathname), "..", "..", "..", "..", "manifests");
const CAT = {
  catalogue: {
    manifests: [{ file: "builtin/scheduled_tasks.json", source: "builtin/scheduled_tasks.js", text: await readFile(path.join(manifests, "scheduled_tasks.json"), "utf8") }],
  },
  sources: { "builtin/scheduled_tasks.js": await readFile(path.join(manifests, "scheduled_tasks.js"), "utf8") },
  libraries: {},
};

test("the page lists its scheduled tasks, runs one while open and opens its run", { skip: noChromium, timeout: 5 * WAIT_MS }, async () => {
  await buildUI({ out: dist });
  // The task is due 30 s after the model asks for it: time, on a busy
  // machine, for the approval (a time past is refused) and for the list to
  // show it before it runs.
  const at = () => new Date(Date.now() + 30_000).toISOString().replace(/\.\d+Z$/, "Z");
  const serve = await fakeServe({
    dist, catalogue: CAT,
    script: [["load_tool_group", { group_name: "scheduled_tasks" }], () => ["schedule_task", { name: "tea", prompt: "Say it is tea time", at: at() }], "Scheduled.", "Tea time!"],
  });
  const browser = await launch();
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const failure = watch(page);
  try {
    await page.goto(serve.url);
    await page.locator("#welcome .prompts button").first().waitFor({ timeout: WAIT_MS });
    await page.locator("#panel-tasks > summary").click();
    // The panel fills its list once opened: waited for, not read at once.
    await page.locator("#tasks-note", { hasText: /^None yet\. Ask the model to schedule one/ }).waitFor({ timeout: WAIT_MS });
    const input = page.getByRole("textbox", { name: "Message" });
    await input.fill("Remind me of tea in a moment");
    await input.press("Enter");
    const approval = page.locator(".approval");
    const scheduled = page.locator("#log").getByText("Scheduled.");
    await approval.or(scheduled).first().waitFor({ timeout: WAIT_MS });
    if (await approval.isVisible()) await approval.getByRole("button", { name: "Allow once" }).click();
    await scheduled.waitFor({ timeout: WAIT_MS });

    // Listed as soon as the turn is done, not run yet.
    const task = page.locator("#tasks li").filter({ hasText: "tea" });
    await task.waitFor({ timeout: WAIT_MS });
    assert.match(await task.innerText(), /tea\s+once, .* · next /);
    assert.equal(await task.locator("button.open").isDisabled(), true);

    // Run at its time by the page, in a chat of its own.
    await task.getByText(/last run done/).waitFor({ timeout: WAIT_MS });
    assert.equal(serve.served(), 4, "the run made the fourth model call");
    assert.match(await task.innerText(), /will not run again · last run done/);
    await page.locator("#sessions li").filter({ hasText: "Scheduled task: tea" }).waitFor({ timeout: WAIT_MS });
    await shot(page, "ui-1280-tasks");
    for (const v of await axe(page)) assert.fail("accessibility: " + v);
    await task.locator("button.open").click();
    await page.locator("#log").getByText("Tea time!").waitFor({ timeout: WAIT_MS });
    assert.match(await page.locator("#log").innerText(), /Say it is tea time/);
  } catch (e) {
    throw await failure(e);
  } finally {
    await browser.close();
    await serve.close();
    await rm(dist, { recursive: true, force: true });
  }
});
