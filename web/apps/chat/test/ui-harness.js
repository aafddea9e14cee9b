// What the tests of web/apps/chat/core.js in Node share: a mocked `toolroute serve`
// with a scripted model behind it, a Core over the real toolroute.wasm and
// QuickJS runner, and a request sent to it.
import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Toolroute } from "toolroute";
import { Runner } from "toolroute/jsrun";
import { Core } from "../src/core.js";
import { fakeServer as fakeServerWith, FakeSessions as FakeSessionsWith } from "./ui-fakeserve.js";

export const web = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const wasm = await WebAssembly.compile(await readFile(path.join(web, "..", "..", "..", "wasm", "toolroute.wasm")));
let checker = null;
const titleChecker = async () => (checker ??= await Toolroute.instantiate(wasm));

// checkTitle is the module's session_title check, as serve makes it.
const checkTitle = async (title) => (await titleChecker()).check({ op: "session_title", args: { title } });

// fakeServer and FakeSessions are ui-fakeserve.js's, their PATCH checking
// titles with the module.
export function fakeServer(script, options = {}) {
  return fakeServerWith(script, { ...options, sessionOptions: { checkTitle, ...options.sessionOptions } });
}

export class FakeSessions extends FakeSessionsWith {
  constructor(options = {}) {
    super({ checkTitle, ...options });
  }
}

export function newCore(store, fetch, extra = {}) {
  return new Core({
    store,
    fetch,
    module: () => Toolroute.instantiate(wasm),
    runner: async ({ libraries, fs }) => new Runner({ store: fs, libraries: [libraries] }),
    ...extra,
  });
}

// ask sends one request and collects its replies until done or error.
export async function ask(core, msg, onReply) {
  const replies = [];
  await core.handle({ id: 1, ...msg }, (r) => {
    replies.push(r);
    onReply?.(r);
  });
  const last = replies.at(-1);
  return { replies, events: replies.filter((r) => r.type === "event").map((r) => r.event), last, result: last?.result };
}
