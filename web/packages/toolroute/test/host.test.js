// The JS host (web/packages/toolroute/host) runs whole turns against scripted model servers on
// loopback, in the four wire formats, streamed and whole, as the Go host's
// session tests do: group loads growing the tools offered, the log restoring
// them in another host (restored from the log), retries, each provider's errors, the
// /api/model proxy.
import { test } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import path from "node:path";
import { Toolroute } from "../driver/toolroute.js";
import { createHost, MemoryStore, toolOutput } from "../host/host.js";
import { startFakeModel, text, toolCall, error, toolNames, FORMATS, rateLimited, overloaded, contextTooLong, signature } from "./host-fakemodel.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");
const wasm = await WebAssembly.compile(await readFile(path.join(root, "wasm/toolroute.wasm")));
const factory = () => Toolroute.instantiate(wasm);

const catalogue = {
  groups: [{ name: "pdf", display_name: "PDF Tools", description: "Read PDF files" }],
  tools: [{ name: "pdf_info", description: "Page count of a PDF", group: "pdf",
    parameters: { properties: { path: { type: "string" } }, required: ["path"] }, timeout_seconds: 5 }],
  manifests: [{ file: "shout.json", source: "user/shout.js",
    text: JSON.stringify({ name: "shout", description: "Upper-cases text", parameters: { properties: { s: { type: "string" } } } }) }],
};

const clock = () => new Date("2026-03-01T09:00:00Z");

async function collect(gen) {
  const events = [];
  for await (const ev of gen) events.push(ev);
  return events;
}

function types(events) {
  return events.map((e) => e.type);
}

function newHost(model, extra = {}) {
  const calls = [];
  const host = createHost({
    module: factory,
    catalogue,
    provider: { format: extra.format ?? "openai", baseURL: model?.baseURL, apiKey: "sk-test", model: "fake-model", ...extra.provider },
    settings: { system_prompt: "Be brief.", stream: extra.stream ?? false },
    store: extra.store ?? new MemoryStore(),
    native: { pdf_info: async (input) => (calls.push(input), JSON.stringify({ pages: 3 })) },
    now: clock,
    ...extra.options,
  });
  return { host, calls };
}

for (const format of FORMATS) {
  for (const stream of [true, false]) {
    test(`${format} ${stream ? "streamed" : "whole"}: load a group, call its tool; another host restores the group`, async () => {
      const model = await startFakeModel(format,
        toolCall("load_tool_group", '{"group_name":"pdf"}'),
        toolCall("pdf_info", '{"path":"a.pdf"}'),
        text("a.pdf has 3 pages."),
        text("Still 3."));
      const store = new MemoryStore();
      try {
        const { host, calls } = newHost(model, { format, stream, store });
        const h = await host;
        const events = await collect(h.send("s1", "Pages of a.pdf?"));
        const last = events.at(-1);
        assert.equal(last.type, "done", JSON.stringify(last));
        assert.equal(last.text, "a.pdf has 3 pages.");
        assert.deepStrictEqual(last.usage && Object.keys(last.usage).sort(), ["input_tokens", "output_tokens"]);
        assert.deepStrictEqual(calls, [{ path: "a.pdf" }]);

        const loaded = events.find((e) => e.type === "group_loaded");
        assert.equal(loaded.group.name, "pdf");
        assert.deepStrictEqual(loaded.group.added, ["pdf_info"]);
        const modelCalls = events.filter((e) => e.type === "model_call").map((e) => e.tools);
        assert.deepStrictEqual(modelCalls, [
          ["load_tool_group", "shout"],
          ["load_tool_group", "shout", "pdf_info"],
          ["load_tool_group", "shout", "pdf_info"],
        ]);
        assert.deepStrictEqual(model.requests.map(toolNames), modelCalls);
        const toolCalls = events.find((e) => e.type === "tool_calls");
        assert.equal(toolCalls.calls[0].tool, "pdf_info");
        assert.equal(toolCalls.calls[0].origin.kind, "host");
        if (stream) assert.ok(events.some((e) => e.type === "text"), "streamed text deltas");

        // Every message event was committed, in order.
        const log = await store.messages("s1");
        assert.deepStrictEqual(events.filter((e) => e.type === "message").map((e) => e.message), log);
        assert.deepStrictEqual(log.map((m) => m.type),
          ["user", "assistant", "tool_call", "tool_result", "assistant", "tool_call", "tool_result", "assistant"]);
        assert.equal(log[6].content, '{"pages":3}');
        assert.equal(log[0].time, "2026-03-01T09:00:00Z");

        // Wire details: the path and the provider's authentication.
        const req = model.requests[0];
        switch (format) {
          case "openai":
          case "responses":
            assert.equal(req.path, format === "openai" ? "/v1/chat/completions" : "/v1/responses");
            assert.equal(req.headers.authorization, "Bearer sk-test");
            assert.equal(req.json.stream ?? false, stream);
            break;
          case "anthropic":
            assert.equal(req.path, "/v1/messages");
            assert.equal(req.headers["x-api-key"], "sk-test");
            assert.ok(req.headers["anthropic-version"]);
            assert.equal(req.headers["anthropic-dangerous-direct-browser-access"], "true");
            assert.equal(req.headers.authorization, undefined);
            assert.equal(req.json.stream ?? false, stream);
            break;
          case "gemini":
            assert.equal(req.path, stream ? "/v1beta/models/fake-model:streamGenerateContent?alt=sse" : "/v1beta/models/fake-model:generateContent");
            assert.equal(req.headers["x-goog-api-key"], "sk-test");
            assert.equal(req.headers.authorization, undefined);
            // The signature of the first response's call went back with it.
            assert.ok(model.requests[1].body.includes(`"thoughtSignature":"${signature("r1")}"`), model.requests[1].body);
            break;
        }

        // Restored from the log: a second host on the same store finds the loaded group in
        // the log; its first request already carries pdf_info's schema.
        const h2 = await newHost(model, { format, stream, store }).host;
        assert.deepStrictEqual((await h2.describe("s1")).loaded_groups, ["pdf"]);
        const again = await collect(h2.send("s1", "And now?"));
        assert.equal(again.at(-1).type, "done");
        assert.deepStrictEqual(toolNames(model.requests[3]), ["load_tool_group", "shout", "pdf_info"]);
        assert.ok(model.requests[3].body.includes("Page count of a PDF"));
      } finally {
        await model.close();
      }
    });
  }
}

