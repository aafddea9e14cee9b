// Agents in the chat page, in headless Chromium against a mocked `toolroute
// serve` (web/packages/toolroute/test/browser-harness.js): the model hands a task to a new
// agent with create_agent, which runs nested in a page session of its own;
// the agent then appears in the picker beside New chat, and choosing it
// starts a new chat whose turns are the agent's. Screenshots in
// web/apps/chat/e2e/output. Skipped when there is no Chromium (set CHROMIUM).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFile, rm } from "node:fs/promises";
import path from "node:path";
import { tmpdir } from "node:os";
import { buildUI } from "../build.mjs";
import { fakeServe, launch, watch, axe, shot, noChromium, WAIT_MS } from "../../../packages/toolroute/test/browser-harness.js";

const dist = path.join(tmpdir(), "toolroute-ui-agents-" + process.pid);
const manifests = path.join(path.dirname(new URL(import.meta.url).pathname), "..", "..", "..", "..", "manifests");
// bodyOf is a model request's body, as the page sent it to /api/model.
const bodyOf = (r) => (typeof r.body === "string" ? JSON.parse(r.body) : r.body);
const CAT = {
  catalogue: { manifests: [{ file: "builtin/create_agent.json", source: "builtin/create_agent.js", text: await readFile(path.join(manifests, "create_agent.json"), "utf8") }] },
  sources: { "builtin/create_agent.js": await readFile(path.join(manifests, "create_agent.js"), "utf8") },
  libraries: {},
};

test("the chat page: create_agent runs a new agent nested, and the picker starts a new chat with it", { skip: noChromium, timeout: 5 * WAIT_MS }, async () => {
  await buildUI({ out: dist });
  const serve = await fakeServe({
    dist, catalogue: CAT,
    script: [
      ["create_agent", { name: "helper", task: "Say hi.", system_prompt: "You are helper: you say hi." }],
      "Hi from helper.", // the sub-agent's turn
      "helper said hi.",
      "I am helper.", // the new chat with helper
    ],
  });
  const browser = await launch();
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  const failure = watch(page);
  try {
    await page.goto(serve.url);
    const input = page.getByRole("textbox", { name: "Message" });
    const log = page.locator("#log");
    const picker = page.getByRole("combobox", { name: "The agent of the next new chat" });
    await page.locator("#welcome").waitFor({ timeout: WAIT_MS });
    assert.equal(await picker.isVisible(), false, "no agents, no picker");

    await input.fill("Ask a helper agent to say hi.");
    await input.press("Enter");
    // create_agent stores the agent the model wrote: it asks first.
    const approval = page.locator(".approval").filter({ hasText: "create_agent" });
    await approval.getByRole("button", { name: "Allow once" }).click({ timeout: WAIT_MS });
    await log.getByText("helper said hi.").waitFor({ timeout: WAIT_MS });
    const card = page.locator(".card.tool").filter({ has: page.locator(".name", { hasText: "create_agent" }) });
    assert.equal(await card.locator(".state").innerText(), "done");
    await picker.waitFor({ state: "visible", timeout: WAIT_MS });
    assert.deepEqual(await picker.locator("option").allInnerTexts(), ["No agent", "helper"]);
    // The sub-agent's request: its own prompt, its own session.
    assert.ok(bodyOf(serve.requests[1]).messages[0].content.startsWith("You are helper: you say hi."));
    assert.equal(bodyOf(serve.requests[1]).messages.at(-1).content, "Say hi.");
    await shot(page, "ui-agents-1280-picker");
    const violations = await axe(page);
    assert.deepEqual(violations, [], "no serious accessibility violations");

    await picker.selectOption("helper");
    await page.locator("#session-title").getByText("New chat with helper").waitFor({ timeout: WAIT_MS });
    await input.fill("Who are you?");
    await input.press("Enter");
    await log.getByText("I am helper.").waitFor({ timeout: WAIT_MS });
    const last = bodyOf(serve.requests.at(-1));
    assert.ok(last.messages[0].content.startsWith("You are helper: you say hi."), last.messages[0].content);
    assert.equal(last.messages.length, 2, "a new chat: the system prompt and the message");
    await shot(page, "ui-agents-1280-new-chat");
  } catch (e) {
    throw await failure(e);
  } finally {
    await browser.close();
    await serve.close();
    await rm(dist, { recursive: true, force: true });
  }
});
