// The lines of assets/prelude.js, the one prelude of every host, that a
// bundle holding it must show as they are: esbuild writes the text as a
// string literal quoted as it likes, so only the lines with no quote,
// backslash, $ or non-ASCII character are sure to appear unchanged.
import fs from "node:fs";

export const PRELUDE_PATH = new URL("../../../../assets/prelude.js", import.meta.url);

export function preludeLines() {
  const lines = fs.readFileSync(PRELUDE_PATH, "utf8").split("\n").map((l) => l.trim());
  return lines.filter((l) => l.length >= 20 && /^[ -~]*$/.test(l) && !/[\\'"`$]/.test(l));
}

// missingPreludeLines gives the lines of preludeLines() that code lacks.
export function missingPreludeLines(code) {
  return preludeLines().filter((l) => !code.includes(l));
}