test("a JS tool runs through runJS with its source and declared env", async () => {
  const model = await startFakeModel("openai", toolCall("shout", '{"s":"hi"}'), text("HI"));
  try {
    const got = [];
    const h = await newHost(model, {
      options: {
        sources: { "user/shout.js": "function execute(p) { return p.s.toUpperCase(); }" },
        runJS: async (c) => (got.push(c), { status: "success", output: "HI", logs: [{ level: "log", text: "ran" }] }),
      },
    }).host;
    const events = await collect(h.send("s", "Shout hi"));
    assert.equal(events.at(-1).type, "done");
    assert.equal(got.length, 1);
    assert.equal(got[0].tool, "shout");
    assert.equal(got[0].sourceRef, "user/shout.js");
    assert.match(got[0].source, /toUpperCase/);
    assert.equal(got[0].function, "execute");
    assert.deepStrictEqual(got[0].params, { s: "hi" });
    const result = (await h.messages("s")).find((m) => m.type === "tool_result");
    assert.equal(result.content, "HI"); // console output only on failures by default
  } finally {
    await model.close();
  }
});

test("429 then success: honours Retry-After through the injected sleep", async () => {
  const model = await startFakeModel("openai", error(429, '{"error":{"message":"slow down"}}', "2"), text("Hello."));
  try {
    const waits = [];
    const h = await newHost(model, { options: { retries: { sleep: async (ms) => waits.push(ms) } } }).host;
    const events = await collect(h.send("s", "hi"));
    assert.deepStrictEqual(types(events), ["message", "model_call", "retry", "message", "done"]);
    assert.deepStrictEqual(events[2].retry, { status: 429, attempt: 1, wait: 2e9, wait_ms: 2000, message: "The provider answered 429: trying again in 2 s (retry 1 of 3)." });
    assert.deepStrictEqual(waits, [2000]);
    assert.equal(model.requests.length, 2);
    assert.equal(events.at(-1).text, "Hello.");
  } finally {
    await model.close();
  }
});

// Each provider's 429 is waited out as it asks (Gemini in its body, the
// others in Retry-After), its overloaded answer tried again after the
// backoff, and its context-too-long said once, in its own words.
for (const format of FORMATS) {
  test(`${format}: 429, then overloaded, then success; a context too long is not tried again`, async () => {
    const model = await startFakeModel(format, rateLimited(format, 3), overloaded(format), text("Hello."), contextTooLong(format), text("never"));
    try {
      const waits = [];
      const h = await newHost(model, { format, options: { retries: { backoffMs: 10, sleep: async (ms) => waits.push(ms) } } }).host;
      const events = await collect(h.send("s", "hi"));
      assert.deepStrictEqual(types(events), ["message", "model_call", "retry", "retry", "message", "done"]);
      assert.deepStrictEqual(events.filter((e) => e.type === "retry").map((e) => e.retry.status), [429, format === "anthropic" ? 529 : 503]);
      assert.deepStrictEqual(waits, [3000, 20]);
      assert.equal(events.at(-1).text, "Hello.");

      const again = await collect(h.send("s", "a long one"));
      const last = again.at(-1);
      assert.equal(last.type, "failed");
      assert.equal(last.failure.code, "model_error");
      assert.match(last.failure.message, /HTTP 400: .*(context|too long|exceeds)/);
      assert.ok(!last.failure.message.includes("{"), last.failure.message);
      assert.equal(model.requests.length, 4);
    } finally {
      await model.close();
    }
  });
}

