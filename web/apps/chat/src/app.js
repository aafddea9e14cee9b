// The chat page: it renders and asks; the worker (worker.js, over core.js)
// does the work. See core.js for the requests.
import { render as renderMarkdown } from "./markdown.js";
import { chatJSON, chatMarkdown, exportName } from "./export.js";
import { composerFiles, sentFiles } from "./attach.js";

const $ = (id) => document.getElementById(id);
const SESSION_KEY = "toolroute.session";
const log = $("log");

// ---- The worker ----------------------------------------------------------

let worker = null;
let nextID = 1;
const pending = new Map();

function startWorker() {
  worker = new Worker(new URL("worker.js", import.meta.url), { type: "module" });
  worker.onmessage = (e) => {
    const m = e.data;
    if (m.type === "ready") return;
    // A scheduled task ran while the page was open: its session is new.
    if (m.type === "task_ran") return void refreshSessions().catch(() => {});
    if (m.type === "tasks_changed") return void refreshTasks().catch(() => {});
    // An MCP server of the page's asks the user during a call.
    if (m.type === "elicitation") return void askElicitation(m.question ?? {});
    const p = pending.get(m.id);
    if (!p) return;
    if (m.type === "event") p.onEvent?.(m.event);
    else {
      pending.delete(m.id);
      if (m.type === "done") p.resolve(m.result);
      else p.reject(Object.assign(new Error(m.error), { refused: !!m.refused }));
    }
  };
  worker.onerror = (e) => showError("The page's worker failed: " + (e.message || "see the browser console") + ". Reload the page.");
}
startWorker();

// STOP_GRACE_MS is how long Stop waits for the turn to stop before it
// restarts the worker. A JS tool's QuickJS runs on the worker's thread: a
// loop that never waits keeps the worker from reading the abort until the
// tool's timeout.
const STOP_GRACE_MS = 1000;

// restartWorker ends the worker, its running tools with it, and starts
// another; what the turn committed is stored already. The send request
// `stopped` ends as stopped, the other pending requests fail.
function restartWorker(stopped) {
  worker.terminate();
  const left = [...pending];
  pending.clear();
  startWorker();
  for (const [id, p] of left) {
    if (id === stopped) p.resolve({ aborted: true, restarted: true });
    else p.reject(new Error("stopped: the worker was restarted"));
  }
}

// ask sends a request and resolves with its result; onEvent receives a
// send's events.
function ask(msg, onEvent) {
  const id = nextID++;
  return { id, done: new Promise((resolve, reject) => {
    pending.set(id, { resolve, reject, onEvent });
    worker.postMessage({ ...msg, id });
  }) };
}
const call = (msg) => ask(msg).done;

// ---- State ---------------------------------------------------------------

let session = localStorage.getItem(SESSION_KEY);
let catalogue = null; // the last describe
let running = null; // the send request in progress: its id, or 0 while it starts
const queue = []; // messages typed during a turn, sent after it: {text, el}
const cards = new Map(); // tool_call_id -> its card

function showError(text) {
  $("error").textContent = text;
}

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

// atBottom says whether the log shows its end: new content scrolls into
// view only then, so reading back is not interrupted.
function atBottom() {
  return log.scrollHeight - log.scrollTop - log.clientHeight < 80;
}

// following says whether the log keeps its end in view: it is the reader's
// choice, made by scrolling (to the end: on; away from it: off), never
// undone by the log growing. Whatever grows the log (a reply streaming, a
// failed card opening itself, a line under a reply, a picture loading, the
// composer taking more room) keeps its end in view while it is on.
let following = true;
log.addEventListener("scroll", () => {
  following = atBottom();
});
function keepEnd() {
  if (following) log.scrollTop = log.scrollHeight;
}
new MutationObserver((records) => {
  for (const r of records) for (const node of r.addedNodes) if (node.nodeType === 1) reachable(node);
  keepEnd();
}).observe(log, { childList: true, subtree: true, characterData: true, attributes: true, attributeFilter: ["open"] });
new ResizeObserver(keepEnd).observe(log);
log.addEventListener("load", keepEnd, true);

// reachable lets the keyboard reach each box of a card that scrolls on
// its own (an input, a result, a failure's), as axe's
// scrollable-region-focusable asks: it takes the focus, named after its
// tool and what it holds.
function reachable(node) {
  const boxes = node.matches(".card.tool pre") ? [node] : node.querySelectorAll(".card.tool pre");
  for (const pre of boxes) {
    if (pre.hasAttribute("tabindex")) continue;
    pre.tabIndex = 0;
    const card = pre.closest(".card");
    const tool = card.querySelector(".name")?.textContent ?? "the tool";
    const what = pre.previousElementSibling?.matches("h3") ? pre.previousElementSibling.textContent.toLowerCase() : "output";
    pre.setAttribute("aria-label", `${tool}'s ${what}`);
  }
}

function add(node) {
  const follow = atBottom();
  log.append(node);
  if (follow) log.scrollTop = log.scrollHeight;
  return node;
}

function short(s, n = 200) {
  s = String(s ?? "");
  return s.length > n ? s.slice(0, n) + "…" : s;
}

const fmt = new Intl.NumberFormat("en");
const n = (x) => fmt.format(x);
const plural = (count, one, many = one + "s") => `${n(count)} ${count === 1 ? one : many}`;

// ---- Messages ------------------------------------------------------------

function userMessage(text, waiting = false, files = []) {
  const box = el("div", "msg user" + (waiting ? " waiting" : ""));
  box.append(el("p", "role visually-hidden", "You said:"));
  // The files as the log keeps them; a message of files alone has no bubble.
  if (files?.length) box.append(sentFiles(files));
  if (text || !files?.length) box.append(el("div", "bubble", text));
  if (waiting) box.append(el("p", "foot", "Waiting: sent when the reply ends"));
  else box.append(actions([["Edit", `Edit and send again: ${short(text, 60)}`, () => editMessage(text)]]));
  return add(box);
}

// actions is a row of small buttons under a message: [label, its
// accessible name, what it does].
function actions(list) {
  const row = el("div", "actions");
  for (const [label, name, act] of list) {
    const b = el("button", "link", label);
    b.type = "button";
    b.setAttribute("aria-label", name);
    b.onclick = act;
    row.append(b);
  }
  return row;
}

// Edit, Regenerate and Retry each make a new turn at the end of the chat
// (docs/design/log.md): the log keeps the turns before as they were, and
// the model reads them too.

// editMessage puts a sent message back in the message box, to change and
// send as a new message.
function editMessage(text) {
  const input = $("message");
  input.value = text;
  grow();
  input.focus();
  input.setSelectionRange(text.length, text.length);
}

// turnAgain ends a turn shown with the way to ask again: Retry after a
// turn that ended without an answer, Regenerate under the reply of one
// that answered.
function turnAgain(text, answered, reply) {
  if (!text) return;
  const row = actions([answered ? ["Regenerate", `Regenerate: send “${short(text, 60)}” again for a new reply`, () => submit(text)]
    : ["Retry", `Retry: send “${short(text, 60)}” again`, () => submit(text)]]);
  if (answered && reply) reply.box.append(row);
  else add(row);
}

// assistantMessage is a reply in the log: set renders its markdown (as it
// streams, at most once a frame), foot adds a line under it.
function assistantMessage() {
  const box = el("div", "msg assistant");
  const model = turnModel || catalogue?.model;
  const label = model ? `Assistant (${model})` : "Assistant";
  const bubble = el("div", "bubble md");
  box.append(el("p", "role", label), bubble, copyButton(() => text));
  add(box);
  let text = "", frame = 0;
  const paint = () => {
    frame = 0;
    const follow = atBottom();
    renderMarkdown(bubble, text);
    if (follow) log.scrollTop = log.scrollHeight;
  };
  return {
    box,
    get text() {
      return text;
    },
    set(t) {
      text = t;
      if (!frame) frame = requestAnimationFrame(paint);
    },
    now() {
      if (frame) cancelAnimationFrame(frame);
      paint();
    },
    foot(t, cls = "foot") {
      box.append(el("p", cls, t));
    },
  };
}

// copyButton copies a whole reply as the model wrote it (its markdown):
// what a user pastes elsewhere. The last reply's is Ctrl+Shift+C's too.
function copyButton(text) {
  const b = el("button", "link copy-reply");
  b.type = "button";
  // Its name holds what it shows (axe's label-content-name-mismatch): "Copy
  // the reply", then "Copied the reply".
  const show = (word) => {
    b.textContent = word;
    b.setAttribute("aria-label", `${word} the reply`);
  };
  show("Copy");
  b.onclick = async () => {
    try {
      await navigator.clipboard.writeText(text());
      show("Copied");
    } catch {
      show("Could not copy");
    }
    setTimeout(() => show("Copy"), 1500);
  };
  return b;
}

// usageFoot puts a turn's tokens under its reply; a turn of several model
// calls opens to each call's.
function usageFoot(reply, total, calls) {
  const line = (u) => `${n(u.input_tokens ?? 0)} tokens in${u.cached_tokens ? ` (${n(u.cached_tokens)} cached)` : ""} · ${n(u.output_tokens ?? 0)} out`;
  if (calls.length < 2) {
    reply.foot(line(total));
    return;
  }
  const d = el("details", "foot usage");
  d.append(el("summary", "", `${line(total)} · ${calls.length} model calls`));
  const list = el("ol");
  for (const u of calls) list.append(el("li", "", line(u)));
  d.append(list);
  reply.box.append(d);
}

// failureText is a failed result's message without the "Error (type): "
// the model reads before it: the card says the type once.
function failureText(m) {
  const t = String(m.content ?? "");
  const prefix = m.error_type ? `Error (${m.error_type}): ` : "Error: ";
  return t.startsWith(prefix) ? t.slice(prefix.length) : t;
}

function pretty(input) {
  try {
    return JSON.stringify(JSON.parse(input), null, 2);
  } catch {
    return input;
  }
}

