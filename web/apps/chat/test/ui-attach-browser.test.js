// Attachments in the chat page, in headless Chromium against a mocked
// `toolroute serve` whose fake model records each wire request: an image
// and a text file picked with the paperclip, a file dropped on the message
// box and one pasted into it, each a chip with a remove button; the model
// call carries the image as an image_url part and the text file as text
// under its name; the sent message shows a thumbnail and a name chip, and
// so does a reload; a file the module refuses (neither an image nor text)
// comes back to the composer with the message, and nothing is sent. At
// 1280 and 390 pixels, with axe-core (no serious or critical violations).
import { test } from "node:test";
import assert from "node:assert/strict";
import { rm } from "node:fs/promises";
import path from "node:path";
import { tmpdir } from "node:os";
import { buildUI } from "../build.mjs";
import { fakeServe, launch, watch, axe, shot, noChromium, WAIT_MS } from "../../../packages/toolroute/test/browser-harness.js";

const dist = path.join(tmpdir(), "toolroute-ui-attach-" + process.pid);
const CAT = { catalogue: { groups: [], tools: [] }, sources: {}, libraries: {}, server_tools: [] };
// A 96x64 blue PNG.
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAGAAAABACAIAAABqVuVZAAAAaUlEQVR42u3QMQ0AAAgDsClBGIqRhQNujiZV0FQPhygQJEiQIEGCBAlCkCBBggQJEiQIQYIECRIkSJAgBAkSJEiQIEGCBCFIkCBBggQJEoQgQYIECRIkSBCCBAkSJEiQIEGCECRIkKB/FttBAcN4eiP4AAAAAElFTkSuQmCC";
const NOTES = "Buy tea.\nCall Ann.\n";

