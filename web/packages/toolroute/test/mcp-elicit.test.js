// An MCP server's question for the user (elicitation/create) through the
// JS hosts' MCP client (McpServers), with a host of the real module
// reading it and checking the answer: the page, which asks (onElicit),
// declares it can be asked and answers what the user said; the worker,
// which has no one to ask, refuses in the module's words.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { readFile } from "node:fs/promises";
import http from "node:http";
import net from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Toolroute } from "../driver/toolroute.js";
import { createHost } from "../host/host.js";
import { McpServers, withMcp } from "../host/mcp.js";
import { startEverything } from "./mcp-servers.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");
const sdk = path.join(root, "testdata/mcp/node_modules/@modelcontextprotocol/sdk/dist/esm/server");

let everything, port, check;
const closing = [];

function freePort() {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

before(async () => {
  port = await freePort();
  everything = await startEverything(port);
  const wasm = await WebAssembly.compile(await readFile(path.join(root, "wasm/toolroute.wasm")));
  const host = await createHost({ module: () => Toolroute.instantiate(wasm), provider: { format: "openai", demo: true } });
  check = (op, args) => host.check(op, args);
});

after(async () => {
  for (const c of closing) await c();
  await everything?.stop();
});

// connect gives the servers' tools as the host calls them.
async function connect(config, options = {}) {
  const mcp = new McpServers({ config: JSON.stringify({ mcpServers: config }), ...options });
  closing.push(() => mcp.close());
  await mcp.start();
  const native = {};
  await withMcp({}, mcp, native, {}, check);
  return native;
}

// The page asks: server-everything sees the capability and offers its
// elicitation tool; the question comes read by the module, the answer is
// checked before it is given, and the server gets the typed values.
test("a server's question goes to onElicit and the answer to the server", async () => {
  const asked = [];
  const native = await connect({ everything: { url: `http://127.0.0.1:${port}/mcp` } }, {
    onElicit: async (q, { check: verdict }) => {
      asked.push(q);
      const bad = await verdict({ action: "accept", content: { name: "Ada", email: "not an address" } });
      assert.match(bad.error?.message ?? "", /an email address \("not an address" is not\)/);
      return { action: "accept", content: { name: "Ada", check: "yes", email: "ada@example.com", integer: "7" } };
    },
  });
  const tool = Object.keys(native).find((n) => n.includes("trigger_elicitation_request") && !n.includes("async"));
  assert.ok(tool, `no elicitation tool among ${Object.keys(native)}`);
  const out = await native[tool]({}, { check, callId: "call_7" });
  const text = typeof out === "string" ? out : out.text;
  assert.equal(asked.length, 1);
  assert.equal(asked[0].server, "everything");
  assert.equal(asked[0].call_id, "call_7", "the question says the call it is for, where the page shows it");
  assert.match(asked[0].asks, /'everything'/);
  assert.equal(asked[0].message, "Please provide inputs for the following fields:");
  const byName = Object.fromEntries(asked[0].fields.map((f) => [f.name, f]));
  assert.equal(byName.check.kind, "boolean");
  assert.equal(byName.integer.kind, "integer");
  assert.equal(byName.untitledSingleSelectEnum.kind, "choice");
  assert.match(text, /accept/);
  assert.match(text, /ada@example\.com/);
  assert.match(text, /"integer": ?7\b/);
  // The answer as the user reads it back, for the log to keep.
  assert.equal(out.asked?.length, 1);
  assert.match(out.asked[0], /^MCP server 'everything' asked “Please provide inputs for the following fields:”\. You sent .*Boolean: yes/);
});

test("a declined question is declined to the server", async () => {
  const native = await connect({ everything: { url: `http://127.0.0.1:${port}/mcp` } }, { onElicit: async () => ({ action: "decline" }) });
  const tool = Object.keys(native).find((n) => n.includes("trigger_elicitation_request") && !n.includes("async"));
  const out = await native[tool]({}, { check });
  assert.match(typeof out === "string" ? out : out.text, /decline/i);
});

// askingServer is an MCP server (the reference SDK's) whose ask tool asks
// the user whatever the client declared, and answers what came back.
async function askingServer() {
  const { McpServer } = await import(path.join(sdk, "mcp.js"));
  const { StreamableHTTPServerTransport } = await import(path.join(sdk, "streamableHttp.js"));
  const sessions = new Map();
  const srv = http.createServer(async (req, res) => {
    let t = sessions.get(req.headers["mcp-session-id"]);
    if (!t) {
      const server = new McpServer({ name: "asker", version: "1" });
      server.registerTool("ask", { description: "asks the user" }, async (extra) => {
        try {
          const r = await extra.sendRequest({ method: "elicitation/create", params: { message: "Sure?", requestedSchema: { type: "object", properties: { ok: { type: "boolean" } } } } }, (await import(path.join(sdk, "../types.js"))).ElicitResultSchema);
          return { content: [{ type: "text", text: `answered ${r.action}` }] };
        } catch (e) {
          return { content: [{ type: "text", text: `refused: ${e.message}` }] };
        }
      });
      t = new StreamableHTTPServerTransport({ sessionIdGenerator: randomUUID, onsessioninitialized: (id) => sessions.set(id, t) });
      await server.connect(t);
    }
    await t.handleRequest(req, res);
  });
  await new Promise((resolve) => srv.listen(0, "127.0.0.1", resolve));
  closing.push(() => new Promise((resolve) => {
    srv.close(resolve);
    srv.closeAllConnections();
  }));
  return `http://127.0.0.1:${srv.address().port}/mcp`;
}

// The worker has no one to ask: the client does not declare it, and a
// server that asks anyway is refused with the module's sentence.
test("with no onElicit a server's question is refused in the module's words", async () => {
  const native = await connect({ asker: { url: await askingServer() } });
  const tool = Object.keys(native).find((n) => n.endsWith("ask"));
  const out = await native[tool]({}, { check });
  assert.match(typeof out === "string" ? out : out.text, /refused: .*MCP server 'asker' asked the user a question, and no one is here to answer it/);
});
