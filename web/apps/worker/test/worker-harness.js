// What the tests of the edge worker in workerd share: the worker built as
// for deployment (with the tests' entry, worker-entry.js) from a
// `toolroute export` of the built-in tools and the user tools given, a
// scripted OpenAI-format model, and workerd serving it on a free port with
// the bindings given.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { buildWorker, workerdConfig } from "../build.mjs";
import { freePort, startWorkerd } from "../workerd.js";
import { startFakeModel } from "../../../packages/toolroute/test/host-fakemodel.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.join(here, "..", "..", "..", "..");

// startTestWorker starts one: tools are the user tools' files by name,
// bindings the worker's variables beside the model's, and token its
// TOOLROUTE_TOKEN, storage the folder of its Durable Objects (a new one in
// the test's temporary folder when not given). It gives {base, model,
// json, stop, stopWorkerd, pid}; json(method, path, body, signal) sends the
// token; pid is workerd's.
export async function startTestWorker({ name, tools = {}, bindings = {}, token, storage }) {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), `toolroute-${name}-`));
  let model, workerd;
  try {
    const config = path.join(tmp, "config");
    fs.mkdirSync(path.join(config, "tools"), { recursive: true });
    for (const [file, text] of Object.entries(tools)) fs.writeFileSync(path.join(config, "tools", file), text);
    const bundle = JSON.parse(execFileSync("go", ["run", "./cmd/toolroute", "export", "--config-dir", config], { cwd: root, maxBuffer: 256 << 20 }).toString());
    await buildWorker({ out: path.join(tmp, "dist"), bundle, entry: path.join(here, "worker-entry.js") });
    if (!storage) fs.mkdirSync((storage = path.join(tmp, "storage")));
    model = await startFakeModel("openai");
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    fs.writeFileSync(path.join(tmp, "workerd.capnp"), workerdConfig({
      dir: "dist", port, storage,
      bindings: { OPENAI_BASE_URL: model.baseURL, OPENAI_API_KEY: `sk-${name}`, TOOLROUTE_MODEL: "fake-model", TOOLROUTE_TOKEN: token, ...bindings },
    }));
    workerd = await startWorkerd(path.join(tmp, "workerd.capnp"), { cwd: tmp, base });
    const auth = { authorization: `Bearer ${token}` };
    const json = (method, p, body, signal) =>
      fetch(base + p, { method, headers: body === undefined ? auth : { ...auth, "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body), signal });
    const stop = async () => {
      await workerd?.stop();
      await model?.close();
      fs.rmSync(tmp, { recursive: true, force: true });
    };
    // stopWorkerd sends workerd SIGTERM and waits for it to end (SIGKILL
    // after killAfterMs); stop then cleans up the rest, killing a workerd
    // still running.
    const stopWorkerd = (killAfterMs) => workerd.stop(killAfterMs);
    return { base, model, json, stop, stopWorkerd, pid: workerd.pid };
  } catch (err) {
    await workerd?.stop();
    await model?.close();
    fs.rmSync(tmp, { recursive: true, force: true });
    throw err;
  }
}
