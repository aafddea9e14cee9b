// The module in Node through the JS driver and our WASI shim: every golden
// transcript gives the same actions as the native engine, and garbage never
// traps.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFile, readdir } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import path from "node:path";
import { Toolroute, ToolrouteError, TrapError, MAX_INPUT } from "../driver/toolroute.js";
import { WASI } from "../driver/wasi.js";
import { loadTranscript, replay } from "./transcript.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");
const wasm = await WebAssembly.compile(await readFile(path.join(root, "wasm/toolroute.wasm")));

function driverFor(t) {
  let turn = 0;
  return {
    build(catalogue) {
      const rep = t.load(catalogue);
      assert.equal(rep.errors.length, 0, JSON.stringify(rep));
    },
    newTurn() {
      if (turn) t.turnFree(turn);
      turn = t.turnNew();
    },
    event: (ev) => withBodies(t, turn, t.turnEvent(turn, ev)),
    chunk: (data) => withBodies(t, turn, t.turnChunk(turn, data)),
  };
}

// withBodies puts the body toolroute_turn_body hands out back into each
// call_model action, where the transcripts have it.
function withBodies(t, turn, actions) {
  for (const a of actions) {
    if (a.type !== "call_model") continue;
    assert.equal(a.request.body, undefined, "ABI v2 leaves the body out of the action");
    a.request.body = JSON.parse(new TextDecoder().decode(t.turnBody(turn)));
    assert.equal(t.turnBody(turn), null, "a body is handed out once");
  }
  return actions;
}

const dir = path.join(root, "testdata/transcripts");
const files = (await readdir(dir)).filter((f) => f.endsWith(".txtar")).sort();

test("there are transcripts", () => assert.ok(files.length > 10));

for (const file of files) {
  test(`transcript ${file}`, async () => {
    const t = loadTranscript(await readFile(path.join(dir, file), "utf8"));
    const tr = await Toolroute.instantiate(wasm);
    const got = await replay(t, driverFor(tr));
    assert.equal(got.length, t.golden.length, "number of output lines");
    for (const [i, line] of got.entries()) {
      assert.deepStrictEqual(line, t.golden[i], `line ${i + 1}`);
    }
  });
}

let resumed = 0;
for (const file of files) {
  test(`transcript ${file}, sessions kept by the instance`, async () => {
    const t = loadTranscript(await readFile(path.join(dir, file), "utf8"));
    const tr = await Toolroute.instantiate(wasm);
    const got = await replay(t, driverFor(tr), { sessions: true, resumed: () => resumed++ });
    assert.equal(got.length, t.golden.length, "number of output lines");
    for (const [i, line] of got.entries()) {
      assert.deepStrictEqual(line, t.golden[i], `line ${i + 1}`);
    }
  });
}

test("the instance resumed the sessions it kept", () => {
  assert.ok(resumed >= 20, `${resumed} turns resumed a kept session; the transcripts have more`);
});

// The retry policy of a model call made outside a turn (a proxy's), as
// every host replays it: testdata/retries/cases.json.
const retryCases = JSON.parse(await readFile(path.join(root, "testdata/retries/cases.json"), "utf8"));
test("toolroute_retry answers every case of testdata/retries", async () => {
  const tr = await Toolroute.instantiate(wasm);
  assert.ok(retryCases.length > 5);
  for (const c of retryCases) assert.deepEqual(tr.retry(c.request), c.want, c.name);
  for (const g of ["", "not json", "[".repeat(100000), '{"status":"x"}']) assert.throws(() => tr.retry(g), { code: "bad_json" });
  assert.equal(tr.broken, null);
});

// The argument checks of the hosts' operations, as every host replays
// them: testdata/checks/cases.json.
const checkCases = JSON.parse(await readFile(path.join(root, "testdata/checks/cases.json"), "utf8"));
test("toolroute_check answers every case of testdata/checks", async () => {
  const tr = await Toolroute.instantiate(wasm);
  assert.ok(checkCases.length > 5);
  for (const c of checkCases) {
    if (c.code) assert.throws(() => tr.check(c.request), { code: c.code }, c.name);
    else assert.deepEqual(tr.check(c.request), c.want, c.name);
  }
  for (const g of ["", "not json", "[".repeat(100000), '{"op":5}']) assert.throws(() => tr.check(g), { code: "bad_json" });
  assert.equal(tr.broken, null);
});

// A title a user gives, as the module cleans or refuses it for every host:
// testdata/sessions/titles.json's renames.
test("toolroute_check's session_title answers every rename of testdata/sessions/titles.json", async () => {
  const tr = await Toolroute.instantiate(wasm);
  const { renames } = JSON.parse(await readFile(path.join(root, "testdata/sessions/titles.json"), "utf8"));
  assert.ok(renames.length > 0);
  for (const c of renames) {
    const want = c.error ? { error: { type: "invalid_arguments", message: c.error } } : { args: { title: c.want } };
    assert.deepEqual(tr.check({ op: "session_title", args: { title: c.title } }), want, c.name);
  }
});

