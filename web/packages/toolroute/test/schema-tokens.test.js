// The tool schema token counts in testdata/schematokens/small.json, written by
// the Go package internal/schematokens, are checked here with gpt-tokenizer, an
// independent implementation: every scenario's tools JSON and the group
// listing must count the same. The tools JSON must also be what JSON.stringify
// writes for its value, so the text the Go side counts is the text a JS host
// would send.
import { test } from "node:test";
import assert from "node:assert/strict";
import { count, readGolden, recount } from "../scripts/schema-tokens.mjs";

const golden = await readGolden();
const stale = "run `go test ./internal/schematokens -update` after a change to the Go side";

test("the golden file counts in o200k_base and cl100k_base", () => {
  assert.equal(golden.format, "openai");
  assert.deepEqual(golden.encodings, ["o200k_base", "cl100k_base"]);
  assert.deepEqual(
    golden.scenarios.map((s) => s.name),
    ["all tools", "core only", "core + notes", "core + weather", "all groups loaded"],
  );
});

for (const it of recount(golden)) {
  test(`${it.name}: gpt-tokenizer counts the same tokens`, () => {
    assert.deepEqual(it.recounted, it.tokens, stale);
    assert.equal(it.utf8Bytes, it.bytes, "bytes are the text's UTF-8 length");
  });
}

for (const s of golden.scenarios) {
  test(`${s.name}: the tools JSON is JSON.stringify's text of the OpenAI tools array`, () => {
    const tools = JSON.parse(s.tools_json);
    assert.equal(JSON.stringify(tools), s.tools_json);
    assert.deepEqual(
      tools.map((t) => t.function.name),
      s.tools,
    );
    for (const t of tools) {
      assert.equal(t.type, "function");
      assert.deepEqual(Object.keys(t.function), ["name", "description", "parameters"]);
      assert.equal(t.function.parameters.type, "object");
    }
  });
}

test("a special-token marker is counted as ordinary text", () => {
  const s = golden.scenarios.find((s) => s.name === "all tools");
  assert.ok(s.tools_json.includes("<|endoftext|>"), "the small catalogue holds the marker");
  // As one special token it would be 1; as text, "<", "|", "endo", ... .
  for (const c of count("<|endoftext|>", golden.encodings)) {
    assert.ok(c.tokens > 1, `${c.encoding}: ${c.tokens}`);
  }
});
