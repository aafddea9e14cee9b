// The worker the tests run in workerd: web/apps/worker's (worker.js's
// createWorker, with the same modules, bundle and page), plus one route
// replaying a conformance case of testdata/js in the worker's JS tool
// runner (newRunner: QuickJS from the worker's module import), and the
// testdata/builtins cases' pages: the TEST_PAGES_URL binding, when set,
// is where JS tools' requests to https://pages.test go.
// And one replaying testdata/depth/cases.json on the worker's toolroute
// module (depth-case.js).
//
//	POST /test/jsrun {c, source, server} -> {results: [...], files: {name: text}, binary: {name: base64}}
//	POST /test/depth cases.json -> [{name, problem}]
import toolrouteModule from "../toolroute.wasm";
import quickjsModule from "../quickjs.wasm";
import wordVectors from "../wordvec.bin";
import bundle from "toolroute:bundle";
import page from "toolroute:page";
import { createWorker, newRunner } from "../api.js";
import { MemoryStore } from "toolroute/jsrun";
import { runnerOptions, filesOf, replayIn, PAGES_ORIGIN } from "../../../packages/toolroute/test/conformance-case.js";
import { replayDepthCases } from "../../../packages/toolroute/test/depth-case.js";
import { Toolroute } from "toolroute";

export { SessionLog, SessionIndex, SandboxFiles } from "../sessions.js";

const worker = createWorker({
  toolrouteModule, quickjsModule, wordVectors, bundle, page,
  fetchOptions: (env) => (env.TEST_PAGES_URL ? { rewrites: [{ from: PAGES_ORIGIN, to: env.TEST_PAGES_URL }] } : undefined),
});

// checker is the module instance the replayed cases' runners ask.
let checker = null;

export default {
  async fetch(request, env, ctx) {
    const route = new URL(request.url).pathname;
    if (route === "/test/depth") return Response.json(await replayDepthCases(await request.json(), () => Toolroute.instantiate(toolrouteModule)));
    if (route !== "/test/jsrun") return worker.fetch(request, env, ctx);
    const { c, source, server } = await request.json();
    const store = new MemoryStore(filesOf(c));
    const o = runnerOptions(c, server);
    // The module words the bridges' refusals (web/packages/toolroute/jsrun/words.js), as the
    // worker's Host gives each call its check.
    checker ??= Toolroute.instantiate(toolrouteModule);
    const inst = await checker;
    const check = (op, args) => inst.check({ op, args });
    const runner = newRunner(env, quickjsModule, undefined, { ...o, check, store, fetch: { ...o.fetch, fetch: (...a) => fetch(...a) } });
    return Response.json(await replayIn(c, source, server, runner, store));
  },
};
