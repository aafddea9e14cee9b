// `toolroute mcp` driven by the official JS client (@modelcontextprotocol/client
// v2, its stdio transport): the Go program, built here, as the MCP server a
// Node agent would start. The client lists the core tools and
// load_tool_group, loads a group and hears the list change, runs a JS tool,
// and is asked (elicitation) before a tool that writes.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { WAIT_MS } from "./busy.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");
let dir, binary;

before(() => {
  dir = mkdtempSync(path.join(tmpdir(), "toolroute-mcp-"));
  binary = path.join(dir, "toolroute");
  execFileSync("go", ["build", "-o", binary, "./cmd/toolroute"], { cwd: root, stdio: "inherit" });
});

after(() => rmSync(dir, { recursive: true, force: true }));

// connect starts `toolroute mcp` for a user whose home is home.
async function connect(home, { elicit, negotiation } = {}) {
  let changed;
  const changes = [];
  const client = new Client(
    { name: "node-test", version: "1.0.0" },
    {
      capabilities: elicit ? { elicitation: { form: {} } } : {},
      versionNegotiation: negotiation,
      listChanged: {
        tools: {
          onChanged: (error, tools) => {
            changes.push(error ? error : tools.map((t) => t.name));
            changed?.();
          },
        },
      },
    },
  );
  if (elicit) client.setRequestHandler("elicitation/create", (req) => elicit(req.params));
  const transport = new StdioClientTransport({
    command: binary,
    args: ["mcp"],
    cwd: home,
    stderr: "pipe",
    // The user's folders only: no provider key, no other config.
    env: {
      PATH: process.env.PATH,
      HOME: home,
      XDG_CONFIG_HOME: path.join(home, ".config"),
      XDG_DATA_HOME: path.join(home, ".local", "share"),
      XDG_CACHE_HOME: path.join(dir, "cache"),
    },
  });
  await client.connect(transport);
  const nextChange = () =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("no notifications/tools/list_changed")), WAIT_MS);
      changed = () => {
        clearTimeout(timer);
        changed = undefined;
        resolve(changes.at(-1));
      };
    });
  return { client, nextChange };
}

function text(result) {
  return result.content.map((c) => c.text).join("\n");
}

// The client's default speaks 2025-11-25, where toolroute asks the user with
// a request of its own; with auto negotiation it probes with server/discover
// and speaks the stateless 2026-07-28, where the call's result asks
// (input_required) and the client calls again with the answer.
for (const [negotiation, revision] of [[undefined, "2025-11-25"], [{ mode: "auto" }, "2026-07-28"]]) {
  test(`toolroute mcp routes tool groups for the JS SDK's client (${revision})`, async () => {
    const home = mkdtempSync(path.join(dir, "home-"));
    const questions = [];
    const { client, nextChange } = await connect(home, {
      negotiation,
      elicit: (params) => {
        questions.push(params.message);
        return params.message.includes("coffee") ? { action: "decline" } : { action: "accept", content: { always: false } };
      },
    });
    try {
      assert.equal(client.getServerVersion().name, "toolroute");
      assert.equal(client.getNegotiatedProtocolVersion(), revision);
      assert.match(client.getInstructions(), /toolroute routes tools by group/);

      const { tools } = await client.listTools();
      const names = tools.map((t) => t.name);
      assert.equal(names[0], "load_tool_group");
      assert.ok(names.includes("js_eval"), names.join(", "));
      assert.ok(!names.includes("get_config"), "a group's tool is listed before its load");
      assert.match(tools[0].description, /\n\n## Available Tool Groups\n\n[^]*\n- config: /);

      assert.equal(text(await client.callTool({ name: "js_eval", arguments: { code: "6 * 7" } })), "42");

      const change = nextChange();
      const loaded = await client.callTool({ name: "load_tool_group", arguments: { group_name: "config" } });
      assert.match(text(loaded), /^Loaded 17 tools from group 'Configuration':\n- list_providers: /);
      const after = await change;
      assert.ok(Array.isArray(after) && after.includes("get_config"), String(after));
      assert.match(text(await client.callTool({ name: "get_config", arguments: {} })), /- model = /);

      // save_memory writes: the user is asked first, and it runs on accept.
      const saved = await client.callTool({ name: "save_memory", arguments: { text: "The user likes tea." } });
      assert.equal(saved.isError, undefined);
      assert.match(text(saved), /^Saved memory #\d+\.$/);
      const declined = await client.callTool({ name: "save_memory", arguments: { text: "The user likes coffee." } });
      assert.equal(declined.isError, true);
      assert.match(text(declined), /^Error \(denied\): The user denied this call of 'save_memory'/);
      assert.deepEqual(questions, [
        'The model wants to run save_memory (write, memories) with {"text":"The user likes tea."}. Allow it?',
        'The model wants to run save_memory (write, memories) with {"text":"The user likes coffee."}. Allow it?',
      ]);

      const unknown = await client.callTool({ name: "load_tool_group", arguments: { group_name: "nope" } });
      assert.equal(unknown.isError, true);
      assert.match(text(unknown), /^Error \(not_found\): Tool group 'nope' not found\. Available groups: pdf, config, /);
    } finally {
      await client.close();
    }
  });
}

test("toolroute mcp refuses a tool that asks when the client cannot ask the user", async () => {
  const home = mkdtempSync(path.join(dir, "home-"));
  const { client } = await connect(home);
  try {
    const res = await client.callTool({ name: "save_memory", arguments: { text: "The user likes water." } });
    assert.equal(res.isError, true);
    assert.match(text(res), /The user can allow it with: toolroute policy set tool save_memory allow$/);
  } finally {
    await client.close();
  }
});
