// What the model reads of server-everything's results through the JS
// hosts' MCP client (McpServers, with a host of the real module wording
// them): testdata/mcpresults/cases.json, which the Go host's client
// replays too (host/mcp's TestResultCases).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import net from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Toolroute } from "../driver/toolroute.js";
import { createHost } from "../host/host.js";
import { McpServers, withMcp } from "../host/mcp.js";
import { startEverything } from "./mcp-servers.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");
const { cases } = JSON.parse(await readFile(path.join(root, "testdata/mcpresults/cases.json"), "utf8"));

let server, mcp, check;
const native = {};

before(async () => {
  const port = await new Promise((resolve) => {
    const s = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
  server = await startEverything(port);
  const wasm = await WebAssembly.compile(await readFile(path.join(root, "wasm/toolroute.wasm")));
  const host = await createHost({ module: () => Toolroute.instantiate(wasm), provider: { format: "openai", demo: true } });
  check = (op, args) => host.check(op, args);
  mcp = new McpServers({ config: JSON.stringify({ mcpServers: { everything: { url: `http://127.0.0.1:${port}/mcp` } } }) });
  await mcp.start();
  await withMcp({}, mcp, native, {}, check);
});

after(async () => {
  await mcp?.close();
  await server?.stop();
});

for (const c of cases) {
  test(`MCP result: ${c.name}`, async () => {
    assert.equal(typeof native[c.tool], "function", `no tool ${c.tool}: ${Object.keys(native)}`);
    const out = await native[c.tool](c.args, { check });
    const text = typeof out === "string" ? out : out.text;
    if (c.text !== undefined) assert.equal(text, c.text);
    for (const want of c.text_contains ?? []) assert.ok(text.includes(want), `${JSON.stringify(text)} lacks ${JSON.stringify(want)}`);
    assert.deepEqual((typeof out === "string" ? [] : out.images ?? []).map((i) => i.mime_type), c.images ?? []);
    assert.deepEqual((typeof out === "string" ? [] : out.documents ?? []).map((d) => d.mime_type), c.documents ?? []);
  });
}
