// Writes web/dist/, the files the npm package (web/package.json, "toolroute")
// holds that live elsewhere in the repository or are made from a
// dependency: toolroute.wasm (wasm/, the committed module), wordvec.bin
// (assets/wordvec/vectors.bin, the word vectors), quickjs.wasm
// (the quickjs-ng sync variant's, patched by jsrun/patch.js as the UI's and
// the worker's builds patch it) and prelude.js (assets/prelude.js, the
// bridges' prelude every host runs, as a module exporting its text, which
// the package's "#prelude" import gives browsers and workers). npm runs it
// before packing (the "prepack" script); the folder is not committed.
//
//	node scripts/pack-assets.mjs      (from web/)
import { copyFile, mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { wordVectors, writeQuickjsWasm } from "../build.mjs";
import { PRELUDE_FILE } from "../jsrun/prelude.js";

const web = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const assets = path.join(web, "dist");

export async function writeAssets(out = assets) {
  await mkdir(out, { recursive: true });
  await copyFile(path.join(web, "..", "wasm", "toolroute.wasm"), path.join(out, "toolroute.wasm"));
  await copyFile(wordVectors, path.join(out, "wordvec.bin"));
  await writeQuickjsWasm(path.join(out, "quickjs.wasm"));
  const prelude = await readFile(PRELUDE_FILE, "utf8");
  await writeFile(path.join(out, "prelude.js"), `// assets/prelude.js's text, written by web/scripts/pack-assets.mjs.\nexport const PRELUDE = ${JSON.stringify(prelude)};\n`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await writeAssets();
}
