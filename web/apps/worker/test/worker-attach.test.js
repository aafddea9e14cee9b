// Attachments in the edge worker: a message's files, in the body of
// POST /api/sessions/{id}/messages, reach the model in its own form and
// are logged; a file that is neither an image nor text is a 400 from the
// module's api_body, as serve's, and nothing is stored.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { startTestWorker } from "./worker-harness.js";
import { text } from "../../../packages/toolroute/test/host-fakemodel.js";

const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
let worker;

before(async () => {
  worker = await startTestWorker({ name: "attach", token: "attach-token" });
});

after(async () => {
  await worker?.stop();
});

// events posts a message and gives the stream's events, each {name, data}.
async function events(id, body) {
  const r = await worker.json("POST", `/api/sessions/${id}/messages`, body);
  assert.equal(r.status, 200, await r.clone().text());
  const out = [];
  for (const block of (await r.text()).split("\n\n")) {
    if (block.trim() === "" || block.startsWith(":")) continue;
    const [ev, data] = block.split("\n");
    out.push({ name: ev.slice("event: ".length), data: JSON.parse(data.slice("data: ".length)) });
  }
  return out;
}

test("a message's files reach the model as an image part and text; a file neither image nor text is a 400", async () => {
  worker.model.add(text("A dot and tea."));
  const got = await events("a1", { text: "What is this?", attachments: [{ name: "dot.png", data: PNG }, { name: "n.txt", text: "tea\n" }] });
  assert.equal(got.at(-1).name, "done", JSON.stringify(got));
  const user = worker.model.requests.at(-1).json.messages.find((m) => m.role === "user");
  assert.deepEqual(user.content, [{ type: "image_url", image_url: { url: "data:image/png;base64," + PNG } }, { type: "text", text: 'What is this?\n\n<file name="n.txt">\ntea\n</file>' }]);
  const log = await (await worker.json("GET", "/api/sessions/a1/messages")).json();
  assert.deepEqual(log[0].attachments, [{ name: "dot.png", mime_type: "image/png", data: PNG }, { name: "n.txt", mime_type: "text/plain", text: "tea\n" }]);

  const calls = worker.model.requests.length;
  const bad = await worker.json("POST", "/api/sessions/a2/messages", { text: "Read", attachments: [{ name: "x.bin", data: "AAEC" }] });
  assert.equal(bad.status, 400);
  assert.match((await bad.json()).error, /^attachments\[0\] "x\.bin": the file is neither an image/);
  assert.equal(worker.model.requests.length, calls, "no model call");
  assert.equal((await worker.json("GET", "/api/sessions/a2/messages")).status, 404, "nothing stored");
});
