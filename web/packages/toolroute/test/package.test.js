// The npm package as a user gets it: `npm pack` (which writes dist/ first),
// the tarball installed offline into a new project outside the repository,
// beside the examples of its README.md (taken from it, so the README's
// code is what runs), tsc over them, then each run: the Node scripts and
// the AI SDK example in Node (the one that needs a model against a fake
// OpenAI server on loopback), the worker bundled as wrangler would and
// served by workerd, the browser page bundled and loaded in Chromium.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { createServer } from "node:http";
import { copyFile, mkdir, mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { freePort, startWorkerd } from "../../../apps/worker/workerd.js";
import { COMPATIBILITY_DATE } from "../../../apps/worker/build.mjs";
import { launch, noChromium, WAIT_MS } from "./browser-harness.js";
import { startFakeModel, text, toolCall, toolNames } from "./host-fakemodel.js";

const run = promisify(execFile);
const web = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
// workspaces is web/, the npm workspaces' root: their one lock and node_modules.
const workspaces = path.join(web, "..", "..");
const pkg = JSON.parse(await readFile(path.join(web, "package.json"), "utf8"));
const tsc = path.join(workspaces, "node_modules", "typescript", "bin", "tsc");

// examples gives README.md's files: each fenced block after a line
// `<!-- example: PATH -->`, by PATH.
export function examples(markdown) {
  const out = new Map();
  const re = /<!-- example: (\S+) -->\n```[a-z]*\n([\s\S]*?)\n```/g;
  for (const m of markdown.matchAll(re)) out.set(m[1], m[2] + "\n");
  return out;
}

// unrun gives the fenced blocks of markdown that are not examples (no
// `<!-- example: PATH -->` line before them) and not shell commands, as
// "LANGUAGE block at line N": code a reader would copy that no test runs.
export function unrun(markdown) {
  const out = [];
  const lines = markdown.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\S*)/.exec(lines[i]);
    if (!open) continue;
    const example = i > 0 && /^<!-- example: \S+ -->$/.test(lines[i - 1]);
    if (!example && !["sh", "console"].includes(open[1])) out.push(`${open[1] || "unmarked"} block at line ${i + 1}`);
    while (++i < lines.length && lines[i] !== "```");
  }
  return out;
}

// lockFor is a package-lock.json for manifest (toolroute from the tarball
// packed, the rest from the registry) holding, for every package the
// install needs, the entry webLock has: the same versions and integrity.
export function lockFor(webLock, manifest, packed, registry) {
  const packages = { "": { name: manifest.name, dependencies: manifest.dependencies } };
  const toolroute = {
    version: pkg.version,
    resolved: manifest.dependencies.toolroute,
    integrity: packed.integrity,
    dependencies: pkg.dependencies,
    peerDependencies: pkg.peerDependencies,
    peerDependenciesMeta: pkg.peerDependenciesMeta,
  };
  packages["node_modules/toolroute"] = toolroute;
  const walk = (deps, from) => {
    for (const name of Object.keys(deps ?? {}).sort()) {
      // Node's lookup: the nearest node_modules folder up from `from`.
      let at = from, key;
      for (;;) {
        key = (at ? at + "/" : "") + "node_modules/" + name;
        if (webLock.packages[key] || !at) break;
        at = at.includes("/node_modules/") ? at.slice(0, at.lastIndexOf("/node_modules/")) : "";
      }
      const e = webLock.packages[key];
      if (!e) throw new Error(`web/package-lock.json has no ${name} (needed by ${from || "the examples"})`);
      if (packages[key]) continue;
      const { dev, devOptional, peer, ...entry } = e;
      // The tarball's address, which this machine's npm config leaves out
      // of web's lock (omit-lockfile-registry-resolved): without it, npm
      // would ask the registry for the package's versions to find it.
      const base = name.split("/").pop();
      packages[key] = { ...entry, resolved: entry.resolved ?? `${registry}${name}/-/${base}-${e.version}.tgz` };
      const optionalPeers = new Set(Object.keys(e.peerDependenciesMeta ?? {}).filter((p) => e.peerDependenciesMeta[p].optional));
      walk({ ...e.dependencies, ...Object.fromEntries(Object.entries(e.peerDependencies ?? {}).filter(([p]) => !optionalPeers.has(p))) }, key);
      walk(Object.fromEntries(Object.keys(e.optionalDependencies ?? {}).filter((p) => webLock.packages[`node_modules/${p}`]).map((p) => [p, e.optionalDependencies[p]])), key);
    }
  };
  const { toolroute: _, ...theirs } = manifest.dependencies;
  walk({ ...pkg.dependencies, ...theirs }, "");
  return { name: manifest.name, lockfileVersion: 3, requires: true, packages };
}

