// The chat page's chats kept in the browser, in headless Chromium against
// a mocked server that does not keep them (no page_chats, as the worker):
// the panel says where they are, the search box finds them in IndexedDB
// by their messages' words and titles, and the Export menu downloads the
// open chat; the model picker sets the next turn's model. At 1280x800 and 390x844, axe-core clean. The same against the
// real serve, which keeps them, is web/apps/chat/e2e. Skipped when there
// is no Chromium.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import path from "node:path";
import { tmpdir } from "node:os";
import { buildUI } from "../build.mjs";
import { fakeServe, onPage, shot, noChromium, WAIT_MS } from "../../../packages/toolroute/test/browser-harness.js";

const dist = path.join(tmpdir(), "toolroute-ui-chats-" + process.pid);
const CAT = { catalogue: { manifests: [] }, sources: {}, libraries: {} };

test("chats kept in the browser: said so, searched in IndexedDB, exported", { skip: noChromium, timeout: 5 * WAIT_MS }, async () => {
  await buildUI({ out: dist });
  const serve = await fakeServe({ dist, catalogue: CAT, script: ["Lisbon in May is warm.", "Milk and eggs.", "Cheaper now."], models: { model: "fake-1", models: ["fake-1", "fake-2"] } });
  try {
    await onPage({ viewport: { width: 1280, height: 800 }, acceptDownloads: true }, async (page, scan) => {
      await page.goto(serve.url);
      await page.locator("#welcome").waitFor({ timeout: WAIT_MS });
      const where = page.locator("#sessions-where");
      await where.getByText("kept in this browser").waitFor({ timeout: WAIT_MS });
      assert.equal(await where.innerText(), "New chats are kept in this browser; the server's chats are listed too.");
      const input = page.getByRole("textbox", { name: "Message" });
      const chat = async (text, reply) => {
        await input.fill(text);
        await input.press("Enter");
        await page.locator("#log").getByText(reply).waitFor({ timeout: WAIT_MS });
        await page.locator("#stop[disabled]").waitFor();
      };
      await chat("Plan my trip", "Lisbon in May is warm.");
      await page.getByRole("button", { name: "New chat" }).click();
      await page.locator("#welcome").waitFor();
      await chat("A shopping list", "Milk and eggs.");

      const search = page.getByRole("searchbox", { name: "Search chats" });
      await search.fill("lisbon");
      await page.locator("#sessions .snippet mark").getByText("Lisbon").waitFor({ timeout: WAIT_MS });
      assert.deepEqual(await page.locator("#sessions li .t").allInnerTexts(), ["Plan my trip"]);
      assert.equal(await page.locator("#sessions-note").innerText(), "1 chat matches.");
      await shot(page, "chats-browser-1280-search");
      await scan("a search of the browser's chats");
      await search.fill("shopping");
      await page.waitForFunction(() => [...document.querySelectorAll("#sessions li .t")].map((e) => e.textContent).join() === "A shopping list");
      await search.fill("paris");
      await page.locator("#sessions-note").getByText("No chat matches.").waitFor();
      await search.fill("");
      await page.waitForFunction(() => document.querySelectorAll("#sessions li .t").length === 2);

      await page.getByText("Export", { exact: true }).click();
      const [dl] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Export as JSON" }).click()]);
      assert.equal(dl.suggestedFilename(), "a-shopping-list.json");
      const exported = JSON.parse(readFileSync(await dl.path(), "utf8"));
      assert.equal(exported.session.where, "page");
      assert.deepEqual(exported.messages.map((m) => [m.type, m.content]), [["user", "A shopping list"], ["assistant", "Milk and eggs."]]);
      assert.equal(await page.locator("#export-menu").getAttribute("open"), null, "the menu closes once used");

      // The model picker of a chat of this page: the provider's list (here
      // serve's, whose key the page's turns use); the one picked is the
      // model setting, which the next turn calls.
      const picker = page.getByRole("combobox", { name: "Model" });
      assert.deepEqual(await picker.locator("option").allInnerTexts(), ["fake-1 (default)", "fake-2"]);
      await picker.selectOption("fake-2");
      await page.waitForFunction(() => document.getElementById("set-model").value === "fake-2");
      await chat("Something cheaper", "Cheaper now.");
      assert.deepEqual(serve.requests.map((r) => r.body?.model ?? r.model), ["fake-1", "fake-1", "fake-2"]);
      await shot(page, "chats-browser-1280-model");
      await scan("the model picker");

      await page.setViewportSize({ width: 390, height: 844 });
      await page.getByRole("button", { name: "Sessions, tools and settings" }).click();
      await search.fill("milk");
      await page.locator("#sessions .snippet mark").getByText("Milk").waitFor({ timeout: WAIT_MS });
      await shot(page, "chats-browser-390-search");
      await scan("the phone's drawer with a search");
    });
  } finally {
    await serve.close();
    await rm(dist, { recursive: true, force: true });
  }
});
