// End to end in real Chromium (headless, Debian's package, driven by
// playwright-core): `toolroute serve` against a scripted OpenAI-compatible
// server on loopback. A message makes the model load a group and call one
// of its tools; after a reload of the page the conversation is back, and
// the next message calls the group's tool without loading it again, its
// schema already sent. Screenshots go to web/e2e/output/.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn, execFileSync } from "node:child_process";
import { createServer } from "node:http";
import { mkdtempSync, mkdirSync, rmSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, "..", "..");
const output = join(here, "output");
const chromiumPath = process.env.CHROMIUM || "/usr/bin/chromium";

// The scripted model: each request gets the next reply, streamed as the
// Chat Completions API streams; every request is kept.
const script = [
  { call: ["load_tool_group", { group_name: "config" }] },
  { call: ["list_settings", {}] },
  { text: "The model is fake-1." },
  { call: ["list_env_vars", {}] },
  { text: "No variables are set." },
];
const requests = [];
let model, serve, browser, work;

function chunk(delta, finish) {
  return "data: " + JSON.stringify({ id: "c", object: "chat.completion.chunk", model: "fake-1", choices: [{ index: 0, delta, finish_reason: finish }] }) + "\n\n";
}

function startModel() {
  return new Promise((resolve) => {
    const srv = createServer((req, res) => {
      let body = "";
      req.on("data", (d) => (body += d));
      req.on("end", () => {
        const parsed = JSON.parse(body);
        requests.push(parsed);
        const reply = script[requests.length - 1];
        if (!reply) {
          res.writeHead(500, { "content-type": "application/json" });
          res.end(JSON.stringify({ error: { message: "the script has no more replies" } }));
          return;
        }
        res.writeHead(200, { "content-type": "text/event-stream" });
        if (reply.text) {
          res.write(chunk({ role: "assistant", content: reply.text }, null));
          res.write(chunk({}, "stop"));
        } else {
          const [name, args] = reply.call;
          res.write(chunk({ role: "assistant", tool_calls: [{ index: 0, id: "call_" + requests.length, type: "function", function: { name, arguments: JSON.stringify(args) } }] }, null));
          res.write(chunk({}, "tool_calls"));
        }
        res.end("data: [DONE]\n\n");
      });
    });
    srv.listen(0, "127.0.0.1", () => resolve(srv));
  });
}

function startServe(bin, env) {
  return new Promise((resolve, reject) => {
    const proc = spawn(bin, ["serve", "--port", "0", "--no-watch"], { env, stdio: ["ignore", "pipe", "pipe"] });
    let out = "", err = "";
    proc.stderr.on("data", (d) => (err += d));
    proc.stdout.on("data", (d) => {
      out += d;
      const m = /serving on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) resolve({ proc, url: m[1] });
    });
    proc.on("exit", (code) => reject(new Error("toolroute serve exited " + code + ": " + err)));
  });
}

before(async () => {
  assert.ok(existsSync(chromiumPath), chromiumPath + " is missing: make test installs Debian's chromium (or set CHROMIUM)");
  rmSync(output, { recursive: true, force: true });
  mkdirSync(output, { recursive: true });
  work = mkdtempSync(join(tmpdir(), "toolroute-e2e-"));
  const bin = join(work, "toolroute");
  execFileSync("go", ["build", "-o", bin, "./host/cmd/toolroute"], { cwd: repo, stdio: "inherit" });
  model = await startModel();
  const env = {
    PATH: process.env.PATH, HOME: work,
    XDG_CONFIG_HOME: join(work, "config"), XDG_DATA_HOME: join(work, "data"), XDG_CACHE_HOME: join(work, "cache"),
    OPENAI_BASE_URL: "http://127.0.0.1:" + model.address().port + "/v1", OPENAI_API_KEY: "sk-test", TOOLROUTE_MODEL: "fake-1",
  };
  serve = await startServe(bin, env);
  browser = await chromium.launch({ executablePath: chromiumPath, headless: true, args: ["--no-sandbox"] });
});

after(async () => {
  await browser?.close();
  serve?.proc.kill();
  model?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

const toolNames = (r) => (r.tools || []).map((t) => t.function.name);

test("a group loaded before a reload stays loaded after it", async () => {
  const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
  const consoleLines = [];
  page.on("console", (m) => consoleLines.push(m.type() + ": " + m.text()));
  page.on("pageerror", (e) => consoleLines.push("pageerror: " + e.message));
  page.on("response", (r) => consoleLines.push("response: " + r.request().method() + " " + r.url() + " " + r.status()));
  await page.goto(serve.url);
  const input = page.getByRole("textbox", { name: "Message" });
  await input.fill("Which model is set?");
  await input.press("Enter");
  const log = page.locator("#log");
  // see waits for a text in the conversation, saying what the page shows
  // when it does not come.
  const see = (text) => log.getByText(text).first().waitFor({ timeout: 30000 }).catch(async (e) => {
    await page.screenshot({ path: join(output, "failed.png"), fullPage: true });
    throw new Error(e.message + "\npage log:\n" + (await log.innerText()) + "\nmodel requests: " + requests.length + "\nconsole:\n" + consoleLines.join("\n"));
  });
  await see("The model is fake-1.");
  const first = await log.innerText();
  assert.match(first, /\[loaded group config: list_settings, set_setting/);
  assert.match(first, /→ list_settings \{\}/);
  assert.match(first, /← - model = fake-1/);
  await page.screenshot({ path: join(output, "1-group-loaded.png"), fullPage: true });

  await page.reload();
  await see("The model is fake-1.");
  await page.screenshot({ path: join(output, "2-after-reload.png"), fullPage: true });

  await input.fill("Any variables?");
  await input.press("Enter");
  await see("No variables are set.");
  const second = await log.innerText();
  assert.match(second, /→ list_env_vars \{\}/);
  assert.equal(second.match(/→ load_tool_group/g).length, 1, "the group is loaded once, in the first turn");
  await page.screenshot({ path: join(output, "3-tool-called-again.png"), fullPage: true });

  assert.equal(requests.length, 5);
  assert.ok(!toolNames(requests[0]).includes("list_settings"), "the first call sends only the core tools");
  for (const name of ["list_settings", "list_env_vars", "set_env_var"]) {
    assert.ok(toolNames(requests[3]).includes(name), "after the reload the first call sends " + name);
  }
  const calls = requests[4].messages.filter((m) => m.tool_calls).flatMap((m) => m.tool_calls.map((c) => c.function.name));
  assert.equal(calls.filter((n) => n === "load_tool_group").length, 1, "the last request's history calls load_tool_group once, in the first turn");
});