// toolCard is a tool call as a card: its name and arguments, then its
// result's state; the input and output open on a click.
function toolCard(m) {
  const card = el("details", "card tool");
  const summary = el("summary");
  const input = m.tool_input || "{}";
  const args = input === "{}" ? "" : short(input.replace(/\s+/g, " "), 120);
  const state = el("span", "state", "running…");
  const preview = el("span", "preview");
  summary.append(el("span", "name", m.tool_name), el("span", "args", args), state, preview);
  card._preview = preview;
  card._summary = summary;
  const body = el("div", "body");
  body.append(el("h3", "", "Input"), el("pre", "", pretty(input)));
  card.append(summary, body);
  card._state = state;
  card._body = body;
  card._call = m;
  cards.set(m.tool_call_id, card);
  return add(card);
}

// settleCards says, on the cards of a turn that ended, why a call has no
// result: the user stopped the turn, the page was closed or reloaded
// before the tool answered, or the user was never answered.
function settleCards(list, stopped) {
  // A server's question open when its turn ends was for a call that ended.
  for (const box of log.querySelectorAll(".elicit:not(.answered)")) box._settle?.();
  for (const card of list) {
    if (!card._state || card._answered) continue;
    card._answered = true;
    endProgress(card);
    const asked = card._call?.status === "awaiting_approval";
    card._state.textContent = asked ? "not run" : stopped ? "stopped" : "interrupted";
    card._state.className = "state bad";
    card._preview.textContent = asked ? "The turn ended before the question was answered: it did not run."
      : stopped ? "Stop came before the tool answered: its outcome is unknown."
      : "The page was closed before the tool answered: its outcome is unknown.";
    card.classList.add("interrupted");
  }
}

// callProgress shows a running call's progress, as its MCP server reports
// it, on the call's card: a bar (a share of the total when the server
// gives one, else moving) beside its state, and the server's message as
// its preview. The result takes them away.
function callProgress(ev) {
  const card = cards.get(ev.call_id);
  const done = Number(ev.progress);
  if (!card || card._answered || !Number.isFinite(done)) return;
  let bar = card._progress;
  if (!bar) {
    bar = card._progress = el("progress", "call-progress");
    bar.setAttribute("aria-label", `Progress of ${card._call?.tool_name ?? "the call"}`);
    card._state.after(bar);
  }
  const total = Number(ev.total) > 0 ? Number(ev.total) : 0;
  if (total) {
    bar.max = total;
    bar.value = Math.min(Math.max(done, 0), total);
    card._state.textContent = `running… ${Math.round((100 * bar.value) / total)}%`;
  } else {
    bar.removeAttribute("value");
    card._state.textContent = `running… ${done}`;
  }
  if (ev.message) card._preview.textContent = short(String(ev.message), 160);
}

function endProgress(card) {
  if (!card._progress) return;
  card._progress.remove();
  card._progress = null;
  card._preview.textContent = "";
}

function toolResult(m) {
  let card = cards.get(m.tool_call_id);
  if (!card) card = toolCard({ tool_call_id: m.tool_call_id, tool_name: m.tool_name, tool_input: "" });
  card._answered = true;
  endProgress(card);
  const failed = m.status && m.status !== "success";
  card._state.textContent = failed ? `failed${m.error_type ? ` (${m.error_type})` : ""}` : "done";
  card._state.className = "state " + (failed ? "bad" : "ok");
  if (failed) {
    card.classList.add("failed");
    card.open = true;
    card._body.prepend(el("p", "problem", failureText(m)));
  } else {
    const text = String(m.content ?? "");
    card._preview.textContent = "→ " + short(text.split("\n").find((l) => l.trim()) ?? "(empty)", 160);
    card._body.append(el("h3", "", "Result"), el("pre", "", text));
  }
  // The pictures stay in sight with the card closed: a rendered page or a
  // screenshot is what the user wants to see of the call.
  if (Array.isArray(m.images) && m.images.length > 0) pictures(card._summary, m.tool_name, m.images);
}

// IMAGE_TYPES are the types a tool result's images may have: the module
// keeps no others, and none that could run script (no SVG).
const IMAGE_TYPES = ["image/png", "image/jpeg", "image/gif", "image/webp"];

// pictures shows a tool result's images, as the model saw them.
function pictures(parent, tool, images) {
  const box = el("div", "pictures");
  for (const [i, img] of images.entries()) {
    if (!IMAGE_TYPES.includes(img?.mime_type) || typeof img.data !== "string" || !/^[A-Za-z0-9+/]*={0,2}$/.test(img.data)) continue;
    const pic = el("img");
    pic.src = `data:${img.mime_type};base64,${img.data}`;
    pic.alt = `image ${i + 1} from ${tool}`;
    box.append(pic);
  }
  if (box.childElementCount > 0) parent.append(box);
}

// groupCard shows a group load: what it added, and what that costs.
// LOADS are the meta-tools whose calls show as load cards, not tool cards.
const LOADS = ["load_tool_group", "search_tools", "unload_tool_group"];

// loggedLoad is what a logged load's card shows: its tool_call keeps the
// tools a search loaded and those a load or an unload took off.
function loggedLoad(call) {
  let input = {};
  try {
    input = JSON.parse(call.tool_input ?? "{}") ?? {};
  } catch {}
  const unloaded = call.unloaded ?? [];
  if (call.tool_name === "search_tools") return { query: String(input.query ?? ""), added: call.loaded ?? [], unloaded };
  const name = String(input.group_name ?? "");
  if (call.tool_name === "unload_tool_group") return { name, unloaded };
  return { name, added: catalogue?.groups?.find((x) => x.name === name)?.tools ?? [], unloaded };
}

// groupCard shows a load: a group's (name), the tools a search found
// (query), or an unload (unloaded alone), with what a load unloaded to fit
// the tool budget.
function groupCard({ name = "", query = "", added = [], unloaded = [] }) {
  const g = catalogue?.groups?.find((x) => x.name === name);
  const label = g?.display_name ?? name;
  const cost = catalogue?.meter?.groups?.[name];
  const card = el("section", "card group");
  const head = el("div", "head");
  // Costs are said in tokens alone, as the meter says them.
  const inTokens = catalogue?.meter?.unit === "tokens";
  let text;
  if (query) text = `Search “${query}” loaded ${plural(added.length, "tool")}`;
  else if (!added.length && unloaded.length) text = `Unloaded ${label}: ${plural(unloaded.length, "tool")}`;
  else text = `Loaded ${label}: ${plural(added.length, "tool")}` + (cost && inTokens ? `, ${n(cost)} tokens of schemas from now on` : "");
  card.setAttribute("aria-label", text);
  head.append(el("span", "", text));
  const tags = el("ul", "tags");
  for (const t of added) tags.append(el("li", "", t));
  card.append(head, tags);
  if (added.length && unloaded.length) card.append(el("p", "foot", `Unloaded to fit the tool budget: ${unloaded.join(", ")}`));
  return add(card);
}

// message renders one message of the log. fromLog: read back, not live.
function message(m, fromLog) {
  switch (m.type) {
    case "user":
      userMessage(m.content, false, m.attachments);
      break;
    case "assistant":
      if (m.content) {
        const a = assistantMessage();
        a.set(m.content);
        a.now();
      }
      break;
    case "summary":
      summaryCard(m);
      break;
    case "approval": {
      // The question comes before its call's card: the card comes once
      // the call may run. Answered in this page, its box says the answer.
      const call = awaiting.get(m.tool_call_id);
      awaiting.delete(m.tool_call_id);
      if (m.content === "deny") deniedByUser.add(m.tool_call_id);
      if (!questions.has(m.tool_call_id)) add(el("p", "muted small answer", answerWords(m.content, m.tool_name)));
      if (m.content !== "deny" && call) turnCards.push(toolCard(call));
      break;
    }
    case "tool_call":
      if (m.status === "awaiting_approval") awaiting.set(m.tool_call_id, m);
      else if (!LOADS.includes(m.tool_name)) turnCards.push(toolCard(m));
      else cards.set(m.tool_call_id, { load: m });
      break;
    case "tool_result": {
      // A call the user denied is said by the answer, in the user's
      // words: the result's are the model's.
      if (deniedByUser.has(m.tool_call_id) && m.error_type === "denied") break;
      const c = cards.get(m.tool_call_id);
      if (c?.load || LOADS.includes(m.tool_name)) {
        if (m.status && m.status !== "success") {
          toolCard(c?.load ?? m);
          toolResult(m);
        } else if (fromLog && c?.load) {
          groupCard(loggedLoad(c.load));
        }
        break;
      }
      toolResult(m);
      askedNotes(m);
      break;
    }
  }
}

// askedNotes says, below a call's card read back from the log, what the
// user answered the questions its MCP server asked during the call (the
// module's sentences, which the log keeps on the result): the form itself
// is gone with the page that showed it.
function askedNotes(m) {
  const card = cards.get(m.tool_call_id);
  if (!Array.isArray(m.asked) || !m.asked.length || !card?.isConnected || card._asked) return;
  card._asked = true;
  let at = card;
  for (const said of m.asked) {
    const note = el("p", "muted small answer asked", String(said));
    at.after(note);
    at = note;
  }
}

// turnCards are the tool cards of the turn shown last, settled when it
// ends (settleCards).
let turnCards = [];

// turnError says once, in the flow, why a turn ended without an answer;
// live, it is announced.
function turnError(text, live = true) {
  const card = el("div", "card turn-error");
  if (live) card.setAttribute("role", "alert");
  card.append(el("p", "", text));
  add(card);
}

// STOPPED is what a stopped turn shows, live and read back.
const STOPPED = "Stopped: what came before Stop is kept.";

