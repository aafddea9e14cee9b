// The dedicated worker that replays a testdata/js case in headless Chromium
// (jsrun-browser.test.js bundles it): web/packages/toolroute/jsrun's Runner as the chat page's
// worker makes it (web/apps/chat/worker.js: the browser's fetch, bound by CORS, a
// MemoryStore, QuickJS compiled from the patched quickjs.wasm served beside
// it). One message {c, source, server} in, {results, files, binary} or
// {error} out.
import { Runner, MemoryStore } from "../jsrun/runner.js";
import { runnerOptions, filesOf, replayIn } from "./conformance-case.js";
import { Toolroute } from "../driver/toolroute.js";

const quickjs = WebAssembly.compileStreaming(fetch("/quickjs.wasm"));
// The module words the bridges' refusals (web/packages/toolroute/jsrun/words.js), as a Host
// gives it to each call.
const toolroute = WebAssembly.compileStreaming(fetch("/toolroute.wasm")).then((m) => Toolroute.instantiate(m));

self.onmessage = async (e) => {
  const { c, source, server } = e.data;
  try {
    const store = new MemoryStore(filesOf(c));
    const o = runnerOptions(c, server);
    const inst = await toolroute;
    const check = (op, args) => inst.check({ op, args });
    const runner = new Runner({ ...o, check, store, fetch: { ...o.fetch, fetch: (...a) => fetch(...a), cors: true }, wasmModule: () => quickjs });
    self.postMessage(await replayIn(c, source, server, runner, store));
  } catch (err) {
    self.postMessage({ error: String(err?.stack ?? err) });
  }
};
