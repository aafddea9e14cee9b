// moduleCheck is the module's check (wasm/ABI.md, toolroute_check), for
// the tests that run a Runner without a Host: a Host gives each call its
// own (web/packages/toolroute/jsrun/words.js).
import { readFile } from "node:fs/promises";
import { Toolroute } from "../driver/toolroute.js";

const inst = await Toolroute.instantiate(await WebAssembly.compile(await readFile(new URL("../../../../wasm/toolroute.wasm", import.meta.url))));

export const moduleCheck = (op, args) => inst.check({ op, args });
