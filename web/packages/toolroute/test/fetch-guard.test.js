// The fetch bridge's guards (web/packages/toolroute/jsrun/fetch.js): the address check on
// hosts as the browser reads them, rewrite rules matched on the parsed URL,
// and redirects, each hop judged and a rewritten request kept inside its
// target. The same attacks as internal/safehttp's tests, replayed against a
// fake fetch, so no request leaves the process.
import { test } from "node:test";
import assert from "node:assert/strict";
import { blockedHost, hostFetch } from "../jsrun/fetch.js";
import { WAIT_MS } from "./busy.js";
import { moduleCheck } from "./module-check.js";

test("blockedHost", async (t) => {
  for (const [name, input, want] of [
    ["loopback", "127.0.0.1", true],
    ["loopback v6", "[::1]", true],
    ["loopback v6 bare", "::1", true],
    ["localhost", "localhost", true],
    ["localhost upper, trailing dot", "LOCALHOST.", true],
    ["localhost subdomain", "app.localhost", true],
    ["private 10", "10.0.0.8", true],
    ["private 172.16", "172.16.4.4", true],
    ["private 192.168", "192.168.1.1", true],
    ["metadata", "169.254.169.254", true],
    ["cgnat", "100.64.1.1", true],
    ["this network", "0.1.2.3", true],
    ["multicast", "224.0.0.1", true],
    ["reserved 240/4", "240.0.0.1", true],
    ["reserved 250", "250.1.2.3", true],
    ["broadcast", "255.255.255.255", true],
    ["decimal", "2130706433", true],
    ["decimal private", "167772161", true],
    ["octal", "0177.0.0.1", true],
    ["hex", "0x7f.1", true],
    ["hex whole", "0x7f000001", true],
    ["hex dotted", "0x7f.0x0.0x0.0x1", true],
    ["short", "127.1", true],
    ["percent-encoded", "%31%32%37.0.0.1", true],
    ["fullwidth dots", "127\u30020\u30020\u30021", true],
    ["unspecified v6", "[::]", true],
    ["link-local v6", "[fe80::1]", true],
    ["unique local", "[fd00::1]", true],
    ["site-local", "[fec0::1]", true],
    ["site-local top", "[feff:ffff::1]", true],
    ["multicast v6", "[ff02::1]", true],
    ["mapped loopback", "[::ffff:127.0.0.1]", true],
    ["mapped loopback hex", "[::ffff:7f00:1]", true],
    ["mapped loopback long", "[0:0:0:0:0:ffff:7f00:1]", true],
    ["mapped private", "[::ffff:10.0.0.1]", true],
    ["mapped public", "[::ffff:8.8.8.8]", false],
    ["nat64 loopback", "[64:ff9b::7f00:1]", true],
    ["nat64 loopback dotted", "[64:ff9b::127.0.0.1]", true],
    ["nat64 private", "[64:ff9b::a00:1]", true],
    ["nat64 broadcast", "[64:ff9b::ffff:ffff]", true],
    ["nat64 public", "[64:ff9b::808:808]", false],
    ["nat64 local-use", "[64:ff9b:1::808:808]", true],
    ["6to4 loopback", "[2002:7f00:1::1]", true],
    ["6to4 public", "[2002:808:808::1]", true],
    ["ipv4-compatible loopback", "[::127.0.0.1]", true],
    ["ipv4-compatible public", "[::8.8.8.8]", true],
    ["userinfo in the host", "example.com@127.0.0.1", true],
    ["not a host", "exa mple.com", true],
    ["public", "8.8.8.8", false],
    ["last before multicast", "223.255.255.255", false],
    ["public v6", "[2606:4700::1111]", false],
    ["next to nat64", "[64:ff9c::1]", false],
    ["name", "example.com", false],
    ["name ending like localhost", "notlocalhost.example", false],
  ]) {
    await t.test(name, () => assert.equal(blockedHost(input), want, input));
  }
});

