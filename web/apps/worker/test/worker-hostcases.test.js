// The host cases of testdata/approvals and testdata/redaction in workerd:
// the edge worker as deployed (worker-harness.js), one per case, its
// bindings what the case sets: TOOLROUTE_POLICIES, the secrets as TOOL_
// variables, the provider's key as OPENAI_API_KEY. The case's tools are
// user JS tools that tell a local site (https://pages.test, the
// TEST_PAGES_URL rule) that they ran; a question is answered through
// POST /api/sessions/{id}/approvals. hostcases.test.js is web/packages/toolroute/host's replay
// in Node, host/hostcases_test.go the Go host's.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { startTestWorker } from "./worker-harness.js";
import { pageServer } from "../../../packages/toolroute/test/builtins-case.js";
import { toolCall, text, error } from "../../../packages/toolroute/test/host-fakemodel.js";
import { skipFor, checkTurn, toolFiles, KITS } from "../../../packages/toolroute/test/hostcases.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");
const TOKEN = "worker-hostcases-token-0123456789";

// runTurn sends a message and reads the turn's server-sent events as they
// come, answering each question with the next answer (asked gets its tools).
async function runTurn(w, id, user, answers, asked, attachments) {
  const r = await w.json("POST", `/api/sessions/${id}/messages`, { text: user, attachments });
  // The body of a 200 is the turn, still running: read it only otherwise.
  if (r.status !== 200) assert.fail(`${r.status}: ${await r.text()}`);
  const events = [];
  let buf = "";
  const decoder = new TextDecoder();
  for await (const chunk of r.body) {
    buf += decoder.decode(chunk, { stream: true });
    for (let i; (i = buf.indexOf("\n\n")) >= 0;) {
      const block = buf.slice(0, i);
      buf = buf.slice(i + 2);
      if (block.startsWith(":") || !block.trim()) continue;
      const ev = JSON.parse(block.split("\n")[1].slice("data: ".length));
      events.push(ev);
      if (ev.type === "approval" && ev.calls) {
        asked.push(ev.calls.map((x) => x.tool));
        const a = answers.shift();
        assert.ok(a, "the case has no answer left for this question");
        const res = await w.json("POST", `/api/sessions/${id}/approvals`, { approvals: ev.calls.map((x) => ({ id: x.id, answer: a })) });
        assert.equal(res.status, 200, await res.clone().text());
      }
    }
  }
  return events;
}

async function replay(c) {
  const site = await pageServer({}); // records the tools' POSTs
  const bindings = { TEST_PAGES_URL: site.url, TOOLROUTE_POLICIES: (c.policies ?? []).map((p) => (p.tool ? `tool:${p.tool}` : `group:${p.group}`) + "=" + p.decision).join(",") };
  for (const s of c.secrets ?? []) if (s.value !== c.api_key) bindings["TOOL_" + s.name] = s.value;
  if (c.api_key) bindings.OPENAI_API_KEY = c.api_key;
  const w = await startTestWorker({ name: "hostcase", tools: toolFiles(c), bindings, token: TOKEN });
  try {
    const id = (await (await w.json("POST", "/api/sessions", {})).json()).id;
    let logged = 0;
    let requests = 0;
    for (const [i, turn] of c.turns.entries()) {
      w.model.add(...turn.model.map((m) => (m.error ? error(m.error.status, m.error.body) : m.tool ? toolCall(m.tool, JSON.stringify(m.input ?? {})) : text(m.text))));
      const asked = [];
      const posts = site.posts.length;
      const events = await runTurn(w, id, turn.user, [...(turn.answers ?? [])], asked, turn.attachments);
      const ran = site.posts.slice(posts).map((p) => p.path.slice("/ran/".length));
      const all = await (await w.json("GET", `/api/sessions/${id}/messages`)).json();
      const msgs = all.slice(logged);
      logged = all.length;
      const read = w.model.requests.slice(requests).map((r) => r.body).join("\n");
      requests = w.model.requests.length;
      checkTurn(c, i, { asked, ran, msgs, read, events });
    }
  } finally {
    await w.stop();
    await site.close();
  }
}

for (const kit of KITS) {
  const file = JSON.parse(await readFile(path.join(root, "testdata", kit, "cases.json"), "utf8"));
  for (const c of file.cases) test(`${kit}: ${c.name} in workerd`, { skip: skipFor(c, "workerd") }, () => replay(c));
}
