// The conformance cases of testdata/builtins in the browser host:
// web/apps/chat/core.js over a fresh MemoryUIStore per case, with the real
// catalogue of `toolroute export --builtin` and the real QuickJS runner. A
// scripted model sends each call of a case in its own response, every
// approval is answered "once", and each call's tool_result is compared with
// what the case expects.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import path from "node:path";
import { MemoryUIStore } from "../src/idbstore.js";
import { Runner } from "toolroute/jsrun";
import { builtinCases, checkResults, pageServer } from "../../../packages/toolroute/test/builtins-case.js";
import { web, fakeServer, newCore, ask } from "./ui-harness.js";
import { moduleCheck } from "../../../packages/toolroute/test/module-check.js";

const root = path.join(web, "..", "..", "..");
const exported = JSON.parse(execFileSync("go", ["run", "./cmd/toolroute", "export", "--builtin"], { cwd: root, maxBuffer: 256 << 20 }).toString());
const bundle = { catalogue: exported.catalogue, sources: exported.sources, libraries: exported.libraries };

// KNOWN_DIFFERENCES are the cases the browser cannot pass, with the reason;
// they run as todo tests, so a fix shows as a passing todo. None now.
const KNOWN_DIFFERENCES = {};

for (const { name, c, pages, skip } of builtinCases(path.join(root, "testdata", "builtins"), "browser")) {
  test(`builtins ${name} in the browser host`, { skip, todo: KNOWN_DIFFERENCES[name] }, async (t) => {
    const server = fakeServer([...c.calls.map((call) => ({ call: [call.tool, call.input] })), { text: "Done." }]);
    const site = await pageServer(pages);
    t.after(site.close);
    // Node's fetch, which CORS does not bind: the page's own runner says
    // cors, and fetch-cors-browser.test.js checks that in Chromium.
    const runner = async ({ libraries, fs }) => new Runner({ check: moduleCheck, store: fs, libraries: [libraries], fetch: { rewrites: site.rewrites } });
    const core = newCore(new MemoryUIStore(), server.fetch, { catalogue: async () => bundle, runner });
    const session = "case";
    const turn = await ask(core, { type: "send", session, text: c.user ?? "Run the calls" }, (r) => {
      // The question is put to the page after the event, as a click comes.
      if (r.type === "event" && r.event.type === "approval") {
        setTimeout(() => core.handle({ id: 2, type: "approve", session, answers: r.event.calls.map((x) => ({ id: x.id, answer: "once" })) }, () => {}), 10);
      }
    });
    // The turn's last event, not the request's last reply (which is done
    // whatever the turn did): a case of more calls than a turn's model calls
    // allow would end it early.
    assert.equal(turn.events.at(-1)?.type, "done", JSON.stringify(turn.events.at(-1)));
    checkResults(c, turn.events.filter((e) => e.type === "message" && e.message.type === "tool_result").map((e) => e.message));
  });
}
