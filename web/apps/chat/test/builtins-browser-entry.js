// The dedicated worker that replays a testdata/builtins case in headless
// Chromium (builtins-browser.test.js bundles it): web/apps/chat/core.js as the
// chat page's worker makes it (web/apps/chat/worker.js): its IndexedDB store, the
// module and QuickJS compiled from the files served beside it, the
// browser's fetch in cors mode for JS tools; the model is a scripted
// `toolroute serve` (ui-fakeserve.js) sending each call of the case in a
// response of its own. Every approval is answered "once". One message
// {c, bundle, rewrites, db} in, {results, last} or {error} out: results
// are the turn's tool_result messages.
import { Core } from "../src/core.js";
import { IDBStore } from "../src/idbstore.js";
import { Runner } from "toolroute/jsrun";
import { Toolroute } from "toolroute";
import { fakeServer } from "./ui-fakeserve.js";

const toolroute = WebAssembly.compileStreaming(fetch("/toolroute.wasm"));
const quickjs = WebAssembly.compileStreaming(fetch("/quickjs.wasm"));

self.onmessage = async (e) => {
  const { c, bundle, rewrites, db } = e.data;
  try {
    const server = fakeServer([...c.calls.map((call) => ({ call: [call.tool, call.input] })), { text: "Done." }]);
    const core = new Core({
      store: await IDBStore.open(db),
      fetch: server.fetch,
      module: async () => Toolroute.instantiate(await toolroute),
      catalogue: async () => bundle,
      runner: async ({ libraries, fs }) =>
        new Runner({ store: fs, libraries: [libraries], fetch: { fetch: (...a) => fetch(...a), cors: true, rewrites }, wasmModule: () => quickjs }),
    });
    const session = "case";
    const replies = [];
    await core.handle({ id: 1, type: "send", session, text: c.user ?? "Run the calls" }, (r) => {
      replies.push(r);
      // The question is put to the page after the event, as a click comes.
      if (r.type === "event" && r.event.type === "approval") {
        setTimeout(() => core.handle({ id: 2, type: "approve", session, answers: r.event.calls.map((x) => ({ id: x.id, answer: "once" })) }, () => {}), 10);
      }
    });
    const events = replies.filter((r) => r.type === "event").map((r) => r.event);
    self.postMessage({ last: events.at(-1) ?? replies.at(-1), results: events.filter((ev) => ev.type === "message" && ev.message.type === "tool_result").map((ev) => ev.message) });
  } catch (err) {
    self.postMessage({ error: String(err?.stack ?? err) });
  }
};
