// Approvals in the chat page, in headless Chromium against a mocked
// `toolroute serve` (browser-harness.js): create_js_tool asks with the code
// it would keep shown whole and highlighted, what it does in words, the
// answer said once in the user's words, before the call's card; a denial
// shows no card in the model's words, after a reload too. 1280x800 and
// 390x844, axe-core in each state, screenshots in web/apps/chat/e2e/output.
// Skipped without Chromium.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFile, rm } from "node:fs/promises";
import path from "node:path";
import { tmpdir } from "node:os";
import { buildUI } from "../build.mjs";
import { fakeServe, onPage, shot, noChromium, WAIT_MS } from "../../../packages/toolroute/test/browser-harness.js";

const dist = path.join(tmpdir(), "toolroute-ui-approval-" + process.pid);
const manifests = path.join(path.dirname(new URL(import.meta.url).pathname), "..", "..", "..", "..", "manifests");
const CAT = {
  catalogue: { manifests: [{ file: "builtin/js_tool_management.json", source: "builtin/js_tool_management.js", text: await readFile(path.join(manifests, "js_tool_management.json"), "utf8") }] },
  sources: { "builtin/js_tool_management.js": await readFile(path.join(manifests, "js_tool_management.js"), "utf8") },
  libraries: {},
};
const CODE = "function execute(params) {\n  // Celsius to Fahrenheit\n  return params.celsius * 9 / 5 + 32;\n}";
const TOOL = { name: "c_to_f", description: "Converts Celsius to Fahrenheit", parameters: { type: "object", properties: { celsius: { type: "number" } }, required: ["celsius"] }, code: CODE };

for (const [width, height] of [[1280, 800], [390, 844]]) {
  test(`approvals at ${width}x${height}: the code to trust shown, words for what it does, the answer once in the user's words`, { skip: noChromium, timeout: 5 * WAIT_MS }, async () => {
    await buildUI({ out: `${dist}-${width}` });
    const serve = await fakeServe({
      dist: `${dist}-${width}`, catalogue: CAT,
      script: [["load_tool_group", { group_name: "js_tool_management" }], ["create_js_tool", TOOL], "I did not create it."],
    });
    try {
      await onPage({ viewport: { width, height } }, async (page, scan) => {
        await page.goto(serve.url);
        const input = page.getByRole("textbox", { name: "Message" });
        const log = page.locator("#log");
        await page.locator("#welcome").waitFor();
        await input.fill("Make me a Celsius to Fahrenheit tool");
        await input.press("Enter");
        const box = page.locator(".approval");
        await box.waitFor();
        // The code, whole and highlighted (before: only the JSON, with the
        // code as one escaped string).
        const code = box.locator(".code pre code.hljs");
        assert.equal((await code.innerText()).trimEnd(), CODE);
        assert.ok(await code.locator("span.hljs-keyword").count() > 0, "highlighted");
        assert.equal(await box.locator("pre").last().evaluate((e) => e.textContent.includes("params.celsius")), false, "the code is not repeated in the JSON");
        // What it does, in words; no permission's name.
        const does = await box.locator(".does").innerText();
        assert.match(does, /It changes your data\./);
        assert.match(does, /It changes your tools\./);
        assert.doesNotMatch(await box.innerText(), /\btoolfiles\b|\brun_code\b/, "no permission named raw");
        // No card above its question.
        assert.equal(await log.locator(".card.tool").filter({ hasText: "create_js_tool" }).count(), 0);
        await page.waitForFunction(() => [...document.querySelectorAll(".approval button")].every((b) => !b.disabled));
        await shot(page, `ui-approval-${width}-code`);
        await scan("the question");

        await box.getByRole("button", { name: "Deny" }).click();
        await log.getByText("I did not create it.").waitFor();
        const text = await log.innerText();
        assert.equal(text.match(/You denied create_js_tool: it did not run\./g)?.length, 1, "the answer is said once");
        assert.doesNotMatch(text, /The user denied this call|denied \(/, "not in the model's words");
        assert.equal(await log.locator(".card.tool").filter({ hasText: "create_js_tool" }).count(), 0);
        await shot(page, `ui-approval-${width}-denied`);
        await scan("a denial");

        await page.reload();
        await log.getByText("I did not create it.").waitFor();
        const back = await log.innerText();
        assert.equal(back.match(/You denied create_js_tool: it did not run\./g)?.length, 1);
        assert.doesNotMatch(back, /The user denied this call/);
        await scan("a denial read back");
      });
    } finally {
      await serve.close();
      await rm(`${dist}-${width}`, { recursive: true, force: true });
    }
  });
}
