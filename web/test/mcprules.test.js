// The MCP rules (web/host/mcprules.js) against testdata/mcp/rules.json,
// the cases the Go program replays too.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { validName, groupOf, toolsOf, resultText } from "../host/mcprules.js";

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const cases = JSON.parse(fs.readFileSync(path.join(root, "testdata/mcp/rules.json"), "utf8"));

test("MCP names made valid", () => {
  for (const [name, want] of cases.names) assert.equal(validName(name), want, name);
});

test("an MCP server's group", () => {
  for (const c of cases.groups) assert.deepEqual(groupOf(c.key, c.info, c.instructions, c.tools), c.want, c.key);
});

test("an MCP server's tools: names, collisions, descriptions, approval from annotations", () => {
  for (const c of cases.tools) {
    const got = toolsOf(c.group, c.tools, new Set(c.taken), c.timeout_seconds);
    assert.deepEqual(got.map(({ tool, mcpName }) => ({ name: tool.name, mcp_name: mcpName, description: tool.description, requiredPermissions: tool.required_permissions })), c.want);
    for (const { tool } of got) {
      assert.equal(tool.group, c.group);
      assert.equal(tool.timeout_seconds, c.timeout_seconds);
      assert.equal(tool.parameters.type, "object");
    }
  }
});

test("what the model reads of a tools/call result", () => {
  for (const c of cases.results) {
    if (c.error_type) {
      assert.throws(() => resultText(c.result), (e) => e.type === c.error_type && e.message === c.message, JSON.stringify(c.result));
    } else {
      assert.equal(resultText(c.result), c.want, JSON.stringify(c.result));
    }
  }
});