test("attachments in the page: the paperclip, drop and paste, chips, the wire request's image part, thumbnails after a reload, a refused file given back", { skip: noChromium, timeout: 4 * WAIT_MS }, async () => {
  await buildUI({ out: dist });
  const serve = await fakeServe({ dist, catalogue: CAT, script: ["A blue picture, and notes to buy tea and call Ann.", "Two more files."] });
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
    const chips = page.locator("#attached .chip");
    await page.locator("#welcome").waitFor({ timeout: WAIT_MS });

    // The paperclip: an image and a text file, each a chip; one removed
    // and picked again.
    const [chooser] = await Promise.all([page.waitForEvent("filechooser"), page.getByRole("button", { name: "Attach files" }).click()]);
    await chooser.setFiles([
      { name: "blue.png", mimeType: "image/png", buffer: Buffer.from(PNG, "base64") },
      { name: "notes.txt", mimeType: "text/plain", buffer: Buffer.from(NOTES) },
      { name: "extra.txt", mimeType: "text/plain", buffer: Buffer.from("not this one") },
    ]);
    assert.deepEqual(await chips.locator(".chip-name").allInnerTexts(), ["blue.png", "notes.txt", "extra.txt"]);
    assert.equal(await chips.first().locator("img.chip-thumb").count(), 1, "the image's chip shows it");
    await page.getByRole("button", { name: "Remove extra.txt" }).click();
    assert.deepEqual(await chips.locator(".chip-name").allInnerTexts(), ["blue.png", "notes.txt"]);
    await input.fill("What is in these?");
    await shot(page, "ui-attach-1280-chips");
    await scan("the composer with chips");

    // Sent: the wire request carries the image as an image_url part and
    // the text file as text under its name.
    await input.press("Enter");
    await page.locator(".msg.assistant").getByText("A blue picture").waitFor({ timeout: WAIT_MS });
    assert.equal(await chips.count(), 0, "the chips go with the message");
    const user = serve.requests[0].body.messages.find((m) => m.role === "user");
    assert.deepEqual(user.content, [
      { type: "image_url", image_url: { url: "data:image/png;base64," + PNG } },
      { type: "text", text: 'What is in these?\n\n<file name="notes.txt">\nBuy tea.\nCall Ann.\n</file>' },
    ]);
    const sent = page.locator(".msg.user").last();
    assert.equal(await sent.locator(".msg-files img").getAttribute("alt"), "blue.png");
    assert.deepEqual(await sent.locator(".msg-files .chip-name").allInnerTexts(), ["notes.txt"]);
    assert.equal(await sent.locator(".bubble").innerText(), "What is in these?");
    await shot(page, "ui-attach-1280-sent");
    await scan("a sent message with files");

    // A file that is neither an image nor text: the module refuses the
    // message before any call, and it comes back to the composer.
    const [again] = await Promise.all([page.waitForEvent("filechooser"), page.getByRole("button", { name: "Attach files" }).click()]);
    await again.setFiles([{ name: "report.pdf", mimeType: "application/pdf", buffer: Buffer.from("%PDF-1.7\n\x00\x01\x02") }]);
    await input.fill("Read this");
    await input.press("Enter");
    await page.locator("#error").getByText('"report.pdf": the file is neither an image').waitFor({ timeout: WAIT_MS });
    assert.equal(await input.inputValue(), "Read this", "the message comes back");
    assert.deepEqual(await chips.locator(".chip-name").allInnerTexts(), ["report.pdf"], "so do its files");
    assert.equal(serve.requests.length, 1, "no model call for the refused message");
    assert.equal(await page.locator(".msg.user").count(), 1, "the refused message is not in the log");
    await shot(page, "ui-attach-1280-refused");
    await scan("a refused file");
    await page.getByRole("button", { name: "Remove report.pdf" }).click();

    // Dropped on the message box, and pasted into it: files alone, sent.
    await page.evaluate(() => {
      const dt = new DataTransfer();
      dt.items.add(new File(["dropped text\n"], "dropped.md", { type: "text/markdown" }));
      const composer = document.getElementById("composer");
      composer.dispatchEvent(new DragEvent("dragover", { dataTransfer: dt, bubbles: true, cancelable: true }));
      composer.dispatchEvent(new DragEvent("drop", { dataTransfer: dt, bubbles: true, cancelable: true }));
    });
    await page.evaluate((png) => {
      const bytes = Uint8Array.from(atob(png), (c) => c.charCodeAt(0));
      const dt = new DataTransfer();
      dt.items.add(new File([bytes], "pasted.png", { type: "image/png" }));
      document.getElementById("message").dispatchEvent(new ClipboardEvent("paste", { clipboardData: dt, bubbles: true, cancelable: true }));
    }, PNG);
    assert.deepEqual(await chips.locator(".chip-name").allInnerTexts(), ["dropped.md", "pasted.png"]);
    await input.fill("");
    await page.getByRole("button", { name: "Send", exact: true }).click();
    await page.locator(".msg.assistant").getByText("Two more files.").waitFor({ timeout: WAIT_MS });
    const second = serve.requests[1].body.messages.filter((m) => m.role === "user").at(-1);
    assert.deepEqual(second.content, [
      { type: "image_url", image_url: { url: "data:image/png;base64," + PNG } },
      { type: "text", text: '<file name="dropped.md">\ndropped text\n</file>' },
    ]);
    // The first message's image goes with every later call.
    assert.equal(serve.requests[1].body.messages.filter((m) => m.role === "user")[0].content[0].type, "image_url");

    // A reload shows what the log keeps: thumbnails and name chips.
    await page.reload();
    await page.locator(".msg.assistant").getByText("Two more files.").waitFor({ timeout: WAIT_MS });
    const users = page.locator(".msg.user");
    assert.equal(await users.count(), 2);
    assert.equal(await users.nth(0).locator(".msg-files img").getAttribute("alt"), "blue.png");
    assert.deepEqual(await users.nth(0).locator(".msg-files .chip-name").allInnerTexts(), ["notes.txt"]);
    assert.equal(await users.nth(1).locator(".msg-files img").getAttribute("alt"), "pasted.png");
    assert.deepEqual(await users.nth(1).locator(".msg-files .chip-name").allInnerTexts(), ["dropped.md"]);
    assert.equal(await users.nth(1).locator(".bubble").count(), 0, "files alone: no empty bubble");
    const loaded = await users.nth(0).locator(".msg-files img").evaluate((img) => img.complete && img.naturalWidth);
    assert.equal(loaded, 96, "the thumbnail is the picture");
    await shot(page, "ui-attach-1280-reload");
    await scan("a reload with files");
    await page.emulateMedia({ colorScheme: "dark" });
    await shot(page, "ui-attach-1280-reload-dark");
    await scan("a reload with files, dark");
    await page.emulateMedia({ colorScheme: "light" });

    // The phone: the sent files and the composer's chips fit the screen.
    await page.setViewportSize({ width: 390, height: 844 });
    const [pick] = await Promise.all([page.waitForEvent("filechooser"), page.getByRole("button", { name: "Attach files" }).click()]);
    await pick.setFiles([
      { name: "a-photo-with-a-rather-long-name-from-the-camera.png", mimeType: "image/png", buffer: Buffer.from(PNG, "base64") },
      { name: "notes.txt", mimeType: "text/plain", buffer: Buffer.from(NOTES) },
    ]);
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.equal(width, 390, "nothing is wider than the screen");
    await shot(page, "ui-attach-390-chips");
    await scan("the phone's composer with chips");
    assert.deepEqual(violations, []);
  } catch (e) {
    throw await failure(e);
  } finally {
    await browser.close();
    await serve.close();
    await rm(dist, { recursive: true, force: true });
  }
});
