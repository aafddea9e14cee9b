// The MCP rules of the JS hosts (web/packages/toolroute/host/mcprules.js) against
// testdata/mcp/cases.json, the cases the Go program replays too
// (host/mcp/cases_test.go): one behaviour in every host.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { validName, groupOf, toolsOf, resultText, resultImages, rpcErrorText, unavailableText } from "../host/mcprules.js";

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "..");
const cases = JSON.parse(fs.readFileSync(path.join(root, "testdata/mcp/cases.json"), "utf8"));

test("MCP names made valid", () => {
  for (const c of cases.names) assert.equal(validName(c.input), c.want, c.input);
});

test("an MCP server's group", () => {
  for (const c of cases.groups) assert.deepEqual(groupOf(c.key, c.server_info, c.instructions, c.tools), c.want, c.name);
});

test("an MCP server's tools: names clear of the catalogue, descriptions, schemas, approval from annotations", () => {
  for (const c of cases.tools) {
    const got = toolsOf(c.key, c.tools, new Set(c.taken), c.timeout_seconds).map((n) =>
      n.skipped
        ? { mcp_name: n.mcpName, skipped: true }
        : { mcp_name: n.mcpName, name: n.tool.name, description: n.tool.description, parameters: n.tool.parameters, permissions: n.tool.required_permissions, timeout_seconds: n.tool.timeout_seconds },
    );
    assert.deepEqual(got, c.want, c.name);
  }
});

test("what the model reads of a tools/call result", () => {
  for (const c of cases.results) {
    if (c.want.error_type) {
      assert.throws(() => resultText(c.result, c.tool), (e) => e.type === c.want.error_type && e.message === c.want.text, c.name);
    } else {
      assert.equal(resultText(c.result, c.tool), c.want.text, c.name);
      assert.deepEqual(resultImages(c.result), c.want.images ?? [], c.name);
    }
  }
});

test("a JSON-RPC error and a server that is not there, as the model reads them", () => {
  for (const c of cases.rpc_errors) assert.equal(rpcErrorText(c.key, c.error.code, c.error.message), c.want.text, c.name);
  for (const c of cases.unavailable) assert.equal(unavailableText(c.key, c.why, c.retry_seconds, c.mid_call), c.want.text, c.name);
});
