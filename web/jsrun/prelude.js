// PRELUDE is the text of host/jsrun/prelude.js, the bridges' API as tools see
// it, which the Go host embeds: one file for every host. Node reads it here;
// the browser's and the worker's esbuild builds replace this module with the
// text (preludePlugin in web/build.mjs), so neither bundle reads a file.
import { readFileSync } from "node:fs";

export const PRELUDE_FILE = new URL("../../host/jsrun/prelude.js", import.meta.url);

export const PRELUDE = readFileSync(PRELUDE_FILE, "utf8");
