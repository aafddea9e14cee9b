// Running the built worker in workerd from npm on this machine, for the
// tests and the benchmark (Node only).
import { spawn } from "node:child_process";
import net from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";

const workerdBin = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "node_modules", ".bin", "workerd");

// freePort gives a loopback port nothing listens on now.
export function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.on("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

// startWorkerd serves config from the folder cwd; it resolves once the
// socket at base answers (/nothing is no API path: the worker answers it at
// once, 401 or 404, without starting the module), and fails with workerd's
// output if it exits first.
export async function startWorkerd(config, { cwd, base }) {
  const proc = spawn(workerdBin, ["serve", config], { cwd, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  proc.stdout.on("data", (d) => (output += d));
  proc.stderr.on("data", (d) => (output += d));
  const exited = new Promise((resolve) => proc.on("exit", (code) => resolve(code)));
  for (;;) {
    const code = await Promise.race([exited, new Promise((r) => setTimeout(() => r(undefined), 20))]);
    if (code !== undefined) throw new Error(`workerd exited with ${code}:\n${output}`);
    try {
      await (await fetch(base + "/nothing")).arrayBuffer();
      break;
    } catch {
      // not listening yet
    }
  }
  return {
    pid: proc.pid,
    output: () => output,
    // stop sends SIGTERM, and SIGKILL killAfterMs later (10 s unless
    // told): workerd handles the signal only once its isolate's JavaScript
    // returns.
    stop: (killAfterMs = 10_000) => {
      proc.kill("SIGTERM");
      const kill = setTimeout(() => proc.kill("SIGKILL"), killAfterMs);
      return exited.finally(() => clearTimeout(kill));
    },
  };
}
