// The official MCP conformance suite's client scenarios against the JS
// hosts' MCP client (toolroute/mcp, driven by conformance-client.js), as
// cmd/toolroute/conformance_e2e_test.go runs them against the Go program's:
// testdata/conformance/scenarios.json says which apply and why the others
// do not; those that apply must pass, and a scenario the suite lists that
// the file does not fails the test. The suite is installed in
// testdata/conformance by `make test` (make mcp-conformance).
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { WAIT_MS } from "./busy.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "../../../..");
const dir = path.join(root, "testdata/conformance");
const suite = path.join(dir, "node_modules/@modelcontextprotocol/conformance/dist/index.js");
const scenarios = JSON.parse(readFileSync(path.join(dir, "scenarios.json"), "utf8"));

// conformance runs the suite with args; it resolves to its output, whatever
// its exit status.
async function conformance(...args) {
  if (!existsSync(suite)) throw new Error(`${suite} is missing: run make mcp-conformance (npm ci in testdata/conformance)`);
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [suite, ...args], { cwd: dir, maxBuffer: 64 << 20 });
    return stdout + stderr;
  } catch (e) {
    return String(e.stdout ?? "") + String(e.stderr ?? "") + String(e.message);
  }
}

test("the suite lists the client scenarios scenarios.json sorts", async () => {
  const out = await conformance("list", "--client");
  const listed = [...out.matchAll(/^\s+- (\S+) \[/gm)].map((m) => m[1]);
  assert.deepEqual(listed, scenarios.client.map((s) => s.name), "say in testdata/conformance/scenarios.json whether each new scenario applies");
});

for (const s of scenarios.client) {
  // jsDoesNotApply: a scenario the Go program's client runs but this one does not.
  const reason = s.doesNotApply ?? s.jsDoesNotApply;
  const why = reason && scenarios.reasons[reason];
  if (reason && !why) throw new Error(`scenarios.json: ${s.name} does not apply for the reason ${reason}, which reasons lacks`);
  test(`conformance client scenario ${s.name}`, { skip: why ? `does not apply: ${why}` : false }, async () => {
    const out = mkdtempSync(path.join(tmpdir(), "toolroute-conformance-"));
    try {
      const text = await conformance("client", "--command", `${process.execPath} ${path.join(here, "conformance-client.js")}`, "--scenario", s.name, "--timeout", String(WAIT_MS), "-o", out);
      const runs = readdirSync(out);
      assert.equal(runs.length, 1, text);
      const logs = ["stdout.txt", "stderr.txt"].map((f) => path.join(out, runs[0], f)).filter(existsSync).map((f) => readFileSync(f, "utf8")).join("\n");
      const checks = JSON.parse(readFileSync(path.join(out, runs[0], "checks.json"), "utf8"));
      const failed = checks.filter((c) => c.status === "FAILURE" && !(c.id === s.lateOK && /very late/.test(c.errorMessage ?? "")));
      assert.deepEqual(failed.map((c) => `${c.id}: ${c.errorMessage}`), [], `${text}\n${logs}`);
      assert.ok(checks.some((c) => c.status === "SUCCESS"), `${text}\n${logs}`);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
}