let tmp, app, files;

before(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), "toolroute-pkg-"));
  const { stdout } = await run("npm", ["pack", "--pack-destination", tmp, "--json"], { cwd: web, maxBuffer: 16 << 20 });
  const [packed] = JSON.parse(stdout.slice(stdout.indexOf("[")));
  app = path.join(tmp, "app");
  files = examples(await readFile(path.join(web, "README.md"), "utf8"));
  for (const [name, text] of files) {
    await mkdir(path.dirname(path.join(app, name)), { recursive: true });
    await writeFile(path.join(app, name), text);
  }
  // tools.js sits beside each example, as the README says.
  for (const dir of ["node", "browser", "worker", "ai-sdk"]) await copyFile(path.join(app, "tools.js"), path.join(app, dir, "tools.js"));
  const manifest = {
    name: "toolroute-examples",
    private: true,
    type: "module",
    // @types/node for the Node consumer project (consumerProjects) and
    // the examples' tsconfig; zod for the tools-as-code example.
    dependencies: { toolroute: `file:../${packed.filename}`, ai: pkg.devDependencies.ai, zod: pkg.devDependencies.zod, "@types/node": pkg.devDependencies["@types/node"] },
  };
  await writeFile(path.join(app, "package.json"), JSON.stringify(manifest, null, 2));
  // Offline: a lock of the versions web/package-lock.json pins, whose
  // tarballs are in the npm cache `npm ci` in web/ filled (an install
  // without a lock would ask the registry for its version lists).
  const webLock = JSON.parse(await readFile(path.join(workspaces, "package-lock.json"), "utf8"));
  const registry = (await run("npm", ["config", "get", "registry"], { cwd: workspaces })).stdout.trim().replace(/\/?$/, "/");
  await writeFile(path.join(app, "package-lock.json"), JSON.stringify(lockFor(webLock, manifest, packed, registry), null, 2));
  await run("npm", ["ci", "--offline", "--no-audit", "--no-fund", "--loglevel=error"], { cwd: app, maxBuffer: 16 << 20 }).catch((e) => {
    throw new Error(`installing the packed package offline failed: run npm ci in web/ first, which fills the npm cache it installs from:\n${e.stderr}`);
  });
});

