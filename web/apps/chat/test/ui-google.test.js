// The page's google bridge asks the server that served the page.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { serverGoogle } from "../src/google.js";
import { NotConnected } from "toolroute/jsrun";

function serve(handler) {
  return new Promise((resolve) => {
    const srv = createServer(handler);
    srv.listen(0, "127.0.0.1", () => resolve(srv));
  });
}

test("the server's account, and none", async () => {
  let connected = true;
  const srv = await serve((req, res) => {
    assert.equal(req.url, "/api/google/token");
    res.setHeader("content-type", "application/json");
    if (!connected) {
      res.statusCode = 404;
      res.end(JSON.stringify({ error: "Google account not connected" }));
      return;
    }
    res.end(JSON.stringify({ access_token: "ya29.x", email: "ada@example.com" }));
  });
  const base = "http://127.0.0.1:" + srv.address().port + "/ui/worker.js";
  const g = serverGoogle(fetch, base);
  assert.equal(await g.accessToken(), "ya29.x");
  assert.equal(await g.accountEmail(), "ada@example.com");
  connected = false;
  await assert.rejects(g.accessToken(), NotConnected);
  srv.close();
});