test("5xx retries give up after the count and the turn fails", async () => {
  const model = await startFakeModel("openai", error(503, "busy"), error(503, "busy"), error(503, "still busy"));
  try {
    const waits = [];
    const h = await newHost(model, { options: { retries: { count: 2, backoffMs: 10, sleep: async (ms) => waits.push(ms) } } }).host;
    const events = await collect(h.send("s", "hi"));
    assert.deepStrictEqual(waits, [10, 20]);
    assert.equal(events.at(-1).type, "failed");
    assert.equal(events.at(-1).failure.code, "model_error");
    assert.equal(model.requests.length, 3);
  } finally {
    await model.close();
  }
});

test("401 ends the turn with a clear message and keeps the user's message", async () => {
  const model = await startFakeModel("anthropic",
    error(401, '{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}'));
  try {
    const store = new MemoryStore();
    const h = await newHost(model, { format: "anthropic", store, options: { retries: { sleep: async () => assert.fail("no retry on 401") } } }).host;
    const events = await collect(h.send("s", "hi"));
    const last = events.at(-1);
    assert.equal(last.type, "failed");
    assert.equal(last.failure.code, "model_error");
    assert.match(last.failure.message, /401/);
    assert.match(last.failure.message, /invalid x-api-key/);
    assert.equal(model.requests.length, 1);
    // The failure is logged, in the words the turn ended with: a reload shows it.
    const log = await store.messages("s");
    assert.deepStrictEqual(log.map((m) => m.type), ["user", "turn_end"]);
    assert.equal(log[1].content, last.failure.message);
    assert.equal(log[1].error_type, "model_error");
  } finally {
    await model.close();
  }
});

test("a model that cannot be reached fails the turn", async () => {
  const h = await newHost({ baseURL: "http://127.0.0.1:1/v1" }).host;
  const events = await collect(h.send("s", "hi"));
  assert.equal(events.at(-1).type, "failed");
  assert.equal(events.at(-1).failure.code, "model_error");
});

