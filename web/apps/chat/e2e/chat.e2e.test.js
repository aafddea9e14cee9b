// End to end in real Chromium (headless, Debian's package, driven by
// playwright-core): `toolroute serve` against a scripted OpenAI-compatible
// server on loopback. A message makes the model load a group and call one
// of its tools; after a reload of the page the conversation is back, and
// the next message calls the group's tool without loading it again, its
// schema already sent. The page is opened at the one-use sign-in link serve
// prints, which becomes a cookie; without it the page says what to do, and
// --open signs the browser in through a file, the token in no command line. A tool that
// sends asks first, and the page's buttons answer. Screenshots go to
// web/apps/chat/e2e/output/.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn, execFileSync } from "node:child_process";
import { createServer } from "node:http";
import { mkdtempSync, mkdirSync, rmSync, existsSync, writeFileSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { launch, axe, WAIT_MS } from "../../../packages/toolroute/test/browser-harness.js";

const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, "..", "..", "..", "..");
const output = join(here, "output");
const chromiumPath = process.env.CHROMIUM || "/usr/bin/chromium";

function chunk(delta, finish) {
  return "data: " + JSON.stringify({ id: "c", object: "chat.completion.chunk", model: "fake-1", choices: [{ index: 0, delta, finish_reason: finish }] }) + "\n\n";
}

