// The edge worker's turn that its host cannot go on with (its storage
// failing: a real full disk under workerd's Durable Objects) ends as every
// turn does, with done or failed: a failed event of code host_error, as
// serve's (internal/server's TestServerFailuresEndTheStream). It came as an
// "error" event, which the API's clients were not told of. And the turn's
// lease, whose release the full disk kept from being written, does not
// hold the session for the 10 minutes of LEASE_MS once space is freed.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { startTestWorker } from "./worker-harness.js";
import { text } from "../../../packages/toolroute/test/host-fakemodel.js";

// A full disk is a small tmpfs, filled: mounting one needs root on Linux.
const skip = process.platform !== "linux" || process.getuid?.() !== 0 ? "a full disk is a tmpfs mounted on Linux, which needs root" : false;
let dir, worker;

before(async () => {
  if (skip) return;
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "toolroute-fulldisk-"));
  execFileSync("mount", ["-t", "tmpfs", "-o", "size=8m,mode=0700", "tmpfs", dir]);
  worker = await startTestWorker({ name: "failures", token: "failures-token", storage: dir });
});

after(async () => {
  await worker?.stop();
  if (dir) {
    execFileSync("umount", ["-l", dir]);
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

// fill writes a file in dir until its disk is full, and gives a function
// that removes it.
function fill(dir) {
  const file = path.join(dir, "filler");
  const fd = fs.openSync(file, "w");
  try {
    for (let n = 64 << 10; n > 0; ) {
      try {
        fs.writeSync(fd, Buffer.alloc(n));
      } catch (e) {
        if (e.code !== "ENOSPC") throw e;
        n >>= 1; // the last bytes, down to one
      }
    }
  } finally {
    fs.closeSync(fd);
  }
  return () => fs.rmSync(file);
}

// turn posts a message and gives the stream's events, each {name, data}.
async function turn(id, message) {
  const r = await worker.json("POST", `/api/sessions/${id}/messages`, { text: message });
  assert.equal(r.status, 200, await r.clone().text());
  const events = [];
  for (const block of (await r.text()).split("\n\n")) {
    if (block.trim() === "" || block.startsWith(":")) continue;
    const [ev, data] = block.split("\n");
    events.push({ name: ev.slice("event: ".length), data: JSON.parse(data.slice("data: ".length)) });
  }
  return events;
}

test("a full disk mid-turn ends the worker's turn with a failed event, code host_error; once space is freed the session goes on", { skip }, async () => {
  const { model } = worker;
  model.add(text("Hi."));
  assert.equal((await turn("work", "hello")).at(-1).name, "done");
  let release;
  model.add({ text: "A long answer. ".repeat(200), wait: new Promise((r) => (release = r)) });
  const asked = model.requests.length;
  const second = turn("work", "hello again");
  while (model.requests.length === asked) await new Promise((r) => setTimeout(r, 10)); // the turn is at the model
  const free = fill(dir);
  release();
  const events = await second;
  const last = events.at(-1);
  assert.equal(last.name, "failed", JSON.stringify(events));
  assert.equal(last.data.type, "failed");
  assert.equal(last.data.failure.code, "host_error");
  assert.ok(last.data.failure.message, "the failure says what happened");
  assert.doesNotMatch(last.data.failure.message, /^host: /);
  free();
  model.add(text("Hi again."));
  assert.equal((await turn("work", "and again")).at(-1).name, "done");
});