// turnEnd shows a turn's logged end (a turn_end message): stopped under
// its reply, a failure or an interruption as an error card.
function turnEnd(m, reply, live) {
  if (m.error_type === "stopped") {
    if (reply) reply.foot(STOPPED, "foot stopped");
    else add(el("p", "stopped small", STOPPED));
  } else if (m.error_type === "interrupted") {
    // Not an error of the turn's: a note, as Stop's.
    add(el("p", "stopped small", m.content));
  } else {
    turnError(m.content || "The turn ended without an answer.", live);
  }
  settleCards(turnCards, m.error_type === "stopped");
}

// showLog shows a session's log as its turns showed it live: each reply
// with its tokens, each end without an answer (turn_end), each call
// without a result said in words. The last turn, if it runs in this page
// now, is left as it is.
function showLog(msgs, runningHere) {
  let reply = null, usages = [], last = "", asked = "", end = null;
  const close = (final) => {
    if (last === "assistant" && reply && usages.length) {
      const total = usages.reduce((t, u) => ({ input_tokens: t.input_tokens + (u.input_tokens ?? 0), output_tokens: t.output_tokens + (u.output_tokens ?? 0), cached_tokens: t.cached_tokens + (u.cached_tokens ?? 0) }), { input_tokens: 0, output_tokens: 0, cached_tokens: 0 });
      if (total.input_tokens || total.output_tokens) usageFoot(reply, total, usages);
    }
    if (!(final && runningHere)) {
      if (last && !["assistant", "turn_end", "summary"].includes(last)) add(el("p", "stopped small", "Interrupted: this turn ended without an answer."));
      settleCards(turnCards, false);
      settleQuestions();
      if (last) turnAgain(asked, last === "assistant" || (end?.error_type === "stopped" && !!reply), reply);
    }
    reply = null, usages = [], turnCards = [], asked = "", end = null;
  };
  for (const m of msgs) {
    if (m.type === "user") {
      close(false);
      asked = m.content ?? "";
    }
    if (m.type === "turn_end") end = m;
    if (m.type === "assistant") {
      if (m.usage) usages.push(m.usage);
      if (m.content) {
        reply = assistantMessage();
        reply.set(m.content);
        reply.now();
      }
    } else if (m.type === "turn_end") {
      turnEnd(m, reply, false);
    } else {
      message(m, true);
    }
    last = m.type;
  }
  close(true);
}

// ---- Approvals -----------------------------------------------------------

// awaiting are the calls logged awaiting the user's answer and not
// answered yet, by id; questions, the questions this page asked, by id
// ({buttons, outcome}); deniedByUser, the calls the user denied.
const awaiting = new Map();
const questions = new Map();
const deniedByUser = new Set();

// answerWords says the user's answer about a call, in the user's words.
function answerWords(answer, tool) {
  if (answer === "deny") return `You denied ${tool}: it did not run.`;
  return answer === "session" ? `You allowed ${tool} for the rest of this chat.` : `You allowed ${tool} once.`;
}

// settleQuestions says, as a turn ends, that the calls it asked about and
// nobody answered did not run: on their question's box, or in a line.
function settleQuestions() {
  for (const [id, call] of awaiting) {
    const q = questions.get(id);
    if (q && !q.answered) {
      asking.delete(q);
      clearTimeout(q.timer);
      for (const b of q.buttons) b.disabled = true;
      q.answered = true;
      q.outcome.textContent = "Not answered: the turn ended first, so it did not run.";
    } else if (!q) {
      add(el("p", "muted small answer", `${call.tool_name} asked to run; the turn ended before it was answered, so it did not run.`));
    }
  }
  awaiting.clear();
}

