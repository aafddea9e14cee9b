// The chat UI's Web Worker (a module worker): it holds toolroute.wasm (the
// package toolroute's driver), the session loop (toolroute/host), the JS
// tool runner (toolroute/jsrun, QuickJS, with an fs sandbox kept in
// IndexedDB and the browser's fetch) and the message log in IndexedDB
// (idbstore.js). No server routes anything: the server gives the catalogue
// (GET /api/ui/catalogue), the wasm files and, with the "server" provider,
// its key (POST /api/model).
//
// # Protocol (postMessage, structured-clone objects)
//
// Every request carries an id the page chooses (unique among its pending
// requests); every reply carries the id of its request.
//
// Requests, page -> worker. A session is the page's (kept in IndexedDB, its
// turns run here) or, when the page talks to toolroute serve or the worker,
// the server's: its id is "server:" and the server's id, and its reads,
// turns, approvals, renames and deletes go to the server's API.
//   {id, type: "send", session, text,       run a turn (a server session's on the server,
//    model?, attachments?}                  calling model when given); replies: event*,
//                                           then done or error; attachments: [{name, data}],
//                                           files in base64
//   {id, type: "models", session}           the model picker's list: {model, models, where}:
//                                           a server session's, the server's provider's
//                                           (GET /api/models); a page session's, the page's
//                                           provider's (its model the model setting)
//   {id, type: "abort", target}             stop the turn of send request `target`, keeping
//                                           what it committed (a server's: the request is
//                                           closed and the server ends the turn); its send
//                                           ends with done {aborted: true}; this answers
//                                           done {aborted}
//   {id, type: "cut_off", session, text, stopped?}
//                                           a turn of the page's session was cut off (the
//                                           page reloaded or closed mid-turn, the worker
//                                           restarted after Stop): logs the module's end
//                                           for it (turn_cut), text the reply streamed so
//                                           far; answers done [messages appended]
//   {id, type: "approve", session, answers} answers [{id, answer, grant?}] to the question
//                                           of the session's turn
//   {id, type: "elicit_answer", ask,        the user's answer to an MCP server's question
//    action, content?}                      (an "elicitation" message's or a turn event's):
//                                           action accept (content: values by field name),
//                                           decline or cancel; answers done {action,
//                                           content}, what was sent, or error with the
//                                           module's sentence when a value will not do
//                                           (the question stays open)
//   {id, type: "reload"}                    the server's catalogue changed: the next turn
//                                           and describe fetch it again; answers done null
//   {id, type: "describe", session?}        the module's describe (groups, tools, files,
//                                           skills, active, loaded_groups, system_prompt)
//                                           for the session, plus meter {unit: "tokens"|"bytes",
//                                           encoding?, active, all} (a server session's
//                                           counted in serve's tools_json; null for the
//                                           worker's), provider, model, where
//   {id, type: "sessions", action?, ...}    action "list" (default) {q?} -> {sessions, problems,
//                                           server, keep, provider?}: the page's sessions and
//                                           the server's, most recent first; problems: why the
//                                           server's are missing; server: whether they are
//                                           listed; keep: where a new chat is kept, "server"
//                                           when serve keeps the page's chats (its health's
//                                           page_chats) and the provider is the server's,
//                                           else "page" (provider: the page's own, when that
//                                           is why); q: only those whose title or messages
//                                           have its words, each with its snippet.
//                                           "create" {where?: "page"|"server"} -> a new
//                                           session, stored with its first message, kept
//                                           where keep says when where is not given;
//                                           "get" {session} -> session|null;
//                                           "rename" {session, title} -> session;
//                                           "delete" {session} -> the list, as "list"
//                                           (session: {id, title, created, updated,
//                                           messages, where: "page"|"server"})
//   {id, type: "messages", session}         the session's message log, oldest first
//   {id, type: "settings", set?, withKey?}  set: {provider, model, apiKey, baseURL,
//                                           system_prompt} (a "" value removes); answers
//                                           {provider, model, baseURL, system_prompt, hasKey,
//                                           apiKey (withKey only), stored_providers [name],
//                                           effective {format, model, label} | {error}}
//
// Replies, worker -> page:
//   {id, type: "event", event}   a turn's event, toolroute/host's (the Go host's Event JSON),
//                                a server session's the same: text, message, model_call,
//                                tool_calls, group_loaded, approval, retry, done, failed
//   {id, type: "done", result}   the request finished; result as above
//   {id, type: "error", error}   the request failed: error is a message; with
//                                refused, the module refused the message before the
//                                turn began (a file it cannot send): nothing was logged
//
// The worker posts {type: "ready"} (no id) when it starts listening, and
// {type: "task_ran", session, title} (no id) when a scheduled task's run,
// a page session, is done, and {type: "elicitation", question} (no id) when
// an MCP server asks the user something during a call of the page's turn
// (question: {ask, server, asks, message, fields}; a server session's turn
// sends it as an "elicitation" event, whose id is the ask as "server:ID").

