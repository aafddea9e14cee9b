// Issue 34's item 3 in the edge worker, in workerd: a client that stops
// reading a turn's stream held the session (its lease, for 10 minutes) and
// the turn itself, waiting on a write the stream's backpressure never let
// through. A write that cannot go through for the stall limit
// (TOOLROUTE_STALL_MS, 1 s here) ends the turn as the client leaving does.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import net from "node:net";
import { startTestWorker } from "./worker-harness.js";
import { text } from "../../../packages/toolroute/test/host-fakemodel.js";

const TOKEN = "tok-stall";
let w;

before(async () => {
  w = await startTestWorker({ name: "worker-stall", token: TOKEN, bindings: { TOOLROUTE_STALL_MS: "1000" } });
});

after(async () => {
  await w?.stop();
});

// stalledTurn sends a turn on a socket it never reads: what the worker
// writes fills the socket's buffers and then waits.
function stalledTurn(id, message) {
  const u = new URL(w.base);
  const sock = net.connect({ host: u.hostname, port: Number(u.port) });
  const body = JSON.stringify({ text: message });
  // Connection: close: the stream's end closes the socket.
  sock.write(`POST /api/sessions/${id}/messages HTTP/1.1\r\nHost: ${u.host}\r\nConnection: close\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
  sock.pause();
  const closed = new Promise((resolve) => sock.on("close", resolve));
  sock.on("error", () => {}); // a reset is a close too
  return { sock, closed };
}

const wait = (ms) => new Promise((r) => setTimeout(r, ms));

test("a client that reads slowly keeps its stream: the limit is on a write that does not go through, not on the whole answer", async (t) => {
  const id = (await (await w.json("POST", "/api/sessions", {})).json()).id;
  const reply = "Slow and steady. ".repeat(Math.floor((1 << 20) / 17));
  w.model.add(text(reply));
  // 3 MiB of events (two deltas, the message, done), resting 50 ms after
  // each chunk read: seconds in all, against a limit of 1 s.
  const { sock, closed } = stalledTurn(id, "Write a lot, slowly");
  const chunks = [];
  sock.on("data", (d) => {
    chunks.push(d);
    sock.pause();
    setTimeout(() => sock.resume(), 50);
  });
  const start = Date.now();
  sock.resume();
  await closed.catch(() => {});
  const raw = Buffer.concat(chunks).toString("latin1");
  t.diagnostic(`${raw.length} bytes in ${chunks.length} chunks over ${Date.now() - start} ms`);
  const tail = raw.slice(-200);
  assert.ok(raw.startsWith("HTTP/1.1 200"), raw.slice(0, 200));
  assert.ok(raw.includes('event: done\ndata: {"type":"done","text":"Slow and steady.') && tail.endsWith("0\r\n\r\n"),
    `after ${Date.now() - start} ms and ${raw.length} bytes the stream ended with ${JSON.stringify(tail)}`);
});

test("a client that stops reading a turn's stream frees the session after the stall limit: the reply so far is kept, the next turn runs, DELETE answers", async () => {
  const id = (await (await w.json("POST", "/api/sessions", {})).json()).id;
  const reply = "All work and no play. ".repeat(Math.floor((8 << 20) / 22));
  w.model.add(text(reply), text("Next."));
  const from = w.model.requests.length;
  const stalled = stalledTurn(id, "Write a lot");
  try {
    for (let i = 0; w.model.requests.length === from; i++) {
      assert.ok(i < 3000, "the stalled client's turn never called the model");
      await wait(10);
    }
    // The bound is 30 s; the limit here is 1 s, and a minute covers
    // an 8 MiB reply on a busy machine.
    let r;
    for (const end = Date.now() + 60_000; ; ) {
      r = await w.json("POST", `/api/sessions/${id}/messages`, { text: "And now?" });
      if (r.status !== 409) break;
      const refused = await r.text();
      assert.ok(Date.now() < end, "the session is still held a minute after its client stopped reading: " + refused);
      await wait(100);
    }
    assert.equal(r.status, 200, await r.clone().text());
    const events = (await r.text()).split("\n\n").filter((b) => b.trim() && !b.startsWith(":")).map((b) => JSON.parse(b.split("\n")[1].slice("data: ".length)));
    assert.equal(events.at(-1).type, "done", JSON.stringify(events.at(-1)).slice(0, 300));
    assert.equal(events.at(-1).text, "Next.");

    const log = await (await w.json("GET", `/api/sessions/${id}/messages`)).json();
    const shown = log.map((m) => `${m.type} ${JSON.stringify(m.content.slice(0, 40))} (${m.content.length})`);
    assert.equal(log.length, 5, shown.join("\n"));
    assert.deepEqual([log[0].type, log[0].content], ["user", "Write a lot"]);
    assert.equal(log[1].type, "assistant", "the reply so far is kept, as a Stop keeps it: " + shown.join("\n"));
    assert.ok(log[1].content.length > 0 && reply.startsWith(log[1].content), shown.join("\n"));
    assert.deepEqual([log[2].type, log[2].error_type], ["turn_end", "stopped"], "then the stop: " + shown.join("\n"));
    assert.deepEqual(log.slice(3).map((m) => [m.type, m.content]), [["user", "And now?"], ["assistant", "Next."]]);

    const del = await w.json("DELETE", `/api/sessions/${id}`);
    assert.equal(del.status, 204, await del.text());
    // The worker closed the stalled connection: read, it ends.
    stalled.sock.resume();
    const ended = await Promise.race([stalled.closed.then(() => true), wait(10_000).then(() => false)]);
    assert.ok(ended, "the stalled connection is still open");
  } finally {
    stalled.sock.destroy();
  }
});
