// The model picker's list in the chat UI's core (web/apps/chat/core.js):
// a page session's provider's models (a key's provider's own list, read
// by the module; the demo's one model), a server session's serve's (GET
// /api/models), and a send into a server session carrying the model picked.
import { test } from "node:test";
import assert from "node:assert/strict";
import { MemoryUIStore } from "../src/idbstore.js";
import { fakeServer, newCore, ask } from "./ui-harness.js";

test("the picker's list: the page's provider's, or serve's for a chat serve keeps; the model picked goes with the message", async () => {
  const server = fakeServer([{ text: "Hi." }], { catalogue: { catalogue: { manifests: [] }, sources: {}, libraries: {} } });
  const asked = [];
  const fetch = async (url, init = {}) => {
    const u = String(url);
    if (u === "https://llm.example/v1/models") {
      asked.push(init.headers?.Authorization);
      return Response.json({ object: "list", data: [{ id: "small" }, { id: "large" }] });
    }
    if (u === "/api/models") return Response.json({ model: "fake-1", models: ["fake-1", "fake-2"] });
    return server.fetch(url, init);
  };
  const store = new MemoryUIStore();
  const core = newCore(store, fetch);

  await ask(core, { type: "settings", set: { provider: "openai", apiKey: "sk-page", baseURL: "https://llm.example/v1", model: "large" } });
  assert.deepEqual((await ask(core, { type: "models", session: "p1" })).result, { model: "large", models: ["small", "large"], where: "page" });
  assert.deepEqual(asked, ["Bearer sk-page"]);
  await ask(core, { type: "settings", set: { provider: "demo" } });
  assert.deepEqual((await ask(core, { type: "models", session: "p1" })).result, { model: "toolroute-demo", models: ["toolroute-demo"], where: "page" });

  const s = (await ask(core, { type: "sessions", action: "create", where: "server" })).result;
  assert.deepEqual((await ask(core, { type: "models", session: s.id })).result, { model: "fake-1", models: ["fake-1", "fake-2"], where: "server" });
  const turn = await ask(core, { type: "send", session: s.id, text: "hi", model: "fake-2" });
  assert.equal(turn.last.type, "done", JSON.stringify(turn.last));
  const sent = server.sessions.requests.find((r) => r.method === "POST" && r.path.endsWith("/messages"));
  assert.deepEqual(sent.body, { text: "hi", model: "fake-2" });

  // A server that lists no models: the picker is not offered.
  const none = newCore(new MemoryUIStore(), server.fetch);
  assert.match((await ask(none, { type: "models", session: s.id })).last.error, /lists no models/);
});