import { Toolroute } from "toolroute";
import { Runner } from "toolroute/jsrun";
import { IDBStore, MemoryUIStore } from "./idbstore.js";
import { Core } from "./core.js";
import { serverGoogle } from "./google.js";

const base = self.location.href;

let toolrouteWasm = null;
function compileModule() {
  toolrouteWasm ??= compile(new URL("toolroute.wasm", base)).catch((e) => {
    toolrouteWasm = null;
    throw e;
  });
  return toolrouteWasm;
}

async function compile(url) {
  return WebAssembly.compile(await fetchBytes(url, `GET ${url}`));
}

// fetchBytes reads url whole; what names it in the error of a failed GET.
async function fetchBytes(url, what) {
  const r = await fetch(url);
  if (!r.ok) throw new Error(`${what} answered HTTP ${r.status}`);
  return new Uint8Array(await r.arrayBuffer());
}

let countTokens = null;
async function tokens(text) {
  countTokens ??= import("gpt-tokenizer/encoding/o200k_base").then((m) => m.countTokens);
  const f = await countTokens;
  return f(text, { disallowedSpecial: new Set() });
}

async function openStore() {
  try {
    return await IDBStore.open("toolroute");
  } catch (e) {
    console.warn("IndexedDB is unavailable, the chat is kept in memory only:", e);
    return new MemoryUIStore();
  }
}

const storeReady = openStore();

// PDF_DATA names the files of pdf.js's standard fonts ("font") and image
// decoders ("wasm") that build.mjs serves beside the page, by their
// prefix (internal/webui's Walk follows it).
const PDF_DATA = { font: "pdffont-", wasm: "pdfwasm-" };

// pdfData reads one of those files.
function pdfData(kind, file) {
  return fetchBytes(new URL(PDF_DATA[kind] + file, base), `pdf.js's ${file}`);
}
let core = null;

async function getCore() {
  if (core) return core;
  const store = await storeReady;
  core = new Core({
    store,
    fetch: (...a) => fetch(...a),
    module: async () => Toolroute.instantiate(await compileModule(), { stderr: (l) => console.warn("toolroute.wasm:", l) }),
    // search_tools ranks with the word vectors the build (or the program)
    // serves beside the module; fetched once, at the first instance.
    wordVectors: () => fetchBytes(new URL("wordvec.bin", base), "wordvec.bin"),
    runner: async ({ libraries, fs }) =>
      new Runner({
        store: fs,
        libraries: [libraries],
        fetch: { fetch: (...a) => fetch(...a), cors: true },
        google: serverGoogle((...a) => fetch(...a), base),
        wasmModule: () => compile(new URL("quickjs.wasm", base)),
      }),
    pdfFetch: { fetch: (...a) => fetch(...a), cors: true },
    // pdf_render_page draws on OffscreenCanvas, which every browser's
    // workers now have, with the fonts and decoders build.mjs copies.
    pdfRender: typeof OffscreenCanvas === "function" ? { canvas: (w, h) => new OffscreenCanvas(w, h), data: pdfData } : undefined,
    countTokens: tokens,
    // Scheduled tasks run while the page is open (this worker lives).
    tasks: true,
    onTaskRun: (r) => self.postMessage({ type: "task_ran", ...r }),
    // An MCP server asks the user something during a call: the page shows
    // the question at the call's card.
    onElicit: (q) => self.postMessage({ type: "elicitation", question: q }),
    onTasksChanged: () => self.postMessage({ type: "tasks_changed" }),
  });
  return core;
}

self.onmessage = async (e) => {
  const msg = e.data;
  const reply = (m) => self.postMessage(m);
  try {
    await (await getCore()).handle(msg, reply);
  } catch (err) {
    reply({ id: msg?.id, type: "error", error: String(err?.message ?? err), ...(err?.refused ? { refused: true } : {}) });
  }
};

self.postMessage({ type: "ready" });
