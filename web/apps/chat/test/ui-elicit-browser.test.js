// An MCP server's question for the user in the chat page, in headless
// Chromium against a mocked `toolroute serve` (browser-harness.js) whose
// server tool asks as serve does (an NDJSON elicitation event, the fields
// the real module reads; POST /api/ui/elicitations/{id} checked by the
// module): the form shows below the call's card, takes no keystroke meant
// elsewhere, says which value will not do, and once answered says what was
// sent, and after a reload the log's record of it. 1280x800 and 390x844, axe-core in each state, screenshots in
// web/apps/chat/e2e/output. Skipped without Chromium.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFile, rm } from "node:fs/promises";
import path from "node:path";
import { tmpdir } from "node:os";
import { fileURLToPath } from "node:url";
import { buildUI } from "../build.mjs";
import { Toolroute } from "../../../packages/toolroute/driver/toolroute.js";
import { createHost } from "../../../packages/toolroute/host/host.js";
import { fakeServe, onPage, shot, noChromium, WAIT_MS } from "../../../packages/toolroute/test/browser-harness.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");
const dist = path.join(tmpdir(), "toolroute-ui-elicit-" + process.pid);
const CAT = {
  catalogue: { tools: [{ name: "order_tea", description: "Orders tea, asking where to send it", parameters: { type: "object", properties: {} }, timeout_seconds: 600 }] },
  sources: {},
  libraries: {},
  server_tools: ["order_tea"],
};
const PARAMS = {
  message: "Where should we send your tea?",
  requestedSchema: {
    type: "object",
    properties: {
      email: { type: "string", title: "Email", format: "email", description: "We send the receipt there." },
      count: { type: "integer", title: "How many", minimum: 1, maximum: 10, default: 1 },
      size: { type: "string", title: "Size", oneOf: [{ const: "s", title: "Small" }, { const: "l", title: "Large" }] },
      gift: { type: "boolean", title: "Gift wrap", default: false },
    },
    required: ["email"],
  },
};

// module answers elicitation ops as serve asks them, with the real module.
async function moduleCheck() {
  const wasm = await WebAssembly.compile(await readFile(path.join(root, "wasm/toolroute.wasm")));
  const host = await createHost({ module: () => Toolroute.instantiate(wasm), provider: { format: "openai", demo: true } });
  return (args) => host.check("elicitation", { server: "shop", params: PARAMS, ...args });
}

