// manifests/lib/turndown.js is generated (scripts/turndown-lib.mjs): the
// committed file must be what the script builds from the turndown
// package-lock.json pins. It runs in QuickJS as turndown runs in Node: the
// cases of testdata/turndown, which the Go host replays too
// (manifests/turndown_test.go), give npm turndown's markdown.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import TurndownService from "turndown";
import { MAX_LIBRARY_BYTES, Runner } from "../jsrun/runner.js";
import { buildLibrary, libPath } from "../scripts/turndown-lib.mjs";
import { moduleCheck } from "./module-check.js";

const cases = JSON.parse(await readFile(new URL("../../../../testdata/turndown/cases.json", import.meta.url), "utf8"));

test("manifests/lib/turndown.js is what scripts/turndown-lib.mjs builds", async () => {
  const committed = await readFile(libPath, "utf8");
  const built = await buildLibrary();
  assert.ok(committed === built, "manifests/lib/turndown.js differs from a fresh build: run `node scripts/turndown-lib.mjs` in web/ and commit it");
  assert.ok(Buffer.byteLength(built) < MAX_LIBRARY_BYTES / 2, `the library is ${Buffer.byteLength(built)} bytes: lib() takes at most ${MAX_LIBRARY_BYTES}`);
});

test("lib('turndown') in QuickJS gives npm turndown's markdown", async () => {
  const runner = new Runner({ check: moduleCheck, libraries: [{ turndown: await readFile(libPath, "utf8") }] });
  const source = "function execute(p) { const TurndownService = lib('turndown'); return new TurndownService(p.options).turndown(p.html); }";
  for (const c of cases) {
    assert.equal(new TurndownService(c.options ?? {}).turndown(c.html), c.markdown, `${c.name}: npm turndown's markdown changed: update testdata/turndown/cases.json`);
    const res = await runner.call({ tool: "t", sourceRef: "tool.js", source, function: "execute", params: { html: c.html, options: c.options ?? {} } });
    assert.equal(res.status, "success", `${c.name}: ${res.message}`);
    assert.equal(res.output, c.markdown, c.name);
  }
});