// startModel is the scripted model: each request gets the next reply,
// streamed as the Chat Completions API streams; every request is kept.
function startModel(script) {
  const requests = [];
  return new Promise((resolve) => {
    const srv = createServer((req, res) => {
      // The model list, as GET /v1/models answers it (serve's model picker).
      if (req.method === "GET" && req.url === "/v1/models") {
        res.writeHead(200, { "content-type": "application/json" });
        return res.end(JSON.stringify({ object: "list", data: [{ id: "fake-1" }, { id: "fake-mini" }] }));
      }
      let body = "";
      req.on("data", (d) => (body += d));
      req.on("end", () => {
        requests.push(JSON.parse(body));
        const reply = script[requests.length - 1];
        if (!reply) {
          res.writeHead(500, { "content-type": "application/json" });
          res.end(JSON.stringify({ error: { message: "the script has no more replies" } }));
          return;
        }
        if (reply.status) {
          res.writeHead(reply.status, { "content-type": "application/json" });
          res.end(JSON.stringify({ error: { message: reply.message ?? "failed", type: "server_error" } }));
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
    srv.listen(0, "127.0.0.1", () => resolve({ srv, requests }));
  });
}

function startServe(args, env, { watch = false } = {}) {
  return new Promise((resolve, reject) => {
    const proc = spawn(bin, ["serve", "--port", "0", ...(watch ? [] : ["--no-watch"]), ...args], { env, stdio: ["ignore", "pipe", "pipe"] });
    let out = "", err = "";
    proc.stderr.on("data", (d) => (err += d));
    proc.stdout.on("data", (d) => {
      out += d;
      // The one-use sign-in link: opening it gives the browser the cookie.
      const m = /serving on ((http:\/\/127\.0\.0\.1:\d+)\/\?login=(\w+))/.exec(out);
      if (m) resolve({ proc, open: m[1], url: m[2] });
    });
    proc.on("exit", (code) => reject(new Error("toolroute serve exited " + code + ": " + err)));
  });
}

let bin, browser, work;
const cleanups = [];

// setup starts a scripted model and `toolroute serve` on it, in a home of
// its own; files are written into it first (such as user tools).
async function setup(name, script, args = [], files = {}, options = {}) {
  const home = join(work, name);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(home, path)), { recursive: true });
    writeFileSync(join(home, path), text);
  }
  const { srv, requests } = await startModel(script);
  const env = {
    PATH: process.env.PATH, HOME: home,
    XDG_CONFIG_HOME: join(home, "config"), XDG_DATA_HOME: join(home, "data"), XDG_CACHE_HOME: join(work, "cache"),
    OPENAI_BASE_URL: "http://127.0.0.1:" + srv.address().port + "/v1", OPENAI_API_KEY: "sk-test", TOOLROUTE_MODEL: "fake-1",
    ...options.env,
  };
  const serve = await startServe(args, env, options);
  cleanups.push(() => { serve.proc.kill(); srv.close(); });
  // The token API clients send: the one serve keeps, readable by the user.
  const token = readFileSync(join(home, "data", "toolroute", "serve-token"), "utf8").trim();
  return { url: serve.url, open: serve.open, token, requests, home, env };
}

before(async () => {
  assert.ok(existsSync(chromiumPath), chromiumPath + " is missing: make test installs Debian's chromium (or set CHROMIUM)");
  rmSync(output, { recursive: true, force: true });
  mkdirSync(output, { recursive: true });
  work = mkdtempSync(join(tmpdir(), "toolroute-e2e-"));
  bin = join(work, "toolroute");
  execFileSync("go", ["build", "-o", bin, "./cmd/toolroute"], { cwd: repo, stdio: "inherit" });
  browser = await launch();
});

after(async () => {
  await browser?.close();
  for (const c of cleanups) c();
  if (work) rmSync(work, { recursive: true, force: true });
});

// open opens a page at phone width, with what it logs kept for failures,
// and see, which waits for a text in the conversation.
async function open(url, shots) {
  const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
  const lines = [];
  page.on("console", (m) => lines.push(m.type() + ": " + m.text()));
  page.on("pageerror", (e) => lines.push("pageerror: " + e.message));
  page.on("response", (r) => lines.push("response: " + r.request().method() + " " + r.url() + " " + r.status()));
  await page.goto(url);
  const log = page.locator("#log");
  const see = (text) => log.getByText(text).first().waitFor({ timeout: WAIT_MS }).catch(async (e) => {
    await page.screenshot({ path: join(output, shots + "-failed.png"), fullPage: true });
    throw new Error(e.message + "\npage log:\n" + (await log.innerText()) + "\nconsole:\n" + lines.join("\n"));
  });
  const send = async (text) => {
    const input = page.getByRole("textbox", { name: "Message" });
    await input.fill(text);
    await input.press("Enter");
  };
  return { page, log, see, send };
}

const toolNames = (r) => (r.tools || []).map((t) => t.function.name);

test("the Go host: a group loaded before a reload stays loaded after it", async () => {
  const { url, open: withToken, requests } = await setup("go", [
    { call: ["load_tool_group", { group_name: "config" }] },
    { call: ["get_config", {}] },
    { text: "The model is fake-1." },
    { call: ["list_providers", {}] },
    { text: "No providers are stored." },
  ], ["--minimal-page"]);
  const { page, log, see, send } = await open(withToken, "go");
  assert.equal(page.url(), url + "/", "the sign-in code leaves the address bar");
  await send("Which model is set?");
  await see("The model is fake-1.");
  const first = await log.innerText();
  assert.match(first, /\[loaded group config: list_providers, create_provider/);
  assert.match(first, /→ get_config \{\}/);
  assert.match(first, /← - provider = the program's own/);
  await page.screenshot({ path: join(output, "go-1-group-loaded.png"), fullPage: true });

  await page.reload();
  await see("The model is fake-1.");
  await page.screenshot({ path: join(output, "go-2-after-reload.png"), fullPage: true });

  await send("Any providers?");
  await see("No providers are stored.");
  const second = await log.innerText();
  assert.match(second, /→ list_providers \{\}/);
  assert.equal(second.match(/→ load_tool_group/g).length, 1, "the group is loaded once, in the first turn");
  await page.screenshot({ path: join(output, "go-3-tool-called-again.png"), fullPage: true });

  assert.equal(requests.length, 5);
  assert.ok(!toolNames(requests[0]).includes("get_config"), "the first call sends only the core tools");
  for (const name of ["get_config", "list_providers", "manage_env_var"]) {
    assert.ok(toolNames(requests[3]).includes(name), "after the reload the first call sends " + name);
  }
  const calls = requests[4].messages.filter((m) => m.tool_calls).flatMap((m) => m.tool_calls.map((c) => c.function.name));
  assert.equal(calls.filter((n) => n === "load_tool_group").length, 1, "the last request's history calls load_tool_group once, in the first turn");

  // Another browser, without the cookie: the page loads and says what to
  // do; the link already used signs nobody in.
  const stranger = await open(url, "go-no-token");
  await stranger.see("open the sign-in link it printed");
  const again = await browser.newPage();
  const resp = await again.goto(withToken);
  assert.equal(resp.status(), 401, "a used sign-in link is refused");
  assert.match(await again.content(), /this sign-in link was used already or has expired/);
  await again.close();
  await stranger.page.screenshot({ path: join(output, "go-4-no-token.png"), fullPage: true });
  assert.equal(requests.length, 5, "nothing reached the model without the token");
});

// A tool that sends asks before it runs: the turn's stream carries the
// question, the page shows it with three buttons and posts the answer; the
// turn waits for it. Allow once runs the tool; the next call asks again,
// and Deny reaches the model as the user's refusal.
test("the Go host: a tool that sends asks first", async () => {
  const { open: withToken, requests } = await setup("approval", [
    { call: ["send_note", { to: "ada@example.com", text: "Lunch at noon?" }] },
    { text: "Your note to Ada is sent." },
    { call: ["send_note", { to: "ada@example.com", text: "Lunch tomorrow?" }] },
    { text: "I did not send it." },
  ], ["--minimal-page"], {
    "config/toolroute/tools/send_note.json": JSON.stringify({
      name: "send_note", description: "Send a note to someone", requiredPermissions: ["send"],
      parameters: { type: "object", properties: { to: { type: "string" }, text: { type: "string" } }, required: ["to", "text"] },
    }),
    "config/toolroute/tools/send_note.js": 'function execute(p) { fs.appendFile("outbox.txt", p.to + ": " + p.text + "\\n"); return "sent to " + p.to }\n',
  });
  const outbox = join(work, "approval", "data", "toolroute", "files", "outbox.txt");
  const sent = () => (existsSync(outbox) ? readFileSync(outbox, "utf8") : "");
  const { page, log, see, send } = await open(withToken, "approval");
  await send("Ask Ada to lunch at noon");
  await see("wants to run.");
  const question = page.getByRole("group", { name: "Allow send_note?" });
  assert.match(await question.innerText(), /It sends something to other people\./);
  assert.match(await question.innerText(), /"text": "Lunch at noon\?"/);
  assert.equal(sent(), "", "nothing is sent before the user answers");
  await page.screenshot({ path: join(output, "approval-1-asked.png"), fullPage: true });

  await question.getByRole("button", { name: "Allow once" }).click();
  await see("Your note to Ada is sent.");
  assert.match(await question.innerText(), /Allowed once/);
  assert.equal(await question.getByRole("button").count(), 0, "the buttons go once answered");
  assert.match(await log.innerText(), /← sent to ada@example\.com/);
  assert.equal(sent(), "ada@example.com: Lunch at noon?\n");
  await page.screenshot({ path: join(output, "approval-2-allowed.png"), fullPage: true });

  // Once is once: the next call asks again; Deny it from the keyboard.
  await send("And tomorrow too");
  const again = page.getByRole("group", { name: "Allow send_note?" }).nth(1);
  await again.getByRole("button", { name: "Deny" }).focus();
  await page.keyboard.press("Enter");
  await see("I did not send it.");
  assert.match(await again.innerText(), /Denied/);
  assert.equal(sent(), "ada@example.com: Lunch at noon?\n", "a denied call does not run");
  assert.match(JSON.stringify(requests[3].messages), /The user denied this call of 'send_note'/);
  await page.screenshot({ path: join(output, "approval-3-denied.png"), fullPage: true });

  // After a reload the log says what was answered, a line each.
  await page.reload();
  await see("I did not send it.");
  const history = await log.innerText();
  assert.match(history, /✓ send_note: allowed once[\s\S]*✗ send_note: denied/);
  assert.doesNotMatch(history, /The user denied this call/, "the denial is said once, not in the model's words too");
  await page.screenshot({ path: join(output, "approval-4-after-reload.png"), fullPage: true });
});

// `toolroute serve --open` (make run): the browser is handed a file, never
// the token or a code, on its command line (every local user can read it);
// the file, readable by the user alone, sends Chromium on to a one-use
// sign-in link, and the page's API calls then carry the cookie.
test("serve --open: the browser signs in through a file, the token on no command line", async () => {
  const argsFile = join(work, "open-args");
  const recorder = join(work, "record-browser");
  writeFileSync(recorder, `#!/bin/sh\nprintf '%s\\n' "$@" > '${argsFile}'\n`, { mode: 0o755 });
  const { url, token, requests } = await setup("open", [], ["--minimal-page", "--open"], {}, { env: { BROWSER: recorder } });
  for (const end = Date.now() + WAIT_MS; Date.now() < end && !existsSync(argsFile);) await new Promise((r) => setTimeout(r, 20));
  const argv = readFileSync(argsFile, "utf8").trim();
  assert.match(argv, /^file:\/\/\/.*sign-in-[^/]*\.html$/, "the browser is given one file");
  assert.ok(!argv.includes(token) && !argv.includes("login="), "no token or code on the browser's command line: " + argv);
  const file = fileURLToPath(argv);
  assert.equal(statSync(file).mode & 0o777, 0o600, "the sign-in file is the user's alone");
  assert.ok(!readFileSync(file, "utf8").includes(token), "the file holds a one-use code, not the token");

  const page = await browser.newPage();
  await page.goto(argv);
  await page.waitForURL(url + "/");
  const health = await page.evaluate(async () => (await fetch("/api/health")).status);
  assert.equal(health, 200, "the page's API calls carry the cookie");
  // The file's link is used up: opened again, it signs nobody in.
  const other = await browser.newContext();
  other.setDefaultTimeout(WAIT_MS);
  const second = await other.newPage();
  await second.goto(argv);
  await second.waitForLoadState("load");
  await second.waitForFunction(() => document.body.innerText.includes("was used already"));
  await other.close();
  await page.close();
  assert.equal(requests.length, 0);
});

// The browser UI served by serve: its chats are serve's sessions, their
// turns run in the program and the page shows them (the same cards as its
// own turns); after a reload the log is read back from serve's store.
test("the browser UI: a group loaded before a reload stays loaded after it", async () => {
  const dist = join(here, "..", "dist");
  assert.ok(existsSync(join(dist, "index.html")), "no built UI in " + dist + ": run node build.mjs in web/apps/chat (make test does)");
  const { open: withToken, url, token, requests } = await setup("ui", [
    { call: ["load_tool_group", { group_name: "text_utils" }] },
    { call: ["word_count", { text: "one two three" }] },
    { text: "It has 3 words." },
    { call: ["shout", { text: "hi there" }] },
    { text: "Shouted." },
  ], ["--ui", dist], {
    "config/toolroute/tools/text_utils.json": JSON.stringify([
      { _meta: true, display_name: "Text Utilities", description: "Count and shout words" },
      { name: "word_count", description: "Count the words of a text", function: "wordCount", parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"] } },
      { name: "shout", description: "A text in capitals", function: "shout", parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"] } },
    ]),
    "config/toolroute/tools/text_utils.js": "function wordCount(p) { return String(p.text.split(/\\s+/).filter(Boolean).length) }\nfunction shout(p) { return p.text.toUpperCase() }\n",
  });
  const { page, log, see, send } = await open(withToken, "ui");
  assert.equal(page.url(), url + "/", "the sign-in code leaves the address bar");
  await send("How many words in 'one two three'?");
  await see("It has 3 words.");
  const first = await log.innerText();
  assert.match(first, /Loaded Text Utilities: 2 tools/);
  assert.equal(await page.locator(".card.tool .name").first().innerText(), "word_count");
  assert.equal(await page.locator(".card.tool .preview").first().innerText(), "→ 3");
  await page.screenshot({ path: join(output, "ui-1-group-loaded.png"), fullPage: true });

  await page.reload();
  await see("It has 3 words.");
  await page.screenshot({ path: join(output, "ui-2-after-reload.png"), fullPage: true });

  await send("Shout 'hi there'");
  await see("Shouted.");
  const second = await log.innerText();
  assert.match(second, /→ HI THERE/);
  assert.equal(second.match(/Loaded Text Utilities/g).length, 1, "the group is loaded once, in the first turn");
  await page.screenshot({ path: join(output, "ui-3-tool-called-again.png"), fullPage: true });

  assert.equal(requests.length, 5);
  assert.ok(!toolNames(requests[0]).includes("word_count"), "the first call sends only the core tools");
  assert.ok(toolNames(requests[3]).includes("shout"), "after the reload the first call sends the group's schemas");
  assert.equal((await fetch(url + "/api/sessions")).status, 401, "the API wants the token");
  const sessions = await (await fetch(url + "/api/sessions", { headers: { authorization: "Bearer " + token } })).json();
  assert.deepEqual(sessions.map((x) => x.title), ["How many words in 'one two three'?"], "serve keeps the page's chat");
});

// serve's MCP servers in the page's catalogue, as serve's health reports
// them: one that refuses toolroute for want of a token is shown apart,
// with what to do in the Go program (toolroute mcp login) and no buttons
// for the page's own config; no group gets a badge without words.
test("the browser UI with serve: an MCP server that needs authorization says to run toolroute mcp login", async () => {
  const dist = join(here, "..", "dist");
  const guard = createServer((req, res) => {
    req.resume();
    res.writeHead(401, { "www-authenticate": 'Bearer error="invalid_token"', "content-type": "application/json" });
    res.end(JSON.stringify({ error: "invalid_token" }));
  });
  await new Promise((r) => guard.listen(0, "127.0.0.1", r));
  cleanups.push(() => guard.close());
  const mcpURL = "http://127.0.0.1:" + guard.address().port + "/mcp";
  const { open: withToken } = await setup("mcp-auth", [], ["--ui", dist], {
    "config/toolroute/mcp.json": JSON.stringify({ mcpServers: { notes: { url: mcpURL } } }),
  });
  const { page } = await open(withToken, "mcp-auth");
  await page.locator("#open-panels").click();
  await page.locator("#panel-catalogue > summary").click();
  const box = page.getByRole("group", { name: "MCP server notes needs authorization" });
  await box.waitFor({ timeout: WAIT_MS });
  assert.match(await box.innerText(), /MCP server 'notes' needs authorization: run `toolroute mcp login notes`/);
  assert.equal(await box.getByRole("button").count(), 0, "serve's config is not the page's: no Edit or Try again");
  await page.locator(".cat-group .badge.auth", { hasText: "needs authorization" }).waitFor();
  for (const text of await page.locator(".cat-group .badge").allInnerTexts()) assert.notEqual(text.trim(), "", "a badge without words");
  await box.scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(output, "serve-mcp-auth.png") });
  assert.deepEqual(await axe(page), [], "axe-core found serious or critical violations");
});

// `make run` with no provider: `toolroute serve --ui web/apps/chat/dist --provider
// demo`. Each welcome prompt of a new chat gets the demo's answer through
// the page (the turn runs in the browser, the model call goes to serve's
// demo), and every tool it calls succeeds.
test("the browser UI: a model call serve's proxy got a 500 for is tried again by the page, each retry shown", async () => {
  const dist = join(here, "..", "dist");
  assert.ok(existsSync(join(dist, "index.html")), "no built UI in " + dist + ": run node build.mjs in web/apps/chat (make test does)");
  const { open: withToken, requests } = await setup("retries", [
    { status: 500, message: "The server had an error" },
    { status: 500, message: "The server had an error" },
    { text: "Third time lucky." },
  ], ["--ui", dist]);
  const { page, log, see, send } = await open(withToken, "retries");
  await send("Hello?");
  // The module's sentences, as the terminal prints them. Before, serve's
  // proxy tried again itself and the page showed nothing for seconds.
  await see("The provider answered 500: trying again in 1 s (retry 1 of 3).");
  await see("The provider answered 500: trying again in 2 s (retry 2 of 3).");
  await see("Third time lucky.");
  assert.equal(await log.locator(".card.retry").count(), 2);
  assert.equal(requests.length, 3, "each try reached the model once");
  await page.screenshot({ path: join(output, "ui-retries.png"), fullPage: true });
  await page.close();
});

test("make run: the browser UI on the demo model answers every welcome prompt, its tool calls succeeding", async () => {
  const dist = join(here, "..", "dist");
  const home = join(work, "run");
  const env = { PATH: process.env.PATH, HOME: home, XDG_CONFIG_HOME: join(home, "config"), XDG_DATA_HOME: join(home, "data"), XDG_CACHE_HOME: join(work, "cache") };
  const serve = await startServe(["--ui", dist, "--provider", "demo"], env);
  cleanups.push(() => serve.proc.kill());
  const { page, log, see } = await open(serve.open, "run");
  await page.locator("#welcome .prompts button").first().waitFor({ timeout: WAIT_MS });
  const prompts = await page.locator("#welcome .prompts button > span:first-child").allInnerTexts();
  assert.ok(prompts.length >= 4, "a new chat offers prompts: " + prompts);
  const expected = {
    "What time is it?": ["get_current_time", "→ "],
    "Load the calendar tools": ["Loaded Google Calendar: 8 tools"],
    "Write a note: water the plants": ["write_file", "read_file", "water the plants"],
    // A group load and a tool of the user's own, which asks first.
    "Make me a tool that converts Celsius to Fahrenheit": ["Loaded JS Tool Management", "create_js_tool", "→ 100 °C is 212 °F"],
  };
  for (const [i, prompt] of prompts.entries()) {
    if (i > 0) {
      await page.getByRole("button", { name: "New chat" }).click();
      await page.locator("#welcome").waitFor();
    }
    await page.getByRole("button", { name: prompt }).click();
    if (prompt.startsWith("Make me a tool")) {
      await page.locator(".approval").waitFor({ timeout: WAIT_MS });
      await page.getByRole("button", { name: "Allow once" }).click();
    }
    await see("To talk to a real model");
    await page.locator("#stop[disabled]").waitFor();
    const text = await log.innerText();
    assert.match(text, /\[demo model\]/);
    assert.doesNotMatch(text, /failed|not_found|Error \(/, `${prompt}: a call failed:\n${text}`);
    for (const want of expected[prompt] ?? []) assert.ok(text.includes(want), `${prompt}: the page does not show ${want}:\n${text}`);
    await page.screenshot({ path: join(output, `run-${i + 1}.png`), fullPage: true });
  }
});

// A tool added to the server's tools folder while the page is open reaches
// the page's next model call: serve watches the folder and streams the
// change (/api/ui/events), the page's worker loads the new catalogue.
test("the browser UI: a tool added on the server is offered on the next call, without a reload", async () => {
  const dist = join(here, "..", "dist");
  const { open: withToken, requests, home } = await setup("live", [
    { call: ["greet", { name: "Ada" }] },
    { text: "Greeted." },
  ], ["--ui", dist], {}, { watch: true });
  const { page, see, send } = await open(withToken, "live");
  await page.locator("#welcome").waitFor({ timeout: WAIT_MS });
  const tools = join(home, "config", "toolroute", "tools");
  mkdirSync(tools, { recursive: true });
  writeFileSync(join(tools, "greet.js"), "function execute(p) { return 'Hello, ' + p.name + '!'; }\n");
  writeFileSync(join(tools, "greet.json"), JSON.stringify({ name: "greet", description: "Greet someone", parameters: { type: "object", properties: { name: { type: "string" } }, required: ["name"] } }));
  // The catalogue panel lists it once the page has the new catalogue.
  await page.waitForFunction(() => document.getElementById("active-tools")?.textContent.includes("greet"), null, { timeout: WAIT_MS });
  await send("Greet Ada");
  await see("Greeted.");
  assert.ok(toolNames(requests[0]).includes("greet"), "the first call after the change offers the new tool");
  assert.match(await page.locator("#log").innerText(), /→ Hello, Ada!/);
  await page.screenshot({ path: join(output, "live-tool.png"), fullPage: true });
});

// js_eval asking for a secret in the page: the approval card shows it as a
// box to tick, and the answer's grant reaches the code (the google bridge
// then asks the server for an account, which has none, instead of refusing
// the call outright).
test("the browser UI: js_eval asks for the Google account, and the grant reaches the code", async () => {
  const dist = join(here, "..", "dist");
  const { open: withToken } = await setup("grant", [
    { call: ["js_eval", { code: "(async () => await google.getAccountEmail())()", secrets: ["google"] }] },
    { text: "Done." },
  ], ["--ui", dist]);
  const { page, see, send } = await open(withToken, "grant");
  await send("Which Google account am I?");
  const card = page.locator(".approval");
  await card.waitFor({ timeout: WAIT_MS });
  assert.match(await card.innerText(), /It asks to read your secrets:/);
  const box = card.getByRole("checkbox", { name: "your Google account" });
  assert.equal(await box.isChecked(), true, "a secret asked for is ticked");
  await page.screenshot({ path: join(output, "grant-1-asked.png"), fullPage: true });
  await card.getByRole("button", { name: "Allow once" }).click();
  await see("Done.");
  const text = await page.locator("#log").innerText();
  assert.match(text, /Google account not connected/, "granted: the bridge asked for the account");
  assert.doesNotMatch(text, /may not use the Google account/);
  await page.screenshot({ path: join(output, "grant-2-ran.png"), fullPage: true });
});

// The UI built into serve, on a first visit: Chromium asks for brotli and
// gets every file of the page and of its worker's start in it, and the
// page's catalogue, decoded to a working page; the bytes over the wire are
// the compressed ones (the module: about a quarter of its 5.5 MB).
test("the built-in UI: a first visit transfers its files compressed", async () => {
  const { open: withToken, url } = await setup("compressed", []);
  const page = await browser.newPage();
  const done = [];
  page.on("requestfinished", async (req) => {
    const resp = await req.response();
    const sizes = await req.sizes();
    const name = new URL(req.url()).pathname.slice(1) || "index.html";
    done.push({ name, status: resp.status(), encoding: resp.headers()["content-encoding"] ?? "", bytes: sizes.responseBodySize });
  });
  await page.goto(withToken);
  assert.equal(page.url(), url + "/");
  await page.locator("#welcome .prompts button").first().waitFor({ timeout: 30000 });
  // The page's chats are serve's, whose turns run in the program: the page
  // needs no module of its own then. A page set to a provider it calls
  // itself fetches the module and the word vectors; fetched here as it
  // fetches them, they must come compressed too.
  await page.evaluate(async () => {
    for (const f of ["toolroute.wasm", "wordvec.bin"]) await (await fetch(f)).arrayBuffer();
  });
  const wanted = ["index.html", "app.css", "app.js", "worker.js", "toolroute.wasm", "wordvec.bin"];
  for (let i = 0; i < 300 && !wanted.every((n) => done.some((d) => d.name === n)); i++) await new Promise((r) => setTimeout(r, 100));
  await page.screenshot({ path: join(output, "compressed-first-visit.png"), fullPage: true });
  for (const n of wanted) assert.ok(done.some((d) => d.name === n), `${n} was not fetched: ${JSON.stringify(done)}`);
  const dist = join(repo, "internal", "webui", "dist");
  const rawSize = (name) => statSync(name === "toolroute.wasm" ? join(repo, "wasm", "toolroute.wasm") : name === "wordvec.bin" ? join(repo, "assets", "wordvec", "vectors.bin") : join(dist, name)).size;
  // Chromium gives no size for a worker's own script and the like (0 or
  // less): those are checked for their coding alone.
  const files = done.filter((d) => d.status !== 302 && !d.name.startsWith("api/"));
  for (const d of files) {
    assert.equal(d.status, 200, JSON.stringify(d));
    assert.equal(d.encoding, "br", `${d.name} came as ${JSON.stringify(d.encoding)}`);
    if (d.bytes > 0) assert.ok(d.bytes < rawSize(d.name), `${d.name}: ${d.bytes} bytes over the wire for a file of ${rawSize(d.name)}`);
  }
  // The page's catalogue, hundreds of KB of JSON, comes compressed too:
  // serve's (api/catalogue) for chats serve keeps, the page's own
  // (api/ui/catalogue) for chats whose turns it runs.
  const catalogue = done.find((d) => d.name === "api/ui/catalogue" || (d.name === "api/catalogue" && d.bytes > 0));
  assert.ok(catalogue && catalogue.status === 200 && catalogue.encoding === "br", JSON.stringify(catalogue));
  const wasm = files.find((d) => d.name === "toolroute.wasm");
  assert.ok(wasm.bytes > 0 && wasm.bytes < rawSize("toolroute.wasm") / 3, `the module: ${wasm.bytes} bytes over the wire for ${rawSize("toolroute.wasm")}`);
  const counted = files.filter((d) => d.bytes > 0);
  console.log(`first visit: ${counted.map((d) => `${d.name} ${d.bytes} (${rawSize(d.name)})`).join(", ")}; the catalogue ${catalogue.bytes}`);
  await page.close();
});

// serve keeps the page's chats: a chat made in the page is a session of
// serve's (GET /api/sessions lists it, its turn ran in the program), one
// made through the API is in the page's list and opens there; the search
// of the chats is serve's (titles and messages); the chat's menu exports
// it as Markdown and as JSON. At 1280x800 and 390x844, axe-core clean.
test("the browser UI with serve: the page's chats are serve's sessions, searched and exported", async () => {
  const dist = join(here, "..", "dist");
  const { open: withToken, url, token, requests } = await setup("chats", [
    { text: "Kyoto in April has the cherry blossoms." },
    { text: "In May it is greener." },
    { text: "Milk and eggs." },
  ], ["--ui", dist]);
  const api = (path, init = {}) => fetch(url + path, { ...init, headers: { ...(init.headers ?? {}), authorization: "Bearer " + token, "content-type": "application/json" } });
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 }, acceptDownloads: true });
  const violations = [];
  const scan = async (what) => {
    for (const v of await axe(page)) violations.push(`${what}: ${v}`);
  };
  const log = page.locator("#log");
  const see = (text) => log.getByText(text).first().waitFor({ timeout: WAIT_MS });
  await page.goto(withToken);
  await page.locator("#welcome").waitFor({ timeout: WAIT_MS });
  const where = page.locator("#sessions-where");
  await where.getByText("kept by the toolroute server").waitFor({ timeout: WAIT_MS });
  assert.equal(await where.innerText(), `Chats are kept by the toolroute server at ${new URL(url).host}: the same chats as toolroute chat and its API.`);

  const input = page.getByRole("textbox", { name: "Message" });
  await input.fill("Plan a trip to Kyoto");
  await input.press("Enter");
  await see("Kyoto in April has the cherry blossoms.");
  await page.locator("#stop[disabled]").waitFor();
  const listed = await (await api("/api/sessions")).json();
  assert.deepEqual(listed.map((x) => [x.title, x.messages]), [["Plan a trip to Kyoto", 2]], "the page's chat is serve's session");
  assert.equal(requests.length, 1);
  assert.equal(await page.locator("#sessions li[aria-current] .t").innerText(), "Plan a trip to Kyoto");

  // The model picker: the provider's list (serve's GET /api/models), the
  // default first; the one picked is the next turn's.
  const picker = page.getByRole("combobox", { name: "Model" });
  await picker.waitFor({ timeout: WAIT_MS });
  assert.deepEqual(await picker.locator("option").allInnerTexts(), ["fake-1 (default)", "fake-mini"]);
  await picker.selectOption("fake-mini");
  await input.fill("And in May?");
  await input.press("Enter");
  await see("In May it is greener.");
  await page.locator("#stop[disabled]").waitFor();
  assert.deepEqual(requests.map((r) => r.model), ["fake-1", "fake-mini"], "the picked model is the next turn's");
  assert.equal(await log.locator(".msg.assistant .role").last().innerText(), "Assistant (fake-mini)");
  await page.screenshot({ path: join(output, "chats-1280-0-model.png") });
  await scan("the model picker");

  // A chat made through the API is in the page's list, and opens there.
  const made = await (await api("/api/sessions", { method: "POST", body: "{}" })).json();
  const turn = await (await api(`/api/sessions/${made.id}/messages`, { method: "POST", body: JSON.stringify({ text: "A shopping list" }) })).text();
  assert.match(turn, /event: done/);
  await page.reload();
  await see("Kyoto in April has the cherry blossoms.");
  const item = page.locator("#sessions li", { hasText: "A shopping list" });
  await item.waitFor({ timeout: WAIT_MS });
  assert.equal(await page.locator("#sessions li").count(), 2);
  await page.screenshot({ path: join(output, "chats-1280-1-list.png") });
  await scan("the list of serve's chats");
  await item.locator("button.open").click();
  await see("Milk and eggs.");

  // The search: a message's words, then a title's.
  const search = page.getByRole("searchbox", { name: "Search chats" });
  await search.fill("cherry");
  await page.locator("#sessions .snippet mark").getByText("cherry").waitFor({ timeout: WAIT_MS });
  assert.deepEqual(await page.locator("#sessions li .t").allInnerTexts(), ["Plan a trip to Kyoto"]);
  assert.equal(await page.locator("#sessions-note").innerText(), "1 chat matches.");
  await page.screenshot({ path: join(output, "chats-1280-2-search.png") });
  await scan("a search of the chats");
  await search.fill("shopping");
  await page.waitForFunction(() => [...document.querySelectorAll("#sessions li .t")].map((e) => e.textContent).join() === "A shopping list");
  await search.fill("tokyo");
  await page.locator("#sessions-note").getByText("No chat matches.").waitFor();
  await search.fill("");
  await page.waitForFunction(() => document.querySelectorAll("#sessions li .t").length === 2);

  // Export, from the chat's menu: the open chat, the shopping list.
  await page.getByText("Export", { exact: true }).click();
  await page.getByRole("button", { name: "Export as Markdown" }).waitFor();
  await page.screenshot({ path: join(output, "chats-1280-3-menu.png") });
  await scan("the chat's menu");
  const [md] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Export as Markdown" }).click()]);
  assert.equal(md.suggestedFilename(), "a-shopping-list.md");
  const mdText = readFileSync(await md.path(), "utf8");
  assert.match(mdText, /^# A shopping list\n/);
  assert.match(mdText, /## You\n\nA shopping list\n\n## Assistant\n\nMilk and eggs\.\n$/);
  await page.getByText("Export", { exact: true }).click();
  const [js] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Export as JSON" }).click()]);
  assert.equal(js.suggestedFilename(), "a-shopping-list.json");
  const exported = JSON.parse(readFileSync(await js.path(), "utf8"));
  assert.deepEqual([exported.toolroute_chat, exported.session.id, exported.session.where], [1, "server:" + made.id, "server"]);
  assert.deepEqual(exported.messages.map((m) => [m.type, m.content]), [["user", "A shopping list"], ["assistant", "Milk and eggs."]]);

  // On a phone: the drawer's list says where the chats are.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: join(output, "chats-390-0-chat.png") });
  await scan("the phone's chat");
  await page.getByRole("button", { name: "Sessions, tools and settings" }).click();
  await where.waitFor();
  await search.fill("kyoto");
  await page.locator("#sessions .snippet mark").first().waitFor();
  await page.screenshot({ path: join(output, "chats-390-1-drawer.png") });
  await scan("the phone's drawer with a search");
  await page.close();
  assert.deepEqual(violations, []);
});