// A stand-in for `toolroute serve`'s POST /api/model: it takes the module's
// whole model request, adds its own key and streams the provider's answer.
async function startProxy(model, extra = {}) {
  const got = [];
  const server = http.createServer(async (req, res) => {
    const parts = [];
    for await (const p of req) parts.push(p);
    const mr = JSON.parse(Buffer.concat(parts).toString("utf8"));
    got.push({ headers: req.headers, request: mr });
    const resp = await fetch(model.baseURL + mr.path, {
      method: "POST",
      headers: { ...mr.headers, authorization: "Bearer server-key" },
      body: JSON.stringify(mr.body),
    });
    res.writeHead(resp.status, { "content-type": resp.headers.get("content-type") ?? "application/json", ...(resp.ok ? {} : extra.failed) });
    for await (const chunk of resp.body) res.write(chunk);
    res.end();
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${server.address().port}/api/model`, got, close: () => new Promise((r) => server.close(r)) };
}

test("proxy mode POSTs the module's whole request to /api/model", async () => {
  const model = await startFakeModel("openai", toolCall("load_tool_group", '{"group_name":"pdf"}'), text("Proxied."));
  const proxy = await startProxy(model);
  try {
    const h = await newHost(null, { stream: true, provider: { baseURL: undefined, apiKey: undefined, proxyURL: proxy.url } }).host;
    const events = await collect(h.send("s", "hi"));
    assert.equal(events.at(-1).type, "done");
    assert.equal(events.at(-1).text, "Proxied.");
    assert.equal(proxy.got.length, 2);
    const { headers, request } = proxy.got[0];
    assert.equal(headers["content-type"], "application/json");
    assert.equal(headers.authorization, undefined, "the page sends no key to the proxy");
    assert.equal(request.format, "openai");
    assert.equal(request.path, "/chat/completions");
    assert.equal(request.stream, true);
    assert.deepStrictEqual(request.tools, ["load_tool_group", "shout"]);
    assert.equal(request.body.model, "fake-model");
    assert.deepStrictEqual(proxy.got[1].request.tools, ["load_tool_group", "shout", "pdf_info"]);
    assert.equal(model.requests[0].headers.authorization, "Bearer server-key");
  } finally {
    await proxy.close();
    await model.close();
  }
});

test("a proxied call that failed is tried again with the policy the proxy answers, each retry an event", async () => {
  const model = await startFakeModel("openai", error(500, '{"error":{"message":"boom"}}'), error(500, '{"error":{"message":"boom"}}'), text("Third."));
  const proxy = await startProxy(model, { failed: { "toolroute-retries": JSON.stringify({ count: 3, backoff_ms: 1000 }) } });
  const waits = [];
  try {
    const h = await newHost(null, { provider: { baseURL: undefined, apiKey: undefined, proxyURL: proxy.url }, options: { retries: { sleep: async (ms) => waits.push(ms) } } }).host;
    const events = await collect(h.send("s", "hi"));
    assert.equal(events.at(-1).text, "Third.");
    assert.deepStrictEqual(events.filter((e) => e.type === "retry").map((e) => e.retry.message),
      ["The provider answered 500: trying again in 1 s (retry 1 of 3).", "The provider answered 500: trying again in 2 s (retry 2 of 3)."]);
    assert.deepStrictEqual(waits, [1000, 2000]);
    assert.equal(proxy.got.length, 3);
  } finally {
    await proxy.close();
    await model.close();
  }
  // A proxy that says no policy: the failure ends the turn, not tried again.
  const once = await startFakeModel("openai", error(500, '{"error":{"message":"boom"}}'));
  const plain = await startProxy(once);
  try {
    const h = await newHost(null, { provider: { baseURL: undefined, apiKey: undefined, proxyURL: plain.url }, options: { retries: { sleep: async () => assert.fail("no retry") } } }).host;
    const events = await collect(h.send("s", "hi"));
    assert.equal(events.at(-1).type, "failed");
    assert.equal(plain.got.length, 1);
  } finally {
    await plain.close();
    await once.close();
  }
});

test("a catalogue loaded mid-turn is offered from the next model call (reload)", async () => {
  const model = await startFakeModel("openai", toolCall("make_tool", "{}"), text("Made."));
  try {
    let h;
    const cat = {
      tools: [{ name: "make_tool", description: "Makes a tool" }],
    };
    h = await createHost({
      module: factory, catalogue: cat, now: clock,
      provider: { format: "openai", baseURL: model.baseURL, model: "m" },
      native: {
        make_tool: async () => {
          await h.load({ tools: [...cat.tools, { name: "fresh", description: "A fresh tool" }] });
          return "made";
        },
      },
    });
    const events = await collect(h.send("s", "make one"));
    assert.equal(events.at(-1).type, "done");
    assert.deepStrictEqual(model.requests.map(toolNames), [["make_tool"], ["make_tool", "fresh"]]);
  } finally {
    await model.close();
  }
});

test("an aborted turn stops, keeps what was committed and frees the session", async () => {
  const model = await startFakeModel("openai", toolCall("slow", "{}"));
  try {
    const store = new MemoryStore();
    const ctl = new AbortController();
    let toolSignal;
    const h = await createHost({
      module: factory, catalogue: { tools: [{ name: "slow", description: "Slow" }] }, store, now: clock,
      provider: { format: "openai", baseURL: model.baseURL, model: "m" },
      native: {
        slow: (_input, { signal }) => new Promise((_, reject) => {
          toolSignal = signal;
          signal.addEventListener("abort", () => reject(signal.reason));
        }),
      },
    });
    const events = [];
    await assert.rejects(async () => {
      for await (const ev of h.send("s", "go slow", { signal: ctl.signal })) {
        events.push(ev);
        if (ev.type === "tool_calls") setTimeout(() => ctl.abort(), 10);
      }
    }, { name: "AbortError" });
    assert.equal(toolSignal.aborted, true, "the running tool is told");
    // The call was committed pending before it ran; the next turn tells the
    // model it was cut off. The stop is logged after it.
    assert.deepStrictEqual((await store.messages("s")).map((m) => m.type + (m.status ? ":" + m.status : "") + (m.error_type ? ":" + m.error_type : "")), ["user", "assistant", "tool_call:pending", "turn_end:stopped"]);
    assert.equal(model.requests.length, 1);

    // The session is not left locked: the next turn runs.
    model.add(text("ok"));
    const next = await collect(h.send("s", "again"));
    assert.equal(next.at(-1).type, "done");
    assert.equal(next.at(-1).text, "ok");
    assert.match(model.requests[1].body, /Error \(interrupted\): This call was cut off while it ran/);
  } finally {
    await model.close();
  }
});

test("a native tool's progress is a turn event naming its call, before its result", async () => {
  const model = await startFakeModel("openai", toolCall("pack", "{}"), text("Packed."));
  try {
    const h = await createHost({
      module: factory, catalogue: { tools: [{ name: "pack", description: "Packs" }] }, store: new MemoryStore(), now: clock,
      provider: { format: "openai", baseURL: model.baseURL, model: "m" },
      native: {
        pack: async (_input, { progress, callId }) => {
          progress({ progress: 1, total: 2, message: "Wrapping" });
          progress(); // the work goes on, saying nothing of how far
          progress({ progress: 2 });
          return `packed ${callId}`;
        },
      },
    });
    const events = await collect(h.send("s", "pack it"));
    const call = events.find((e) => e.type === "tool_calls").calls[0];
    const result = events.findIndex((e) => e.type === "message" && e.message.type === "tool_result");
    const progress = events.filter((e) => e.type === "progress");
    assert.deepStrictEqual(progress, [
      { type: "progress", call_id: call.id, progress: 1, total: 2, message: "Wrapping" },
      { type: "progress", call_id: call.id, progress: 2 },
    ]);
    assert.ok(events.indexOf(progress[1]) < result, "the progress comes before the result");
    assert.equal(events[result].message.content, `packed ${call.id}`, "the tool is given its call's id");
    assert.equal(events.at(-1).type, "done");
  } finally {
    await model.close();
  }
});

test("known secrets are redacted from tool results, stored messages and model requests", async () => {
  const secret = "sk-planted-secret-value-42";
  const model = await startFakeModel("openai",
    toolCall("load_tool_group", '{"group_name":"pdf"}'),
    toolCall("pdf_info", '{"path":"a.pdf"}'),
    text("Done."));
  const store = new MemoryStore();
  try {
    const { host } = newHost(model, {
      store,
      provider: { apiKey: secret },
      options: {
        native: { pdf_info: async () => `the key is ${secret}` },
        secrets: async () => [{ name: "OPENAI_API_KEY", value: secret }],
      },
    });
    const h = await host;
    const events = await collect(h.send("s", "Leak it"));
    assert.equal(events.at(-1).type, "done");
    const log = await store.messages("s");
    assert.equal(log.find((m) => m.type === "tool_result" && m.tool_name === "pdf_info").content, "the key is [redacted OPENAI_API_KEY]");
    assert.ok(!JSON.stringify(log).includes(secret), "the store holds the secret");
    assert.ok(!JSON.stringify(events).includes(secret), "an event holds the secret");
    assert.equal(model.requests.length, 3);
    for (const r of model.requests) assert.ok(!r.body.includes(secret), "a model request body holds the secret");
    assert.ok(model.requests[2].body.includes("[redacted OPENAI_API_KEY]"));
  } finally {
    await model.close();
  }
});

// Native routing in the JS host, as `toolroute chat --routing native` in the
// Go host: every group sent deferred, the load brought in where it stands
// (Anthropic's tool_reference, the Responses API's client tool search), the
// same tools on every call; another host restores the load from the log,
// and a classic host continues the session with the group's tools appended.
for (const format of ["anthropic", "responses"]) {
  for (const stream of [true, false]) {
    test(`${format} ${stream ? "streamed" : "whole"}, native routing: load, call, restore, then classic`, async () => {
      const model = await startFakeModel(format,
        toolCall("pdf_info", '{"path":"a.pdf"}'),
        toolCall("load_tool_group", '{"group_name":"pdf"}'),
        toolCall("pdf_info", '{"path":"a.pdf"}'),
        text("a.pdf has 3 pages."),
        toolCall("pdf_info", '{"path":"b.pdf"}'),
        text("b.pdf has 3 pages too."),
        text("Classic now."));
      const store = new MemoryStore();
      const native = (extra = {}) => newHost(model, { format, stream, store, options: { settings: { system_prompt: "Be brief.", stream, routing: "native" } }, ...extra });
      try {
        const { host, calls } = native();
        const h = await host;
        const events = await collect(h.send("s1", "Pages of a.pdf?"));
        assert.equal(events.at(-1).type, "done", JSON.stringify(events.at(-1)));
        assert.deepStrictEqual(calls, [{ path: "a.pdf" }]);
        const refused = events.find((e) => e.type === "message" && e.message.type === "tool_result" && e.message.error_type === "tool_not_loaded");
        assert.ok(refused, "the call before the load reads tool_not_loaded");
        const modelCalls = events.filter((e) => e.type === "model_call");
        assert.deepStrictEqual(modelCalls.map((e) => e.routing), ["native", "native", "native", "native"]);
        assert.deepStrictEqual(modelCalls.map((e) => e.call), [1, 2, 3, 4]);
        assert.ok(modelCalls[3].schema.loaded_groups[0].group === "pdf");

        const h2 = await native().host;
        const again = await collect(h2.send("s1", "And b.pdf?"));
        assert.equal(again.at(-1).type, "done");
        assert.equal(again.filter((e) => e.type === "model_call").length, 2, "no new load");

        const sent = model.requests.map(toolNames);
        for (const names of sent) assert.deepStrictEqual(names, sent[0]);
        const loadedBy = format === "anthropic" ? '"type":"tool_reference","tool_name":"pdf_info"' : '"type":"tool_search_output"';
        for (const r of model.requests.slice(2)) assert.ok(r.body.includes(loadedBy), r.body);

        const h3 = await newHost(model, { format, stream, store }).host;
        const classic = await collect(h3.send("s1", "Once more?"));
        assert.equal(classic.at(-1).type, "done");
        const last = model.requests.at(-1);
        assert.ok(toolNames(last).includes("pdf_info"));
        assert.ok(!last.body.includes(loadedBy) && !last.body.includes("defer_loading"), last.body);
      } finally {
        await model.close();
      }
    });
  }
}

// search_tools in the JS host, as `toolroute chat --search-tools` in the Go
// host: offered after load_tool_group, the tool found joins the next call
// alone (not its group), runs, and another host restores it from the log;
// describe lists search_tools among the active tools.
test("search_tools: a tool found by what it does is loaded alone and restored from the log", async () => {
  const model = await startFakeModel("openai",
    toolCall("search_tools", '{"query":"page count of a PDF","limit":1}'),
    toolCall("pdf_info", '{"path":"a.pdf"}'),
    text("a.pdf has 3 pages."),
    toolCall("pdf_info", '{"path":"b.pdf"}'),
    text("b.pdf too."));
  const store = new MemoryStore();
  const opts = { format: "openai", stream: false, store, options: { settings: { system_prompt: "Be brief.", search_tools: true } } };
  try {
    const { host, calls } = newHost(model, opts);
    const h = await host;
    const events = await collect(h.send("s1", "Pages of a.pdf?"));
    assert.equal(events.at(-1).type, "done", JSON.stringify(events.at(-1)));
    const load = events.find((e) => e.type === "group_loaded");
    assert.deepStrictEqual([load.group.query, load.group.added], ["page count of a PDF", ["pdf_info"]]);
    assert.deepStrictEqual(calls, [{ path: "a.pdf" }]);
    const [first, second] = model.requests.map(toolNames);
    assert.equal(first[first.indexOf("load_tool_group") + 1], "search_tools");
    assert.deepStrictEqual(second, [...first, "pdf_info"], "the tool found, not its group");
    const d = await h.describe("s1");
    assert.deepStrictEqual(d.active, second);

    const h2 = await newHost(model, opts).host;
    const again = await collect(h2.send("s1", "And b.pdf?"));
    assert.equal(again.at(-1).type, "done");
    assert.deepStrictEqual(toolNames(model.requests[3]), second, "restored from the log");
  } finally {
    await model.close();
  }
});

// A tool budget in the JS host: a load that does not fit unloads the least
// recently used group, unload_tool_group takes one off, and another host
// restores the list with the unloads.
test("tool_budget: a load past the budget unloads the least recently used group", async () => {
  const long = (what) => `${what}. ` + "It says so at length, in words the model reads before it calls the tool. ".repeat(6);
  const two = {
    groups: [{ name: "pdf", display_name: "PDF Tools", description: "Read PDF files" }, { name: "mail", display_name: "Mail", description: "Send mail" }],
    tools: [
      { name: "pdf_info", description: long("Page count of a PDF"), group: "pdf", parameters: { properties: { path: { type: "string" } } }, timeout_seconds: 5 },
      { name: "mail_send", description: long("Send a mail"), group: "mail", parameters: { properties: { to: { type: "string" } } }, timeout_seconds: 5 },
    ],
  };
  const model = await startFakeModel("openai",
    toolCall("load_tool_group", '{"group_name":"pdf"}'),
    toolCall("load_tool_group", '{"group_name":"mail"}'),
    text("Loaded."),
    toolCall("unload_tool_group", '{"group_name":"mail"}'),
    text("Unloaded."));
  const store = new MemoryStore();
  const opts = (budget) => ({ format: "openai", stream: false, store, options: { catalogue: two, settings: { system_prompt: "Be brief.", tool_budget: budget } } });
  try {
    // The engine's estimate is the tools JSON's bytes / 4.4: room for the
    // core tools and one group (each tool about 150 tokens), not two.
    const probe = await newHost(model, opts(1)).host;
    const coreJSON = (await probe.describe(undefined, { toolsJSON: true })).tools_json.active;
    const budget = Math.ceil(new TextEncoder().encode(JSON.stringify(coreJSON)).length / 4.4) + 200;
    const h = await newHost(model, opts(budget)).host;
    const events = await collect(h.send("s1", "Load pdf, then mail"));
    assert.equal(events.at(-1).type, "done", JSON.stringify(events.at(-1)));
    const loads = events.filter((e) => e.type === "group_loaded").map((e) => e.group);
    assert.deepStrictEqual(loads.map((g) => [g.name, g.unloaded ?? []]), [["pdf", []], ["mail", ["pdf_info"]]]);
    const sent = model.requests.map(toolNames);
    assert.deepStrictEqual(sent[0], ["load_tool_group", "unload_tool_group"]);
    assert.deepStrictEqual(sent[2], ["load_tool_group", "unload_tool_group", "mail_send"]);

    const h2 = await newHost(model, opts(budget)).host;
    const again = await collect(h2.send("s1", "Unload mail"));
    assert.equal(again.at(-1).type, "done");
    assert.deepStrictEqual(again.find((e) => e.type === "group_loaded").group.unloaded, ["mail_send"]);
    assert.deepStrictEqual(toolNames(model.requests[3]), sent[2], "restored from the log, the unload included");
    assert.deepStrictEqual(toolNames(model.requests[4]), sent[0]);
  } finally {
    await model.close();
  }
});

// Compaction in the JS host: compact() summarises all but the last
// exchange in one call without tools; the next call sends the summary in
// the system prompt with the loaded group's tools, and the store keeps
// every message.
test("compact: a summary replaces the earlier messages in later calls, the loads and the log kept", async () => {
  const model = await startFakeModel("openai",
    toolCall("load_tool_group", '{"group_name":"pdf"}'),
    text("Loaded."),
    text("Noted."),
    text("SUMMARY: pdf tools loaded."),
    text("Still here."));
  const store = new MemoryStore();
  try {
    const h = await newHost(model, { format: "openai", stream: true, store }).host;
    await collect(h.send("s1", "Load the PDF tools"));
    await collect(h.send("s1", "Remember tea"));
    const events = await collect(h.compact("s1"));
    assert.equal(events.at(-1).type, "done", JSON.stringify(events.at(-1)));
    assert.match(events.at(-1).text, /^Compacted 5 messages into a summary; the 2 after them are sent as they are/);
    assert.ok(!events.some((e) => e.type === "text"), "the summary is not streamed as the assistant's text");
    const summary = events.find((e) => e.type === "message" && e.message.type === "summary");
    assert.match(summary.message.content, /^SUMMARY: pdf tools loaded\.\n\nTool groups loaded so far, still loaded: pdf \(pdf_info\)\.$/);
    const after = await collect(h.send("s1", "Still there?"));
    assert.equal(after.at(-1).type, "done");
    const [, loadedCall, , summarising, next] = model.requests;
    assert.deepStrictEqual(toolNames(summarising), []);
    assert.deepStrictEqual(toolNames(next), toolNames(loadedCall));
    assert.ok(next.body.includes("## Summary of the earlier conversation") && !next.body.includes("Load the PDF tools"), next.body);
    const log = await store.messages("s1");
    assert.ok(log.some((m) => m.content === "Load the PDF tools"), "the log keeps the summarised messages");
  } finally {
    await model.close();
  }
});

// ABI v2's Sessions: the instance that ran a session's turn keeps its
// state, so the session's next turn sends the module the fingerprint and
// none of the history; what reaches the model is, byte for byte, what a
// host that never saw the session sends from the whole log.
for (const format of FORMATS) {
  test(`${format}: a session's next turn resumes the state its instance kept`, async () => {
    const starts = [];
    const recording = async () => {
      const t = await Toolroute.instantiate(wasm);
      const event = t.turnEvent.bind(t);
      t.turnEvent = (h, ev) => {
        if (ev.type === "start") starts.push(ev);
        return event(h, ev);
      };
      return t;
    };
    const warm = await startFakeModel(format,
      toolCall("load_tool_group", '{"group_name":"pdf"}'),
      toolCall("pdf_info", '{"path":"a.pdf"}'),
      text("a.pdf has 3 pages."),
      text("Still 3."));
    const cold = await startFakeModel(format, text("Still 3."));
    try {
      const store = new MemoryStore();
      const kept = await newHost(warm, { format, store, options: { module: recording } }).host;
      assert.equal((await collect(kept.send("s1", "Pages of a.pdf?"))).at(-1).type, "done");

      const copy = new MemoryStore();
      await copy.append("s1", await store.messages("s1"));
      const fresh = await newHost(cold, { format, store: copy }).host;
      assert.equal((await collect(fresh.send("s1", "And now?"))).at(-1).type, "done");

      assert.equal((await collect(kept.send("s1", "And now?"))).at(-1).type, "done");
      assert.equal(starts.length, 2);
      assert.equal(starts[0].session, "s1");
      assert.ok(starts[1].fingerprint, "the second turn's start carries a fingerprint");
      assert.deepStrictEqual(starts[1].history, [], "and none of the history");
      assert.equal(warm.requests.length, 4);
      assert.equal(warm.requests[3].body, cold.requests[0].body);
    } finally {
      await warm.close();
      await cold.close();
    }
  });
}

