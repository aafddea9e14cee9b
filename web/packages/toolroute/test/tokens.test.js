// The golden token counts in testdata/tokens/expected.json, which the Go
// package internal/tokens is tested against, are gpt-tokenizer's: recounting every
// case gives the same file, so a stale file fails here.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import * as o200kBase from "gpt-tokenizer/encoding/o200k_base";
import * as cl100kBase from "gpt-tokenizer/encoding/cl100k_base";
import o200kRanks from "gpt-tokenizer/bpeRanks/o200k_base";
import cl100kRanks from "gpt-tokenizer/bpeRanks/cl100k_base";
import { expected, expectedPath, readCases } from "../scripts/count-tokens.mjs";

test("expected.json holds gpt-tokenizer's counts of cases.json", async () => {
  const want = expected(await readCases());
  const got = JSON.parse(await readFile(expectedPath, "utf8"));
  assert.deepEqual(got, want, "stale golden file: run `node scripts/count-tokens.mjs --write` in web/");
});

test("gpt-tokenizer counts published examples", () => {
  // tiktoken's tests/test_simple_public.py: [15339, 1917].
  assert.deepEqual(cl100kBase.encode("hello world"), [15339, 1917]);
  // OpenAI Cookbook, "How to count tokens with tiktoken".
  assert.equal(cl100kBase.countTokens("tiktoken is great!"), 6);
  assert.equal(cl100kBase.countTokens("antidisestablishmentarianism"), 6);
  assert.equal(o200kBase.countTokens("antidisestablishmentarianism"), 6);
});

// U+FEFF (the byte order mark, bytes EF BB BF) is a single token in both
// vocabularies, but gpt-tokenizer looks byte sequences up by decoding them
// with a TextDecoder that drops a leading BOM, so it never finds that token
// and splits it. Cases with U+FEFF are therefore left out of cases.json; the
// Go tests count a lone U+FEFF as one token.
const bom = [0xef, 0xbb, 0xbf];

test("U+FEFF is a single token in gpt-tokenizer's data", () => {
  assert.deepEqual(cl100kRanks[3305], bom);
  assert.deepEqual(o200kRanks[5574], bom);
});

test("gpt-tokenizer counts U+FEFF as one token", { todo: "gpt-tokenizer drops a leading BOM when it looks up bytes" }, () => {
  assert.equal(cl100kBase.countTokens("\ufeff"), 1);
  assert.equal(o200kBase.countTokens("\ufeff"), 1);
});
