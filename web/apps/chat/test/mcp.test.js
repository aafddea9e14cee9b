// MCP servers as tool groups in the browser host (web/apps/chat/core.js in Node,
// with the real module and runner) against a real server from npm,
// @modelcontextprotocol/server-everything over Streamable HTTP, started
// here (testdata/mcp, installed by `make test`): the group is listed,
// loaded, its tools called, restored on the next turn; a server that is
// down is reported and its calls fail clearly while the rest works; it is
// tried again and comes back; one that needs authorization says what the
// user does, and works once its token is in the settings; a long call
// that reports progress outlives its timeout.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import path from "node:path";
import { MemoryUIStore } from "../src/idbstore.js";
import { freePort } from "../../worker/workerd.js";
import { startEverything, startGuard } from "../../../packages/toolroute/test/mcp-servers.js";
import { web, fakeServer, newCore, ask } from "./ui-harness.js";
import { startFakeModel, toolCall, text } from "../../../packages/toolroute/test/host-fakemodel.js";
import { WAIT_MS } from "../../../packages/toolroute/test/busy.js";

const root = path.join(web, "..", "..", "..");
const exported = JSON.parse(execFileSync("go", ["run", "./cmd/toolroute", "export", "--builtin"], { cwd: root, maxBuffer: 256 << 20 }).toString());
const bundle = { catalogue: exported.catalogue, sources: exported.sources, libraries: exported.libraries };

let port, server;
before(async () => {
  port = await freePort();
  server = await startEverything(port);
});
after(async () => {
  await server?.stop();
});

// mcpFetch sends the MCP server's requests to the network and the rest to
// the scripted `toolroute serve`.
const mcpFetch = (fake) => (url, init) => (String(url).startsWith(`http://127.0.0.1:${port}/`) ? fetch(url, init) : fake(url, init));

async function turn(core, session, text) {
  const t = await ask(core, { type: "send", session, text }, (r) => {
    if (r.type === "event" && r.event.type === "approval") {
      setTimeout(() => core.handle({ id: 2, type: "approve", session, answers: r.event.calls.map((x) => ({ id: x.id, answer: "once" })) }, () => {}), 10);
    }
  });
  assert.equal(t.last.type, "done", JSON.stringify(t.last));
  return t.events.filter((e) => e.type === "message" && e.message.type === "tool_result").map((e) => e.message);
}

const toolNames = (req) => (req.body?.tools ?? req.tools ?? []).map((t) => t.function?.name ?? t.name);