after(async () => {
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

test("README.md has the examples the tests run", () => {
  assert.deepEqual([...files.keys()].sort(), [
    "ai-sdk/main.js", "browser/index.html", "browser/main.js", "node/main.js", "tools.js", "tsconfig.json", "typed/main.js", "worker/worker.js", "worker/wrangler.toml",
  ]);
});

test("every block of code in README.md and docs/embedding/npm.md is an example the tests run, or shell commands", async () => {
  for (const file of [path.join(web, "README.md"), path.join(web, "..", "..", "..", "docs", "embedding", "npm.md")]) {
    assert.deepEqual(unrun(await readFile(file, "utf8")), [], `${path.relative(path.join(web, "..", "..", ".."), file)}: mark each with <!-- example: PATH --> and run it here`);
  }
  // The worker's wrangler.toml asks for the date the test's workerd runs.
  assert.match(files.get("worker/wrangler.toml"), new RegExp(`^compatibility_date = "${COMPATIBILITY_DATE}"$`, "m"));
});

test("the tarball holds the package's files and nothing of the UI, the worker or the tests", async () => {
  const { stdout } = await run("tar", ["-tzf", path.join(tmp, `${pkg.name}-${pkg.version}.tgz`)]);
  const names = stdout.trim().split("\n").map((n) => n.replace(/^package\//, "")).sort();
  for (const want of ["package.json", "README.md", "index.js", "dist/toolroute.wasm", "dist/quickjs.wasm", "dist/wordvec.bin", "dist/prelude.js", "types/index.d.ts", "host/host.js", "jsrun/runner.js", "host/mcp.js", "ai-sdk/ai-sdk.js"]) {
    assert.ok(names.includes(want), `the tarball has no ${want}: ${names.join(" ")}`);
  }
  assert.deepEqual(names.filter((n) => /^(ui|worker|test|e2e|scripts)\//.test(n)), []);
});

test("the installed package's wasm is the repository's module", async () => {
  const installed = await readFile(path.join(app, "node_modules", "toolroute", "dist", "toolroute.wasm"));
  assert.ok(installed.equals(await readFile(path.join(web, "..", "..", "..", "wasm", "toolroute.wasm"))));
});

test("each of the package's entries imports in Node from the installed package", async () => {
  const script = `
    const names = {};
    for (const e of ["toolroute", "toolroute/host", "toolroute/jsrun", "toolroute/mcp", "toolroute/ai-sdk"]) names[e] = Object.keys(await import(e)).sort();
    const { parseMcpConfig } = await import("toolroute/mcp");
    names.mcp = parseMcpConfig(JSON.stringify({ mcpServers: { docs: { url: "http://127.0.0.1:1/mcp" } } })).servers.map((s) => s.key);
    const { loadToolroute, loadWordVectors } = await import("toolroute");
    names.vectors = (await loadToolroute()).wordVectors(await loadWordVectors());
    console.log(JSON.stringify(names));`;
  const { stdout } = await run(process.execPath, ["--input-type=module", "-e", script], { cwd: app });
  const names = JSON.parse(stdout);
  for (const [entry, want] of [["toolroute", "loadToolroute"], ["toolroute", "Toolroute"], ["toolroute/host", "createHost"], ["toolroute/jsrun", "Runner"], ["toolroute/mcp", "McpServers"], ["toolroute/ai-sdk", "createRouter"]]) {
    assert.ok(names[entry].includes(want), `${entry} exports no ${want}: ${names[entry].join(", ")}`);
  }
  assert.deepEqual(names.mcp, ["docs"]);
  assert.deepEqual(names.vectors, { words: 10000, dimensions: 46 }, "the package's word vectors read in its module");
  // Every value the declarations declare is there at run time.
  const files = { toolroute: "index", "toolroute/host": "host", "toolroute/jsrun": "jsrun", "toolroute/mcp": "mcp", "toolroute/ai-sdk": "ai-sdk" };
  for (const [entry, file] of Object.entries(files)) {
    const dts = await readFile(path.join(app, "node_modules", "toolroute", "types", `${file}.d.ts`), "utf8");
    const declared = [...dts.matchAll(/^export declare (?:const|function|class) (\w+)/gm)].map((m) => m[1]);
    assert.ok(declared.length > 0, file);
    assert.deepEqual(declared.filter((n) => !names[entry].includes(n)), [], `${file}.d.ts declares what ${entry} does not export`);
  }
});

test("tsc type-checks the examples against the package's declarations", async () => {
  const r = await run(process.execPath, [tsc, "-p", app], { cwd: app }).catch((e) => e);
  assert.equal(r.code ?? 0, 0, `tsc:\n${r.stdout}${r.stderr}`);
});

test("tsc finds a wrong use of the package", async () => {
  const bad = path.join(app, "node", "bad.js");
  await writeFile(bad, `// @ts-check\nimport { createHost } from "toolroute/host";\nawait createHost({ provider: { format: "openai", demo: true } });\n`);
  try {
    const r = await run(process.execPath, [tsc, "-p", app], { cwd: app }).catch((e) => e);
    assert.notEqual(r.code ?? 0, 0);
    assert.match(r.stdout, /bad\.js.*'module' is missing/);
  } finally {
    await rm(bad);
  }
});

test("tsc types execute's arguments from a zod schema", async () => {
  const bad = path.join(app, "typed", "bad.js");
  await writeFile(bad, `// @ts-check
import { tool } from "toolroute";
import { z } from "zod";
export const t = tool({ name: "t", description: "d", inputSchema: z.object({ city: z.string() }), execute: ({ city }) => city.toFixed(1) });
`);
  try {
    const r = await run(process.execPath, [tsc, "-p", app], { cwd: app }).catch((e) => e);
    assert.notEqual(r.code ?? 0, 0);
    assert.match(r.stdout, /bad\.js.*Property 'toFixed' does not exist on type 'string'/);
  } finally {
    await rm(bad);
  }
});

test("the Node script loads the weather group, calls its tool, and the next turn finds the group loaded", async () => {
  const { stdout } = await run(process.execPath, ["main.js"], { cwd: path.join(app, "node") });
  assert.equal(stdout.match(/^loaded group weather$/gm)?.length, 1, stdout);
  assert.equal(stdout.match(/^get_forecast: Sunny, 24 °C$/gm)?.length, 2, stdout);
  assert.equal(stdout.match(/^\[demo model\] get_forecast answered: Sunny, 24 °C\./gm)?.length, 2, stdout);
});

test("the tools-as-code script, against a fake OpenAI server, loads the group and runs each execute with the arguments the model gave", async () => {
  const model = await startFakeModel("openai",
    toolCall("load_tool_group", '{"group_name":"weather"}'),
    toolCall("get_forecast", '{"city":"Paris","days":2}'),
    toolCall("to_fahrenheit", '{"celsius":24}'),
    text("Paris: sunny for two days, 24 °C (75.2 °F)."));
  try {
    const { stdout } = await run(process.execPath, ["main.js"], {
      cwd: path.join(app, "typed"),
      env: { ...process.env, OPENAI_BASE_URL: model.baseURL, OPENAI_API_KEY: "sk-test" },
    });
    assert.match(stdout, /^loaded group weather$/m);
    assert.match(stdout, /^get_forecast: Paris: sunny for 2 day\(s\), 24 °C$/m);
    assert.match(stdout, /^to_fahrenheit: 75\.2 °F$/m);
    assert.match(stdout, /\nParis: sunny for two days, 24 °C \(75\.2 °F\)\.\n$/);
    // The zod schema went to the model as JSON Schema, once the group was loaded.
    assert.deepEqual(model.requests.map(toolNames), [
      ["load_tool_group", "to_fahrenheit"],
      ["load_tool_group", "to_fahrenheit", "get_forecast"],
      ["load_tool_group", "to_fahrenheit", "get_forecast"],
      ["load_tool_group", "to_fahrenheit", "get_forecast"],
    ]);
    const forecast = model.requests[1].json.tools.find((t) => t.function.name === "get_forecast").function.parameters;
    assert.deepEqual(forecast.required, ["city"]);
    assert.equal(forecast.properties.city.type, "string");
    assert.equal(model.requests[0].headers.authorization, "Bearer sk-test");
  } finally {
    await model.close();
  }
});

test("the AI SDK example loads the group through the app's generateText and calls its JS tool", async () => {
  const { stdout } = await run(process.execPath, ["main.js"], { cwd: path.join(app, "ai-sdk") });
  assert.match(stdout, /^load_tool_group: \{"type":"text","value":"Loaded 1 tools from group 'Weather':\\n- get_forecast: Today's forecast here"\}$/m);
  assert.match(stdout, /^get_forecast: \{"type":"text","value":"Sunny, 24 °C"\}$/m);
  assert.match(stdout, /^It is sunny\.\nloaded: weather$/m);
});

// wasmModules resolves the .wasm imports as wrangler does: each copied
// beside the bundle and imported from there as a compiled module.
function wasmModules(out) {
  return {
    name: "wasm-modules",
    setup(b) {
      b.onResolve({ filter: /\.wasm$/ }, async (a) => {
        if (a.pluginData === "wasm") return undefined;
        const r = await b.resolve(a.path, { resolveDir: a.resolveDir, kind: a.kind, pluginData: "wasm" });
        if (r.errors.length) return { errors: r.errors };
        await copyFile(r.path, path.join(out, path.basename(r.path)));
        return { path: "./" + path.basename(r.path), external: true };
      });
    },
  };
}

test("the worker runs in workerd and answers with the group load and the demo model's reply", async () => {
  const dir = path.join(app, "worker");
  const out = path.join(dir, "dist");
  await mkdir(out, { recursive: true });
  await build({
    absWorkingDir: dir, entryPoints: ["worker.js"], outfile: path.join(out, "worker.js"), bundle: true, format: "esm",
    platform: "neutral", mainFields: ["module", "main"], conditions: ["workerd", "worker", "browser"], target: "es2022",
    external: ["node:*", "cloudflare:*"], plugins: [wasmModules(out)], logLevel: "error",
  });
  assert.deepEqual((await readdir(out)).sort(), ["quickjs.wasm", "toolroute.wasm", "worker.js"]);
  const port = await freePort();
  await writeFile(path.join(out, "workerd.capnp"), `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [(name = "main", worker = .example)],
  sockets = [(name = "http", address = "127.0.0.1:${port}", http = (), service = "main")],
);
const example :Workerd.Worker = (
  modules = [
    (name = "worker.js", esModule = embed "worker.js"),
    (name = "toolroute.wasm", wasm = embed "toolroute.wasm"),
    (name = "quickjs.wasm", wasm = embed "quickjs.wasm"),
  ],
  compatibilityDate = "${COMPATIBILITY_DATE}",
);
`);
  const base = `http://127.0.0.1:${port}`;
  const w = await startWorkerd(path.join(out, "workerd.capnp"), { cwd: out, base });
  try {
    const resp = await fetch(`${base}/?q=${encodeURIComponent("What is the weather forecast?")}`);
    const text = await resp.text();
    assert.equal(resp.status, 200, text + w.output());
    assert.match(text, /^loaded group weather\n\[demo model\] get_forecast answered: Sunny, 24 °C\./, text + w.output());
  } finally {
    await w.stop();
  }
});

const TYPES = { ".html": "text/html", ".js": "text/javascript", ".wasm": "application/wasm" };

test("the browser page, bundled with esbuild, answers in Chromium", { skip: noChromium, timeout: 5 * WAIT_MS }, async () => {
  const dir = path.join(app, "browser");
  await build({
    absWorkingDir: dir, entryPoints: ["main.js"], outfile: path.join(dir, "app.js"), bundle: true, format: "esm",
    platform: "browser", target: "es2022", external: ["node:*"], logLevel: "error",
  });
  for (const f of ["toolroute.wasm", "quickjs.wasm"]) await copyFile(path.join(app, "node_modules", "toolroute", "dist", f), path.join(dir, f));
  const srv = createServer(async (req, res) => {
    const name = path.basename(new URL(req.url, "http://x").pathname) || "index.html";
    const file = path.join(dir, name);
    if (!existsSync(file)) return res.writeHead(404).end();
    res.writeHead(200, { "content-type": TYPES[path.extname(name)] ?? "application/octet-stream" });
    res.end(await readFile(file));
  });
  await new Promise((r) => srv.listen(0, "127.0.0.1", r));
  const browser = await launch();
  try {
    const page = await browser.newPage();
    const errors = [];
    page.on("pageerror", (e) => errors.push(e.message));
    await page.goto(`http://127.0.0.1:${srv.address().port}/`);
    // The button is enabled once the host is made (the page's top-level await).
    await page.click("button");
    await page.waitForFunction(() => /\[demo model\]|failed:/.test(document.getElementById("log")?.textContent ?? ""), null, { timeout: WAIT_MS }).catch(() => {});
    const log = await page.textContent("#log");
    assert.match(log, /^> What is the weather forecast\?\nloaded group weather\n\[demo model\] get_forecast answered: Sunny, 24 °C\./, `${log}\n${errors.join("\n")}`);
  } finally {
    await browser.close();
    srv.close();
  }
});

test("the declarations themselves type-check, against @types/node and the ai package", async () => {
  const dir = path.join(tmp, "types-check");
  await mkdir(dir, { recursive: true });
  const types = (await readdir(path.join(web, "types"))).filter((f) => f.endsWith(".d.ts")).sort();
  assert.ok(types.includes("ai-sdk.d.ts") && types.includes("host.d.ts"), types.join(" "));
  await writeFile(path.join(dir, "tsconfig.json"), JSON.stringify({
    compilerOptions: { strict: true, noEmit: true, module: "nodenext", moduleResolution: "nodenext", target: "es2022", lib: ["es2022", "dom"], types: ["node"], typeRoots: [path.join(workspaces, "node_modules", "@types")], skipLibCheck: false },
    files: types.map((f) => path.join(web, "types", f)),
  }));
  const r = await run(process.execPath, [tsc, "-p", dir], { cwd: web }).catch((e) => e);
  assert.equal(r.code ?? 0, 0, `tsc:\n${r.stdout}${r.stderr}`);
});

// consumerProjects are three small strict TypeScript projects of the
// package's users, each with the libs of where it runs: Node (its types and
// ES2022 alone, no DOM), a browser page (the DOM) and a Cloudflare Worker
// (the webworker lib). Each uses what it would of the package: the hosts'
// events and their fields, the tools' and the router's options, the wasm
// files as that place loads them.
const consumerProjects = {
  node: {
    lib: ["es2022"],
    types: ["node"],
    main: `import { readFile } from "node:fs/promises";
import { streamText, stepCountIs, type LanguageModel, type ModelMessage } from "ai";
import { loadToolroute, loadWordVectors, Toolroute, type Bytes, type Message } from "toolroute";
import { createHost, MemoryStore, type Event, type NativeTool, type Policy } from "toolroute/host";
import { Runner, MemoryStore as Files } from "toolroute/jsrun";
import { McpServers, withMcp } from "toolroute/mcp";
import { createRouter, type RouterEvent } from "toolroute/ai-sdk";

const vectors: Bytes = await loadWordVectors();
const inst: Toolroute = await Toolroute.instantiate(await readFile(new URL("toolroute.wasm", import.meta.url)), { wordVectors: vectors });
const runner = new Runner({ store: new Files({ "notes.txt": "hi" }) });
const mcp = new McpServers({ config: JSON.stringify({ mcpServers: {} }) });
const sendNote: NativeTool = async (input, { signal, granted }) => {
  signal?.throwIfAborted();
  return \`sent \${String(input.text)} (\${granted.length} secrets)\`;
};
const native: Record<string, NativeTool> = { send_note: sendNote };
const policies: Policy[] = [{ tool: "send_note", decision: "allow" }, { group: "mail", decision: "ask" }];
const catalogue = await withMcp({ tools: [{ name: "send_note", description: "Send a note", required_permissions: ["send"] }] }, mcp, native);

function show(ev: Event): string {
  switch (ev.type) {
    case "group_loaded": return \`\${ev.group.name}: +\${(ev.group.added ?? []).join(",")} = \${ev.group.active.join(",")} \${ev.group.query ?? ""} -\${(ev.group.unloaded ?? []).join(",")}\`;
    case "model_call": return \`call \${ev.call}: \${ev.tools.join(",")} (\${ev.schema?.core_tools ?? 0} bytes, \${ev.routing ?? "classic"})\`;
    case "tool_calls":
    case "approval": return ev.calls.map((c) => \`\${c.tool} \${c.origin.kind} \${c.timeout_seconds}s \${(c.secrets ?? []).join(",")}\`).join("; ");
    case "retry": return \`\${ev.retry.message} (\${ev.retry.wait_ms} ms)\`;
    case "progress": return \`\${ev.call_id}: \${ev.progress}/\${ev.total ?? "?"} \${ev.message ?? ""}\`;
    case "message": return \`\${ev.message.type} \${ev.message.status ?? ""} \${ev.message.content ?? ""}\`;
    case "text": return ev.text;
    case "done": return \`\${ev.text} \${ev.usage?.input_tokens ?? 0}+\${ev.usage?.output_tokens ?? 0}\`;
    case "failed": return \`\${ev.failure.code}: \${ev.failure.message}\`;
  }
}

const host = await createHost({
  module: () => loadToolroute(),
  catalogue,
  native,
  policies,
  store: new MemoryStore(),
  provider: { format: "openai", demo: true },
  runJS: (c) => runner.call(c),
  approve: async (_session, calls) => calls.map((c) => ({ id: c.id, answer: "once" as const, grant: c.secrets })),
  wordVectors: vectors,
});
for await (const ev of host.send("s", "hi")) console.log(show(ev));
const log: Message[] = await host.messages("s");

// The router takes the host's native tools, MCP servers' included.
const router = await createRouter({
  module: inst,
  catalogue,
  native: { ...mcp.native(), ...native },
  runJS: (c) => runner.call(c),
  policies: async () => policies,
  memories: () => ["The user is Ann."],
  settings: { searchTools: true, toolBudget: 4000, allowedGroups: ["mail"], allow_hint: "Allow it in Settings." },
  onEvent: (e: RouterEvent) => console.log(e.type === "group_loaded" ? e.group.active : e.message.type),
});
declare const model: LanguageModel;
const chat = router.session("chat-1");
const messages: ModelMessage[] = [{ role: "user", content: "hi" }];
const r = streamText({ model, messages, tools: chat.tools, prepareStep: chat.prepareStep, stopWhen: stepCountIs(5) });
console.log(await r.text, router.loadedGroups([...messages, ...(await r.responseMessages)]), log.length, router.report?.errors);
`,
  },
  browser: {
    lib: ["es2022", "dom", "dom.iterable"],
    types: [],
    main: `import { generateText, type LanguageModel } from "ai";
import { loadToolroute, loadQuickJS, loadWordVectors } from "toolroute";
import { createHost } from "toolroute/host";
import { Runner, MemoryStore } from "toolroute/jsrun";
import { createRouter } from "toolroute/ai-sdk";

const runner = new Runner({ store: new MemoryStore(), wasmModule: await loadQuickJS("quickjs.wasm"), fetch: { cors: true } });
const host = await createHost({
  module: () => loadToolroute(new URL("toolroute.wasm", location.href)),
  provider: { format: "anthropic", baseURL: "https://api.anthropic.com", apiKey: "key", model: "claude-sonnet-4-5" },
  settings: { stream: true, search_tools: true },
  runJS: (c) => runner.call(c),
  approve: async (_session, calls) => calls.map((c) => ({ id: c.id, answer: window.confirm(\`Run \${c.tool}?\`) ? ("once" as const) : ("deny" as const) })),
  wordVectors: () => loadWordVectors("wordvec.bin"),
});
const log = document.querySelector("pre");
for await (const ev of host.send("chat", "hi")) {
  if (ev.type === "group_loaded" && log) log.textContent += \`\${ev.group.display_name}: \${(ev.group.added ?? []).length} tools\\n\`;
  if (ev.type === "text" && log) log.textContent += ev.text;
}
const router = await createRouter({ module: () => loadToolroute("toolroute.wasm"), runJS: (c) => runner.call(c) });
declare const model: LanguageModel;
const chat = router.session();
const r = await generateText({ model, prompt: "hi", tools: chat.tools, prepareStep: chat.prepareStep });
console.log(r.text);
`,
  },
  worker: {
    lib: ["es2022", "webworker"],
    types: [],
    main: `import toolrouteWasm from "toolroute/toolroute.wasm";
import quickjsWasm from "toolroute/quickjs.wasm";
import { streamText, type LanguageModel } from "ai";
import { Toolroute } from "toolroute";
import { createHost, MemoryStore, type Store } from "toolroute/host";
import { Runner, MemoryStore as Files } from "toolroute/jsrun";
import { createRouter } from "toolroute/ai-sdk";

declare const model: LanguageModel;

export default {
  async fetch(request: Request): Promise<Response> {
    const question = new URL(request.url).searchParams.get("q") ?? "hi";
    const runner = new Runner({ store: new Files(), wasmModule: quickjsWasm });
    const store: Store = new MemoryStore();
    const host = await createHost({ module: () => Toolroute.instantiate(toolrouteWasm), store, provider: { format: "openai", demo: true }, runJS: (c) => runner.call(c) });
    const lines: string[] = [];
    for await (const ev of host.send("request", question)) {
      if (ev.type === "group_loaded") lines.push(ev.group.active.join(","));
      if (ev.type === "done") lines.push(ev.text);
    }
    const router = await createRouter({ module: () => Toolroute.instantiate(toolrouteWasm), runJS: (c) => runner.call(c) });
    const chat = router.session(question);
    const r = streamText({ model, prompt: question, tools: chat.tools, prepareStep: chat.prepareStep });
    return new Response(lines.join("\\n") + (await r.text), { headers: { "content-type": "text/plain" } });
  },
};
`,
  },
};

// theirs matches the AI SDK's own declarations (ai, @ai-sdk/*), which name
// DOM and Node types wherever they run (HeadersInit, FileList, Buffer,
// node:http) and json-schema's: a project type-checks them only with both
// libs or with skipLibCheck, as the AI SDK's users do. Their diagnostics
// are theirs; any other fails.
const theirs = /(^|\/)node_modules\/(ai|@ai-sdk\/[^/]+)\//;

// ours gives tsc's diagnostics, each with the lines that follow it, but
// those of files theirs matches.
export function ours(output) {
  const out = [];
  let keep = false;
  for (const line of output.split("\n")) {
    const at = /^(\S[^(]*)\(\d+,\d+\): error /.exec(line);
    if (at) keep = !theirs.test(at[1]);
    else if (/^\S/.test(line)) keep = true;
    if (keep && line.trim() !== "") out.push(line);
  }
  return out;
}

test("tsc type-checks strict consumer projects: Node without the DOM, a browser page and a Worker", async () => {
  const failures = [];
  for (const [name, p] of Object.entries(consumerProjects)) {
    const dir = path.join(app, "consumers", name);
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, "main.ts"), p.main);
    await writeFile(path.join(dir, "tsconfig.json"), JSON.stringify({
      compilerOptions: {
        strict: true, noEmit: true, skipLibCheck: false, module: "nodenext", moduleResolution: "nodenext", target: "es2022",
        lib: p.lib, types: p.types,
      },
      files: ["main.ts"],
    }, null, 2));
    const r = await run(process.execPath, [tsc, "-p", dir], { cwd: dir }).catch((e) => e);
    const errors = ours(`${r.stdout ?? ""}${r.stderr ?? ""}`);
    if (errors.length) failures.push(`${name} (lib ${p.lib.join(", ")}; types ${p.types.join(", ") || "none"}):\n${errors.join("\n")}`);
  }
  assert.deepEqual(failures, []);
});
