// The edge worker's entry: toolroute.wasm and QuickJS as module imports (a
// worker may not compile wasm at run time), the word vectors as a data
// module (an ArrayBuffer), the JS tools `toolroute export`
// gave the build, serve's chat page, and the Durable Object classes.
// build.mjs bundles it; wrangler.toml and the tests' workerd config bind
// SESSION_LOG, SESSION_INDEX and SANDBOX_FILES to the classes exported here.
import toolrouteModule from "./toolroute.wasm";
import quickjsModule from "./quickjs.wasm";
import wordVectors from "./wordvec.bin";
import bundle from "toolroute:bundle";
import page from "toolroute:page";
import { createWorker } from "./api.js";

export { SessionLog, SessionIndex, SandboxFiles } from "./sessions.js";

export default createWorker({ toolrouteModule, quickjsModule, wordVectors, bundle, page });
