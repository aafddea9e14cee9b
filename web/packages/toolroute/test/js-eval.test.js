// js_eval in the JS host, as the browser UI runs it: the built-in tool from
// `toolroute export` (manifests/js_eval.js), run in QuickJS by web/packages/toolroute/jsrun,
// called by a scripted model. It gives the value and the console output; a
// thrown error comes back as an error with the console lines; the secrets
// it asks for reach it only as the user grants them at approval.
import { test, before } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import path from "node:path";
import { Toolroute } from "../driver/toolroute.js";
import { createHost, MemoryStore } from "../host/host.js";
import { Runner, MemoryStore as MemoryFS } from "../jsrun/runner.js";
import { startFakeModel, text, toolCall } from "./host-fakemodel.js";
import { moduleCheck } from "./module-check.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");
let bundle, wasm;

before(async () => {
  bundle = JSON.parse(execFileSync("go", ["run", "./cmd/toolroute", "export", "--builtin"], { cwd: root, maxBuffer: 256 << 20 }).toString());
  wasm = await WebAssembly.compile(await readFile(path.join(root, "wasm/toolroute.wasm")));
});

// run has a model make calls, one per reply, answering approvals with
// answers in turn, and gives the approvals asked and the results.
async function run(calls, answers = []) {
  const model = await startFakeModel("openai", ...calls.map((c) => toolCall("js_eval", JSON.stringify(c))), text("Done."));
  const runner = new Runner({ check: moduleCheck,
    store: new MemoryFS(), libraries: [bundle.libraries ?? {}],
    google: { accessToken: async () => "ya29.js-eval-token", accountEmail: async () => "me@example.com" },
  });
  const asked = [];
  try {
    const host = await createHost({
      module: () => Toolroute.instantiate(wasm),
      catalogue: bundle.catalogue, sources: bundle.sources,
      provider: { format: "openai", baseURL: model.baseURL, apiKey: "k", model: "m" },
      store: new MemoryStore(),
      runJS: (c) => runner.call(c),
      env: { MAIL_KEY: "mk-not-granted" },
      approve: async (_, cs) => {
        asked.push(...cs.map((c) => c.secrets));
        return cs.map((c) => ({ id: c.id, ...answers.shift() }));
      },
    });
    const results = [];
    for await (const ev of host.send("s", "Run it")) {
      if (ev.type === "failed") assert.fail(JSON.stringify(ev));
      if (ev.type === "message" && ev.message.type === "tool_result") results.push(ev.message);
    }
    return { asked, results };
  } finally {
    await model.close();
  }
}

test("js_eval gives the value, then the console output", async () => {
  const { asked, results } = await run([
    { code: "console.log('hi', 2, {a: 1}); console.warn('careful'); [1, 2, 3].map(x => x * 2)" },
    { code: "(async () => { await null; return 'later'; })()" },
  ]);
  assert.deepEqual(asked, [], "no secrets asked, no question");
  assert.deepEqual(results.map((r) => [r.status, r.content]), [
    ["success", '[2,4,6]\n\nConsole output:\nlog: hi 2 {"a":1}\nwarn: careful'],
    ["success", "later"],
  ]);
});

test("a thrown error comes back as an error with the console lines", async () => {
  const { results } = await run([{ code: "console.log('before'); throw new TypeError('boom')" }]);
  assert.equal(results[0].status, "error");
  assert.match(results[0].content, /^Error \(execution_error\): TypeError: boom\n[^]*\n\nConsole output:\nlog: before$/);
});

test("the google bridge and a variable reach js_eval only as granted", async () => {
  const code = "(async () => [await google.getAccountEmail(), typeof _env.MAIL_KEY].join(' '))()";
  const { asked, results } = await run(
    [{ code, secrets: ["google", "MAIL_KEY"] }, { code, secrets: ["google"] }],
    [{ answer: "once", grant: ["google"] }, { answer: "once" }],
  );
  assert.deepEqual(asked, [["google", "MAIL_KEY"], ["google"]]);
  assert.deepEqual([results[0].status, results[0].content], ["success", "me@example.com undefined"]);
  assert.equal(results[1].status, "error");
  assert.match(results[1].content, /google: 'js_eval' may not use the Google account/);
});