// wasm/ABI.md's Lifecycle: an instance whose memory passed the host's
// recycleMemory is replaced with a new one before the next turn, as the
// Go host's pool does. The session the old one kept sends its whole log
// to the new one, and the model reads its history intact: the request a
// host that never saw the session makes from the same log.
test("an instance past recycleMemory is replaced; the session's next turn sends its whole log", async () => {
  const limit = 8 << 20;
  const made = [];
  const starts = [];
  const recording = async () => {
    const t = await Toolroute.instantiate(wasm);
    made.push(t);
    const event = t.turnEvent.bind(t);
    t.turnEvent = (h, ev) => {
      if (ev.type === "start") starts.push({ inst: t, fingerprint: ev.fingerprint, messages: ev.history.length });
      return event(h, ev);
    };
    return t;
  };
  // 40,000 messages, 3.7 MB of JSON: a start takes an instance past 8 MiB.
  const log = [];
  for (let i = 0; log.length < 40000; i++) {
    log.push({ type: "user", content: `How many pages has report-${i}.pdf?` },
      { type: "assistant", content: "Let me look." },
      { type: "tool_call", tool_call_id: `call_${i}`, tool_name: "pdf_info", tool_input: `{"path":"report-${i}.pdf"}`, status: "success" },
      { type: "tool_result", tool_call_id: `call_${i}`, tool_name: "pdf_info", content: `{"pages":${i % 40 + 1}}`, status: "success" },
      { type: "assistant", content: `report-${i}.pdf has ${i % 40 + 1} pages.` });
  }
  const warm = await startFakeModel("openai", text("One."), text("Two."));
  const cold = await startFakeModel("openai", text("Two."));
  try {
    const store = new MemoryStore();
    await store.append("s1", log);
    const h = await newHost(warm, { store, options: { module: recording, recycleMemory: limit } }).host;
    assert.equal(made.length, 1);
    assert.ok(made[0].memorySize <= limit, `a new instance holds ${made[0].memorySize} bytes, past the test's limit`);
    assert.equal((await collect(h.send("s1", "And the last one?"))).at(-1).type, "done");
    assert.ok(made[0].memorySize > limit, `the start took the instance to ${made[0].memorySize} bytes, not past ${limit}: give it a longer history`);

    const copy = new MemoryStore();
    await copy.append("s1", await store.messages("s1"));
    assert.equal((await collect(h.send("s1", "And the one before?"))).at(-1).type, "done");
    assert.equal(made.length, 2, "the instance past the limit was not replaced");
    assert.equal(starts.length, 2);
    assert.equal(starts[1].inst, made[1]);
    assert.equal(starts[1].fingerprint, undefined, "the new instance was sent a fingerprint it never handed out");
    assert.equal(starts[1].messages, 40002, "the new instance was not sent the whole log");

    const fresh = await newHost(cold, { store: copy }).host;
    assert.equal((await collect(fresh.send("s1", "And the one before?"))).at(-1).type, "done");
    assert.equal(warm.requests.length, 2);
    assert.equal(warm.requests[1].body, cold.requests[0].body);
  } finally {
    await warm.close();
    await cold.close();
  }
});

