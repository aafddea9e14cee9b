// Real MCP servers from npm for the tests (testdata/mcp, installed by
// `make test`): toolroute did not write them.
import { spawn } from "node:child_process";
import fs from "node:fs";
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

