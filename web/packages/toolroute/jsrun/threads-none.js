// Where there are no worker threads (a browser's worker, workerd), the
// runner runs each call on the caller's thread: package.json's #threads
// maps here but in Node (threads.js).
import * as engine from "./engine.js";

export const Threads = null;

// loadEngine gives engine.js, which runs every call here.
export const loadEngine = async () => engine;
