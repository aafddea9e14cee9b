// The MCP client of the JS hosts (toolroute/mcp's McpServers, with a host
// of the real module naming the tools) as the conformance suite's client
// scenarios drive it (conformance.test.js): the suite runs
// `node conformance-client.js URL` with MCP_CONFORMANCE_SCENARIO set. It
// connects to the server at URL, lists its tools and, where the scenario
// wants a call (testdata/conformance/scenarios.json), calls that tool,
// printing what it got.
import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Toolroute } from "../driver/toolroute.js";
import { createHost } from "../host/host.js";
import { McpServers, withMcp } from "../host/mcp.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");
const url = process.argv[2];
const wasm = await WebAssembly.compile(await readFile(path.join(root, "wasm/toolroute.wasm")));
const host = await createHost({ module: () => Toolroute.instantiate(wasm), provider: { format: "openai", demo: true } });
const check = (op, args) => host.check(op, args);
const mcp = new McpServers({ config: JSON.stringify({ mcpServers: { conformance: { url } } }) });
await mcp.start();
const native = {};
await withMcp({}, mcp, native, {}, check);
console.log(JSON.stringify({ status: mcp.status(), problems: mcp.problems(), tools: Object.keys(native) }));
const scenarios = JSON.parse(await readFile(path.join(root, "testdata/conformance/scenarios.json"), "utf8"));
const call = scenarios.client.find((s) => s.name === process.env.MCP_CONFORMANCE_SCENARIO)?.call;
let status = mcp.problems().length > 0 ? 1 : 0;
if (call) {
  try {
    console.log(await native[call.tool](call.arguments, { check }));
  } catch (e) {
    console.log(`${call.tool}: ${e.message}`);
    status = 1;
  }
}
await mcp.close();
process.exit(status);
