// The chat page's layout and its keyboard, in headless Chromium against a
// mocked `toolroute serve` (web/packages/toolroute/test/browser-harness.js),
// at 1280x800 and 390x844: the document never scrolls (only the log and the
// panels do), the log keeps following a reply while the reader is at its
// end (a failed tool card that opens itself included), the phone drawer
// keeps the focus, the meter in tokens whose headline is the sum of its
// legend, code blocks as a reader expects them, the chats' titles given the
// width, the theme toggle, copying a whole reply and the keyboard
// shortcuts; axe-core on each state (no serious or critical finding) and
// screenshots in web/apps/chat/e2e/output. Skipped without Chromium.
import { test } from "node:test";
import assert from "node:assert/strict";
import { rm } from "node:fs/promises";
import path from "node:path";
import { tmpdir } from "node:os";
import { buildUI } from "../build.mjs";
import { fakeServe, launch, watch, axe, shot, noChromium, WAIT_MS } from "../../../packages/toolroute/test/browser-harness.js";

const dist = path.join(tmpdir(), "toolroute-ui-layout-" + process.pid);

// A server tool that fails with a long input, as the demo's mail turn does:
// its card opens itself, taller than the log's "at the end" margin.
const CAT = {
  catalogue: {
    manifests: [],
    groups: [{ name: "mail", display_name: "Mail", description: "Send mail" }],
    tools: [{ name: "send_mail", description: "Send a mail", group: "mail", parameters: { type: "object", properties: { to: { type: "string" }, body: { type: "string" } } }, required_permissions: [], timeout_seconds: 30 }],
  },
  sources: {},
  libraries: {},
  server_tools: ["send_mail"],
};
const TOOLS = { send_mail: { status: "error", error_type: "tool_error", message: "no mail account is connected: connect one with `toolroute google login`" } };

// para is a reply of n paragraphs: a screenful or more.
const para = (n, what) => Array.from({ length: n }, (_, i) => `${what}, paragraph ${i + 1}: ${"words that fill the line ".repeat(6)}`).join("\n\n");

// CODE is a reply with untagged code (which highlight.js once took for
// SQL), tagged code with a tab, and a table with aligned columns.
const CODE = [
  "Untagged:",
  "",
  "```",
  "select the milk from the fridge",
  "update the list",
  "```",
  "",
  "Tagged:",
  "",
  "```go",
  "func main() {",
  "\tfmt.Println(42)",
  "}",
  "```",
  "",
  "| left | centre | right |",
  "| :--- | :---: | ---: |",
  "| a | b | c |",
].join("\n");

const script = () => [
  ...Array.from({ length: 6 }, (_, i) => para(4, `Reply ${i + 1}`)),
  ["load_tool_group", { group_name: "mail" }],
  ["send_mail", { to: "ann@example.com", body: Array.from({ length: 12 }, (_, i) => `line ${i + 1} of the mail`).join("\n") }],
  para(3, "The mail was not sent"),
  CODE,
  { stream: Array(300).fill("and on "), gap: 200 },
];

// scrolls says how far the document scrolls, which must be nothing: only
// the log and the panels scroll.
const scrolls = (page) => page.evaluate(() => ({ over: document.scrollingElement.scrollHeight - innerHeight, y: scrollY, wide: document.scrollingElement.scrollWidth - innerWidth }));
const still = async (page, what) => {
  const s = await scrolls(page);
  assert.ok(s.over <= 0 && s.y === 0 && s.wide <= 0, `${what}: the document does not scroll (${JSON.stringify(s)})`);
};

