// Recounts the golden file testdata/schematokens/small.json, written by the
// Go package internal/schematokens, with gpt-tokenizer, an implementation
// independent of the Go tokenizer: every scenario's tools JSON and the group
// listing, in o200k_base and cl100k_base.
//
//	node scripts/schema-tokens.mjs   prints the Go and gpt-tokenizer counts,
//	                                 and exits 1 when they differ
import { readFile } from "node:fs/promises";
import { fileURLToPath, pathToFileURL } from "node:url";
import path from "node:path";
import * as o200kBase from "gpt-tokenizer/encoding/o200k_base";
import * as cl100kBase from "gpt-tokenizer/encoding/cl100k_base";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");

// goldenPath is the file the Go tests write with -update.
export const goldenPath = path.join(root, "testdata/schematokens/small.json");

// encoders maps each encoding the Go package counts with to its gpt-tokenizer
// module.
export const encoders = { o200k_base: o200kBase, cl100k_base: cl100kBase };

// No special tokens are allowed, and none is refused: markers such as
// <|endoftext|> in the text count as ordinary text, as internal/tokens counts them
// (see scripts/count-tokens.mjs).
const ordinaryText = { disallowedSpecial: new Set() };

// count returns text's token count in each of the encodings, in the same
// [{encoding, tokens}] shape as the golden file.
export function count(text, encodings) {
  return encodings.map((encoding) => {
    const enc = encoders[encoding];
    if (!enc) {
      throw new Error(`unknown encoding ${encoding}: use one of ${Object.keys(encoders).join(", ")}`);
    }
    return { encoding, tokens: enc.countTokens(text, ordinaryText) };
  });
}

// recount returns, for each scenario and then the listing, the counted text's
// name, the golden file's bytes and counts, and gpt-tokenizer's.
export function recount(golden) {
  const items = golden.scenarios.map((s) => ({ name: s.name, text: s.tools_json, bytes: s.bytes, tokens: s.tokens }));
  items.push({ name: "listing", text: golden.listing.text, bytes: golden.listing.bytes, tokens: golden.listing.tokens });
  return items.map((it) => ({
    ...it,
    utf8Bytes: Buffer.byteLength(it.text, "utf8"),
    recounted: count(it.text, golden.encodings),
  }));
}

// readGolden reads the golden file.
export async function readGolden() {
  return JSON.parse(await readFile(goldenPath, "utf8"));
}

async function main() {
  const golden = await readGolden();
  let same = true;
  for (const it of recount(golden)) {
    const cells = it.tokens.map((c, i) => {
      const js = it.recounted[i].tokens;
      same &&= js === c.tokens;
      return `${c.encoding} go=${c.tokens} js=${js}`;
    });
    same &&= it.utf8Bytes === it.bytes;
    console.log(`${it.name}: ${it.bytes} bytes; ${cells.join("; ")}`);
  }
  if (!same) {
    console.error("the counts differ");
    process.exitCode = 1;
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  await main();
}
