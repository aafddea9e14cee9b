// pdf_render_page in the chat page, in headless Chromium: the page's worker
// draws a PDF kept in this browser's files on an OffscreenCanvas with
// pdf.js and the standard fonts the build serves beside the page; the
// picture is shown under the result, and the model is sent the result's
// text (the OpenAI format carries no images in a tool result: the
// placeholder stands for it). Skipped when there is no Chromium.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFile, rm } from "node:fs/promises";
import path from "node:path";
import { tmpdir } from "node:os";
import { buildUI } from "../build.mjs";
import { fakeServe, launch, watch, axe, shot, noChromium, WAIT_MS } from "../../../packages/toolroute/test/browser-harness.js";

const dist = path.join(tmpdir(), "toolroute-ui-pdf-" + process.pid);
const repo = path.join(path.dirname(new URL(import.meta.url).pathname), "..", "..", "..", "..");
// The fixture's bytes as one character each, as the JS hosts keep a
// binary file.
const PDF = (await readFile(path.join(repo, "testdata", "pdf", "two-pages.pdf"))).toString("latin1");
const IMAGE_PDF = imagePDF();

// imagePDF writes a one-page PDF whose page is a picture: a 2 x 2 RGB
// image (red, green, blue, yellow) drawn over the page, in ASCIIHex so
// the file is text the fs bridge keeps.
function imagePDF() {
  const hex = "ff0000 00ff00 0000ff ffff00>";
  const content = "q 400 0 0 400 100 200 cm /Im1 Do Q";
  const objects = [
    "<< /Type /Catalog /Pages 2 0 R >>",
    "<< /Type /Pages /Kids [3 0 R] /Count 1 /MediaBox [0 0 600 800] >>",
    "<< /Type /Page /Parent 2 0 R /Resources << /XObject << /Im1 4 0 R >> >> /Contents 5 0 R >>",
    `<< /Type /XObject /Subtype /Image /Width 2 /Height 2 /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /ASCIIHexDecode /Length ${hex.length} >>\nstream\n${hex}\nendstream`,
    `<< /Length ${content.length} >>\nstream\n${content}\nendstream`,
  ];
  let out = "%PDF-1.7\n";
  const offsets = [];
  objects.forEach((o, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${o}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n` + offsets.map((n) => `${String(n).padStart(10, "0")} 00000 n \n`).join("");
  return out + `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
}

// A user's tool that keeps the PDF in the page's files, as a download
// would.
const CAT = {
  catalogue: {
    manifests: [
      { file: "put_pdf.json", source: "user/put_pdf.js", text: JSON.stringify({ name: "put_pdf", description: "Keep the quarterly PDF in the files", function: "put", requiredPermissions: ["write"], parameters: { type: "object", properties: {} } }) },
    ],
  },
  sources: { "user/put_pdf.js": `function put(){ fs.writeFile('docs/q.pdf', ${JSON.stringify(PDF)}); fs.writeFile('docs/img.pdf', ${JSON.stringify(IMAGE_PDF)}); return 'kept docs/q.pdf and docs/img.pdf'; }` },
  libraries: {},
};

test("the page renders a PDF page with pdf.js and shows it under the result", { skip: noChromium, timeout: 5 * WAIT_MS }, async () => {
  await buildUI({ out: dist });
  const serve = await fakeServe({
    dist, catalogue: CAT,
    script: [["put_pdf", {}], ["load_tool_group", { group_name: "pdf" }], ["pdf_render_page", { path: "docs/q.pdf", page: 1 }], ["pdf_render_page", { path: "docs/img.pdf" }], "It is a page of quarterly notes."],
  });
  const browser = await launch();
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const failure = watch(page);
  try {
    await page.goto(serve.url);
    await page.locator("#welcome .prompts button").first().waitFor({ timeout: WAIT_MS });
    const input = page.getByRole("textbox", { name: "Message" });
    await input.fill("Show me page 1 of the quarterly PDF");
    await input.press("Enter");
    const approval = page.locator(".approval");
    await approval.waitFor({ timeout: WAIT_MS });
    await approval.getByRole("button", { name: "Allow once" }).click();
    await page.locator("#log").getByText("It is a page of quarterly notes.").waitFor({ timeout: WAIT_MS });

    // The group lists the render tool here.
    const group = page.locator(".card.group").filter({ hasText: "PDF Tools" });
    assert.deepEqual(await group.locator(".tags li").allInnerTexts(), ["pdf_info", "pdf_extract_text", "pdf_render_page"]);
    // The card's picture is the page at 1568 pixels on its long side
    // (612 x 792 pt), drawn: its text is there in dark pixels.
    const card = page.locator(".card.tool").filter({ has: page.locator(".name", { hasText: "pdf_render_page" }) }).first();
    assert.equal(await card.locator(".state").innerText(), "done");
    assert.match(await card.locator(".preview").innerText(), /→ Page 1 of 2 of docs\/q\.pdf, 1212 x 1568 px: \[image image\/png, \d+ bytes\]/);
    const img = card.locator(".pictures img");
    assert.equal(await img.getAttribute("alt"), "image 1 from pdf_render_page");
    assert.equal(await card.evaluate((el) => el.open), false);
    assert.ok(await img.isVisible(), "the picture is in sight with the card closed");
    const drawn = await img.evaluate(pixels);
    assert.equal(drawn.w, 1212);
    assert.equal(drawn.h, 1568);
    assert.ok(drawn.white > drawn.w * drawn.h * 0.9, `a white page: ${JSON.stringify(drawn)}`);
    assert.ok(drawn.dark > 1500, `text drawn in Helvetica from the served fonts: ${JSON.stringify(drawn)}`);
    // A page that is a picture draws the picture: colour.
    const second = page.locator(".card.tool").filter({ has: page.locator(".name", { hasText: "pdf_render_page" }) }).nth(1);
    assert.equal(await second.locator(".state").innerText(), "done");
    const picture = await second.locator(".pictures img").evaluate(pixels);
    assert.ok(picture.colour > 1000, `the page's image is drawn: ${JSON.stringify(picture)}`);
    await card.locator(".pictures").scrollIntoViewIfNeeded();
    await shot(page, "ui-1280-pdf-render");
    for (const v of await axe(page)) assert.fail("accessibility: " + v);

    // The model read the result's text, its placeholder standing for the
    // picture in the OpenAI format.
    const last = serve.requests[3];
    assert.ok(last, `four model calls: ${serve.requests.length}`);
    const body = typeof last.body === "string" ? JSON.parse(last.body) : last.body;
    const sent = body.messages.filter((m) => m.role === "tool").map((m) => m.content);
    assert.match(sent.at(-1), /^Page 1 of 2 of docs\/q\.pdf, 1212 x 1568 px: \[image image\/png, \d+ bytes\]$/);
  } catch (e) {
    throw await failure(e);
  } finally {
    await browser.close();
    await serve.close();
    await rm(dist, { recursive: true, force: true });
  }
});

// pixels counts an image's dark, white and coloured pixels, in the page.
function pixels(el) {
  const c = document.createElement("canvas");
  c.width = el.naturalWidth;
  c.height = el.naturalHeight;
  const ctx = c.getContext("2d");
  ctx.drawImage(el, 0, 0);
  const px = ctx.getImageData(0, 0, c.width, c.height).data;
  let dark = 0, white = 0, colour = 0;
  for (let i = 0; i < px.length; i += 4) {
    const l = (px[i] + px[i + 1] + px[i + 2]) / 3;
    if (Math.max(px[i], px[i + 1], px[i + 2]) - Math.min(px[i], px[i + 1], px[i + 2]) > 60) colour++;
    if (l < 100) dark++;
    else if (l > 250) white++;
  }
  return { w: el.naturalWidth, h: el.naturalHeight, dark, white, colour };
}