// codeBlock shows code highlighted, as a reply's code block: fenced with
// more backticks than any run the code holds.
function codeBlock(code, label) {
  const box = el("div", "md code");
  const fence = "`".repeat(Math.max(3, ...[...code.matchAll(/`+/g)].map((x) => x[0].length + 1)));
  renderMarkdown(box, `${fence}javascript\n${code}\n${fence}`);
  const pre = box.querySelector("pre");
  if (pre) {
    // It scrolls inside its box: the keyboard reaches it too.
    pre.tabIndex = 0;
    pre.setAttribute("aria-label", label);
  }
  return box;
}

// WHAT says what a tool does, from its requiredPermissions.
const WHAT = { write: "changes your data", send: "sends to other people", delete: "deletes", share: "shares with other people",
  google: "uses your Google account", read: "reads your data", run_code: "runs code",
  memories: "keeps memories", history: "reads past chats", settings: "changes settings", env: "sets variables tools read",
  tools: "enables or disables tools", secrets: "may ask for secrets", network: "reaches addresses on the internet",
  agents: "keeps agents", providers: "keeps model providers", models: "keeps models", toolfiles: "changes your tools",
  schedules: "keeps scheduled tasks", unsandboxed: "runs outside the sandbox, as you" };

// ARM_MS is how long an approval's buttons stay disabled after they appear,
// and again after the page gets the focus back, as Firefox disables the
// buttons of its security prompts for a second (security.dialog_enable_delay,
// again on each refocus) and Chromium drops the clicks on a permission prompt
// that come in the moments after it shows (InputEventActivationProtector): a
// click meant for what was under the pointer a moment before, or the click
// that brings the window back, must not answer a question nobody has read.
// Keys are kept off them another way: a question never takes the focus.
const ARM_MS = 1000;

// asking holds, for each call still waiting for its answer, its buttons
// and the timer that enables them.
const asking = new Set();

// arm disables a call's buttons and, when the page has the focus, enables
// them ARM_MS later; a page without it arms them when it gets it back.
function arm(q, focused = document.hasFocus()) {
  clearTimeout(q.timer);
  for (const b of q.buttons) b.disabled = true;
  if (focused) q.timer = setTimeout(() => q.buttons.forEach((b) => (b.disabled = false)), ARM_MS);
}
// rearm arms the unanswered calls again, forgetting those a new chat took
// off the page.
function rearm(focused) {
  for (const q of asking) {
    if (q.buttons[0].isConnected) arm(q, focused);
    else asking.delete(q);
  }
}
window.addEventListener("blur", () => rearm(false));
window.addEventListener("focus", () => rearm(true));

// askApproval puts the calls a turn asks about in the flow, each with Allow
// once, Allow for this chat and Deny, and answers when every call has one.
// It leaves the focus where it is, in the message box most often: a space
// or an Enter typed there as the question arrives stays there. None of the
// three is a default; each is enabled ARM_MS after it shows. Screen readers
// hear that a question came (#announce), and Shift+Tab from the message box
// reaches its buttons, the last of the conversation.
function askApproval(calls) {
  const box = el("section", "approval");
  box.setAttribute("role", "group");
  const heading = el("h3", "", calls.length === 1 ? "A tool asks to run" : `${calls.length} tools ask to run`);
  heading.id = "approval-" + nextID++;
  box.setAttribute("aria-labelledby", heading.id);
  box.append(heading);
  const answers = new Map();
  for (const c of calls) {
    const card = el("div", "approval-call");
    const what = (c.required_permissions ?? []).map((p) => WHAT[p] ?? `needs the “${p}” permission`);
    const title = el("p", "", `Allow ${c.tool} to run?`);
    const does = what.length ? el("ul", "does") : null;
    for (const w of what) does.append(el("li", "", `It ${w}.`));
    // The code a call runs or keeps (create_js_tool's, js_eval's) is what
    // the user is asked to trust: shown whole, highlighted, and the rest of
    // the input beside it.
    const input = c.input && typeof c.input === "object" ? c.input : {};
    const code = typeof input.code === "string" ? input.code : null;
    const rest = code === null ? input : Object.fromEntries(Object.entries(input).filter(([k]) => k !== "code"));
    const shown = [];
    if (code !== null) shown.push(el("h4", "", "The code"), codeBlock(code, `${c.tool}'s code`));
    if (code === null || Object.keys(rest).length) {
      const pre = el("pre", "", JSON.stringify(rest, null, 2));
      // A long input scrolls inside its box: the keyboard reaches it too.
      pre.tabIndex = 0;
      pre.setAttribute("aria-label", `${c.tool}'s input`);
      if (code !== null) shown.push(el("h4", "", "The rest of its input"));
      shown.push(pre);
    }
    // The secrets the call asks to read: granted only if left ticked.
    const grants = [];
    const secrets = el("fieldset");
    if (c.secrets?.length) {
      secrets.append(el("legend", "", "It asks to read your secrets:"));
      for (const name of c.secrets) {
        const label = el("label");
        const tick = el("input");
        tick.type = "checkbox";
        tick.checked = true;
        tick.value = name;
        label.append(tick, " " + (name === "google" ? "your Google account" : name));
        secrets.append(label);
        grants.push(tick);
      }
    }
    const buttons = el("div", "approval-buttons");
    const outcome = el("p", "muted small");
    outcome.setAttribute("role", "status");
    const q = { buttons: [], timer: 0, outcome, answered: false };
    questions.set(c.id, q);
    for (const [answer, label] of [["once", "Allow once"], ["session", "Allow for this chat"], ["deny", "Deny"]]) {
      const b = el("button", "secondary", label);
      b.type = "button";
      b.dataset.answer = answer;
      b.onclick = async () => {
        if (!asking.delete(q)) return;
        q.answered = true;
        clearTimeout(q.timer);
        for (const x of [...q.buttons, ...grants]) x.disabled = true;
        answers.set(c.id, { id: c.id, answer, grant: answer === "deny" ? [] : grants.filter((g) => g.checked).map((g) => g.value) });
        outcome.textContent = answerWords(answer, c.tool);
        if (answers.size === calls.length) {
          // Answered: the buttons go, the outcomes stay.
          for (const row of box.querySelectorAll(".approval-buttons")) row.remove();
          box.classList.add("answered");
          $("announce").textContent = "";
          try {
            await call({ type: "approve", session, answers: calls.map((x) => answers.get(x.id)) });
          } catch (e) {
            showError("The answer was not taken: " + e.message);
          }
          $("message").focus();
        }
      };
      buttons.append(b);
      q.buttons.push(b);
    }
    asking.add(q);
    arm(q);
    card.append(title, ...(does ? [does] : []), ...shown, ...(grants.length ? [secrets] : []), buttons, outcome);
    box.append(card);
  }
  add(box);
  log.scrollTop = log.scrollHeight;
  const names = [...new Set(calls.map((c) => c.tool))].join(", ");
  $("announce").textContent = `${calls.length === 1 ? names + " asks" : `${calls.length} tools (${names}) ask`} to run: ` +
    "answer at the end of the conversation (Shift+Tab from the message box reaches the buttons).";
}

// askElicitation shows an MCP server's question for the user (the
// module's reading of it: who asks, the message, the fields), below the
// card of the call it came during: a form with Send, Decline and Cancel.
// As an approval, it takes no focus and its buttons arm ARM_MS after they
// show; its fields are no <form>, so an Enter typed in one sends nothing.
// A value that will not do gets the module's sentence, and the form stays;
// once answered, the box says what was sent.
function askElicitation(q) {
  const box = el("section", "approval elicit");
  box.setAttribute("role", "group");
  const heading = el("h3", "", q.asks || `MCP server '${q.server}' asks:`);
  heading.id = "elicit-" + nextID++;
  box.setAttribute("aria-labelledby", heading.id);
  box.append(heading);
  if (q.message) box.append(el("p", "elicit-message", q.message));
  const fields = el("div", "elicit-fields");
  const read = [];
  for (const f of Array.isArray(q.fields) ? q.fields : []) {
    const { node, value } = elicitField(f);
    fields.append(node);
    read.push([f, value]);
  }
  const buttons = el("div", "approval-buttons");
  const outcome = el("p", "muted small outcome");
  outcome.setAttribute("role", "status");
  const waiting = { buttons: [], timer: 0 };
  const controls = () => [...fields.querySelectorAll("input, select")];
  for (const [action, label] of [["accept", "Accept"], ["decline", "Decline"], ["cancel", "Cancel"]]) {
    const b = el("button", "secondary", label);
    b.type = "button";
    b.dataset.action = action;
    b.onclick = async () => {
      if (!asking.delete(waiting)) return;
      clearTimeout(waiting.timer);
      for (const x of [...waiting.buttons, ...controls()]) x.disabled = true;
      const content = {};
      if (action === "accept") {
        for (const [f, value] of read) {
          const v = value();
          if (v !== undefined) content[f.name] = v;
        }
      }
      outcome.textContent = "Sending…";
      outcome.classList.remove("problem");
      try {
        const sent = await call({ type: "elicit_answer", ask: q.ask, action, ...(action === "accept" ? { content } : {}) });
        buttons.remove();
        fields.remove();
        box.classList.add("answered");
        outcome.textContent = "";
        outcome.append(elicitSent(sent, q.fields));
        $("announce").textContent = "";
        $("message").focus();
      } catch (e) {
        // The module's sentence: which value will not do, and what it takes.
        outcome.textContent = e.message;
        outcome.classList.add("problem");
        for (const x of controls()) x.disabled = false;
        asking.add(waiting);
        arm(waiting);
      }
    };
    buttons.append(b);
    waiting.buttons.push(b);
  }
  asking.add(waiting);
  arm(waiting);
  box._settle = () => {
    asking.delete(waiting);
    clearTimeout(waiting.timer);
    buttons.remove();
    for (const x of controls()) x.disabled = true;
    box.classList.add("answered");
    outcome.classList.remove("problem");
    outcome.textContent = "The call ended before this was answered: nothing was sent.";
  };
  box.append(fields, buttons, outcome);
  // Below the card of the call the question is for (the host says which:
  // call_id), or else of the call running last; at the end when none is in
  // sight.
  const own = q.call_id ? cards.get(q.call_id) : null;
  const card = own?.isConnected ? own : [...turnCards].reverse().find((c) => c.isConnected && !c._answered);
  if (card) card._asked = true;
  if (card) card.after(box);
  else add(box);
  log.scrollTop = log.scrollHeight;
  $("announce").textContent = `${q.asks || "An MCP server asks"} ${q.message ?? ""} Answer below the tool's card (Shift+Tab from the message box reaches it).`;
}

// elicitField is one field of a server's question as a control: {node,
// value: () => the value to send, undefined for none}. Text, numbers and
// choices go as the user gave them (the module reads them as the field's
// kind); a yes-or-no is a checkbox, several choices are checkboxes.
function elicitField(f) {
  const id = "elicit-field-" + nextID++;
  const row = el("div", "elicit-field");
  const label = el("label", "", f.label || f.name);
  label.htmlFor = id;
  if (f.required) label.append(el("span", "required", " (required)"));
  // The hint says what a typed value takes: a checkbox or a list shows it.
  const typed = !["boolean", "choice", "choices"].includes(f.kind);
  const help = el("p", "muted small", [f.description, typed && f.hint && `Give ${f.hint}.`].filter(Boolean).join(" "));
  help.id = id + "-help";
  const def = f.default;
  let input;
  let value;
  if (f.kind === "boolean") {
    input = el("input");
    input.type = "checkbox";
    input.checked = def === true;
    value = () => input.checked;
    row.append(input, " ", label);
  } else if (f.kind === "choice") {
    input = el("select");
    if (!f.required || def === undefined) input.append(new Option("—", ""));
    for (const c of f.choices ?? []) input.append(new Option(c.label, c.value, false, c.value === def));
    value = () => (input.value === "" ? undefined : input.value);
    row.append(label, input);
  } else if (f.kind === "choices") {
    const set = el("fieldset", "elicit-choices");
    const legend = el("legend", "", f.label || f.name);
    if (f.required) legend.append(el("span", "required", " (required)"));
    set.append(legend);
    const ticks = [];
    for (const c of f.choices ?? []) {
      const l = el("label");
      const t = el("input");
      t.type = "checkbox";
      t.value = c.value;
      t.checked = Array.isArray(def) && def.includes(c.value);
      l.append(t, " " + c.label);
      set.append(l);
      ticks.push(t);
    }
    set.setAttribute("aria-describedby", help.id);
    set.append(help);
    row.append(set);
    return { node: row, value: () => ticks.filter((t) => t.checked).map((t) => t.value) };
  } else {
    input = el("input");
    input.type = f.kind === "number" || f.kind === "integer" ? "text" : f.format === "email" ? "email" : f.format === "uri" ? "url" : f.format === "date" ? "date" : "text";
    if (f.kind === "number" || f.kind === "integer") input.inputMode = f.kind === "integer" ? "numeric" : "decimal";
    if (def !== undefined && def !== null) input.value = String(def);
    value = () => (input.value.trim() === "" ? undefined : input.value);
    row.append(label, input);
  }
  input.id = id;
  input.name = f.name;
  input.setAttribute("aria-describedby", help.id);
  if (f.required) input.setAttribute("aria-required", "true");
  row.append(help);
  return { node: row, value };
}

// elicitSent says what the user answered a server's question: the values
// sent, by their labels, or that they declined or cancelled.
function elicitSent(sent, fields) {
  if (sent?.action === "decline") return el("span", "", "You declined: nothing was sent.");
  if (sent?.action === "cancel") return el("span", "", "You cancelled: nothing was sent.");
  // In the form's order, each choice by its label.
  const content = sent?.content ?? {};
  const list = el("dl", "elicit-sent");
  for (const f of fields ?? []) {
    if (!Object.hasOwn(content, f.name)) continue;
    const v = content[f.name];
    const named = (x) => f.choices?.find((c) => c.value === x)?.label ?? String(x);
    list.append(el("dt", "", f.label || f.name), el("dd", "", Array.isArray(v) ? v.map(named).join(", ") : typeof v === "boolean" ? (v ? "yes" : "no") : named(v)));
  }
  const out = el("div");
  out.append(el("span", "", list.childElementCount ? "You sent:" : "You sent the form empty."), ...(list.childElementCount ? [list] : []));
  return out;
}

// ---- A new chat ----------------------------------------------------------

// welcome shows a new chat what toolroute does, with prompts that show
// routing at work: a core tool, a group load, a tool of the user's own.
function welcome() {
  const box = el("section");
  box.id = "welcome";
  box.setAttribute("aria-labelledby", "welcome-heading");
  const h = el("h2", "", "What can I do for you?");
  h.id = "welcome-heading";
  const p = el("p", "", welcomeText(catalogue));
  p.id = "welcome-text";
  const prompts = [
    { text: "What time is it?", what: "a core tool, always there" },
    { text: "Load the calendar tools", what: "loads a tool group" },
    { text: "Write a note: water the plants", what: "a sandboxed file tool" },
  ];
  const own = (catalogue?.files ?? []).find((f) => f.source?.startsWith("user/") && f.tools?.length);
  prompts.push(own
    ? { text: `Use my ${own.tools[0]} tool`, what: "a tool of your own" }
    : { text: "Make me a tool that converts Celsius to Fahrenheit", what: "writes a tool of your own" });
  const row = el("div", "prompts");
  for (const pr of prompts) {
    const b = el("button");
    b.type = "button";
    b.append(el("span", "", pr.text), el("span", "what", pr.what));
    b.onclick = () => submit(pr.text);
    row.append(b);
  }
  box.append(h, p, row);
  log.append(box);
}

function welcomeText(d) {
  const groups = (d?.groups ?? []).filter((g) => g.available !== false);
  const m = d?.meter;
  const cost = m?.unit === "tokens" && m.all > 0 ? ` This chat starts with ${n(spent(m))} tokens on tools instead of the ${n(m.all)} every tool's schema would take.` : "";
  return `The model sees ${plural(groups.length, "tool group")} by name and loads the tools of one when it needs them.${cost}`;
}

// ---- Sessions ------------------------------------------------------------

async function showSession() {
  const s = await call({ type: "sessions", action: "get", session }).catch(() => null);
  $("session-title").textContent = s?.title || "New chat";
  log.textContent = "";
  cards.clear();
  awaiting.clear();
  questions.clear();
  deniedByUser.clear();
  const msgs = await call({ type: "messages", session }).catch((e) => {
    showError("This chat could not be read: " + e.message);
    return [];
  });
  showLog(msgs, running !== null && runningSession === session);
  if (msgs.length === 0) welcome();
  log.scrollTop = log.scrollHeight;
}

async function openSession(id) {
  session = id;
  pendingAgent = "";
  localStorage.setItem(SESSION_KEY, session);
  closePanels();
  await showSession();
  await refresh();
  refreshModels();
}

// pendingAgent is the agent the new chat's first message starts it with
// (the picker beside New chat); the session remembers it.
let pendingAgent = "";

async function newSession() {
  const s = await call({ type: "sessions", action: "create" });
  await openSession(s.id);
  pendingAgent = $("agent-picker").value;
  if (pendingAgent) $("session-title").textContent = `New chat with ${pendingAgent}`;
  $("message").focus();
}

// sessionList reads the list in either shape the core gives: an array, or
// {sessions, problems, server, keep, provider}.
function sessionList(r) {
  if (Array.isArray(r)) return { sessions: r, problems: [], keep: "page" };
  return { sessions: r?.sessions ?? [], problems: r?.problems ?? [], server: !!r?.server, keep: r?.keep ?? "page", provider: r?.provider ?? "" };
}

function when(iso) {
  const t = Date.parse(iso);
  if (!Number.isFinite(t)) return "";
  const d = new Date(t);
  const today = new Date();
  return d.toDateString() === today.toDateString()
    ? d.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" })
    : d.toLocaleDateString([], { month: "short", day: "numeric" });
}

// keptText says where the chats are kept, from the list's keep: serve's
// sessions, or this browser's IndexedDB.
function keptText(list) {
  if (list.keep === "server") return `Chats are kept by the toolroute server at ${location.host}: the same chats as toolroute chat and its API.`;
  if (list.provider) return `New chats are kept in this browser: they use this page's provider (${list.provider}, in the settings). The server's chats run with its own provider.`;
  if (list.server) return "New chats are kept in this browser; the server's chats are listed too.";
  return "Chats are kept in this browser (IndexedDB): other browsers and toolroute chat do not see them.";
}


// marked is a search snippet, its matches (**like this**) as <mark>.
function marked(snippet) {
  const p = el("span", "m snippet");
  String(snippet).split("**").forEach((part, i) => p.append(i % 2 ? el("mark", "", part) : document.createTextNode(part)));
  return p;
}

let listed = 0; // the last list asked, so an older answer is dropped

async function refreshSessions() {
  const asked = ++listed;
  const q = $("sessions-search").value.trim();
  let list;
  try {
    list = sessionList(await call({ type: "sessions", ...(q ? { q } : {}) }));
  } catch (e) {
    $("sessions-note").textContent = "The chats could not be listed: " + e.message;
    return;
  }
  if (asked !== listed) return;
  $("sessions-where").textContent = keptText(list);
  $("sessions-note").textContent = [q ? (list.sessions.length ? `${plural(list.sessions.length, "chat")} ${list.sessions.length === 1 ? "matches" : "match"}.` : "No chat matches.") : "", ...list.problems].filter(Boolean).join(" ");
  const ul = $("sessions");
  ul.textContent = "";
  const shown = list.sessions.filter((s) => s.messages > 0 || (!q && s.id === session));
  if (shown.length === 0 && !q) ul.append(el("li", "muted small", "No chats yet."));
  for (const s of shown) {
    const li = el("li");
    const title = s.title || "New chat";
    const open = el("button", "open");
    open.type = "button";
    const where = s.where === "server" && list.keep !== "server" ? " · on the server" : s.where === "page" && list.keep === "server" ? " · in this browser" : "";
    open.append(el("span", "t", title), el("span", "m", `${plural(s.messages ?? 0, "message")}${s.updated ? " · " + when(s.updated) : ""}${where}`));
    if (s.snippet) open.append(marked(s.snippet));
    open.onclick = () => openSession(s.id);
    if (s.id === session) {
      li.setAttribute("aria-current", "true");
      $("session-title").textContent = title;
    }
    li.append(open);
    if (s.messages > 0) li.append(...chatMenu(s, title));
    ul.append(li);
  }
}

// refreshTasks lists this page's scheduled tasks: each one's schedule,
// its next run and its last run, whose session opens on a click.
async function refreshTasks() {
  let tasks;
  try {
    tasks = await call({ type: "tasks" });
  } catch (e) {
    $("tasks-note").textContent = "The scheduled tasks could not be listed: " + e.message;
    return;
  }
  $("tasks-note").textContent =
    tasks.length === 0
      ? "None yet. Ask the model to schedule one (it loads the scheduled_tasks group): tasks run while this page is open, each in a chat of its own."
      : "They run while this page is open, each in a chat of its own.";
  const ul = $("tasks");
  ul.textContent = "";
  for (const t of tasks) {
    const li = el("li");
    const schedule = t.cron ? `${t.cron}${t.timezone ? ` (${t.timezone})` : ""}` : `once, ${when(t.at)}`;
    const next = !t.enabled ? "paused" : t.next_run ? `next ${when(t.next_run)}` : "will not run again";
    const last = t.last_run ? ` · last run ${t.last_run.status}, ${when(t.last_run.started)}` : "";
    const open = el("button", "open");
    open.type = "button";
    open.append(el("span", "t", t.name), el("span", "m", `${schedule} · ${next}${last}`));
    if (t.last_run?.session) {
      open.append(el("span", "visually-hidden", " (open its last run)"));
      open.onclick = () => openSession(t.last_run.session);
    } else {
      open.disabled = true;
      open.title = "It has not run yet";
    }
    li.append(open);
    ul.append(li);
  }
}

function renameSession(s) {
  const dialog = $("rename-dialog");
  const input = $("rename-title");
  input.value = s.title || "";
  $("rename-cancel").onclick = () => dialog.close("cancel");
  dialog.onclose = async () => {
    if (dialog.returnValue !== "ok") return;
    const title = input.value.trim();
    if (!title || title === s.title) return;
    try {
      await call({ type: "sessions", action: "rename", session: s.id, title });
    } catch (e) {
      showError("The chat was not renamed: " + e.message);
    }
    await refreshSessions();
  };
  dialog.returnValue = "";
  dialog.showModal();
  input.select();
}

async function deleteSession(s) {
  if (!confirm(`Delete “${s.title || "this chat"}” and its ${plural(s.messages ?? 0, "message")}? This cannot be undone.`)) return;
  try {
    await call({ type: "sessions", action: "delete", session: s.id });
  } catch (e) {
    showError("The chat was not deleted: " + e.message);
    return;
  }
  if (s.id === session) await newSession();
  else await refreshSessions();
}

// ---- Tools: the meter and the catalogue ----------------------------------

const PALETTE = ["#3b82f6", "#10b981", "#f59e0b", "#ef4444", "#8b5cf6", "#14b8a6", "#ec4899", "#84cc16"];

// spent is what routing costs a call: the schemas it sends and the listing
// of the groups it does not, the sum of the meter's parts, so that the
// headline is the sum of the legend under it.
function spent(m) {
  return (m.parts ?? []).reduce((sum, p) => sum + p.size, 0);
}

// renderMeter shows the meter in tokens: until the tokenizer has counted
// (a moment after the page opens), it says so rather than show bytes.
function renderMeter(d) {
  const m = d.meter;
  const box = $("meter");
  box.textContent = "";
  if (!m) return;
  if (m.unit !== "tokens") {
    box.append(el("p", "muted small", "Counting the tools' tokens…"));
    return;
  }
  const unit = "tokens";
  const parts = (m.parts ?? []).filter((p) => p.size > 0);
  const total = spent(m);
  const pct = m.all > 0 ? Math.round((100 * total) / m.all) : 0;
  const head = el("p", "headline");
  head.append(el("strong", "", `${n(total)} ${unit}`), ` on tools in this call; sending every tool would be ${n(m.all)} (this is ${pct}%).`);
  box.append(head);
  const scale = Math.max(m.all, total, 1);
  const bar = el("div", "bar");
  bar.setAttribute("role", "img");
  bar.setAttribute("aria-label", parts.map((p) => `${p.label} ${n(p.size)}`).join(", ") + `, of ${n(m.all)} for every tool`);
  const legend = el("ul", "legend");
  let g = 0;
  for (const p of parts) {
    const color = p.kind === "core" ? "var(--bar-core)" : p.kind === "listing" ? "var(--bar-listing)" : PALETTE[g++ % PALETTE.length];
    const seg = el("span");
    seg.style.width = `${(100 * p.size) / scale}%`;
    seg.style.background = color;
    seg.title = `${p.label}: ${n(p.size)} ${unit}`;
    bar.append(seg);
    const li = el("li");
    const sw = el("span", "swatch");
    sw.style.background = color;
    li.append(sw, el("span", "", p.label), el("span", "size", n(p.size)));
    legend.append(li);
  }
  box.append(bar, legend);
  box.append(el("p", "muted small", `Counted in ${m.encoding} tokens, as the model call sends them.`));
}

let lastUsage = null;

function renderTools(d) {
  renderMeter(d);
  if ($("welcome-text")) $("welcome-text").textContent = welcomeText(d);
  const ul = $("active-tools");
  ul.textContent = "";
  for (const name of d.active ?? []) ul.append(el("li", "", name));
  if (lastUsage && (lastUsage.input_tokens || lastUsage.output_tokens)) {
    const u = lastUsage;
    const p = el("p", "muted small", `Last reply: ${n(u.input_tokens)} tokens in${u.cached_tokens ? ` (${n(u.cached_tokens)} from the cache)` : ""}, ${n(u.output_tokens)} out.`);
    $("meter").append(p);
  }
}

// sourceOf says where a group's tools come from.
function sourceOf(d, g) {
  if ((d.mcp ?? []).some((m) => m.group === g.name)) return "mcp";
  if ((g.tools ?? []).some((t) => (d.server_tools ?? []).includes(t))) return "server";
  const file = (d.files ?? []).find((f) => f.group === g.name || f.tools?.some((t) => g.tools?.includes(t)));
  if (file) return file.source?.startsWith("user/") ? "user" : "builtin";
  return g.origin?.kind === "host" ? "builtin" : "server";
}

const SOURCE_LABEL = { builtin: "built in", user: "your tools", mcp: "MCP server", server: "the server's" };

function renderCatalogue(d) {
  const box = $("catalogue");
  box.textContent = "";
  const q = $("catalogue-search").value.trim().toLowerCase();
  const source = $("catalogue-source").value;
  const byName = new Map((d.tools ?? []).map((t) => [t.name, t]));
  const loaded = new Set(d.loaded_groups ?? []);
  const inTokens = d.meter?.unit === "tokens";
  const mcp = new Map((d.mcp ?? []).map((m) => [m.group, m]));
  const inGroup = new Set();
  const entries = (d.groups ?? []).map((g) => ({ g, source: sourceOf(d, g), tools: g.tools ?? [] }));
  for (const e of entries) e.tools.forEach((t) => inGroup.add(t));
  const core = (d.tools ?? []).filter((t) => !inGroup.has(t.name) && !t.group).map((t) => t.name);
  entries.unshift({ g: { name: "", display_name: "Core tools", description: "Sent with every call." }, source: "core", tools: core });
  let shownGroups = 0, shownTools = 0;
  for (const e of entries) {
    if (source && e.source !== source) continue;
    const match = (t) => !q || t.toLowerCase().includes(q) || (byName.get(t)?.description ?? "").toLowerCase().includes(q);
    const groupMatch = !q || `${e.g.name} ${e.g.display_name ?? ""} ${e.g.description ?? ""}`.toLowerCase().includes(q);
    const tools = groupMatch ? e.tools : e.tools.filter(match);
    if (!groupMatch && tools.length === 0) continue;
    shownGroups++;
    shownTools += tools.length;
    const det = el("details", "cat-group");
    if (q) det.open = true;
    const sum = el("summary");
    sum.append(el("span", "gname", e.g.display_name || e.g.name));
    const cost = e.g.name ? d.meter?.groups?.[e.g.name] : (d.meter?.parts ?? []).find((p) => p.kind === "core")?.size;
    const meta = [plural(e.tools.length, "tool"), e.source === "core" ? "always sent" : SOURCE_LABEL[e.source], cost && inTokens ? `${n(cost)} tokens` : ""].filter(Boolean).join(" · ");
    sum.append(el("span", "meta", meta));
    if (loaded.has(e.g.name)) sum.append(el("span", "badge", "loaded"));
    const state = mcpState(mcp.get(e.g.name));
    if (state === "needs_authorization") sum.append(el("span", "badge auth", "needs authorization"));
    else if (state === "starting" || state === "down") sum.append(el("span", "badge down", state));
    else if (state === "known") sum.append(el("span", "badge idle", "not started"));
    if (e.g.description) sum.append(el("span", "desc", short(e.g.description, 160)));
    det.append(sum);
    const ul = el("ul");
    for (const name of tools) {
      const t = byName.get(name);
      const li = el("li", t && !t.enabled ? "off" : "");
      li.append(el("code", "", name), document.createTextNode((t && !t.enabled ? " (disabled)" : "") + (t?.description ? " — " + short(t.description, 140) : "")));
      ul.append(li);
    }
    det.append(ul);
    box.append(det);
  }
  // A server that needs authorization waits for the user: what to do,
  // where, and a way to try it again once done; its problem is this box.
  const waiting = (d.mcp ?? []).filter((m) => mcpState(m) === "needs_authorization");
  for (const m of waiting) box.append(authBox(m, d.where));
  const shown = waiting.map((m) => m.advice).filter(Boolean);
  for (const p of d.mcp_problems ?? []) if (!shown.some((a) => p.startsWith(a))) box.append(el("p", "error", p));
  $("catalogue-count").textContent = q || source ? `${plural(shownTools, "tool")} in ${plural(shownGroups, "group")} match.` : `${plural((d.tools ?? []).length, "tool")} in ${plural((d.groups ?? []).length, "group")}, and the core tools.`;
}

// mcpState is an MCP server's state in the Go program's words (serve's
// health says state: known, starting, connected, down, disabled,
// needs_authorization), whichever host reports it: the page's own client
// says status, connecting or ready for the first two it has.
const PAGE_MCP_STATE = { connecting: "starting", ready: "connected" };
function mcpState(m) {
  if (!m) return "";
  return m.state ?? PAGE_MCP_STATE[m.status] ?? m.status ?? "";
}

// authBox is an MCP server that needs authorization, in the catalogue:
// the module's advice, why it refused, and on the page (where its
// config is the settings') the settings' MCP box and a try again.
function authBox(m, where) {
  const box = el("div", "mcp-auth");
  box.setAttribute("role", "group");
  box.setAttribute("aria-label", `MCP server ${m.key} needs authorization`);
  box.append(el("p", "mcp-auth-title", `${m.key}: needs authorization`));
  box.append(el("p", "small", m.advice || `MCP server '${m.key}' needs authorization.`));
  if (m.error) box.append(el("p", "muted small", `It said: ${m.error}.`));
  if (where === "page") {
    const row = el("div", "mcp-auth-actions");
    const edit = el("button", "secondary", "Edit the MCP config");
    edit.type = "button";
    edit.onclick = () => {
      $("panel-settings").open = true;
      $("set-mcp").scrollIntoView({ block: "center" });
      $("set-mcp").focus();
    };
    const again = el("button", "secondary", "Try again");
    again.type = "button";
    again.onclick = async () => {
      again.disabled = true;
      try {
        await call({ type: "mcp_retry" });
      } finally {
        again.disabled = false;
      }
      await refreshTools();
    };
    row.append(edit, again);
    box.append(row);
  }
  return box;
}

$("catalogue-search").oninput = () => catalogue && renderCatalogue(catalogue);
$("catalogue-source").onchange = () => catalogue && renderCatalogue(catalogue);

// refreshTools describes the session's tools: at once, then again in
// tokens, the one unit the page shows (the tokenizer, a large download,
// loads the first time, in the worker, while the page is already usable).
let counted = false; // the tokenizer has counted once: it is loaded
let describes = 0; // the last describe asked, so an older answer is dropped

async function refreshTools() {
  const asked = ++describes;
  const shown = async (tokens) => {
    const d = await call({ type: "describe", session, tokens });
    if (asked !== describes) return;
    if (d.meter?.unit === "tokens") counted = true;
    catalogue = d;
    $("provider-label").textContent = `${d.provider}${d.model ? " · " + d.model : ""}`;
    renderTools(d);
    renderCatalogue(d);
  };
  try {
    await shown(counted);
  } catch (e) {
    showError(e.message);
    $("provider-label").textContent = "not ready";
    return;
  }
  if (!counted) shown(true).catch(() => {});
}

async function refresh() {
  await Promise.all([refreshTools(), refreshSessions(), refreshTasks(), call({ type: "settings" }).then(fillAgents, () => {})]);
}

// ---- Sending -------------------------------------------------------------

// TURN_KEY holds, in the tab's sessionStorage, the turn this page runs:
// {session, text}, text the reply streaming now. A reload or a closed tab
// leaves it behind; the page then logs the turn's end (cutOff), the text
// with it, so that the log shows what the user saw.
const TURN_KEY = "toolroute.turn";

// turnNote keeps what the running turn has shown of its reply; written at
// most every TURN_NOTE_MS while it streams, and as the page goes.
const TURN_NOTE_MS = 250;
let turnNote = null, turnNoteTimer = 0;
function noteTurn(note) {
  turnNote = note;
  if (!note) {
    clearTimeout(turnNoteTimer);
    turnNoteTimer = 0;
    sessionStorage.removeItem(TURN_KEY);
    return;
  }
  if (!turnNoteTimer) turnNoteTimer = setTimeout(writeTurnNote, TURN_NOTE_MS);
}
function writeTurnNote() {
  turnNoteTimer = 0;
  if (turnNote) sessionStorage.setItem(TURN_KEY, JSON.stringify(turnNote));
}
window.addEventListener("pagehide", writeTurnNote);

// cutOff logs the end of a turn of this page cut off before it ended: the
// turn noted in the tab (a reload, a closed tab reopened) or the turn whose
// worker Stop restarted. The module says what the log keeps (turn_cut).
async function cutOff(note, stopped = false) {
  if (!note?.session) return;
  try {
    await call({ type: "cut_off", session: note.session, text: note.text ?? "", stopped });
  } catch (e) {
    showError("The end of the turn cut off was not logged: " + e.message);
  }
}

// runningSession is the session of the turn running in this page.
let runningSession = null;

async function send(text, files = []) {
  showError("");
  $("welcome")?.remove();
  const mine = userMessage(text);
  // refusedBack gives a message the module refused (a file it cannot
  // send) back to the composer, as it was: nothing was logged.
  let refused = false;
  const refusedBack = (why) => {
    refused = true;
    mine.remove();
    if (!$("message").value.trim()) $("message").value = text;
    attached.restore(files);
    grow();
    showError(why);
  };
  log.scrollTop = log.scrollHeight;
  $("stop").disabled = false;
  let reply = null, ended = false, answered = false, restarted = false;
  const calls = []; // each model call's usage, as its first logged message carries it
  const agent = pendingAgent;
  pendingAgent = "";
  const model = session.startsWith("server:") ? chosenModel : "";
  turnModel = model;
  const sent = files.map(({ name, data }) => ({ name, data }));
  const note = { session, text: "" };
  runningSession = session;
  turnCards = [];
  noteTurn(note);
  writeTurnNote();
  const req = ask({ type: "send", session, text, ...(agent ? { agent } : {}), ...(model ? { model } : {}), ...(sent.length ? { attachments: sent } : {}) }, (ev) => {
    switch (ev.type) {
      case "model_call":
        reply = null;
        note.text = "";
        break;
      case "text":
        reply ??= assistantMessage();
        reply.set(reply.text + ev.text);
        note.text = reply.text;
        noteTurn(note);
        break;
      case "message": {
        const m = ev.message;
        if (m.usage) calls.push(m.usage);
        if (m.type === "user") {
          // The files as the module logged them: what each one is.
          if (m.attachments?.length) mine.querySelector(".role").after(sentFiles(m.attachments));
          if (!m.content) mine.querySelector(".bubble")?.remove();
          break;
        }
        if (m.type === "assistant") {
          note.text = "";
          noteTurn(note);
          if (!m.content) break;
          reply ??= assistantMessage();
          reply.set(m.content);
          reply.now();
          break;
        }
        if (m.type === "turn_end") {
          ended = true;
          answered = m.error_type === "stopped" && !!reply;
          turnEnd(m, reply, true);
          break;
        }
        message(m, false);
        break;
      }
      case "group_loaded":
        groupCard(ev.group);
        refreshTools();
        break;
      case "approval":
        askApproval(ev.calls ?? []);
        break;
      case "elicitation":
        askElicitation(ev);
        break;
      case "progress":
        callProgress(ev);
        break;
      case "retry":
        // The module's sentence, as every host shows it.
        add(el("p", "card retry", ev.retry.message));
        break;
      case "done":
        answered = true;
        lastUsage = ev.usage ?? null;
        if (ev.usage && (ev.usage.input_tokens || ev.usage.output_tokens) && reply) usageFoot(reply, ev.usage, calls);
        break;
      case "failed":
        lastUsage = ev.usage ?? null;
        // The module logs the end first (turn_end); a host's own failure
        // (a server's turn that did not start) comes alone. A message the
        // module refused (a file it cannot send) goes back to the composer.
        if (ev.failure?.code === "refused") refusedBack(ev.failure.message);
        else if (!ended) turnError(ev.failure?.message ?? "The turn failed.");
        settleCards(turnCards, false);
        break;
    }
  });
  running = req.id;
  try {
    const r = await req.done;
    if (r?.aborted) {
      answered = !!reply;
      if (reply) reply.foot(STOPPED, "foot stopped");
      else add(el("p", "stopped small", STOPPED));
      settleCards(turnCards, true);
      restarted = !!r.restarted;
    }
  } catch (e) {
    if (e.refused && !refused) refusedBack(e.message);
    else if (!refused) turnError(e.message);
  } finally {
    settleQuestions();
    // A message the module refused went back to the composer: nothing
    // was sent to ask again.
    if (!refused) turnAgain(text, answered, reply);
    running = null;
    turnModel = "";
    runningSession = null;
    noteTurn(null);
    $("stop").disabled = true;
    // A worker Stop restarted ended the turn without its end: logged now
    // (after a turn sent meanwhile, which the session's lock lets end first).
    if (restarted) await cutOff(note, true);
    await refresh().catch(() => {});
  }
}

// compactNow is /compact: the earlier messages summarised by one model
// call; later calls send the summary in their place.
async function compactNow() {
  showError("");
  const req = ask({ type: "compact", session }, (ev) => {
    if (ev.type === "message" && ev.message?.type === "summary") summaryCard(ev.message);
    else if (ev.type === "done") add(el("p", "muted small", ev.text));
    else if (ev.type === "failed") turnError(ev.failure?.message ?? "The compaction failed.");
  });
  running = req.id;
  try {
    await req.done;
  } catch (err) {
    turnError(err.message);
  } finally {
    await refresh().catch(() => {});
  }
}

// summaryCard shows a compaction's summary, folded.
function summaryCard(m) {
  const card = el("details", "card summary");
  card.append(el("summary", "", "Earlier messages summarised: later calls send this instead (the chat keeps them all)"));
  const body = el("div", "bubble md");
  renderMarkdown(body, m.content ?? "");
  card.append(body);
  return add(card);
}

// submit sends text now, or after the turn that is running: a message
// typed during a turn waits in the log, marked, and is sent when it ends.
async function submit(text, files = []) {
  if (running !== null) {
    queue.push({ text, files, el: userMessage(text || files.map((f) => f.name).join(", "), true) });
    $("queued").textContent = `${plural(queue.length, "message")} waiting: sent when the reply ends.`;
    return;
  }
  running = 0; // busy: no second send before this one starts
  try {
    await ready; // the log read back first, then what is sent now
    if (text === "/clear") await newSession();
    else if (text === "/compact") await compactNow();
    else await send(text, files);
  } catch (err) {
    showError(err.message);
  } finally {
    running = null;
  }
  const next = queue.shift();
  $("queued").textContent = queue.length ? `${plural(queue.length, "message")} waiting: sent when the reply ends.` : "";
  if (next) {
    next.el.remove();
    await submit(next.text, next.files);
  }
}

// attached are the files for the next message (attach.js).
const attached = composerFiles({
  list: $("attached"), input: $("attach-input"), button: $("attach"), box: $("message"), drop: $("composer"),
  announce: (text) => ($("announce").textContent = text),
});

$("composer").onsubmit = async (e) => {
  e.preventDefault();
  const input = $("message");
  const text = input.value.trim();
  if (!text && !attached.count) return;
  input.value = "";
  grow();
  let files = [];
  try {
    files = await attached.take();
  } catch (err) {
    input.value = text;
    return showError(err.message);
  }
  submit(text, files);
  input.focus();
};

function grow() {
  const t = $("message");
  t.style.height = "auto";
  t.style.height = Math.min(t.scrollHeight + 2, window.innerHeight * 0.4) + "px";
}

$("message").addEventListener("input", grow);
$("message").addEventListener("keydown", (e) => {
  if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
    e.preventDefault();
    $("composer").requestSubmit();
  }
});

$("stop").onclick = () => {
  if (!(running > 0)) return;
  const target = running;
  call({ type: "abort", target }).catch(() => {});
  setTimeout(() => {
    if (pending.has(target)) restartWorker(target);
  }, STOP_GRACE_MS);
};

$("new-session").onclick = () => newSession();
$("agent-picker").onchange = () => newSession();

// The search of the chats: titles and messages, serve's when it keeps
// them, the browser's otherwise; asked once typing pauses.
let searchTimer = 0;
$("sessions-search").addEventListener("input", () => {
  clearTimeout(searchTimer);
  searchTimer = setTimeout(() => refreshSessions().catch(() => {}), 200);
});

// ---- The model picker ----------------------------------------------------

// chosenModel is the model picked for a chat serve keeps: it goes with
// each message (the server's provider calls it for that turn); "" is the
// server's own. A chat of this page's sets the model setting instead.
let chosenModel = "";
let turnModel = ""; // the model of the turn running, when picked: its replies' label
let modelsAsked = 0; // the last list asked, so an older answer is dropped

// refreshModels fills the picker from the provider's model list (the
// core's models: serve's GET /api/models, or the page's provider's);
// without a list the picker stays hidden.
async function refreshModels() {
  const asked = ++modelsAsked;
  let r;
  try {
    r = await call({ type: "models", session });
  } catch {
    if (asked === modelsAsked) $("model-row").hidden = true;
    return;
  }
  if (asked !== modelsAsked) return;
  const picker = $("model-picker");
  picker.textContent = "";
  const current = r.where === "server" && chosenModel ? chosenModel : r.model;
  const names = [...new Set([current, ...(r.models ?? [])].filter(Boolean))];
  for (const name of names) {
    const o = el("option", "", name === r.model ? `${name} (default)` : name);
    o.value = name;
    picker.append(o);
  }
  picker.value = current;
  picker.dataset.where = r.where;
  picker.dataset.default = r.model;
  $("model-row").hidden = names.length === 0;
}

$("model-picker").onchange = async () => {
  const picker = $("model-picker");
  if (picker.dataset.where === "server") {
    chosenModel = picker.value === picker.dataset.default ? "" : picker.value;
    return;
  }
  try {
    await call({ type: "settings", set: { model: picker.value } });
    $("set-model").value = picker.value;
    await refreshTools();
  } catch (e) {
    showError("The model was not changed: " + e.message);
  }
};

// ---- Export --------------------------------------------------------------

// exportChat downloads the open chat as Markdown or JSON (export.js), made
// from its log as the page or the server keeps it.
async function exportChat(kind) {
  $("export-menu").open = false;
  try {
    const s = (await call({ type: "sessions", action: "get", session })) ?? { id: session, title: "" };
    const msgs = await call({ type: "messages", session });
    const text = kind === "json" ? chatJSON(s, msgs) : chatMarkdown(s, msgs);
    const a = el("a");
    a.href = URL.createObjectURL(new Blob([text], { type: kind === "json" ? "application/json" : "text/markdown" }));
    a.download = exportName(s, kind === "json" ? "json" : "md");
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
  } catch (e) {
    showError("The chat could not be exported: " + e.message);
  }
}
// The menu closes on a click elsewhere, as a menu does.
document.addEventListener("click", (e) => {
  if ($("export-menu").open && !$("export-menu").contains(e.target)) $("export-menu").open = false;
});
$("export-markdown").onclick = () => exportChat("markdown");
$("export-json").onclick = () => exportChat("json");

// ---- The panels drawer (phone) ------------------------------------------

// WIDE is the width from which the panels sit beside the chat.
const WIDE = window.matchMedia("(min-width: 900px)");

// behindDrawer is what the open drawer covers: inert while it is open, so
// the keyboard and a screen reader stay in the drawer, as in a modal.
const behindDrawer = () => [document.querySelector(".skip"), document.querySelector(".topbar"), $("chat")];

function openPanels() {
  $("panels").classList.add("open");
  $("backdrop").hidden = false;
  $("open-panels").setAttribute("aria-expanded", "true");
  for (const e of behindDrawer()) e.inert = true;
  $("close-panels").focus();
}

function closePanels() {
  if (!$("panels").classList.contains("open")) return;
  $("panels").classList.remove("open");
  $("backdrop").hidden = true;
  $("open-panels").setAttribute("aria-expanded", "false");
  for (const e of behindDrawer()) e.inert = false;
  if (!WIDE.matches) $("open-panels").focus();
}

$("open-panels").onclick = openPanels;
$("close-panels").onclick = closePanels;
$("backdrop").onclick = closePanels;
// A phone turned into a wide screen shows the panels beside the chat.
WIDE.addEventListener("change", () => WIDE.matches && closePanels());
document.addEventListener("keydown", (e) => {
  // An Escape meant for a chat's menu or a dialog closes that alone.
  if (e.key === "Escape" && !document.querySelector(":popover-open, dialog[open]")) closePanels();
  // Tab and Shift+Tab go round the open drawer.
  if (e.key === "Tab" && $("panels").classList.contains("open")) {
    const keys = [...$("panels").querySelectorAll("button, summary, input, select, textarea, [tabindex='0']")].filter((x) => !x.disabled && x.checkVisibility());
    const first = keys[0], last = keys.at(-1);
    if (!$("panels").contains(document.activeElement)) {
      e.preventDefault();
      first?.focus();
    } else if (!e.shiftKey && document.activeElement === last) {
      e.preventDefault();
      first.focus();
    } else if (e.shiftKey && document.activeElement === first) {
      e.preventDefault();
      last.focus();
    }
  }
});

// chatMenu is a chat's ⋯ button and the menu it opens, with Rename and
// Delete: behind one narrow button, the title gets the width.
function chatMenu(s, title) {
  const more = el("button", "more", "⋯");
  more.type = "button";
  more.setAttribute("aria-label", `Actions for “${title}”`);
  const menu = el("div", "chat-menu");
  menu.popover = "auto";
  more.popoverTargetElement = menu;
  const item = (label, name, act) => {
    const b = el("button", "", label);
    b.type = "button";
    b.setAttribute("aria-label", `${name} “${title}”`);
    b.onclick = () => {
      menu.hidePopover();
      act(s);
    };
    return b;
  };
  menu.append(item("Rename", "Rename", renameSession), item("Delete…", "Delete", deleteSession));
  // Opened under its button (above it near the window's end), right-aligned.
  menu.addEventListener("toggle", (e) => {
    if (e.newState !== "open") return;
    const r = more.getBoundingClientRect();
    const h = menu.offsetHeight;
    menu.style.top = `${r.bottom + h > innerHeight ? Math.max(0, r.top - h) : r.bottom}px`;
    menu.style.left = `${Math.max(8, r.right - menu.offsetWidth)}px`;
    menu.querySelector("button").focus();
  });
  return [more, menu];
}

// ---- Look and keys -------------------------------------------------------

// THEME_KEY keeps the theme chosen in this browser: light, dark, or none
// for the system's.
const THEME_KEY = "toolroute.theme";

function applyTheme(theme) {
  if (theme === "light" || theme === "dark") document.documentElement.dataset.theme = theme;
  else delete document.documentElement.dataset.theme;
  $("theme").value = theme === "light" || theme === "dark" ? theme : "system";
}
applyTheme(localStorage.getItem(THEME_KEY));
$("theme").onchange = () => {
  const theme = $("theme").value;
  if (theme === "system") localStorage.removeItem(THEME_KEY);
  else localStorage.setItem(THEME_KEY, theme);
  applyTheme(theme);
};

function showKeys() {
  if (!$("keys-dialog").open) $("keys-dialog").showModal();
}
$("show-keys").onclick = showKeys;

// typingIn says whether a key pressed in target is text being typed: ? is
// a shortcut only elsewhere.
function typingIn(target) {
  return target instanceof HTMLElement && (target.isContentEditable || target.matches("input, textarea, select"));
}

// The shortcuts (listed in #keys-dialog): each with Ctrl or ⌘ and Shift,
// which type nothing, or a key that means nothing in the message box
// (Escape), or ? outside a text box; none while a dialog is open.
document.addEventListener("keydown", (e) => {
  if (e.defaultPrevented || e.isComposing || document.querySelector("dialog[open]")) return;
  const mod = (e.ctrlKey || e.metaKey) && !e.altKey;
  const key = e.key.toLowerCase();
  let act = null;
  if (mod && e.shiftKey && key === "o") act = () => newSession();
  else if (mod && e.shiftKey && key === "c") act = copyLastReply;
  else if (mod && !e.shiftKey && key === "/") act = showKeys;
  else if (e.key === "Escape" && e.shiftKey && !mod) act = () => $("message").focus();
  else if (e.key === "?" && !mod && !typingIn(e.target)) act = showKeys;
  else if (e.key === "Escape" && !e.shiftKey && !mod && !$("stop").disabled && !$("panels").classList.contains("open") && !document.querySelector(":popover-open") && (e.target === $("message") || !typingIn(e.target))) act = () => $("stop").click();
  if (!act) return;
  e.preventDefault();
  act();
});

// copyLastReply copies the last reply whole, as its Copy button does.
function copyLastReply() {
  const b = [...log.querySelectorAll(".msg.assistant .copy-reply")].at(-1);
  if (!b) {
    $("announce").textContent = "There is no reply to copy yet.";
    return;
  }
  b.click();
  $("announce").textContent = "The last reply is copied.";
}

// ---- Settings ------------------------------------------------------------

$("settings").onsubmit = async (e) => {
  e.preventDefault();
  const set = {
    provider: $("set-provider").value,
    model: $("set-model").value.trim(),
    baseURL: $("set-base").value.trim(),
    mcp: $("set-mcp").value.trim(),
    routing: $("set-routing").value,
    search_tools: $("set-search").value,
    tool_budget: String(Math.max(0, Math.floor(Number($("set-budget").value) || 0))),
  };
  const key = $("set-key").value.trim();
  if (key) set.apiKey = key;
  try {
    const s = await call({ type: "settings", set });
    $("set-key").value = "";
    $("set-key").placeholder = s.hasKey ? "a key is saved (type to replace)" : "kept in this browser (IndexedDB)";
    $("settings-status").textContent = (s.effective?.error ? s.effective.error : `Saved: ${s.effective.label} · ${s.effective.model || "default model"}`) +
      (s.mcp_problems?.length ? " · " + s.mcp_problems.join(" · ") : "");
    await Promise.all([refreshTools(), refreshSessions(), refreshModels()]); // the provider says where new chats are kept, and its models
  } catch (err) {
    $("settings-status").textContent = err.message;
  }
};

async function loadSettings() {
  const s = await call({ type: "settings" });
  // The providers stored with create_provider are choices too.
  const select = $("set-provider");
  select.querySelectorAll("option.stored").forEach((o) => o.remove());
  for (const name of s.stored_providers ?? []) {
    const o = el("option", "stored", `${name} (stored, its key a variable)`);
    o.value = name;
    select.append(o);
  }
  select.value = s.provider;
  $("set-model").value = s.model;
  $("set-base").value = s.baseURL;
  $("set-mcp").value = s.mcp ?? "";
  $("set-routing").value = s.routing || "classic";
  $("set-search").value = s.search_tools === "on" ? "on" : "off";
  $("set-budget").value = s.tool_budget ?? "0";
  if (s.hasKey) $("set-key").placeholder = "a key is saved (type to replace)";
  fillAgents(s);
}

// fillAgents lists the stored agents (update_agent, create_agent) in the
// picker: choosing one starts a new chat with it.
function fillAgents(s) {
  const picker = $("agent-picker");
  const chosen = picker.value;
  picker.querySelectorAll("option.stored").forEach((o) => o.remove());
  for (const name of s.agents ?? []) {
    const o = el("option", "stored", name);
    o.value = name;
    picker.append(o);
  }
  picker.value = (s.agents ?? []).includes(chosen) ? chosen : "";
  picker.hidden = !(s.agents ?? []).length;
}

// watchCatalogue follows the server's catalogue (serve's /api/ui/events): a
// tool created or changed there, or a file of its tools folder, reaches the
// next model call of this page without a reload. Served without serve, the
// stream answers 404 and EventSource gives up.
function watchCatalogue() {
  if (typeof EventSource !== "function") return;
  let seen = null;
  new EventSource("/api/ui/events").addEventListener("catalogue", async (e) => {
    let generation;
    try {
      generation = JSON.parse(e.data).generation;
    } catch {
      return;
    }
    if (seen !== null && generation !== seen) {
      try {
        await call({ type: "reload" });
        await refreshTools();
      } catch (err) {
        showError("The new tools could not be loaded: " + err.message);
      }
    }
    seen = generation;
  });
}

const ready = (async () => {
  try {
    // A kept id with no stored session yet (nothing sent) is still ours: a
    // session is stored with its first message.
    // When serve keeps the chats, a kept id of the browser's with nothing
    // sent gives way to a new chat of serve's.
    const unsent = async () => !session.startsWith("server:") && (await call({ type: "sessions" })).keep === "server" &&
      !(await call({ type: "sessions", action: "get", session }));
    if (!session || (await unsent())) {
      session = (await call({ type: "sessions", action: "create" })).id;
      localStorage.setItem(SESSION_KEY, session);
    }
    await loadSettings();
    refreshModels();
    await refreshTools(); // the catalogue first: the log's group cards need it
    watchCatalogue();
    // A turn this tab ran before a reload: its end is logged first.
    let left = null;
    try {
      left = JSON.parse(sessionStorage.getItem(TURN_KEY) ?? "null");
    } catch {}
    sessionStorage.removeItem(TURN_KEY);
    await cutOff(left);
    await showSession();
    await Promise.all([refreshSessions(), refreshTasks()]);
  } catch (e) {
    showError(e.message);
  }
})();
