// manifests/lib/htmlparser2.js is generated (scripts/htmlparser-lib.mjs):
// the committed file must be what the script builds from the htmlparser2
// package-lock.json pins, so a new version or a hand edit shows here.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { MAX_LIBRARY_BYTES } from "../jsrun/runner.js";
import { buildLibrary, libPath } from "../scripts/htmlparser-lib.mjs";

test("manifests/lib/htmlparser2.js is what scripts/htmlparser-lib.mjs builds", async () => {
  const committed = await readFile(libPath, "utf8");
  const built = await buildLibrary();
  assert.ok(committed === built, "manifests/lib/htmlparser2.js differs from a fresh build: run `node scripts/htmlparser-lib.mjs` in web/ and commit it");
  assert.ok(Buffer.byteLength(built) < MAX_LIBRARY_BYTES / 8, `the library is ${Buffer.byteLength(built)} bytes: keep it small, it loads on every webfetch call`);
});