// fakeFetch answers from routes {url: {status, location} | "opaque"} and
// records the URLs asked for; any other URL answers 200 "ok <url>".
function fakeFetch(routes = {}) {
  const asked = [];
  const fetch = async (url) => {
    asked.push(url);
    const r = routes[url];
    if (r === "opaque") return { type: "opaqueredirect", status: 0, headers: new Headers(), body: null };
    if (r) return new Response(null, { status: r.status ?? 302, headers: { location: r.location } });
    return new Response(`ok ${url}`, { status: 200 });
  };
  return { fetch, asked };
}

async function run(url, routes, options = {}) {
  const f = fakeFetch(routes);
  try {
    const out = JSON.parse(await hostFetch(url, "{}", { fetch: f.fetch, timeoutMs: WAIT_MS, check: moduleCheck, ...options }));
    return { body: out.body, asked: f.asked };
  } catch (e) {
    return { error: e.message, asked: f.asked };
  }
}

const rewrites = [
  { from: "https://www.googleapis.com", to: "http://127.0.0.1:9/fake" },
  { from: "https://api.example.com/v1/", to: "http://127.0.0.1:9/v1" },
];

test("rewrite rules match the parsed URL", async (t) => {
  for (const { name, input, want, wantErr } of [
    { name: "rule", input: "https://www.googleapis.com/drive/v3/files?q=x", want: "http://127.0.0.1:9/fake/drive/v3/files?q=x" },
    { name: "rule case", input: "HTTPS://WWW.GoogleAPIs.com/x", want: "http://127.0.0.1:9/fake/x" },
    { name: "rule default port", input: "https://www.googleapis.com:443/x", want: "http://127.0.0.1:9/fake/x" },
    { name: "rule trailing dot", input: "https://www.googleapis.com./x", want: "http://127.0.0.1:9/fake/x" },
    { name: "rule backslash (a slash to the URL parser)", input: "https://www.googleapis.com\\@evil.example/", want: "http://127.0.0.1:9/fake/@evil.example/" },
    { name: "rule fragment with @", input: "https://www.googleapis.com#@evil.example/", want: "http://127.0.0.1:9/fake/#@evil.example/" },
    { name: "path prefix", input: "https://api.example.com/v1/models", want: "http://127.0.0.1:9/v1/models" },
    { name: "path prefix exact", input: "https://api.example.com/v1", want: "http://127.0.0.1:9/v1" },
    { name: "userinfo host confusion", input: "https://www.googleapis.com@evil.example/", wantErr: /user name or password before '@'/ },
    { name: "userinfo password", input: "https://www.googleapis.com:secret@evil.example/", wantErr: /Authorization header/ },
    { name: "userinfo escaped slash", input: "https://www.googleapis.com%2f@evil.example/", wantErr: /user name or password/ },
    { name: "userinfo on the rule's host", input: "https://user@www.googleapis.com/x", wantErr: /user name or password/ },
    { name: "suffix host", input: "https://www.googleapis.com.evil.example/x", want: "https://www.googleapis.com.evil.example/x" },
    { name: "longer host", input: "https://www.googleapis.comevil.example/", want: "https://www.googleapis.comevil.example/" },
    { name: "other port", input: "https://www.googleapis.com:8443/x", want: "https://www.googleapis.com:8443/x" },
    { name: "other scheme", input: "http://www.googleapis.com/x", want: "http://www.googleapis.com/x" },
    { name: "rule in path", input: "https://evil.example/https://www.googleapis.com/", want: "https://evil.example/https://www.googleapis.com/" },
    { name: "path not at a segment", input: "https://api.example.com/v10/x", want: "https://api.example.com/v10/x" },
    { name: "dot segments, resolved by the parser", input: "https://api.example.com/v1/../admin", want: "https://api.example.com/admin" },
    { name: "escaped slash dot segment", input: "https://api.example.com/v1/..%2Fadmin", wantErr: /'\.' or '\.\.' path segment/ },
  ]) {
    await t.test(name, async () => {
      const got = await run(input, {}, { rewrites });
      if (wantErr) {
        assert.match(got.error ?? "", wantErr);
        assert.doesNotMatch(got.error, /secret/);
        assert.deepEqual(got.asked, []);
      } else {
        assert.equal(got.error, undefined);
        assert.deepEqual(got.asked, [want]);
      }
    });
  }
  await t.test("bad rule", async () => {
    const got = await run("https://x.example/", {}, { rewrites: [{ from: "https://u@h.example/", to: "http://127.0.0.1:9/" }] });
    assert.match(got.error, /fetch: rewrite rule/);
  });
});

