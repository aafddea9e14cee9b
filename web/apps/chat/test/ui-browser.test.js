// The chat page in headless Chromium against a mocked `toolroute serve`
// (web/packages/toolroute/test/browser-harness.js): each point of the page a user meets, at
// 1280 and 390 pixels, light and dark, with an axe-core scan of each screen
// (no serious or critical violations) and screenshots in web/apps/chat/e2e/output.
// The full page against the real server is web/apps/chat/e2e/. Skipped when there is
// no Chromium (set CHROMIUM to its path).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFile, rm } from "node:fs/promises";
import { deflateSync } from "node:zlib";
import path from "node:path";
import { tmpdir } from "node:os";
import { buildUI } from "../build.mjs";
import { fakeServe, launch, watch, axe, shot, noChromium, WAIT_MS } from "../../../packages/toolroute/test/browser-harness.js";

const dist = path.join(tmpdir(), "toolroute-ui-browser-" + process.pid);
const manifests = path.join(path.dirname(new URL(import.meta.url).pathname), "..", "..", "..", "..", "manifests");
// The real config group (manifests/config.*), a user's notes group, and a
// server tool whose result carries a picture (an MCP server's, run by serve).
const CAT = {
  catalogue: {
    manifests: [
      { file: "builtin/config.json", source: "builtin/config.js", text: await readFile(path.join(manifests, "config.json"), "utf8") },
      { file: "notes.json", source: "user/notes.js", text: JSON.stringify([{ _meta: true, display_name: "Notes", description: "Keep notes" }, { name: "write_note", description: "Write", function: "writeNote", requiredPermissions: ["write"], parameters: { properties: { text: { type: "string" } } } }]) },
    ],
    groups: [{ name: "charts", display_name: "Charts", description: "Draw charts" }],
    tools: [{ name: "chart", description: "Draw a chart", group: "charts", parameters: { type: "object", properties: {} }, required_permissions: ["read"], timeout_seconds: 30 }],
  },
  sources: {
    "builtin/config.js": await readFile(path.join(manifests, "config.js"), "utf8"),
    "user/notes.js": "function writeNote(p){ fs.appendFile('n.txt', p.text+'\\n'); return 'notes: ' + fs.readFile('n.txt').trim(); }",
  },
  libraries: {},
  server_tools: ["chart"],
};
const CONFIG = ["list_providers", "create_provider", "update_provider", "delete_provider", "list_models", "fetch_models", "set_default_model", "add_model",
  "delete_model", "list_agents", "update_agent", "delete_agent", "get_config", "set_config", "manage_env_var", "list_tool_states", "set_tool_enabled"];
const PNG = png(64, 32, [30, 90, 200]);

// MARKDOWN is a reply with what a model writes, and what it must not get
// through: a script, a javascript: link, an event handler.
const MARKDOWN = [
  "The model is **fake-1**. Settings:",
  "",
  "| key | value |",
  "| --- | --- |",
  "| model | fake-1 |",
  "",
  "```js",
  "const answer = 42; // the answer",
  "```",
  "",
  "See [the docs](https://example.com/docs/a/very/long/path/that/goes/on/and/on/and/on/without/any/spaces/at/all) or [this](javascript:alert(1)).",
  "",
  '<script>window.pwned = 1</script><img src=x onerror="window.pwned = 2">',
].join("\n");

// STORY streams for a minute, 400 ms a piece: longer than a busy machine
// takes to press Stop once it starts.
const STORY = ["Once ", "upon ", "a ", "time ", "there ", "was ", "a ", "very ", "long ", "story ", "that ", "never ", "seemed ", "to ", "end, ", ...Array(150).fill("and on "), "at ", "all."];

const script = [
  ["load_tool_group", { group_name: "config" }], ["get_config", {}], MARKDOWN,
  ["load_tool_group", { group_name: "notes" }], ["write_note", { text: "milk" }], "Saved.",
  ["load_tool_group", { group_name: "charts" }], ["chart", {}], "A blue chart.",
  { status: 400, message: "The model 'x' does not exist" },
  { stream: STORY, gap: 400 },
];

