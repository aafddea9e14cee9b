// The Node side of replaying the conformance cases of testdata/js: the
// case's fake server on loopback and the checks of what a call gave. The
// cases themselves: conformance-case.js.
import assert from "node:assert/strict";
import http from "node:http";

// fakeServer answers the case's routes and records the requests. With
// cors it lets pages of every origin read every answer, as a site that
// allows them does (Access-Control-Allow-*), and answers the browser's
// preflight requests (OPTIONS) without recording them: the requests the
// case expects are those the tool sent.
export async function fakeServer(routes = [], { cors = false } = {}) {
  const seen = [];
  const server = http.createServer(async (req, res) => {
    if (cors) {
      res.setHeader("access-control-allow-origin", "*");
      res.setHeader("access-control-expose-headers", "*");
      if (req.method === "OPTIONS") {
        res.writeHead(204, { "access-control-allow-methods": "*", "access-control-allow-headers": "*", "access-control-max-age": "600" }).end();
        return;
      }
    }
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    const u = new URL(req.url, "http://x");
    const raw = Buffer.concat(chunks);
    seen.push({ method: req.method, path: u.pathname, query: u.search.slice(1), body: raw.toString(), raw, headers: req.headers });
    const rt = routes.find((r) => r.method.toUpperCase() === req.method && r.path === u.pathname);
    if (!rt) {
      res.writeHead(404).end("no route\n");
      return;
    }
    if (rt.delay_ms > 0) {
      const ended = await new Promise((resolve) => {
        const timer = setTimeout(() => resolve(false), rt.delay_ms);
        res.on("close", () => { clearTimeout(timer); resolve(true); });
      });
      if (ended) return;
    }
    let body = rt.body_base64 ? Buffer.from(rt.body_base64, "base64") : rt.body ?? "";
    const headers = { ...rt.headers };
    if (rt.body_repeat?.length === 2) {
      body = rt.body_repeat[0].repeat(rt.body_repeat[1]);
      headers["Content-Length"] = String(Buffer.byteLength(body));
    }
    res.writeHead(rt.status || 200, headers).end(body);
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    seen,
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(resolve); }),
  };
}

export function check(want, got) {
  const detail = `${got.error_type}: ${got.message}${got.output ?? ""}`;
  assert.equal(got.status, want.status, `status ${got.status} (${detail})`);
  if (want.output !== undefined && want.output !== null) assert.equal(got.output, want.output, "output");
  for (const s of want.output_contains ?? []) assert.ok(got.output.includes(s), `output ${JSON.stringify(got.output)} does not contain ${JSON.stringify(s)}`);
  if (want.error_type) assert.equal(got.error_type, want.error_type, `error type (${got.message})`);
  for (const s of want.message_contains ?? []) assert.ok(got.message.includes(s), `message ${JSON.stringify(got.message)} does not contain ${JSON.stringify(s)}`);
  if (want.message_any?.length) assert.ok(want.message_any.some((s) => got.message.includes(s)), `message ${JSON.stringify(got.message)} contains none of ${JSON.stringify(want.message_any)}`);
  for (const s of want.message_excludes ?? []) assert.ok(!got.message.includes(s), `message ${JSON.stringify(got.message)} contains ${JSON.stringify(s)}`);
  if (want.logs) assert.deepEqual(got.logs, want.logs, "logs");
}

// checkReplay checks what a JS host's replay of a case gave (conformance-case.js's
// replayIn: {results, files, binary}) and the requests its server saw.
export function checkReplay(c, { results, files, binary }, seen) {
  for (const res of results) check(c.expect, res);
  const bytes = (name) => (binary[name] !== undefined ? Buffer.from(binary[name], "base64") : files[name] !== undefined ? Buffer.from(files[name]) : null);
  checkFiles(c, (name) => files[name] ?? (binary[name] !== undefined ? bytes(name).toString() : null), bytes);
  checkRequests(c, seen);
}

// checkFiles compares the files a case expects with get(name): the text, or
// null when there is no such file; and those it expects as bytes (base64)
// with getBytes(name): a Uint8Array, or null.
export function checkFiles(c, get, getBytes) {
  for (const [name, want] of Object.entries(c.expect_files ?? {})) assert.equal(get(name), want, `file ${name}`);
  for (const [name, want] of Object.entries(c.expect_files_base64 ?? {})) {
    const got = getBytes(name);
    assert.equal(got === null ? null : Buffer.from(got).toString("base64"), want, `file ${name} (base64)`);
  }
}


// checkRequests compares the requests a case expects with those its server saw.
export function checkRequests(c, seen) {
  if (!c.expect_requests) return;
  assert.equal(seen.length, c.expect_requests.length, `server saw ${JSON.stringify(seen)}`);
  c.expect_requests.forEach((want, i) => {
    const got = seen[i];
    assert.equal(got.method, want.method, `request ${i} method`);
    assert.equal(got.path, want.path, `request ${i} path`);
    assert.equal(got.query, want.query ?? "", `request ${i} query`);
    if (want.body) assert.equal(got.body, want.body, `request ${i} body`);
    for (const [k, v] of Object.entries(want.headers ?? {})) assert.equal(got.headers[k.toLowerCase()] ?? "", v, `request ${i} header ${k}`);
    for (const [k, v] of Object.entries(want.header_prefixes ?? {})) {
      assert.ok((got.headers[k.toLowerCase()] ?? "").startsWith(v), `request ${i} header ${k} ${JSON.stringify(got.headers[k.toLowerCase()])} does not start with ${JSON.stringify(v)}`);
    }
    for (const sub of want.body_contains ?? []) assert.ok(got.raw.includes(Buffer.from(sub)), `request ${i} body ${JSON.stringify(got.body)} does not contain ${JSON.stringify(sub)}`);
    for (const b64 of want.body_contains_base64 ?? []) assert.ok(got.raw.includes(Buffer.from(b64, "base64")), `request ${i} body does not contain the bytes of ${b64}`);
  });
}