test("garbage to every export gives an error, never a trap", async () => {
  const tr = await Toolroute.instantiate(wasm);
  const garbage = ["", "not json", "{", "[]", '"x"', "[".repeat(100000), '{"type":5}', "\u0000\uffff"];
  assert.throws(() => tr.turnNew(), { code: "no_catalogue" });
  assert.throws(() => tr.describe({}), { code: "no_catalogue" });
  for (const g of garbage) {
    try {
      tr.load(g);
    } catch (err) {
      assert.ok(err instanceof ToolrouteError, `load(${JSON.stringify(g.slice(0, 20))}) threw ${err}`);
    }
  }
  tr.load({});
  const turn = tr.turnNew();
  for (const g of garbage) {
    assert.throws(() => tr.turnEvent(turn, g), ToolrouteError);
    assert.throws(() => tr.turnEvent(turn + 1000, g), { code: "unknown_turn" });
    assert.throws(() => tr.turnChunk(turn + 1000, g), { code: "unknown_turn" });
  }
  assert.throws(() => tr.turnChunk(turn, new Uint8Array([0xff, 0x00, 0x80])), { code: "bad_event" });
  tr.turnFree(123456);
  assert.equal(tr.broken, null);
  const actions = tr.turnEvent(turn, { type: "start", user: "hi", settings: { format: "openai", model: "m" } });
  assert.equal(actions.at(-1).type, "call_model");
});

test("toolroute_alloc answers 0 for an impossible size, and the instance serves on", async () => {
  const wasi = new WASI({});
  const instance = await WebAssembly.instantiate(wasm, { wasi_snapshot_preview1: wasi.imports });
  wasi.initialize(instance);
  const x = instance.exports;
  assert.equal(x.toolroute_alloc(0xffffffff), 0); // -1 as an i32, 4294967295 to the module
  assert.equal(x.toolroute_alloc(2 ** 31), 0);
  assert.equal(x.toolroute_alloc(MAX_INPUT + 1), 0);
  // Then a load, by hand.
  const req = new TextEncoder().encode("{}");
  const p = x.toolroute_alloc(req.length);
  assert.notEqual(p, 0);
  new Uint8Array(x.memory.buffer, p, req.length).set(req);
  const packed = BigInt.asUintN(64, x.toolroute_load(p, req.length));
  x.toolroute_free(p);
  const out = new TextDecoder().decode(new Uint8Array(x.memory.buffer, Number(packed >> 32n), Number(packed & 0xffffffffn)));
  assert.ok(JSON.parse(out).ok, out);
});

test("an input over MAX_INPUT, or one toolroute_alloc refuses, is an error, not a trap", async () => {
  const tr = await Toolroute.instantiate(wasm);
  tr.load({});
  const turn = tr.turnNew();
  assert.throws(() => tr.turnChunk(turn, new Uint8Array(MAX_INPUT + 1)), (e) => !(e instanceof TrapError) && /an input of 268435457 bytes is over the 268435456-byte limit/.test(e.message));
  assert.equal(tr.broken, null);
  assert.equal(tr.turnEvent(turn, { type: "start", user: "hi", settings: { format: "openai", model: "m" } }).at(-1).type, "call_model");

  // A module whose toolroute_alloc gives nothing: the driver writes nothing
  // at address 0.
  const memory = new WebAssembly.Memory({ initial: 1 });
  new Uint8Array(memory.buffer).set([1, 2, 3, 4]);
  const fake = new Toolroute({ exports: { memory, toolroute_alloc: () => 0, toolroute_free: () => {}, toolroute_load: () => assert.fail("load called") } }, { initialize() {} });
  assert.throws(() => fake.load({ tools: [] }), (e) => !(e instanceof TrapError) && /toolroute_alloc refused 12 bytes, an input too large/.test(e.message));
  assert.deepEqual([...new Uint8Array(memory.buffer, 0, 4)], [1, 2, 3, 4]);
  assert.equal(fake.broken, null);
});

test("describe lists groups, files and a session's active tools", async () => {
  const tr = await Toolroute.instantiate(wasm);
  tr.load({
    groups: [{ name: "pdf", description: "PDF tools" }],
    tools: [{ name: "pdf_info", description: "Info", group: "pdf" }],
    manifests: [{ file: "solo.json", source: "solo.js", text: '{"name":"solo","description":"Solo"}' }],
  });
  const d = tr.describe({
    history: [{ type: "tool_call", tool_name: "load_tool_group", tool_input: '{"group_name":"pdf"}', status: "success" }],
  });
  assert.deepStrictEqual(d.active, ["load_tool_group", "solo", "pdf_info"]);
  assert.deepStrictEqual(d.loaded_groups, ["pdf"]);
  assert.deepStrictEqual(d.files, [{ file: "solo.json", source: "solo.js", tools: ["solo"] }]);
  assert.match(d.system_prompt, /## Available Tool Groups/);
});
