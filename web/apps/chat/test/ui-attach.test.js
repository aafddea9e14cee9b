// Attachments in the chat UI's core (web/apps/chat/core.js): a send's
// files go to the page's own turn, or in the body of a server session's
// message; a message the module refuses (a file it cannot send) is an
// error marked refused, for the page to give back to the user, and
// nothing is stored. Against the mocked `toolroute serve` of
// ui-harness.js; ui-attach-browser.test.js drives the page in Chromium.
import { test } from "node:test";
import assert from "node:assert/strict";
import { MemoryUIStore } from "../src/idbstore.js";
import { fakeServer, newCore, ask } from "./ui-harness.js";

const CATALOGUE = { catalogue: { manifests: [] }, sources: {}, libraries: {} };
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
const b64 = (s) => Buffer.from(s).toString("base64");

test("a page session's files: sent in the model's own form and logged; a refused one is an error marked refused, nothing stored", async () => {
  const server = fakeServer([{ text: "A dot and a note." }], { catalogue: CATALOGUE });
  const store = new MemoryUIStore();
  const core = newCore(store, server.fetch);
  const refused = await ask(core, { type: "send", session: "p1", text: "Read", attachments: [{ name: "doc.pdf", data: b64("%PDF-1.7\x00\x01") }] });
  assert.equal(refused.last.type, "error");
  assert.equal(refused.last.refused, true);
  assert.match(refused.last.error, /^attachments\[0\] "doc\.pdf": the file is neither an image/);
  assert.equal(server.requests.length, 0, "no model call");
  assert.deepEqual(await store.messages("p1"), [], "nothing stored");

  const sent = await ask(core, { type: "send", session: "p1", text: "", attachments: [{ name: "dot.png", data: PNG }, { name: "n.txt", data: b64("tea\n") }] });
  assert.equal(sent.last.type, "done");
  const user = server.requests[0].body.messages.find((m) => m.role === "user");
  assert.deepEqual(user.content, [{ type: "image_url", image_url: { url: "data:image/png;base64," + PNG } }, { type: "text", text: '<file name="n.txt">\ntea\n</file>' }]);
  const [logged] = await store.messages("p1");
  assert.deepEqual(logged.attachments, [{ name: "dot.png", mime_type: "image/png", data: PNG }, { name: "n.txt", mime_type: "text/plain", text: "tea\n" }]);
  const empty = await ask(core, { type: "send", session: "p1", text: " ", attachments: [] });
  assert.match(empty.last.error, /the message is empty/);
});

test("a server session's files go in the message's body; the server's 400 is an error marked refused, its refused failure an event", async () => {
  const seen = [];
  const server = fakeServer([], {
    catalogue: CATALOGUE,
    sessionOptions: {
      turn: async function* ({ text, attachments, append }) {
        seen.push(attachments);
        if (attachments?.some((a) => a.name.endsWith(".gif"))) {
          yield { type: "failed", failure: { code: "refused", message: 'attachments[0] "a.gif": Gemini reads no GIF images: convert it to PNG, JPEG or WebP' } };
          return;
        }
        yield append({ type: "user", content: text, attachments });
        yield { type: "done", text: "ok" };
      },
    },
  });
  const fetch = async (url, init) => {
    // serve's api_body: a file that is neither an image nor text.
    if (init?.body?.includes("x.bin")) return Response.json({ error: 'attachments[0] "x.bin": the file is neither an image the models read (PNG, JPEG, GIF or WebP) nor UTF-8 text' }, { status: 400 });
    return server.fetch(url, init);
  };
  const core = newCore(new MemoryUIStore(), fetch);
  const files = [{ name: "dot.png", data: PNG }];
  const ok = await ask(core, { type: "send", session: "server:s1", text: "Look", attachments: files });
  assert.equal(ok.last.type, "done");
  assert.deepEqual(seen[0], files);
  const bad = await ask(core, { type: "send", session: "server:s1", text: "Look", attachments: [{ name: "x.bin", data: "AAEC" }] });
  assert.equal(bad.last.refused, true);
  assert.match(bad.last.error, /"x\.bin": the file is neither/);
  const gif = await ask(core, { type: "send", session: "server:s1", text: "Look", attachments: [{ name: "a.gif", data: "R0lGODlh" }] });
  assert.deepEqual(gif.events.at(-1).failure.code, "refused");
});