test("an MCP server in the page's settings is a tool group: listed, loaded, called, restored on the next turn; a server that is down is reported", async () => {
  const fake = fakeServer([
    { call: ["load_tool_group", { group_name: "everything" }] },
    { call: ["get_sum", { a: 2, b: 3 }] },
    { call: ["get_tiny_image", {}] },
    { call: ["echo", { message: 42 }] },
    { text: "Done." },
    { call: ["get_structured_content", { location: "New York" }] },
    { text: "Sunny." },
  ]);
  const store = new MemoryUIStore();
  await store.setSettings({ mcp: JSON.stringify({ mcpServers: { everything: { url: `http://127.0.0.1:${port}/mcp` }, gone: { url: "http://127.0.0.1:9/mcp" }, local: { command: "npx", args: ["x"] } } }) });
  const core = newCore(store, mcpFetch(fake.fetch), { catalogue: async () => bundle });
  const d = (await ask(core, { type: "describe", session: "s" })).result;
  const g = d.groups.find((x) => x.name === "everything");
  assert.ok(g, JSON.stringify(d.groups.map((x) => x.name)));
  assert.equal(g.display_name, "Everything Reference Server");
  assert.deepEqual(d.mcp.map((s) => [s.key, s.status]), [["everything", "ready"], ["gone", "down"]]);
  assert.ok(d.mcp_problems.some((p) => p.startsWith("MCP server 'local': stdio servers")), JSON.stringify(d.mcp_problems));
  assert.ok(d.mcp_problems.some((p) => p.startsWith("MCP server 'gone' (http://127.0.0.1:9/mcp): could not connect")), JSON.stringify(d.mcp_problems));

  const results = await turn(core, "s", "Add 2 and 3");
  assert.deepEqual(results.map((r) => [r.tool_name, r.status]), [["load_tool_group", "success"], ["get_sum", "success"], ["get_tiny_image", "success"], ["echo", "error"]]);
  assert.equal(results[1].content, "The sum of 2 and 3 is 5.");
  assert.match(results[2].content, /^Here's the image you requested:\n\n\[image image\/png, \d+ bytes\]/);
  assert.match(results[3].content, /^Error \(invalid_arguments\): The arguments for 'echo' do not match its parameters: 'message' must be a string, not 42/); // refused against its schema before it reaches the server
  // The group listing names it before it is loaded; its tools are sent once loaded.
  assert.match(fake.requests[0].body.messages[0].content, /everything/);
  assert.ok(!toolNames(fake.requests[0]).includes("get_sum"));
  assert.ok(toolNames(fake.requests[1]).includes("get_sum"));

  // The next turn restores the loaded group from the log.
  const next = await turn(core, "s", "The weather?");
  assert.ok(toolNames(fake.requests[5]).includes("get_structured_content"), JSON.stringify(toolNames(fake.requests[5])));
  assert.equal(next[0].status, "success");
  assert.match(next[0].content, /temperature/);
  await core.close();
});

test("an MCP server's image reaches an Anthropic model as an image block of the tool_result, beside the text's placeholder, and again from the log on the next turn", async () => {
  const model = await startFakeModel("anthropic",
    toolCall("load_tool_group", '{"group_name":"everything"}'), toolCall("get_tiny_image", "{}"), text("A tiny picture."), text("Still tiny."));
  const store = new MemoryUIStore();
  await store.setSettings({ provider: "anthropic", apiKey: "sk-test", baseURL: model.baseURL, mcp: JSON.stringify({ mcpServers: { everything: { url: `http://127.0.0.1:${port}/mcp` } } }) });
  const netOnly = (url, init) => (String(url).startsWith("http://127.0.0.1:") ? fetch(url, init) : Promise.resolve(new Response("not found", { status: 404 })));
  const core = newCore(store, netOnly, { catalogue: async () => bundle });
  try {
    const results = await turn(core, "img", "Show me the tiny image");
    const shot = results.find((r) => r.tool_name === "get_tiny_image");
    assert.match(shot.content, /\[image image\/png, \d+ bytes\]/);
    assert.equal(shot.images.length, 1);
    assert.equal(shot.images[0].mime_type, "image/png");
    assert.ok(Buffer.from(shot.images[0].data, "base64").subarray(0, 4).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47])), "not a PNG");
    await turn(core, "img", "And now?");
    for (const i of [2, 3]) {
      const blocks = model.requests[i].json.messages.flatMap((m) => m.content).filter((b) => b.type === "tool_result").flatMap((b) => b.content ?? []);
      const images = blocks.filter((b) => b.type === "image");
      assert.deepEqual(images, [{ type: "image", source: { type: "base64", media_type: "image/png", data: shot.images[0].data } }], `request ${i}`);
      assert.ok(blocks.some((b) => b.type === "text" && b.text.includes("[image image/png, ")), `request ${i} lost the placeholder`);
    }
  } finally {
    await core.close();
    await model.close();
  }
});

test("an MCP server that goes away: its calls fail as unavailable while other tools work, and it is used again once it is back", async () => {
  const fake = fakeServer([
    { call: ["load_tool_group", { group_name: "everything" }] },
    { call: ["get_sum", { a: 1, b: 1 }] },
    { text: "Two." },
    { call: ["get_sum", { a: 1, b: 2 }] },
    { call: ["get_current_time", {}] },
    { text: "Down." },
    { call: ["get_sum", { a: 2, b: 2 }] },
    { text: "Four." },
  ]);
  const store = new MemoryUIStore();
  await store.setSettings({ mcp: JSON.stringify({ mcpServers: { everything: { url: `http://127.0.0.1:${port}/mcp` } } }) });
  const core = newCore(store, mcpFetch(fake.fetch), { catalogue: async () => bundle });
  let r = await turn(core, "s2", "1+1");
  assert.equal(r[1].content, "The sum of 1 and 1 is 2.");

  await server.stop();
  r = await turn(core, "s2", "1+2");
  assert.deepEqual(r.map((x) => [x.tool_name, x.status]), [["get_sum", "error"], ["get_current_time", "success"]]);
  assert.equal(r[0].error_type, "unavailable");
  assert.match(r[0].content, /MCP server 'everything' is unavailable: the request to it failed: .*toolroute starts it again in \d+ s/);

  server = await startEverything(port);
  let d;
  for (const end = Date.now() + WAIT_MS; Date.now() < end;) {
    d = (await ask(core, { type: "describe", session: "s2" })).result;
    if (d.mcp[0].status === "ready") break;
    await new Promise((res) => setTimeout(res, 100));
  }
  assert.equal(d.mcp[0].status, "ready", JSON.stringify(d.mcp));
  r = await turn(core, "s2", "2+2");
  assert.equal(r[0].content, "The sum of 2 and 2 is 4.");
  await core.close();
});

