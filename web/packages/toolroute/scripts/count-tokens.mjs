// Counts the tokens of every case in testdata/tokens/cases.json with
// gpt-tokenizer, an implementation independent of the Go package internal/tokens,
// to make the golden file testdata/tokens/expected.json that the Go tests
// check against.
//
//	node scripts/count-tokens.mjs          prints the expected file
//	node scripts/count-tokens.mjs --write  writes it
import { readFile, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";
import path from "node:path";
import * as o200kBase from "gpt-tokenizer/encoding/o200k_base";
import * as cl100kBase from "gpt-tokenizer/encoding/cl100k_base";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");

// casesPath and expectedPath are the input and golden files.
export const casesPath = path.join(root, "testdata/tokens/cases.json");
export const expectedPath = path.join(root, "testdata/tokens/expected.json");

// encoders maps each encoding, in the order the golden file lists it, to its
// gpt-tokenizer module.
const encoders = { o200k_base: o200kBase, cl100k_base: cl100kBase };

// No special tokens are allowed, and none is refused: markers such as
// <|endoftext|> in the text count as ordinary text, as internal/tokens counts them.
const ordinaryText = { disallowedSpecial: new Set() };

// source names the implementation and version that made the counts.
export function source() {
  const require = createRequire(import.meta.url);
  return `gpt-tokenizer@${require("gpt-tokenizer/package.json").version}`;
}

// expected returns the golden file's contents for cases: for each case, its
// token count in each encoding.
export function expected(cases) {
  return {
    source: source(),
    cases: cases.map(({ name, text }) => ({
      name,
      counts: Object.fromEntries(
        Object.entries(encoders).map(([encoding, enc]) => [
          encoding,
          enc.countTokens(text, ordinaryText),
        ]),
      ),
    })),
  };
}

// readCases reads the cases file.
export async function readCases() {
  return JSON.parse(await readFile(casesPath, "utf8"));
}

async function main() {
  const out = JSON.stringify(expected(await readCases()), null, 2) + "\n";
  if (process.argv.includes("--write")) {
    await writeFile(expectedPath, out);
    console.error(`wrote ${path.relative(process.cwd(), expectedPath)}`);
  } else {
    process.stdout.write(out);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  await main();
}
