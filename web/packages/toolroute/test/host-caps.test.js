// A model reply past the cap ends the turn with a model_error, whole or
// streamed, and the host stops reading there: an endless body (as a small
// gzip can inflate to) would otherwise fill the page's memory. A provider
// error that echoes the key is shown redacted. The Go program's host
// checks the same (host TestModelResponseCap, TestProviderErrorEchoingTheKey).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import path from "node:path";
import { Toolroute } from "../driver/toolroute.js";
import { createHost, MemoryStore, MAX_RESPONSE_BODY } from "../host/host.js";
import { WAIT_MS } from "./busy.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");
const wasm = await WebAssembly.compile(await readFile(path.join(root, "wasm/toolroute.wasm")));

// endless answers with a body that never ends, counting what was read:
// first, then chunk again and again.
function endless(contentType, first, chunkText = "x".repeat(1 << 16)) {
  const sent = { bytes: 0 };
  const chunk = new TextEncoder().encode(chunkText);
  const fetch = async () => new Response(new ReadableStream({
    start(c) { c.enqueue(new TextEncoder().encode(first)); },
    pull(c) { sent.bytes += chunk.length; c.enqueue(chunk); },
  }, { highWaterMark: 0 }), { status: 200, headers: { "content-type": contentType } });
  return { fetch, sent };
}

async function turn(fetch, stream) {
  const h = await createHost({
    module: () => Toolroute.instantiate(wasm), catalogue: { tools: [] },
    provider: { format: "openai", baseURL: "http://127.0.0.1:9/v1", apiKey: "sk-the-users-key-0123456789", model: "m" },
    settings: { stream }, store: new MemoryStore(), fetch,
  });
  const events = [];
  for await (const ev of h.send("s", "Hi")) events.push(ev);
  return events.at(-1);
}

for (const stream of [false, true]) {
  test(`an endless ${stream ? "streamed" : "whole"} reply ends the turn at the cap, the host reading no more`, { timeout: 5 * WAIT_MS }, async () => {
    const delta = (text) => "data: " + JSON.stringify({ choices: [{ index: 0, delta: { role: "assistant", content: text } }] }) + "\n\n";
    const { fetch, sent } = stream
      ? endless("text/event-stream", delta("Hello"), delta("x".repeat(1 << 16)))
      : endless("application/json", '{"choices":[{"message":{"role":"assistant","content":"');
    const last = await turn(fetch, stream);
    assert.equal(last.type, "failed", JSON.stringify(last).slice(0, 300));
    assert.match(last.failure.message, /over 67108864/);
    assert.ok(sent.bytes <= MAX_RESPONSE_BODY + (4 << 20), `read ${sent.bytes} bytes`);
  });
}

test("a provider error that echoes the key is shown redacted", async () => {
  const fetch = async (url, init) => {
    const key = new Headers(init.headers).get("authorization");
    return new Response(JSON.stringify({ error: { message: "Incorrect API key provided: " + key } }), { status: 401, headers: { "content-type": "application/json" } });
  };
  const last = await turn(fetch, false);
  assert.equal(last.type, "failed");
  assert.ok(!JSON.stringify(last).includes("0123456789"), JSON.stringify(last));
});
