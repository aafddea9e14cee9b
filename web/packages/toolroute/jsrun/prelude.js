// PRELUDE is the text of assets/prelude.js, the bridges' API as tools see
// it, which the Go host embeds: one file for every host. Node reads it here
// (runner.js imports it as "#prelude", package.json's imports); browsers and
// workers get dist/prelude.js instead, the same text as a module, which the
// npm package holds (scripts/pack-assets.mjs writes it), and the repo's
// esbuild builds replace this module with the text (preludePlugin in
// web/apps/chat/build.mjs), so no bundle reads a file.
import { existsSync, readFileSync } from "node:fs";

export const PRELUDE_FILE = new URL("../../../../assets/prelude.js", import.meta.url);

// An installed package has no assets/ beside it: it reads its own copy.
export const PRELUDE = existsSync(PRELUDE_FILE) ? readFileSync(PRELUDE_FILE, "utf8") : (await import("../dist/prelude.js")).PRELUDE;
