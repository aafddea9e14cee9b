// The dedicated worker that replays a case of testdata/approvals or
// testdata/redaction in headless Chromium (hostcases-browser.test.js
// bundles it): web/apps/chat/core.js as the chat page's worker makes it
// (web/apps/chat/worker.js), over IndexedDB, the module and QuickJS compiled from
// the files served beside it. The settings are what the user would set:
// the openai provider with the case's key, the case's secrets as variables
// (env.NAME), its tools as the user's own JS tools (toolfile.NAME). The
// provider's address is https://model.test/v1, answered here by the case's
// script (the Core's fetch: the one its model calls go through); every
// other address the JS tools reach is the browser's fetch, in cors mode,
// with the rewrites. A chat turn goes through the page's "send" request,
// each question answered with the next answer by an "approve" request; a
// case with no one to ask (approver false) is a scheduled task's run, the
// page's only unattended turn. One message {c, settings, rewrites, db} in,
// {turns: [{asked, msgs, read, events}]} or {error} out; each turn's end
// is a POST /turn-end to the site of the rewrites, after the tools' own.
import { Core } from "../src/core.js";
import { IDBStore } from "../src/idbstore.js";
import { Runner } from "toolroute/jsrun";
import { Toolroute } from "toolroute";
import { modelReply } from "./ui-fakeserve.js";

const toolroute = WebAssembly.compileStreaming(fetch("/toolroute.wasm"));
const quickjs = WebAssembly.compileStreaming(fetch("/quickjs.wasm"));
const MODEL = "https://model.test/v1";

self.onmessage = async (e) => {
  const { c, settings, rewrites, db } = e.data;
  try {
    const script = c.turns.flatMap((t) => t.model);
    const requests = [];
    const modelFetch = async (url, init = {}) => {
      if (!String(url).startsWith(MODEL + "/")) return fetch(url, init);
      requests.push(String(init.body ?? ""));
      const m = script[requests.length - 1];
      if (!m) return Response.json({ error: { message: "the case has no reply left" } }, { status: 500 });
      if (m.error) return new Response(m.error.body, { status: m.error.status, headers: { "content-type": "application/json" } });
      return modelReply(m.tool ? { call: [m.tool, m.input ?? {}] } : { text: m.text }, requests.length);
    };
    const store = await IDBStore.open(db);
    await store.setSettings({ provider: "openai", baseURL: MODEL, model: "fake-model", apiKey: c.api_key ?? "test-key", ...settings });
    const core = new Core({
      store,
      fetch: modelFetch,
      module: async () => Toolroute.instantiate(await toolroute),
      catalogue: async () => ({ catalogue: { manifests: [] }, sources: {}, libraries: {} }),
      runner: async ({ libraries, fs }) =>
        new Runner({ store: fs, libraries: [libraries], fetch: { fetch: (...a) => fetch(...a), cors: true, rewrites }, wasmModule: () => quickjs }),
    });
    const turns = [];
    const lost = [];
    let session = "case";
    let logged = 0;
    for (const [i, turn] of c.turns.entries()) {
      const answers = [...(turn.answers ?? [])];
      const asked = [];
      const events = [];
      const before = requests.length;
      if (c.approver === false) {
        // A scheduled task's run: its session is the task's, and its events
        // are shown to no one (the page lists the session once it is done).
        const name = `case-${i}`;
        // Created as schedule_task creates it, the module checking its
        // name and times; run now, not at its time.
        const checker = await Toolroute.instantiate(await toolroute);
        await core.tasks.create({ name, prompt: turn.user, at: "2099-01-01T09:00:00Z" }, { check: async (op, args) => checker.check({ op, args }) });
        session = (await core.tasks.runNow(name)).last_run.session;
        logged = 0;
      } else {
        const replies = [];
        await core.handle({ id: 1, type: "send", session, text: turn.user, attachments: turn.attachments }, (r) => {
          replies.push(r);
          if (r.type !== "event") return;
          events.push(r.event);
          // The question is answered after the event, as a click comes.
          if (r.event.type === "approval" && r.event.calls) {
            asked.push(r.event.calls.map((x) => x.tool));
            // A question the case has no answer for is denied, and fails it.
            const a = answers.shift() ?? (lost.push(`turn ${i}: no answer left for the question about ${r.event.calls.map((x) => x.tool).join(", ")}`), "deny");
            setTimeout(() => core.handle({ id: 2, type: "approve", session, answers: r.event.calls.map((x) => ({ id: x.id, answer: a })) }, () => {}), 10);
          }
        });
        const err = replies.find((r) => r.type === "error");
        if (err) throw new Error(`turn ${i}: ${err.error}`);
      }
      // The site that records the tools' runs hears that the turn ended.
      await fetch(rewrites[0].to + "/turn-end", { method: "POST", body: "" });
      const all = await store.messages(session);
      turns.push({ asked, msgs: all.slice(logged), read: requests.slice(before).join("\n"), events });
      logged = all.length;
    }
    if (lost.length > 0) throw new Error(lost.join("\n"));
    self.postMessage({ turns });
  } catch (err) {
    self.postMessage({ error: String(err?.stack ?? err) });
  }
};
