// The worker the tests run in workerd: web/worker's, unchanged, plus one
// route replaying a conformance case of testdata/js in the worker's JS tool
// runner (newRunner: QuickJS from the worker's module import).
//
//	POST /test/jsrun {c, source, server} -> {results: [...], files: {name: text}}
import worker from "../worker/worker.js";
import quickjsModule from "../worker/quickjs.wasm";
import { newRunner } from "../worker/api.js";
import { MemoryStore } from "../jsrun/runner.js";
import { runnerOptions, calls } from "./conformance-case.js";

export { SessionLog, SessionIndex, SandboxFiles } from "../worker/worker.js";

export default {
  async fetch(request, env, ctx) {
    if (new URL(request.url).pathname !== "/test/jsrun") return worker.fetch(request, env, ctx);
    const { c, source, server } = await request.json();
    const store = new MemoryStore(c.files ?? {});
    const o = runnerOptions(c, server);
    const runner = newRunner(env, quickjsModule, undefined, { ...o, store, fetch: { ...o.fetch, fetch: (...a) => fetch(...a) } });
    const results = [];
    for (const call of calls(c, source, server)) results.push(await runner.call(call));
    return Response.json({ results, files: Object.fromEntries(store.files) });
  },
};
