// A chat's export (web/apps/chat/src/export.js): Markdown that reads as the
// chat did, whose code fences a reply's own cannot close, and JSON that
// gives the log back as it is kept.
import { test } from "node:test";
import assert from "node:assert/strict";
import { chatJSON, chatMarkdown, exportName } from "../src/export.js";
import { searchSessions } from "../../../packages/toolroute/host/ops.js";

const SESSION = { id: "server:abc", title: "Lisbon,\n in May", created: "2026-05-01T10:00:00.000Z", updated: "2026-05-01T10:05:00.000Z", where: "server" };
const LOG = [
  { type: "user", content: "Plan my trip" },
  { type: "tool_call", tool_call_id: "c1", tool_name: "get_weather", tool_input: '{"city":"Lisbon"}' },
  { type: "approval", tool_name: "get_weather", content: "once" },
  { type: "tool_result", tool_call_id: "c1", tool_name: "get_weather", status: "success", content: "Sunny, 24 °C" },
  { type: "tool_result", tool_call_id: "c2", tool_name: "book", status: "error", error_type: "execution_error", content: "no seats" },
  { type: "assistant", content: "Here is code:\n\n```js\nlet x = 1;\n```" },
];

test("the Markdown export: the title, who said what, tool calls and results in fences a reply's cannot close", () => {
  assert.equal(chatMarkdown(SESSION, LOG), [
    "# Lisbon, in May",
    "",
    "_started 2026-05-01T10:00:00.000Z, last message 2026-05-01T10:05:00.000Z_",
    "",
    "## You", "", "Plan my trip", "",
    "### Tool call: get_weather", "", "```json", '{\n  "city": "Lisbon"\n}', "```", "",
    "_get_weather: allowed once_", "",
    "### Result of get_weather", "", "```", "Sunny, 24 °C", "```", "",
    "### Result of book (failed: execution_error)", "", "```", "no seats", "```", "",
    "## Assistant", "", "Here is code:\n\n```js\nlet x = 1;\n```", "",
  ].join("\n"));
  const fenced = chatMarkdown({ title: "" }, [{ type: "tool_result", tool_name: "t", content: "a ``` b ```` c" }]);
  assert.match(fenced, /^# New chat\n/);
  assert.match(fenced, /\n`````\na ``` b ```` c\n`````\n/, "the fence is longer than the content's longest run");
});

test("the JSON export gives the session and its log as kept; the file name is the title's words", () => {
  assert.deepEqual(JSON.parse(chatJSON(SESSION, LOG)), { toolroute_chat: 1, session: SESSION, messages: LOG });
  assert.equal(exportName(SESSION, "md"), "lisbon-in-may.md");
  assert.equal(exportName({ title: "../../etc/passwd" }, "json"), "etc-passwd.json");
  assert.equal(exportName({ title: "" }, "md"), "chat.md");
  assert.equal(exportName({ title: "Café crème" }, "md"), "cafe-creme.md");
});

test("a search of the browser's chats: titles and messages, every word, whole words, accents ignored", async () => {
  const sessions = [{ id: "a", title: "Holidays" }, { id: "b", title: "Shopping" }, { id: "c", title: "Other" }];
  const logs = { a: [{ type: "user", content: "Plan my trip to Lisbon" }, { type: "assistant", content: "Lisbon in May is warm." }], b: [{ type: "user", content: "Milk for the café" }], c: [{ type: "tool_call", content: "lisbon" }] };
  const find = async (q) => (await searchSessions(sessions, async (id) => logs[id], q)).map((s) => [s.id, s.snippet ?? ""]);
  assert.deepEqual(await find("lisbon"), [["a", "**Lisbon** in May is warm."]], "the newest matching message; tool calls are not searched");
  assert.deepEqual(await find("lisbon plan"), [["a", "**Plan** my trip to **Lisbon**"]]);
  assert.deepEqual(await find("cafe"), [["b", "Milk for the **café**"]]);
  assert.deepEqual(await find("shopping"), [["b", ""]], "a title matched alone has no snippet");
  assert.deepEqual(await find("lis"), [], "whole words");
  assert.deepEqual(await find("  ?! "), []);
});