for (const [width, height] of [[1280, 800], [390, 844]]) {
  const phone = width < 900;
  test(`the page at ${width}x${height}: no document scroll, the log follows, the drawer, the meter, code, titles, theme, copy and shortcuts`, { skip: noChromium, timeout: 5 * WAIT_MS }, async () => {
    const out = dist + "-" + width;
    await buildUI({ out });
    const serve = await fakeServe({ dist: out, catalogue: CAT, script: script(), tools: TOOLS });
    const browser = await launch();
    const page = await browser.newPage({ viewport: { width, height }, hasTouch: phone, permissions: ["clipboard-read", "clipboard-write"] });
    const failure = watch(page);
    const violations = [];
    const scan = async (what) => {
      for (const v of await axe(page)) violations.push(`${width}: ${what}: ${v}`);
    };
    const name = (s) => `ui-layout-${width}-${s}`;
    try {
      await page.goto(serve.url);
      const input = page.getByRole("textbox", { name: "Message" });
      const log = page.locator("#log");
      const send = async (text) => {
        await input.fill(text);
        await input.press("Enter");
      };
      const turnDone = () => page.waitForFunction(() => document.getElementById("stop").disabled, null, { timeout: WAIT_MS });
      // gap is how far the log's end is below what it shows.
      const gap = () => log.evaluate((l) => l.scrollHeight - l.scrollTop - l.clientHeight);
      await page.locator("#welcome .prompts button").first().waitFor({ timeout: WAIT_MS });

      // A long chat: the log scrolls, the document never does.
      for (let i = 1; i <= 6; i++) {
        await send(`Question ${i}`);
        await log.getByText(`Reply ${i}, paragraph 4`).waitFor({ timeout: WAIT_MS });
        await turnDone();
      }
      assert.ok(await log.evaluate((l) => l.scrollHeight > 3 * l.clientHeight), "the chat is several screens long");
      await still(page, "after a long chat");
      assert.ok((await gap()) < 2, `the log shows its end (it stopped ${await gap()} px short)`);

      // The log keeps following when a failed tool card opens itself: the
      // reply after it is in sight.
      await send("Mail Ann the list");
      await log.getByText("The mail was not sent, paragraph 3").waitFor({ timeout: WAIT_MS });
      await turnDone();
      assert.equal(await page.locator(".card.tool.failed").count(), 1);
      assert.ok(await page.locator(".card.tool.failed").evaluate((c) => c.open), "the failed card opened itself");
      assert.ok((await gap()) < 2, `the log follows to the reply's end (it stopped ${await gap()} px short)`);
      // The failed card's input scrolls in a box the keyboard reaches.
      const pre = page.locator(".card.tool.failed pre").first();
      assert.equal(await pre.getAttribute("tabindex"), "0");
      assert.match((await pre.getAttribute("aria-label")) ?? "", /send_mail's input/);
      await shot(page, name("failed-card"));
      await scan("a failed card");

      // A wheel past the log's end, over the log and over the header,
      // moves nothing but the log.
      const box = await log.boundingBox();
      await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
      await page.mouse.wheel(0, 5000);
      await page.waitForTimeout(300);
      await still(page, "after a wheel over the log");
      await page.mouse.move(width / 2, 10);
      await page.mouse.wheel(0, 5000);
      await page.waitForTimeout(300);
      await still(page, "after a wheel over the header");
      if (phone) {
        // A finger's swipe up, on the log and on the header, past the
        // log's end.
        const cdp = await page.context().newCDPSession(page);
        const swipe = async (from, to) => {
          const at = (y) => [{ x: width / 2, y }];
          await cdp.send("Input.dispatchTouchEvent", { type: "touchStart", touchPoints: at(from) });
          for (let y = from; y > to; y -= 20) await cdp.send("Input.dispatchTouchEvent", { type: "touchMove", touchPoints: at(y) });
          await cdp.send("Input.dispatchTouchEvent", { type: "touchEnd", touchPoints: [] });
          await page.waitForTimeout(300);
        };
        await log.evaluate((l) => (l.scrollTop = 0));
        await swipe(box.y + box.height - 20, box.y + 20);
        assert.ok(await log.evaluate((l) => l.scrollTop > 0), "a swipe scrolls the log");
        await log.evaluate((l) => (l.scrollTop = l.scrollHeight));
        await page.waitForTimeout(300);
        for (let i = 0; i < 3; i++) await swipe(box.y + box.height - 20, box.y + 20);
        await still(page, "after swipes on the log");
        await swipe(60, 5);
        await still(page, "after a swipe on the header");
      }
      assert.ok(await page.locator("header.topbar").evaluate((h) => h.getBoundingClientRect().top === 0), "the header stays at the top");
      assert.ok(await page.locator("#composer").evaluate((c) => Math.abs(c.getBoundingClientRect().bottom - innerHeight) < 1), "the composer stays at the bottom");
      await shot(page, name("after-wheel"));

      await send("Show me code");
      await log.locator("table").last().waitFor({ timeout: WAIT_MS });
      await turnDone();

      // Code: untagged code is not highlighted as a language, each block
      // names its language beside Copy, a tab is 4 wide, and the table keeps
      // its columns' alignment.
      const reply = page.locator(".msg.assistant .bubble").last();
      const blocks = reply.locator("pre");
      assert.equal(await blocks.nth(0).locator("code span[class^=hljs-]").count(), 0, "untagged code is plain");
      assert.equal(await blocks.nth(0).locator(".lang").innerText(), "text");
      assert.equal(await blocks.nth(1).locator(".lang").innerText(), "go");
      assert.ok((await blocks.nth(1).locator("code span[class^=hljs-]").count()) > 0, "tagged code is highlighted");
      assert.equal(await blocks.nth(1).evaluate((p) => getComputedStyle(p).tabSize), "4");
      assert.deepEqual(await reply.locator("table tr").last().locator("td").evaluateAll((tds) => tds.map((td) => getComputedStyle(td).textAlign)), ["left", "center", "right"]);

      // Copy the whole reply, as written.
      await reply.locator("xpath=..").getByRole("button", { name: "Copy the reply" }).click();
      assert.equal(await page.evaluate(() => navigator.clipboard.readText()), CODE);
      await shot(page, name("code"));
      await scan("code blocks");

      // The keyboard shortcuts, listed in the page; ? in the message box
      // is typed, not a shortcut.
      await input.focus();
      await page.keyboard.type("why?");
      assert.equal(await input.inputValue(), "why?");
      assert.equal(await page.locator("#keys-dialog").isVisible(), false, "? typed in the box opens nothing");
      await input.fill("");
      await log.focus();
      await page.keyboard.press("Shift+Slash");
      const keys = page.getByRole("dialog", { name: "Keyboard shortcuts" });
      await keys.waitFor();
      assert.match(await keys.innerText(), /New chat[\s\S]*Focus the message box[\s\S]*Stop the reply[\s\S]*Copy the last reply/);
      await shot(page, name("shortcuts"));
      await scan("the shortcuts dialog");
      await page.keyboard.press("Escape");
      await keys.waitFor({ state: "hidden" });
      // Focus the box, copy the last reply.
      await log.focus();
      await page.keyboard.press("Shift+Escape");
      assert.equal(await page.evaluate(() => document.activeElement?.id), "message");
      await page.evaluate(() => navigator.clipboard.writeText(""));
      await page.keyboard.press("Control+Shift+C");
      await page.waitForFunction(async () => (await navigator.clipboard.readText()) !== "");
      assert.equal(await page.evaluate(() => navigator.clipboard.readText()), CODE);
      // Stop the reply from the message box, which keeps what is typed.
      await send("Go on");
      await log.getByText("and on and on").first().waitFor({ timeout: WAIT_MS });
      // Reading back stops the following; back at the end, it follows again.
      const grown = async () => {
        const before = await log.evaluate((l) => l.scrollHeight);
        await page.waitForFunction((h) => document.getElementById("log").scrollHeight > h, before, { timeout: WAIT_MS });
      };
      await log.evaluate((l) => (l.scrollTop = 0));
      await grown();
      await grown();
      assert.equal(await log.evaluate((l) => l.scrollTop), 0, "a reader reading back is left where they are");
      await log.evaluate((l) => (l.scrollTop = l.scrollHeight));
      await grown();
      await grown();
      assert.ok((await gap()) < 2, `back at the end, the log follows again (${await gap()} px short)`);
      await input.focus();
      await page.keyboard.type("next");
      await page.keyboard.press("Escape");
      await log.getByText("Stopped: what came before Stop is kept.").waitFor({ timeout: WAIT_MS });
      assert.equal(await input.inputValue(), "next");
      await input.fill("");
      await still(page, "after the turns");

      // The panels: opening them and scrolling their last part into view
      // scrolls them, not the document; on a phone, the drawer opens on
      // the chats and keeps the focus.
      if (phone) {
        await page.getByRole("button", { name: "Sessions, tools and settings" }).click();
        await page.locator("#panels.open").waitFor();
        await page.waitForTimeout(300);
        const top = await page.evaluate(() => {
          const first = [...document.querySelectorAll("#panels > .panel")].sort((a, b) => a.getBoundingClientRect().top - b.getBoundingClientRect().top)[0];
          return first.id;
        });
        assert.equal(top, "panel-sessions", "the drawer opens on the chats");
        assert.equal(await page.evaluate(() => document.activeElement?.id), "close-panels");
        // Tab and Shift+Tab stay in the drawer.
        const outside = [];
        for (let i = 0; i < 40; i++) {
          await page.keyboard.press("Tab");
          if (!(await page.evaluate(() => document.getElementById("panels").contains(document.activeElement)))) outside.push(await page.evaluate(() => document.activeElement?.outerHTML.slice(0, 80)));
        }
        await page.locator("#close-panels").focus();
        await page.keyboard.press("Shift+Tab");
        if (!(await page.evaluate(() => document.getElementById("panels").contains(document.activeElement)))) outside.push(await page.evaluate(() => document.activeElement?.outerHTML.slice(0, 80)));
        assert.deepEqual(outside, [], "the focus stays in the open drawer");
      }
      for (const id of ["panel-catalogue", "panel-settings"]) await page.locator(`#${id} > summary`).click();
      await page.locator("#set-mcp").evaluate((e) => e.scrollIntoView());
      await page.locator("#set-mcp").focus();
      await page.waitForTimeout(300);
      await still(page, "after the panels scrolled");
      assert.ok(await page.locator("#panels").evaluate((p) => p.scrollTop > 0), "the panels scrolled");

      // The meter: in tokens, its headline the sum of its legend.
      await page.locator("#meter").getByText("tokens on tools in this call").waitFor({ timeout: WAIT_MS });
      const meter = await page.locator("#meter").evaluate((m) => ({
        head: Number(m.querySelector(".headline strong").textContent.replace(/[^\d]/g, "")),
        sizes: [...m.querySelectorAll(".legend .size")].map((s) => Number(s.textContent.replace(/[^\d]/g, ""))),
      }));
      assert.ok(meter.sizes.length >= 2, JSON.stringify(meter));
      assert.equal(meter.head, meter.sizes.reduce((a, b) => a + b, 0), "the headline is the sum of the legend");
      assert.doesNotMatch(await page.locator("#panels").innerText(), /\bbytes\b/, "no figure in bytes");
      assert.doesNotMatch(await log.innerText(), /\d bytes\b/, "no figure in bytes in the log");

      // The chats' titles get the width: their actions wait in a menu.
      const chat = page.locator("#sessions li[aria-current=true]");
      const title = chat.locator(".t");
      assert.ok(await title.evaluate((t) => t.scrollWidth <= t.clientWidth), "the title is not cut");
      await chat.getByRole("button", { name: /^Actions for/ }).click();
      await chat.getByRole("button", { name: /^Rename/ }).waitFor();
      await shot(page, name("panels"));
      await scan("the panels");
      await page.keyboard.press("Escape");
      await chat.getByRole("button", { name: /^Rename/ }).waitFor({ state: "hidden" });
      if (phone) assert.ok(await page.locator("#panels.open").isVisible(), "Escape closes the chat's menu alone");
      await still(page, "after the chat's menu");
      const drawer = async () => {
        if (!phone) return;
        await page.getByRole("button", { name: "Sessions, tools and settings" }).click();
        await page.locator("#panels.open").waitFor();
      };

      // The theme: dark, kept across a reload, then back to the system's.
      await page.locator("#theme").selectOption("dark");
      await page.reload();
      await page.locator(".msg.assistant").first().waitFor({ timeout: WAIT_MS });
      assert.equal(await page.locator("#theme").inputValue(), "dark");
      await drawer();
      assert.equal(await page.evaluate(() => getComputedStyle(document.body).backgroundColor), "rgb(21, 23, 26)");
      await still(page, "after a reload");
      await shot(page, name("dark"));
      await scan("dark");
      await page.locator("#theme").selectOption("light");
      await page.emulateMedia({ colorScheme: "dark" });
      assert.equal(await page.evaluate(() => getComputedStyle(document.body).backgroundColor), "rgb(255, 255, 255)", "light holds against a dark system");
      await page.locator("#theme").selectOption("system");
      assert.equal(await page.evaluate(() => getComputedStyle(document.body).backgroundColor), "rgb(21, 23, 26)", "system follows the system");

      // New chat from the keyboard.
      await page.keyboard.press("Control+Shift+O");
      await page.locator("#welcome").waitFor({ timeout: WAIT_MS });
      // The new chat's box takes the focus once the chat is open.
      await page.waitForFunction(() => document.activeElement?.id === "message", null, { timeout: WAIT_MS });
      assert.deepEqual(violations, [], "axe-core found serious or critical violations");
    } catch (e) {
      throw await failure(e);
    } finally {
      await browser.close();
      await serve.close();
      await rm(out, { recursive: true, force: true });
    }
  });
}