test("the chat page: markdown, cards, approvals, the meter, a queued message, Stop, errors, the catalogue, a reload, the phone drawer, dark mode, no serious accessibility violations", { skip: noChromium, timeout: 5 * WAIT_MS }, async () => {
  await buildUI({ out: dist });
  const serve = await fakeServe({
    dist, catalogue: CAT, script,
    tools: { chart: { status: "success", output: `The chart:\n\n[image image/png, ${PNG.length} bytes]`, images: [{ mime_type: "image/png", data: PNG.toString("base64") }] } },
  });
  const browser = await launch();
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  const failure = watch(page);
  const violations = [];
  const scan = async (what, p = page) => {
    for (const v of await axe(p)) violations.push(`${what}: ${v}`);
  };
  try {
    await page.goto(serve.url);
    const input = page.getByRole("textbox", { name: "Message" });
    const log = page.locator("#log");
    const see = (t) => log.getByText(t).first().waitFor({ timeout: WAIT_MS });
    const send = async (text) => {
      await input.fill(text);
      await input.press("Enter");
    };

    // A new chat: what toolroute does, and prompts that show it.
    await page.locator("#welcome .prompts button").first().waitFor({ timeout: WAIT_MS });
    // Three of the server's catalogue, and the page's own pdf group.
    assert.match(await page.locator("#welcome").innerText(), /4 tool groups by name/);
    assert.equal(await page.locator("#welcome .prompts button").count(), 4);
    await page.locator("#meter").getByText("tokens on tools in this call").waitFor({ timeout: WAIT_MS });
    await shot(page, "ui-1280-welcome");
    await scan("welcome");

    // A group load and a tool call as cards; the reply's markdown rendered
    // and made safe.
    await send("Which model is set?");
    await see("The model is");
    const group = page.locator(".card.group").first();
    assert.match(await group.innerText(), /^\+?\s*Loaded Configuration: 17 tools, [\d,]+ tokens of schemas from now on/);
    assert.deepEqual(await group.locator(".tags li").allInnerTexts(), CONFIG);
    const card = page.locator(".card.tool").filter({ has: page.locator(".name", { hasText: "get_config" }) });
    assert.equal(await card.locator(".state").innerText(), "done");
    assert.match(await card.locator(".preview").innerText(), /^→ - provider = server \(default\)/);
    await card.locator("summary").click();
    assert.match(await card.locator(".body pre").last().innerText(), /model = /);
    const reply = page.locator(".msg.assistant .bubble").last();
    assert.equal(await reply.locator("strong").innerText(), "fake-1");
    assert.equal(await reply.locator("table td").nth(1).innerText(), "fake-1");
    assert.ok((await reply.locator("pre code.hljs span").count()) > 0, "the code is highlighted");
    assert.equal(await reply.locator("pre .copy").innerText(), "Copy");
    const docs = reply.getByRole("link", { name: "the docs" });
    assert.equal(await docs.getAttribute("target"), "_blank");
    assert.equal(await docs.getAttribute("rel"), "noopener noreferrer nofollow");
    assert.equal(await reply.getByText("this", { exact: true }).getAttribute("href"), null, "a javascript: link keeps no href");
    assert.equal(await reply.locator("script, img, [onerror]").count(), 0);
    assert.equal(await page.evaluate(() => window.pwned), undefined);
    // The turn's tokens under the reply, opening to each of its three
    // model calls.
    const usage = page.locator(".msg.assistant .usage").last();
    assert.equal(await usage.locator("summary").innerText(), "6,000 tokens in (1,800 cached) · 60 out · 3 model calls");
    await usage.locator("summary").click();
    assert.deepEqual(await usage.locator("li").allInnerTexts(), ["1,000 tokens in · 10 out", "2,000 tokens in (900 cached) · 20 out", "3,000 tokens in (900 cached) · 30 out"]);
    const box = await reply.boundingBox();
    assert.ok(box.width <= 1280 - 352, "a long link wraps inside the reply");
    // The meter splits what the call sends.
    const legend = await page.locator("#meter .legend").innerText();
    assert.match(legend, /Core tools[\s\S]*Group listing[\s\S]*Configuration/);
    assert.deepEqual(await page.locator("#active-tools li").allInnerTexts(), ["load_tool_group", ...CONFIG]);
    await shot(page, "ui-1280-markdown");
    await scan("a reply with cards and markdown");

    // A tool that changes data asks in the flow, and nothing but a
    // deliberate click or key on it answers: the question takes no focus,
    // so what is typed as it arrives stays in the message box, a space and
    // an Enter included; a click the moment it shows (here, the instant the
    // page adds it) does nothing. A message typed while it waits is kept,
    // marked, and sent when the reply ends.
    await page.evaluate(() => {
      new MutationObserver((_, seen) => {
        const b = document.querySelector(".approval button[data-answer=once]");
        if (!b) return;
        seen.disconnect();
        b.click();
      }).observe(document.getElementById("log"), { childList: true, subtree: true });
    });
    await send("note milk");
    const approval = page.locator(".approval");
    await approval.waitFor({ timeout: WAIT_MS });
    // Keys pressed on as the question arrives go where the focus is: an
    // Enter in the empty box, then a message with its spaces, then the
    // Enter that sends it.
    const unanswered = async (what) => {
      assert.equal(await page.evaluate(() => document.activeElement?.id), "message", `${what}: the message box keeps the focus`);
      assert.equal(await approval.locator(".approval-buttons button").count(), 3, `${what}: the question is unanswered`);
      assert.equal(await approval.locator(".approval-call [role=status]").innerText(), "", `${what}: no answer is shown`);
      assert.doesNotMatch(await log.innerText(), /allowed once|Saved\./, `${what}: nothing ran`);
    };
    await page.keyboard.press("Enter");
    await unanswered("an Enter");
    await page.keyboard.type("And draw the chart");
    await page.keyboard.press("Space");
    await unanswered("a space");
    assert.equal(await input.inputValue(), "And draw the chart ", "the typed text is kept, the space with it");
    await page.keyboard.press("Enter");
    await page.locator(".msg.user.waiting").getByText("And draw the chart").waitFor();
    await unanswered("an Enter that sends");
    assert.equal(await input.inputValue(), "");
    assert.match(await page.locator("#queued").innerText(), /1 message waiting: sent when the reply ends/);
    assert.match(await approval.innerText(), /Allow write_note to run\?\n+It changes your data\.\n+\{\n {2}"text": "milk"\n\}/);
    // No button is a default that draws the eye (or a stray Enter).
    assert.equal(await approval.locator("button.primary").count(), 0);
    // Screen readers hear it came; the keyboard reaches it from the
    // message box, once its buttons are enabled.
    assert.equal(await page.locator("#announce").innerText(), "write_note asks to run: answer at the end of the conversation (Shift+Tab from the message box reaches the buttons).");
    await page.waitForFunction(() => [...document.querySelectorAll(".approval button")].every((b) => !b.disabled));
    await input.press("Shift+Tab");
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), "Deny");
    await page.keyboard.press("Tab");
    assert.equal(await page.evaluate(() => document.activeElement?.id), "message");
    await unanswered("Shift+Tab and Tab");
    await shot(page, "ui-1280-approval-and-queue");
    await scan("an approval");
    await approval.getByRole("button", { name: "Allow once" }).click();
    assert.equal(await page.locator("#announce").innerText(), "");
    await see("Saved.");
    // The answer is said once, on its question, and the call's card comes after it.
    assert.equal((await log.innerText()).match(/You allowed write_note once\./g)?.length, 1);
    assert.ok(await page.evaluate(() => {
      const card = [...document.querySelectorAll(".card.tool")].find((c) => c.textContent.includes("write_note"));
      return !!(document.querySelector(".approval").compareDocumentPosition(card) & Node.DOCUMENT_POSITION_FOLLOWING);
    }), "the card comes after its question");
    await see("A blue chart.");
    assert.equal(await page.locator(".msg.user.waiting").count(), 0);
    assert.equal(await page.locator("#queued").isVisible(), false);
    assert.match(await page.locator(".card.tool").filter({ hasText: "write_note" }).locator(".preview").innerText(), /→ notes: milk/);
    const img = page.locator(".pictures img");
    assert.equal(await img.getAttribute("alt"), "image 1 from chart");
    assert.deepEqual(await img.evaluate((el) => [el.complete, el.naturalWidth, el.naturalHeight]), [true, 64, 32]);

    // A failed turn is said once, in the flow, with the provider's words.
    await send("Break it");
    const err = page.locator(".card.turn-error");
    await err.waitFor({ timeout: WAIT_MS });
    assert.match(await err.innerText(), /the model call failed: HTTP 400: The model 'x' does not exist \(invalid_request_error\)/);
    assert.equal(await page.locator("#error").innerText(), "");
    assert.equal((await log.innerText()).match(/does not exist/g).length, 1, "the error is shown once");

    // Stop keeps what streamed, after a reload too.
    await send("Tell me a story");
    await see("Once upon a");
    await page.getByRole("button", { name: "Stop" }).click();
    await see("Stopped: what came before Stop is kept.");
    const kept = await page.locator(".msg.assistant .bubble").last().innerText();
    assert.match(kept, /^Once upon a/);
    assert.doesNotMatch(kept, /all\.$/);
    await shot(page, "ui-1280-stopped");

    // The catalogue: searched, filtered by source, each group's cost and
    // whether it is loaded.
    await page.locator("#panel-catalogue > summary").click();
    await page.locator("#catalogue-search").fill("draw a chart");
    assert.equal(await page.locator("#catalogue-count").innerText(), "1 tool in 1 group match.");
    assert.match(await page.locator(".cat-group").first().innerText(), /Charts\s*1 tool · the server's · [\d,]+ tokens\s*loaded/);
    await page.locator("#catalogue-search").fill("");
    await page.locator("#catalogue-source").selectOption("user");
    assert.deepEqual(await page.locator(".cat-group .gname").allInnerTexts(), ["Notes"]);
    await shot(page, "ui-1280-catalogue");
    await scan("the catalogue");

    // A reload brings the conversation back as it was shown.
    await page.reload();
    await see("A blue chart.");
    const back = await log.innerText();
    assert.match(back, /Loaded Configuration: 17 tools/);
    assert.equal(back.match(/You allowed write_note once\./g)?.length, 1, "the answer, once, in the user's words");
    assert.match(back, /Once upon a/);
    assert.equal(await page.locator(".pictures img").count(), 1);
    assert.match(await page.locator("#sessions li[aria-current=true]").innerText(), /Which model is set\?\s*\d+ messages/);

    // Rename the chat.
    await page.locator("#sessions li[aria-current=true]").getByRole("button", { name: /^Actions for/ }).click();
    await page.locator("#sessions li[aria-current=true]").getByRole("button", { name: /^Rename/ }).click();
    const dialog = page.getByRole("dialog", { name: "Rename the chat" });
    await dialog.getByLabel("Title").fill("Milk and charts");
    await shot(page, "ui-1280-rename");
    await scan("the rename dialog");
    await dialog.getByRole("button", { name: "Rename" }).click();
    await page.locator("#sessions li[aria-current=true]").getByText("Milk and charts").waitFor();
    assert.equal(await page.locator("#session-title").innerText(), "Milk and charts");

    // /clear: a new chat with only the core tools, and no empty chat kept.
    await send("/clear");
    await page.locator("#welcome").waitFor();
    // The meter follows the new chat once its describe answers, which a
    // loaded machine may take a moment over.
    const tools = () => page.locator("#active-tools li").allInnerTexts();
    await page.waitForFunction(() => [...document.querySelectorAll("#active-tools li")].map((li) => li.innerText).join(",") === "load_tool_group", null, { timeout: WAIT_MS }).catch(() => {});
    assert.deepEqual(await tools(), ["load_tool_group"]);
    await page.reload();
    await page.locator("#welcome").waitFor({ timeout: WAIT_MS });
    await page.locator("#sessions").getByText("Milk and charts").waitFor();
    assert.equal(await page.locator("#sessions li").filter({ hasText: /(^|[^\d,])0 messages/ }).count(), 0, "an empty chat is not listed");

    // Delete the old one, after saying yes.
    page.once("dialog", (d) => d.accept());
    await page.locator("#sessions li").filter({ hasText: "Milk and charts" }).getByRole("button", { name: /^Actions for/ }).click();
    await page.locator("#sessions li").filter({ hasText: "Milk and charts" }).getByRole("button", { name: /^Delete/ }).click();
    await page.locator("#sessions").getByText("Milk and charts").waitFor({ state: "detached" });

    // Dark.
    await page.emulateMedia({ colorScheme: "dark" });
    await shot(page, "ui-1280-dark");
    await scan("dark");
    await page.close();

    // A phone: the chat first, the panels in a drawer.
    const phone = await browser.newPage({ viewport: { width: 390, height: 844 } });
    const phoneFailure = watch(phone);
    try {
      await phone.goto(serve.url);
      await phone.locator("#welcome .prompts button").first().waitFor({ timeout: WAIT_MS });
      assert.equal(await phone.locator("#panels").isVisible(), false, "the panels wait in the drawer");
      assert.ok(await phone.getByRole("textbox", { name: "Message" }).isVisible());
      const width = await phone.evaluate(() => document.documentElement.scrollWidth);
      assert.equal(width, 390, "nothing is wider than the screen");
      await shot(phone, "ui-390-welcome");
      await scan("phone", phone);
      const menu = phone.getByRole("button", { name: "Sessions, tools and settings" });
      await menu.click();
      await phone.locator("#panels.open").waitFor();
      assert.equal(await menu.getAttribute("aria-expanded"), "true");
      await phone.locator("#meter").getByText("tokens on tools in this call").waitFor({ timeout: WAIT_MS });
      await phone.waitForTimeout(300);
      await shot(phone, "ui-390-drawer");
      await scan("phone drawer", phone);
      await phone.keyboard.press("Escape");
      await phone.waitForTimeout(300);
      assert.equal(await phone.locator("#panels").isVisible(), false, "Escape closes the drawer");
      assert.equal(await phone.evaluate(() => document.activeElement?.id), "open-panels", "the focus goes back to the menu button");
    } catch (e) {
      throw await phoneFailure(e);
    }
    assert.deepEqual(violations, [], "axe-core found serious or critical violations");
  } catch (e) {
    throw await failure(e);
  } finally {
    await browser.close();
    await serve.close();
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
