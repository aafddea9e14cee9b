// Session titles and ids in the JS hosts (web/packages/toolroute/host/session-names.js): the
// cases of testdata/sessions/titles.json, which host/store's tests replay
// too, so the page, the worker and serve title a session alike. A title a
// user gives is the module's to check: module.test.js replays those.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { sessionTitle, newSessionID } from "../host/session-names.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "..");
const cases = JSON.parse(await readFile(path.join(root, "testdata", "sessions", "titles.json"), "utf8"));

test("a title from the first message, as the Go program makes it", () => {
  assert.ok(cases.titles.length > 0);
  for (const c of cases.titles) assert.equal(sessionTitle(c.text), c.want, c.name);
});

test("a session id as app.NewSessionID makes it", () => {
  const id = newSessionID(new Date(Date.UTC(2026, 0, 2, 15, 4, 5)));
  assert.match(id, /^20260102-150405-[0-9a-f]{6}$/);
  assert.notEqual(newSessionID(), newSessionID());
});
