// Writes dist/, the files the npm package (web/packages/toolroute, "toolroute")
// holds that live elsewhere in the repository or are made from a
// dependency: toolroute.wasm (wasm/, the committed module), wordvec.bin
// (assets/wordvec/vectors.bin, the word vectors), quickjs.wasm
// (the quickjs-ng sync variant's, patched by jsrun/patch.js as the UI's and
// the worker's builds patch it) and prelude.js (assets/prelude.js, the
// bridges' prelude every host runs, as a module exporting its text, which
// the package's "#prelude" import gives browsers and workers). npm runs it
// before packing (the "prepack" script); the folder is not committed.
//
//	node scripts/pack-assets.mjs      (from web/packages/toolroute)
import { copyFile, mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createRequire } from "node:module";
import { patchQuickJS } from "../jsrun/patch.js";
import { PRELUDE_FILE } from "../jsrun/prelude.js";

const pkg = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const root = path.join(pkg, "..", "..", "..");
export const assets = path.join(pkg, "dist");

// wordVectors is the word vector table the page hands the module.
export const wordVectors = path.join(root, "assets", "wordvec", "vectors.bin");

// quickjsWasm is the quickjs-ng sync variant's .wasm in node_modules.
export function quickjsWasm() {
  const require = createRequire(import.meta.url);
  const pkg = path.dirname(require.resolve("@jitl/quickjs-ng-wasmfile-release-sync/package.json"));
  return path.join(pkg, "dist", "emscripten-module.wasm");
}

// writeQuickjsWasm writes quickjsWasm() patched (jsrun/patch.js) to file:
// the browser and the worker compile what the build gives them.
export async function writeQuickjsWasm(file) {
  await writeFile(file, await patchQuickJS(await readFile(quickjsWasm())));
}

// preludePlugin replaces jsrun/prelude.js, which reads assets/prelude.js
// with node:fs, with a module exporting the text it reads: the browser and
// the worker have no files to read, and both bundles run the one prelude
// every host runs.
export const preludePlugin = {
  name: "toolroute-prelude",
  setup(b) {
    const loader = path.join(pkg, "jsrun", "prelude.js");
    const file = fileURLToPath(PRELUDE_FILE);
    // runner.js imports it as "#prelude" (package.json's imports), which
    // would resolve to the npm package's dist/prelude.js for a browser.
    b.onResolve({ filter: /^#prelude$/ }, () => ({ path: loader }));
    b.onLoad({ filter: /[\\/]jsrun[\\/]prelude\.js$/ }, async (a) => {
      if (a.path !== loader) return undefined;
      const text = await readFile(file, "utf8");
      return { contents: `export const PRELUDE = ${JSON.stringify(text)};\n`, loader: "js", watchFiles: [file] };
    });
  },
};

// writeAssets writes the package's dist/ (out).
export async function writeAssets(out = assets) {
  await mkdir(out, { recursive: true });
  await copyFile(path.join(root, "wasm", "toolroute.wasm"), path.join(out, "toolroute.wasm"));
  await copyFile(wordVectors, path.join(out, "wordvec.bin"));
  await writeQuickjsWasm(path.join(out, "quickjs.wasm"));
  const prelude = await readFile(PRELUDE_FILE, "utf8");
  await writeFile(path.join(out, "prelude.js"), `// assets/prelude.js's text, written by scripts/pack-assets.mjs.\nexport const PRELUDE = ${JSON.stringify(prelude)};\n`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await writeAssets();
}
