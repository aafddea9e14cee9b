// Real MCP servers from npm for the tests (testdata/mcp, installed by
// `make test`): toolroute did not write them.
import { spawn } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { WAIT_MS } from "./busy.js";

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "..");
const everything = path.join(root, "testdata/mcp/node_modules/@modelcontextprotocol/server-everything/dist/index.js");

// startEverything runs server-everything's Streamable HTTP transport on
// port; it resolves once the server answers.
export async function startEverything(port) {
  if (!fs.existsSync(everything)) throw new Error(`${everything} is missing: run make test (or npm ci in testdata/mcp)`);
  const proc = spawn(process.execPath, [everything, "streamableHttp"], { env: { ...process.env, PORT: String(port) }, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  proc.stdout.on("data", (d) => (output += d));
  proc.stderr.on("data", (d) => (output += d));
  const exited = new Promise((resolve) => proc.on("exit", resolve));
  for (const end = Date.now() + WAIT_MS; ;) {
    try {
      await fetch(`http://127.0.0.1:${port}/mcp`, { method: "GET" });
      break;
    } catch {
      if (Date.now() > end || proc.exitCode !== null) throw new Error(`server-everything did not start:\n${output}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  return { stop: () => (proc.kill("SIGKILL"), exited), output: () => output };
}

// startGuard is an HTTP server in front of the MCP server on port target
// (written for the tests, as a resource server of the MCP authorization
// spec answers) that passes on only requests with "Authorization: Bearer "
// + guard.token; others get 401 with a resource_metadata challenge, or,
// with guard.scope set, 403 insufficient_scope asking for it. Its answers
// allow any origin (a page's worker calls it).
export async function startGuard(target) {
  const guard = { token: "good-token", scope: "", refused: 0 };
  const server = http.createServer((req, res) => {
    const base = `http://127.0.0.1:${server.address().port}`;
    res.setHeader("Access-Control-Allow-Origin", "*");
    res.setHeader("Access-Control-Expose-Headers", "WWW-Authenticate, Mcp-Session-Id");
    if (req.method === "OPTIONS") {
      res.writeHead(204, { "Access-Control-Allow-Methods": "GET, POST, DELETE", "Access-Control-Allow-Headers": req.headers["access-control-request-headers"] ?? "*" });
      res.end();
      return;
    }
    if (req.headers.authorization !== `Bearer ${guard.token}`) {
      guard.refused++;
      if (guard.scope && req.headers.authorization) {
        res.writeHead(403, { "WWW-Authenticate": `Bearer error="insufficient_scope", scope="${guard.scope}", resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"` });
      } else {
        res.writeHead(401, { "WWW-Authenticate": `Bearer resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"` });
      }
      res.end();
      return;
    }
    const up = http.request({ host: "127.0.0.1", port: target, path: req.url, method: req.method, headers: req.headers }, (r) => {
      res.writeHead(r.statusCode, r.headers);
      r.pipe(res);
    });
    up.on("error", () => res.destroy());
    req.pipe(up);
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  guard.url = `http://127.0.0.1:${server.address().port}/mcp`;
  guard.close = () => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(resolve));
  };
  return guard;
}