for (const [width, height] of [[1280, 800], [390, 844]]) {
  test(`an MCP server's question at ${width}x${height}: the form at the call's card, no stray key answers, a refused value said, what was sent shown`, { skip: noChromium, timeout: 5 * WAIT_MS }, async () => {
    await buildUI({ out: `${dist}-${width}` });
    const check = await moduleCheck();
    const question = (await check({})).args;
    let answered;
    const sent = new Promise((resolve) => (answered = resolve));
    const posted = [];
    const serve = await fakeServe({
      dist: `${dist}-${width}`, catalogue: CAT,
      script: [["order_tea", {}], "Your tea is on its way."],
      tools: {
        order_tea: async ({ req, res }) => {
          assert.match(req.headers.accept ?? "", /application\/x-ndjson/);
          res.writeHead(200, { "content-type": "application/x-ndjson" });
          res.write(JSON.stringify({ type: "elicitation", id: "q1", server: "shop", ...question }) + "\n");
          const a = await sent;
          // As serve answers: the user's answer, as the module words it,
          // for the log to keep.
          res.end(JSON.stringify({ type: "result", result: { status: "success", output: `ordered: ${JSON.stringify({ action: a.action, content: a.content })}`, asked: [a.said] } }) + "\n");
        },
      },
      routes: async (u, body, res) => {
        if (u !== "/api/ui/elicitations/q1") return false;
        const answer = JSON.parse(body);
        posted.push(answer);
        const verdict = await check({ answer });
        res.writeHead(verdict.error ? 400 : 200, { "content-type": "application/json" });
        res.end(JSON.stringify(verdict.error ? { error: verdict.error.message } : verdict.args));
        if (!verdict.error) answered(verdict.args);
        return true;
      },
    });
    try {
      await onPage({ viewport: { width, height } }, async (page, scan) => {
        await page.goto(serve.url);
        const input = page.getByRole("textbox", { name: "Message" });
        const log = page.locator("#log");
        await page.locator("#welcome").waitFor();
        await input.fill("Order me some tea");
        await input.press("Enter");
        const box = page.locator(".elicit");
        await box.waitFor();
        // Below the card of the call it came during.
        assert.equal(await page.evaluate(() => document.querySelector(".elicit").previousElementSibling?.matches(".card.tool")), true);
        assert.match(await box.locator("h3").innerText(), /MCP server 'shop' asks/);
        await box.getByText("Where should we send your tea?").waitFor();
        // A question takes no focus: keys typed meanwhile stay in the
        // message box, and the buttons are disabled until armed.
        assert.equal(await page.evaluate(() => document.activeElement?.id), "message");
        assert.equal(await box.getByRole("button", { name: "Accept" }).isDisabled(), true);
        await page.keyboard.press("Enter");
        await page.keyboard.press("Space");
        await page.waitForFunction(() => [...document.querySelectorAll(".elicit button")].every((b) => !b.disabled));
        assert.equal(posted.length, 0, "no keystroke answered");

        // Enter in a field sends nothing.
        const email = box.getByRole("textbox", { name: /Email/ });
        await email.fill("not-an-address");
        await email.press("Enter");
        assert.equal(posted.length, 0, "Enter in a field sent the form");
        assert.equal(await box.getByRole("spinbutton").count() + await box.getByRole("textbox", { name: /How many/ }).count(), 1);
        await box.getByRole("combobox", { name: "Size" }).selectOption("l");
        await shot(page, `ui-elicit-${width}-asked`);
        await scan("the question");

        // A value that will not do: the module's sentence, the form stays.
        await box.getByRole("button", { name: "Accept" }).click();
        await box.getByText(/an email address \("not-an-address" is not\)/).waitFor();
        assert.equal(posted.length, 1);
        await shot(page, `ui-elicit-${width}-refused`);
        await scan("a refused value");

        // Fixed, with the keyboard: Tab from the field reaches the button.
        await email.fill("ada@example.com");
        await page.waitForFunction(() => [...document.querySelectorAll(".elicit button")].every((b) => !b.disabled));
        await box.getByRole("button", { name: "Accept" }).focus();
        await page.keyboard.press("Enter");
        await log.getByText("Your tea is on its way.").waitFor();
        assert.deepEqual(posted[1], { action: "accept", content: { email: "ada@example.com", count: "1", size: "l", gift: false } });
        const shown = await box.innerText();
        assert.match(shown, /You sent:/);
        assert.match(shown, /Email\s+ada@example\.com/);
        assert.match(shown, /How many\s+1/);
        assert.match(shown, /Gift wrap\s+no/);
        assert.match(shown, /Size\s+Large/, "a choice by its label");
        assert.equal(await box.getByRole("button").count(), 0, "the buttons go once answered");
        assert.match(await log.innerText(), /ordered: \{"action":"accept"/);
        await shot(page, `ui-elicit-${width}-sent`);
        await scan("the answer sent");

        // Read back from the log: the form is gone, what was sent is said
        // below the call's card.
        await page.reload();
        await log.getByText("Your tea is on its way.").waitFor();
        const note = log.locator(".asked");
        assert.equal(await note.count(), 1);
        assert.equal(await note.innerText(), "MCP server 'shop' asked “Where should we send your tea?”. You sent Email: ada@example.com; How many: 1; Size: Large; Gift wrap: no.");
        assert.equal(await page.evaluate(() => document.querySelector(".asked").previousElementSibling?.matches(".card.tool")), true);
        await shot(page, `ui-elicit-${width}-reloaded`);
        await scan("the answer read back");
      });
    } finally {
      await serve.close();
      await rm(`${dist}-${width}`, { recursive: true, force: true });
    }
  });
}