// A native tool's PDF (toolOutput's documents, as the MCP client gives an
// embedded PDF resource) reaches the model where the format carries a
// document in a tool result, beside the text's placeholder, as the Go
// host's does (transcript tool_result_documents): Anthropic's document
// block, Responses' input_file, Gemini's inline data; Chat Completions
// reads the placeholder alone.
for (const format of FORMATS) {
  test(`${format}: a tool result's PDF goes where the format carries documents`, async () => {
    const pdf = { mime_type: "application/pdf", data: "JVBERi0xLjQK", name: "file:///reports/q3.pdf" };
    const placeholder = "[resource file:///reports/q3.pdf: application/pdf, 9 bytes]";
    const model = await startFakeModel(format, toolCall("load_tool_group", '{"group_name":"pdf"}'), toolCall("pdf_info", '{"path":"q3.pdf"}'), text("Read."));
    try {
      const { host } = newHost(model, { format, options: { native: { pdf_info: async () => toolOutput(`The report:\n\n${placeholder}`, [], [pdf]) } } });
      const events = await collect((await host).send("s", "Read q3.pdf"));
      assert.equal(events.at(-1).type, "done", JSON.stringify(events.at(-1)));
      const body = JSON.stringify(model.requests[2].json);
      assert.ok(body.includes(placeholder), body);
      const carried = {
        anthropic: '{"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"JVBERi0xLjQK"},"title":"file:///reports/q3.pdf"}',
        responses: '{"type":"input_file","file_data":"data:application/pdf;base64,JVBERi0xLjQK","filename":"q3.pdf"}',
        gemini: '{"inlineData":{"mimeType":"application/pdf","data":"JVBERi0xLjQK"}}',
        openai: null,
      }[format];
      if (carried) assert.ok(body.includes(carried), body);
      else assert.ok(!body.includes("JVBERi0xLjQK"), body);
    } finally {
      await model.close();
    }
  });
}
