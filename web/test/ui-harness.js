// What the tests of web/ui/core.js in Node share: a mocked `toolroute serve`
// with a scripted model behind it, a Core over the real toolroute.wasm and
// QuickJS runner, and a request sent to it.
import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Toolroute } from "../driver/toolroute.js";
import { Runner } from "../jsrun/runner.js";
import { Core } from "../ui/core.js";

export const web = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const wasm = await WebAssembly.compile(await readFile(path.join(web, "..", "wasm", "toolroute.wasm")));

function sse(chunks) {
  const body = chunks.map((c) => "data: " + JSON.stringify(c) + "\n\n").join("") + "data: [DONE]\n\n";
  return new Response(body, { status: 200, headers: { "content-type": "text/event-stream" } });
}

const chunk = (delta, finish = null) => ({ id: "c", object: "chat.completion.chunk", model: "fake-1", choices: [{ index: 0, delta, finish_reason: finish }] });

// fakeServer is fetch for a mocked `toolroute serve` whose /api/ui/catalogue
// answers with catalogue and /api/model with the script's replies: {text}
// or {call: [name, args]}; requests keeps what the module asked for.
export function fakeServer(script, { hold, catalogue } = {}) {
  const requests = [];
  const fetch = async (url, init = {}) => {
    const u = String(url);
    if (u === "/api/health") return Response.json({ ok: true, provider: "openai (fake)", format: "openai", model: "fake-1", problems: [] });
    if (u === "/api/ui/catalogue" && catalogue) return Response.json(catalogue);
    if (u === "/api/model") {
      const req = JSON.parse(init.body);
      requests.push(req);
      if (hold) await hold(init.signal);
      const reply = script[requests.length - 1];
      if (!reply) return Response.json({ error: { message: "no more replies" } }, { status: 500 });
      if (reply.text) return sse([chunk({ role: "assistant", content: reply.text }), chunk({}, "stop")]);
      const [name, args] = reply.call;
      return sse([
        chunk({ role: "assistant", tool_calls: [{ index: 0, id: "call_" + requests.length, type: "function", function: { name, arguments: JSON.stringify(args) } }] }),
        chunk({}, "tool_calls"),
      ]);
    }
    return new Response("not found", { status: 404 });
  };
  return { fetch, requests };
}

export function newCore(store, fetch, extra = {}) {
  return new Core({
    store,
    fetch,
    module: () => Toolroute.instantiate(wasm),
    runner: async ({ libraries, fs }) => new Runner({ store: fs, libraries: [libraries] }),
    ...extra,
  });
}

// ask sends one request and collects its replies until done or error.
export async function ask(core, msg, onReply) {
  const replies = [];
  await core.handle({ id: 1, ...msg }, (r) => {
    replies.push(r);
    onReply?.(r);
  });
  const last = replies.at(-1);
  return { replies, events: replies.filter((r) => r.type === "event").map((r) => r.event), last, result: last?.result };
}