test("redirects", async (t) => {
  const routes = {
    "https://public.example/to-loopback": { location: "http://127.0.0.1:8/" },
    "https://public.example/to-decimal": { location: "http://2130706433:8/" },
    "https://public.example/to-octal": { location: "http://0177.0.0.1/" },
    "https://public.example/to-hex": { location: "http://0x7f.1/" },
    "https://public.example/to-short": { location: "http://127.1/" },
    "https://public.example/to-localhost": { location: "http://localhost:8/" },
    "https://public.example/to-metadata": { location: "http://169.254.169.254/latest/meta-data/" },
    "https://public.example/to-nat64": { location: "http://[64:ff9b::a9fe:a9fe]/" },
    "https://public.example/to-mapped": { location: "http://[::ffff:127.0.0.1]/" },
    "https://public.example/to-6to4": { location: "http://[2002:7f00:1::1]/" },
    "https://public.example/to-broadcast": { location: "http://255.255.255.255/" },
    "https://public.example/to-rewrite-target": { location: "http://127.0.0.1:9/fake/x" },
    "https://public.example/to-userinfo": { location: "https://u:secret@public.example/ok" },
    "https://public.example/to-public": { status: 301, location: "https://other.example/ok" },
    "http://127.0.0.1:9/fake/to-self": { location: "/fake/ok" },
    "http://127.0.0.1:9/fake/to-up": { location: "/other" },
    "http://127.0.0.1:9/fake/to-other-port": { location: "http://127.0.0.1:10/fake/x" },
    "http://127.0.0.1:9/fake/to-public": { location: "https://public.example/ok" },
    "http://127.0.0.1:9/fake/to-from": { location: "https://www.googleapis.com/ok" },
    "http://127.0.0.1:9/fake/to-private": { location: "http://10.0.0.1/" },
    "http://127.0.0.1:9/fake/to-userinfo": { location: "http://u:p@127.0.0.1:9/fake/ok" },
    "http://127.0.0.1:9/fake/opaque": "opaque",
    "https://public.example/opaque": "opaque",
  };
  const refused = /is refused: loopback, private and link-local addresses cannot be reached/;
  const leaves = /leaves the rewrite target/;
  for (const { name, input, wantAsked, wantErr } of [
    { name: "public to public", input: "https://public.example/to-public", wantAsked: ["https://public.example/to-public", "https://other.example/ok"] },
    { name: "public to loopback", input: "https://public.example/to-loopback", wantErr: refused },
    { name: "public to decimal loopback", input: "https://public.example/to-decimal", wantErr: refused },
    { name: "public to octal loopback", input: "https://public.example/to-octal", wantErr: refused },
    { name: "public to hex loopback", input: "https://public.example/to-hex", wantErr: refused },
    { name: "public to short loopback", input: "https://public.example/to-short", wantErr: refused },
    { name: "public to localhost", input: "https://public.example/to-localhost", wantErr: refused },
    { name: "public to metadata", input: "https://public.example/to-metadata", wantErr: refused },
    { name: "public to nat64 metadata", input: "https://public.example/to-nat64", wantErr: refused },
    { name: "public to mapped loopback", input: "https://public.example/to-mapped", wantErr: refused },
    { name: "public to 6to4", input: "https://public.example/to-6to4", wantErr: refused },
    { name: "public to broadcast", input: "https://public.example/to-broadcast", wantErr: refused },
    { name: "public to the rewrite target", input: "https://public.example/to-rewrite-target", wantErr: refused },
    { name: "public to userinfo", input: "https://public.example/to-userinfo", wantErr: /user name or password/ },
    { name: "rewritten to itself", input: "https://www.googleapis.com/to-self", wantAsked: ["http://127.0.0.1:9/fake/to-self", "http://127.0.0.1:9/fake/ok"] },
    { name: "rewritten out of the path", input: "https://www.googleapis.com/to-up", wantErr: leaves },
    { name: "rewritten to another port", input: "https://www.googleapis.com/to-other-port", wantErr: leaves },
    { name: "rewritten to public", input: "https://www.googleapis.com/to-public", wantErr: leaves },
    { name: "rewritten to the rule's from", input: "https://www.googleapis.com/to-from", wantErr: leaves },
    { name: "rewritten to private", input: "https://www.googleapis.com/to-private", wantErr: leaves },
    { name: "rewritten to userinfo", input: "https://www.googleapis.com/to-userinfo", wantErr: /user name or password/ },
    { name: "rewritten, hidden redirect", input: "https://www.googleapis.com/opaque", wantErr: /rewritten URL cannot be checked/ },
    // A browser hides where a redirect leads: followed, it could lead to
    // loopback.
    { name: "public, hidden redirect", input: "https://public.example/opaque", wantErr: /failed: it redirects, and a browser hides from the page where to, so the page does not follow it .*: fetch the final address directly/ },
  ]) {
    await t.test(name, async () => {
      const got = await run(input, routes, { rewrites });
      if (wantErr) {
        assert.match(got.error ?? "", wantErr);
        assert.doesNotMatch(got.error, /secret/);
        assert.equal(got.asked.length, 1, `only the first hop is asked for: ${got.asked.join(" ")}`);
      } else {
        assert.equal(got.error, undefined);
        assert.deepEqual(got.asked, wantAsked);
      }
    });
  }
});

