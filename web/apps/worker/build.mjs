// Builds the edge worker into web/apps/worker/dist/: worker.js (esbuild, ESM,
// minified; the bridges' prelude inlined by build.mjs's preludePlugin) with
// the JS tools of `toolroute export` and serve's chat page inside, beside
// toolroute.wasm and quickjs.wasm (patched by jsrun/patch.js to poll its
// interrupt handler at every operation and stop hard inside a built-in call,
// jsrun/hardstop.js: workerd compiles no wasm from bytes,
// so the patch is made here) and wordvec.bin (the word vectors
// search_tools ranks with), which the worker imports as modules; and
// workerd.capnp, a config to run it on this machine.
//
//	node apps/worker/build.mjs                   (from web/; runs `go run ./cmd/toolroute export --builtin` in the repository)
//	node apps/worker/build.mjs --bundle FILE.json     the tools from a `toolroute export` you made
//
// It prints each file's size, raw and gzipped, and the total against
// Workers' limits.
import { build } from "esbuild";
import { execFileSync } from "node:child_process";
import { copyFile, mkdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { gzipSync } from "node:zlib";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { preludePlugin, wordVectors, writeQuickjsWasm } from "../../packages/toolroute/scripts/pack-assets.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const web = path.join(here, "..", "..");
const root = path.dirname(web);
export const dist = path.join(here, "dist");

// COMPATIBILITY_DATE is the Workers runtime behaviour the worker is written
// for, in wrangler.toml and the workerd configs alike.
export const COMPATIBILITY_DATE = "2026-11-01";

// LIMITS are Workers' limits on a worker's size after gzip (free and paid
// plans), https://developers.cloudflare.com/workers/platform/limits/.
export const LIMITS = { free: 3 << 20, paid: 10 << 20 };

// exportBuiltin runs `toolroute export --builtin`: the built-in JS tools.
export function exportBuiltin() {
  const out = execFileSync("go", ["run", "./cmd/toolroute", "export", "--builtin"], { cwd: root, maxBuffer: 256 << 20 });
  return JSON.parse(out.toString("utf8"));
}

// buildWorker bundles entry (worker.js by default) with bundle, the
// {catalogue, sources, libraries} of `toolroute export`, into out. It gives
// the files' sizes: {name: {raw, gzip}}.
export async function buildWorker({ out = dist, bundle, entry = path.join(here, "worker.js"), toolrouteWasm = path.join(root, "wasm", "toolroute.wasm"), log = "warning" } = {}) {
  if (!bundle) throw new Error("buildWorker: give the bundle (`toolroute export`'s JSON)");
  const page = await readFile(path.join(root, "assets", "page.html"), "utf8");
  await rm(out, { recursive: true, force: true });
  await mkdir(out, { recursive: true });
  const virtual = {
    name: "toolroute-virtual",
    setup(b) {
      b.onResolve({ filter: /^toolroute:(bundle|page)$/ }, (a) => ({ path: a.path, namespace: "toolroute" }));
      b.onLoad({ filter: /.*/, namespace: "toolroute" }, (a) =>
        a.path === "toolroute:bundle" ? { contents: JSON.stringify(bundle), loader: "json" } : { contents: page, loader: "text" });
      // The wasm files stay module imports, resolved by workerd or wrangler
      // beside worker.js.
      b.onResolve({ filter: /\.(wasm|bin)$/ }, (a) => ({ path: "./" + path.basename(a.path), external: true }));
    },
  };
  await build({
    absWorkingDir: web,
    entryPoints: [entry],
    outfile: path.join(out, "worker.js"),
    bundle: true,
    format: "esm",
    platform: "neutral",
    mainFields: ["module", "main"],
    conditions: ["workerd", "worker", "browser"],
    target: ["es2022"],
    minify: true,
    legalComments: "none",
    external: ["cloudflare:*", "node:*"],
    define: { "process.env.NODE_ENV": '"production"' },
    plugins: [virtual, preludePlugin],
    logLevel: log,
  });
  await copyFile(toolrouteWasm, path.join(out, "toolroute.wasm"));
  await writeQuickjsWasm(path.join(out, "quickjs.wasm"));
  await copyFile(wordVectors, path.join(out, "wordvec.bin"));
  // workerd resolves the config's embedded files from the config's folder
  // and the storage folder from its working folder: web/, as the build
  // prints. It is for this machine: requests to 127.0.0.1 need no token.
  await writeFile(path.join(out, "workerd.capnp"), workerdConfig({ dir: ".", port: 8787, storage: "apps/worker/.workerd-storage", bindings: { TOOLROUTE_DEV_NO_TOKEN: "1" } }));
  await mkdir(path.join(here, ".workerd-storage"), { recursive: true });
  const sizes = {};
  for (const f of ["worker.js", "toolroute.wasm", "quickjs.wasm", "wordvec.bin"]) {
    const data = await readFile(path.join(out, f));
    sizes[f] = { raw: data.length, gzip: gzipSync(data, { level: 9 }).length };
  }
  return sizes;
}

// workerdConfig is a workerd config serving the worker of dir on
// 127.0.0.1:port, its Durable Objects kept in the folder storage (relative
// to the config's folder, or absolute), its variables and secrets from
// bindings ({NAME: text}). Outbound fetches may reach loopback and private
// addresses: it is for running on this machine. TOOLROUTE_DEV_NO_TOKEN gets
// a warning beside it in the config, where someone putting a proxy in front
// will look.
export function workerdConfig({ dir, port, storage, bindings = {}, entry = "worker.js" }) {
  const str = (s) => JSON.stringify(String(s)); // a capnp text literal
  const file = (f) => str(path.posix.join(dir, f));
  const warn = {
    TOOLROUTE_DEV_NO_TOKEN: "    # Requests whose Host is a loopback name need no TOOLROUTE_TOKEN: for this\n    # machine only. Before anything else can reach this worker (a proxy in\n    # front, another address), remove it and bind TOOLROUTE_TOKEN instead.\n",
  };
  const vars = Object.keys(bindings).sort().map((k) => `${warn[k] ?? ""}    (name = ${str(k)}, text = ${str(bindings[k])}),\n`).join("");
  return `# workerd config for toolroute's edge worker (written by web/apps/worker/build.mjs).
using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = [
    (name = "main", worker = .toolroute),
    (name = "internet", network = (allow = ["public", "private", "local"])),
    (name = "storage", disk = (path = ${str(storage)}, writable = true)),
  ],
  sockets = [(name = "http", address = ${str(`127.0.0.1:${port}`)}, http = (), service = "main")],
);

const toolroute :Workerd.Worker = (
  modules = [
    (name = "worker.js", esModule = embed ${file(entry)}),
    (name = "toolroute.wasm", wasm = embed ${file("toolroute.wasm")}),
    (name = "quickjs.wasm", wasm = embed ${file("quickjs.wasm")}),
    (name = "wordvec.bin", data = embed ${file("wordvec.bin")}),
  ],
  compatibilityDate = ${str(COMPATIBILITY_DATE)},
  bindings = [
    (name = "SESSION_LOG", durableObjectNamespace = "SessionLog"),
    (name = "SESSION_INDEX", durableObjectNamespace = "SessionIndex"),
    (name = "SANDBOX_FILES", durableObjectNamespace = "SandboxFiles"),
    (name = "SELF", service = "main"),
${vars}  ],
  durableObjectNamespaces = [
    (className = "SessionLog", uniqueKey = "toolroute-session-log", enableSql = true),
    (className = "SessionIndex", uniqueKey = "toolroute-session-index", enableSql = true),
    (className = "SandboxFiles", uniqueKey = "toolroute-sandbox-files", enableSql = true),
  ],
  durableObjectStorage = (localDisk = "storage"),
);
`;
}

// report writes sizes as the README gives them.
export function report(sizes) {
  const kb = (n) => `${(n / 1024).toFixed(0)} KiB`;
  const lines = [];
  let raw = 0, gz = 0;
  for (const [f, s] of Object.entries(sizes)) {
    lines.push(`${f.padEnd(16)} ${kb(s.raw).padStart(10)} raw ${kb(s.gzip).padStart(10)} gzipped`);
    raw += s.raw;
    gz += s.gzip;
  }
  lines.push(`${"total".padEnd(16)} ${kb(raw).padStart(10)} raw ${kb(gz).padStart(10)} gzipped`);
  lines.push(`Workers' limit after gzip: ${kb(LIMITS.free)} free (${((100 * gz) / LIMITS.free).toFixed(0)}% used), ${kb(LIMITS.paid)} paid (${((100 * gz) / LIMITS.paid).toFixed(0)}% used)`);
  return lines.join("\n");
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const i = process.argv.indexOf("--bundle");
  const bundle = i > 0 ? JSON.parse(await readFile(process.argv[i + 1], "utf8")) : exportBuiltin();
  console.log(report(await buildWorker({ bundle })));
  await stat(path.join(dist, "workerd.capnp"));
  console.log(`run it here: npx workerd serve ${path.relative(web, path.join(dist, "workerd.capnp"))} (from web/), then open http://127.0.0.1:8787 (no token asked: TOOLROUTE_DEV_NO_TOKEN is 1 in that config, for this machine only)`);
}
