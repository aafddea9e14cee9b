// The checks of the host cases of testdata/approvals and testdata/redaction
// for the JS hosts' runners: hostcases.test.js (web/packages/toolroute/host in Node),
// worker-hostcases.test.js (workerd) and hostcases-browser.test.js (the
// page in Chromium). host/hostcases_test.go is the Go
// host's. testdata/README.md says the format.
import assert from "node:assert/strict";
import { MIN_SECRET_LENGTH } from "../host/redact.js";

export const KITS = ["approvals", "redaction"];
const HOSTS = ["go", "node", "chromium", "workerd"];

// skipFor says why case c is not for host, or gives undefined.
export function skipFor(c, host) {
  if (!c.hosts?.length) return undefined;
  const unknown = c.hosts.filter((h) => !HOSTS.includes(h));
  if (unknown.length > 0) throw new Error(`the case names the hosts ${unknown.join(", ")}; the hosts are ${HOSTS.join(", ")}`);
  if (!c.hosts_why) throw new Error(`the case runs only in ${c.hosts.join(", ")} and does not say why (hosts_why)`);
  return c.hosts.includes(host) ? undefined : `not in ${host}: ${c.hosts_why}`;
}

// toolFiles are the case's tools as user JS tools, {FILE: text}: a group's
// in one file with its _meta, the others one file each. Each tells a local
// site (https://pages.test, rewritten to it) that it ran, by a POST to
// /ran/NAME, then answers its output or throws its error.
export function toolFiles(c) {
  const files = {};
  const source = (t) => `async function ${t.name}() { await fetch("https://pages.test/ran/${t.name}", { method: "POST", body: "" }); ` +
    (t.error ? `throw new Error(${JSON.stringify(t.error)}); }\n` : `return ${JSON.stringify(t.output)}; }\n`);
  const manifest = (t) => ({ name: t.name, description: t.description, function: t.name, requiredPermissions: t.required_permissions, parameters: { type: "object", properties: {} } });
  for (const g of c.groups ?? []) {
    const tools = (c.tools ?? []).filter((t) => t.group === g.name);
    files[`${g.name}.json`] = JSON.stringify([{ _meta: true, display_name: g.display_name, description: g.description }, ...tools.map(manifest)]);
    files[`${g.name}.js`] = tools.map(source).join("");
  }
  for (const t of (c.tools ?? []).filter((t) => !t.group)) {
    files[`${t.name}.json`] = JSON.stringify(manifest(t));
    files[`${t.name}.js`] = source(t);
  }
  return files;
}

// jsonForms are the ways s may appear in JSON text: as written, escaped in a
// JSON string, and with HTML escapes as Go's encoder writes it.
export function jsonForms(s) {
  const plain = JSON.stringify(s).slice(1, -1);
  return [s, plain, plain.replace(/[<>&]/g, (ch) => "\\u00" + ch.charCodeAt(0).toString(16))];
}

// checkTurn checks turn i of case c: asked, the tools of each question;
// ran, the tools that ran; msgs, the messages the turn stored; read, the
// bodies of its model requests; events, its events.
export function checkTurn(c, i, { asked, ran, msgs, read, events }) {
  const want = c.turns[i].expect;
  const stored = JSON.stringify(msgs);
  if (want.asked) assert.deepEqual(asked, want.asked, `turn ${i} asked`);
  if (want.ran) assert.deepEqual(ran, want.ran, `turn ${i} ran`);
  if (want.log) assert.deepEqual(msgs.map((m) => `${m.type}:${m.status ?? ""}:${m.type === "tool_call" ? "" : m.content ?? ""}`), want.log, `turn ${i} log`);
  for (const s of want.stored ?? []) assert.ok(stored.includes(jsonForms(s)[1]), `turn ${i}: the stored messages do not hold ${JSON.stringify(s)}: ${stored}`);
  for (const s of want.model_read ?? []) assert.ok(jsonForms(s).some((f) => read.includes(f)), `turn ${i}: the model read no ${JSON.stringify(s)}: ${read}`);
  const last = events.at(-1);
  for (const s of want.failure ?? []) assert.ok(last?.type === "failed" && last.failure?.message?.includes(s), `turn ${i}: the turn's end ${JSON.stringify(last)} does not say ${JSON.stringify(s)}`);
  // The events but the reply as shown to the user, which no host redacts
  // (its stored message is redacted): done's text, and the text events
  // that stream it (the page's).
  const shown = JSON.stringify(events.filter((ev) => ev.type !== "text").map((ev) => (ev.type === "done" ? { ...ev, text: "" } : ev)));
  const secrets = [...(c.secrets ?? []).map((s) => s.value), ...(c.api_key ? [c.api_key] : [])].filter((v) => v.length >= MIN_SECRET_LENGTH);
  for (const v of secrets) {
    for (const [what, t] of [["stored messages", stored], ["model requests", read], ["events", shown]]) {
      assert.ok(!jsonForms(v).some((f) => t.includes(f)), `turn ${i}: the ${what} hold the secret ${JSON.stringify(v)}: ${t}`);
    }
  }
}