test("odd IPv4 spellings of loopback are refused before any request", async (t) => {
  for (const input of ["http://2130706433/", "http://0177.0.0.1/", "http://0x7f.1/", "http://127.1/", "http://[::ffff:7f00:1]/", "http://[64:ff9b::7f00:1]/"]) {
    await t.test(input, async () => {
      const got = await run(input, {});
      assert.match(got.error ?? "", /is refused/);
      assert.deepEqual(got.asked, []);
      const open = await run(input, {}, { allowPrivate: true });
      assert.equal(open.error, undefined);
    });
  }
});

// A browser fails a request CORS stops and one that reached nothing alike
// ("Failed to fetch"); the error names both, and the request is not asked
// again in mode no-cors, which would follow a redirect unchecked. Chromium
// itself: fetch-cors-browser.test.js.
test("cors: a browser's TypeError says what may have stopped it, and nothing is asked again", async (t) => {
  for (const { name, cors, method, want } of [
    { name: "GET", cors: true, method: "GET", want: /failed: the browser could not read it \(Failed to fetch\): the site may not let pages of other sites read it \(CORS\), or it may be down, .*the Go program \(toolroute serve\) and the edge worker can read any public site$/ },
    { name: "POST", cors: true, method: "POST", want: /failed: the browser could not read it \(Failed to fetch\): the site may not let pages of other sites read it \(CORS\)/ },
    { name: "not a browser", cors: false, method: "GET", want: /failed: Failed to fetch$/ },
  ]) {
    await t.test(name, async () => {
      const asked = [];
      const browserFetch = async (url, init) => {
        asked.push(init.mode ?? "cors");
        throw new TypeError("Failed to fetch");
      };
      await assert.rejects(hostFetch("https://site.example/", JSON.stringify({ method }), { fetch: browserFetch, cors, timeoutMs: WAIT_MS, check: moduleCheck }), want);
      assert.deepEqual(asked, ["cors"]);
    });
  }
});
