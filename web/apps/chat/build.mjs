// Builds the browser chat UI into dist/ (web/apps/chat/dist): app.js and worker.js bundled
// by esbuild (ESM, browser, minified; the tokenizer a lazily loaded chunk of
// the worker; the bridges' prelude inlined by preludePlugin), with
// index.html, app.css, toolroute.wasm (the module, from wasm/) and
// wordvec.bin (the word vectors search_tools ranks with, from
// assets/wordvec/vectors.bin) copied and
// quickjs.wasm (the quickjs-ng sync variant's, patched by jsrun/patch.js to
// poll its interrupt handler at every operation and stop hard inside a
// built-in call, jsrun/hardstop.js). The same inputs give the
// same files: no timestamps, no absolute paths, sorted output,
// content-hashed chunk names.
//
//	node build.mjs            (from web/apps/chat)
//	TOOLROUTE_WASM=path node build.mjs   to take the module from elsewhere
//	node build.mjs --out DIR --no-module  the copy built into the program
//	                                      (make ui: internal/webui/dist), which
//	                                      serves its own toolroute.wasm
//	                                      and wordvec.bin
import { build } from "esbuild";
import { copyFile, mkdir, rm, readdir, stat } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
// The package's assets and the prelude's plugin: build-time code of the
// package (not published), shared by this build, the worker's and the
// package's prepack.
import { preludePlugin, wordVectors, writeQuickjsWasm } from "../../packages/toolroute/scripts/pack-assets.mjs";

const app = path.dirname(fileURLToPath(import.meta.url));
// web/, the workspaces' root, is esbuild's working folder: the bundle names
// CommonJS modules by their path from it (node_modules/...), so the build
// is the same wherever the app's folder sits.
const web = path.join(app, "..", "..");
const root = path.dirname(web);
const src = path.join(app, "src");
export const dist = path.join(app, "dist");

// buildUI writes the UI into out, emptied first; module false leaves
// toolroute.wasm out.
export async function buildUI({ out = dist, toolrouteWasm = process.env.TOOLROUTE_WASM || path.join(root, "wasm", "toolroute.wasm"), module = true, log = "warning" } = {}) {
  await rm(out, { recursive: true, force: true });
  await mkdir(out, { recursive: true });
  const { metafile } = await build({
    absWorkingDir: web,
    entryPoints: { app: path.join(src, "app.js"), worker: path.join(src, "worker.js") },
    outdir: out,
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "browser",
    target: ["es2022"],
    minify: true,
    legalComments: "none",
    chunkNames: "chunk-[hash]",
    // the package's jsrun reads the quickjs wasm from disk in Node only; the worker
    // passes it as options.wasmModule.
    external: ["node:*"],
    define: { "process.env.NODE_ENV": '"production"' },
    plugins: [preludePlugin],
    logLevel: log,
    metafile: true,
  });
  await removeUnreached(metafile, out, ["app.js", "worker.js"]);
  await copyFile(path.join(src, "index.html"), path.join(out, "index.html"));
  await copyFile(path.join(src, "app.css"), path.join(out, "app.css"));
  if (module) {
    await copyFile(toolrouteWasm, path.join(out, "toolroute.wasm"));
    await copyFile(wordVectors, path.join(out, "wordvec.bin"));
  }
  await writeQuickjsWasm(path.join(out, "quickjs.wasm"));
  await copyPdfData(out);
  const files = (await readdir(out)).sort();
  const sizes = {};
  for (const f of files) sizes[f] = (await stat(path.join(out, f))).size;
  return sizes;
}

// copyPdfData copies what pdf.js reads beside the page to draw one, to
// the top of out (the program serves no folders), with their licenses:
// its standard fonts as pdffont-FILE, for a PDF's unembedded Helvetica,
// Times and Courier, and its JPEG 2000 and JBIG2 decoders as
// pdfwasm-FILE, for scans (the package's host/pdf.js).
async function copyPdfData(out) {
  const require = createRequire(import.meta.url);
  const pkg = path.dirname(require.resolve("pdfjs-dist/package.json"));
  const license = (f) => (f.startsWith("LICENSE") ? f + ".txt" : f);
  for (const f of (await readdir(path.join(pkg, "standard_fonts"))).sort()) {
    await copyFile(path.join(pkg, "standard_fonts", f), path.join(out, "pdffont-" + license(f)));
  }
  for (const f of (await readdir(path.join(pkg, "wasm"))).sort()) {
    if (f === "qcms_bg.wasm" || f === "LICENSE_QCMS" || f === "LICENSE_PDFJS_QCMS" || f.endsWith(".js")) continue; // colour management and the no-wasm fallback: not used
    await copyFile(path.join(pkg, "wasm", f), path.join(out, "pdfwasm-" + license(f)));
  }
}

// removeUnreached deletes the chunks that no import, static or dynamic,
// reaches from the entry points. esbuild writes a chunk for every import()
// it sees, also for one whose code it then drops as unused (the MCP
// client's jose, for OAuth, and QuickJS's asyncify variant): no page ever
// loads those, so they are not shipped.
async function removeUnreached(metafile, out, entries) {
  const outputs = metafile.outputs; // keys relative to web/
  const reached = new Set();
  const visit = (p) => {
    if (reached.has(p) || !outputs[p]) return;
    reached.add(p);
    for (const i of outputs[p].imports) if (!i.external) visit(i.path);
  };
  for (const e of entries) visit(path.relative(web, path.join(out, e)));
  for (const p of Object.keys(outputs).sort()) {
    if (!reached.has(p)) await rm(path.resolve(web, p));
  }
}

// built names the files buildUI writes: index.html, app.css, the entry
// points, the wasm files, the word vectors, content-hashed chunks and
// pdf.js's data.
const built = /^(index\.html|app\.css|app\.js|worker\.js|toolroute\.wasm|wordvec\.bin|quickjs\.wasm|chunk-[A-Z0-9]+\.js|pdf(font|wasm)-[A-Za-z0-9_.-]+)$/;

// cliOut is --out's folder, refused when it holds a file no build writes
// (such as src/ itself): buildUI empties it.
async function cliOut(args) {
  const i = args.indexOf("--out");
  if (i < 0) return dist;
  if (!args[i + 1]) throw new Error("--out needs a folder");
  const out = path.resolve(args[i + 1]);
  const other = (await readdir(out).catch(() => [])).filter((f) => !built.test(f));
  if (other.length > 0) throw new Error(`--out ${out} holds ${other.sort().join(", ")}, which no build writes: not emptying it`);
  return out;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const out = await cliOut(args);
  const sizes = await buildUI({ out, module: !args.includes("--no-module") });
  for (const [f, n] of Object.entries(sizes)) console.log(`${path.relative(app, path.join(out, f))}\t${n}`);
}
