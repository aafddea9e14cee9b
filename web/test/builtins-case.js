// The conformance cases of testdata/builtins for the JS hosts' tests (the
// browser's, builtins.test.js, and the worker's, worker.test.js): the cases
// of a host, the scripted model's calls, and the check of the tool_result
// messages a turn gave.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { loadCase } from "./conformance-case.js";

// builtinCases reads the cases of dir, sorted by name: [{name, c, skip}],
// skip saying why a case is not for host (its hosts leave it out).
export function builtinCases(dir, host) {
  return fs.readdirSync(dir).filter((f) => f.endsWith(".txtar")).sort().map((f) => {
    const { c } = loadCase(fs.readFileSync(path.join(dir, f), "utf8"));
    const hosts = c.hosts ?? ["go", "browser", "worker"];
    return { name: f.replace(/\.txtar$/, ""), c, skip: hosts.includes(host) ? undefined : `its hosts are ${hosts.join(", ")}` };
  });
}

// checkResults compares a turn's tool_result messages, in order, with the
// case's calls' expectations, and fails with every call that differs.
export function checkResults(c, results) {
  const seen = results.map((m) => ({ tool: m.tool_name, status: m.status, error_type: m.error_type, content: m.content }));
  assert.equal(results.length, c.calls.length, "the tool_results: " + JSON.stringify(seen, null, 1));
  const failed = [];
  c.calls.forEach((call, i) => {
    const e = call.expect ?? {};
    const m = results[i];
    try {
      assert.equal(m.tool_name, call.tool, "the tool");
      assert.equal(m.status, e.status ?? "success", "the status");
      if (e.output !== undefined) assert.equal(m.content, e.output, "the output");
      if (e.output_matches !== undefined) assert.match(m.content, new RegExp(e.output_matches), "the output does not match " + e.output_matches);
      if (e.error_type !== undefined) assert.equal(m.error_type, e.error_type, "the error type");
      for (const s of e.message_contains ?? []) assert.ok(m.content.includes(s), `the content lacks ${JSON.stringify(s)}`);
    } catch (err) {
      failed.push(`call ${i} (${call.tool}): ${err.message}\n  gave ${JSON.stringify(seen[i])}`);
    }
  });
  if (failed.length > 0) assert.fail(failed.join("\n"));
}