test("the server's MCP tools (serve's server_tools) run on the server for the page's turns, and a failure there is the tool's failure", async () => {
  const fake = fakeServer([
    { call: ["load_tool_group", { group_name: "lab" }] },
    { call: ["lab_echo", { text: "hi" }] },
    { call: ["lab_fail", {}] },
    { text: "Done." },
  ]);
  const catalogue = {
    ...bundle,
    catalogue: {
      ...bundle.catalogue,
      groups: [{ name: "lab", display_name: "Lab", description: "The lab server" }],
      tools: [
        { name: "lab_echo", description: "Echo", group: "lab", parameters: { type: "object", properties: { text: { type: "string" } } }, required_permissions: ["read"], timeout_seconds: 60 },
        { name: "lab_fail", description: "Fail", group: "lab", parameters: { type: "object", properties: {} }, required_permissions: ["read"], timeout_seconds: 60 },
      ],
    },
    server_tools: ["lab_echo", "lab_fail"],
  };
  const ran = [];
  const fetch = async (url, init) => {
    const m = String(url).match(/^\/api\/ui\/tools\/(\w+)$/);
    if (!m) return fake.fetch(url, init);
    ran.push([m[1], JSON.parse(init.body).input]);
    return Response.json(m[1] === "lab_echo" ? { status: "success", output: "echo: hi\n\n[image image/png, 8 bytes]", images: [{ mime_type: "image/png", data: "iVBORw0KGgo=" }] } : { status: "error", error_type: "tool_error", message: "the lab is closed" });
  };
  const core = newCore(new MemoryUIStore(), fetch, { catalogue: async () => catalogue });
  const results = await turn(core, "s3", "Echo hi");
  assert.deepEqual(ran, [["lab_echo", { text: "hi" }], ["lab_fail", {}]]);
  assert.deepEqual(results.slice(1).map((r) => [r.tool_name, r.status, r.error_type ?? ""]), [["lab_echo", "success", ""], ["lab_fail", "error", "tool_error"]]);
  assert.equal(results[1].content, "echo: hi\n\n[image image/png, 8 bytes]");
  assert.deepEqual(results[1].images, [{ mime_type: "image/png", data: "iVBORw0KGgo=" }]); // the server's images reach the page's log
  assert.match(results[2].content, /the lab is closed/);
  await core.close();
});

test("an MCP server that answers 401 needs authorization in the page: its group and the panel say to put a token in its headers, and with one it works", async () => {
  const guard = await startGuard(port);
  const fake = fakeServer([
    { call: ["load_tool_group", { group_name: "notes" }] },
    { text: "It needs a token." },
    { call: ["load_tool_group", { group_name: "notes" }] },
    { call: ["get_sum", { a: 2, b: 3 }] },
    { text: "Five." },
  ]);
  const store = new MemoryUIStore();
  await store.setSettings({ mcp: JSON.stringify({ mcpServers: { notes: { url: guard.url } } }) });
  const guarded = (url, init) => (String(url).startsWith(guard.url) ? fetch(url, init) : fake.fetch(url, init));
  const core = newCore(store, guarded, { catalogue: async () => bundle });
  const advice = `MCP server 'notes' needs authorization: add "headers": {"Authorization": "Bearer TOKEN"} to its entry in the MCP config, with a token the server accepts`;
  try {
    let d = (await ask(core, { type: "describe", session: "a" })).result;
    assert.deepEqual(d.mcp.map((s) => [s.key, s.status, s.advice]), [["notes", "needs_authorization", advice]]);
    assert.deepEqual(d.mcp_problems, [`${advice} (${d.mcp[0].error})`]);
    const r = await turn(core, "a", "Use my notes");
    assert.equal(r[0].status, "error");
    assert.equal(r[0].content, `Error (unavailable): Tool group 'notes' has no tools yet: ${advice} (the user does this; its tools are offered once it is done). Do without this group meanwhile.`);
    // The user asks again: refused again, and said so.
    const refused = guard.refused;
    await ask(core, { type: "mcp_retry" });
    assert.ok(guard.refused > refused);
    d = (await ask(core, { type: "describe", session: "a" })).result;
    assert.equal(d.mcp[0].status, "needs_authorization");

    // The token in the settings: the server is used.
    await ask(core, { type: "settings", set: { mcp: JSON.stringify({ mcpServers: { notes: { url: guard.url, headers: { Authorization: "Bearer good-token" } } } }) } });
    const ok = await turn(core, "b", "2+3 with my notes");
    assert.deepEqual(ok.map((x) => [x.tool_name, x.status]), [["load_tool_group", "success"], ["get_sum", "success"]]);
    assert.equal(ok[1].content, "The sum of 2 and 3 is 5.");
    d = (await ask(core, { type: "describe", session: "b" })).result;
    assert.deepEqual(d.mcp.map((s) => [s.key, s.status]), [["notes", "ready"]]);
    assert.deepEqual(d.mcp_problems, []);
  } finally {
    await core.close();
    await guard.close();
  }
});

test("a long MCP call that reports progress runs past its timeout in a turn", async () => {
  const fake = fakeServer([
    { call: ["load_tool_group", { group_name: "everything" }] },
    // Twelve steps of 0.5 s, with progress at each: past the 3 s timeout,
    // with room for a busy machine to hold a step back.
    { call: ["trigger_long_running_operation", { duration: 6, steps: 12 }] },
    { text: "Done." },
  ]);
  const store = new MemoryUIStore();
  await store.setSettings({ mcp: JSON.stringify({ mcpServers: { everything: { url: `http://127.0.0.1:${port}/mcp`, timeoutSeconds: 3 } } }) });
  const core = newCore(store, mcpFetch(fake.fetch), { catalogue: async () => bundle });
  try {
    const r = await turn(core, "p", "Run the long one");
    assert.deepEqual(r.map((x) => [x.tool_name, x.status]), [["load_tool_group", "success"], ["trigger_long_running_operation", "success"]], JSON.stringify(r));
    assert.equal(r[1].content, "Long running operation completed. Duration: 6 seconds, Steps: 12.");
  } finally {
    await core.close();
  }
});

test("an MCP server asks the page's user during a call: the question reaches the page, a value that will not do is refused, the answer reaches the server and the log keeps it", async () => {
  const fake = fakeServer([
    { call: ["load_tool_group", { group_name: "everything" }] },
    { call: ["trigger_elicitation_request", {}] },
    { text: "Thanks." },
  ]);
  const store = new MemoryUIStore();
  await store.setSettings({ mcp: JSON.stringify({ mcpServers: { everything: { url: `http://127.0.0.1:${port}/mcp` } } }) });
  const asked = [];
  const answers = [];
  let core;
  const answer = (msg) => new Promise((resolve) => core.handle({ id: 3, type: "elicit_answer", ...msg }, (r) => (answers.push(r), resolve(r))));
  core = newCore(store, mcpFetch(fake.fetch), {
    catalogue: async () => bundle,
    // The page: it shows the question and answers it, first with an
    // address that is not one.
    onElicit: async (q) => {
      asked.push(q);
      await answer({ ask: q.ask, action: "accept", content: { name: "Ada", email: "nope" } });
      await answer({ ask: q.ask, action: "accept", content: { name: "Ada", email: "ada@example.com", check: "yes" } });
    },
  });
  try {
    const results = await turn(core, "e", "Ask me something");
    assert.equal(asked.length, 1);
    assert.match(asked[0].ask, /^page:/);
    assert.equal(asked[0].server, "everything");
    assert.equal(asked[0].message, "Please provide inputs for the following fields:");
    assert.equal(answers[0].type, "error");
    assert.match(answers[0].error, /an email address \("nope" is not\)/);
    assert.equal(answers[1].type, "done");
    assert.equal(answers[1].result.action, "accept");
    assert.equal(answers[1].result.content.email, "ada@example.com");
    const r = results.find((x) => x.tool_name === "trigger_elicitation_request");
    assert.equal(r?.status, "success", JSON.stringify(results));
    assert.match(r.content, /ada@example\.com/);
    // The log keeps what was answered on the result: the page read back
    // shows it.
    const log = (await ask(core, { type: "messages", session: "e" })).result;
    const logged = log.find((m) => m.type === "tool_result" && m.tool_name === "trigger_elicitation_request");
    assert.equal(logged.asked?.length, 1);
    assert.match(logged.asked[0], /^MCP server 'everything' asked “Please provide inputs for the following fields:”\. You sent String: Ada; .*String with email format: ada@example\.com/);
  } finally {
    await core.close();
  }
});
