// The chat page: it renders and asks; the worker (worker.js) does the work.
// See worker.js for the protocol.

const $ = (id) => document.getElementById(id);
const SESSION_KEY = "toolroute.session";
const log = $("log");

// The worker is a module worker next to this file (dist/worker.js in the
// build).
let worker = null;
let nextID = 1;
const pending = new Map();

function startWorker() {
  worker = new Worker(new URL("worker.js", import.meta.url), { type: "module" });
  worker.onmessage = (e) => {
    const m = e.data;
    if (m.type === "ready") return;
    const p = pending.get(m.id);
    if (!p) return;
    if (m.type === "event") p.onEvent?.(m.event);
    else {
      pending.delete(m.id);
      if (m.type === "done") p.resolve(m.result);
      else p.reject(new Error(m.error));
    }
  };
  worker.onerror = (e) => showError("the worker failed: " + (e.message || "see the console"));
}
startWorker();

// STOP_GRACE_MS is how long Stop waits for the turn to stop before it
// restarts the worker. A JS tool's QuickJS runs on the worker's thread: a
// loop that never waits keeps the worker from reading the abort until the
// tool's timeout.
const STOP_GRACE_MS = 1000;

// restartWorker ends the worker, its running tools with it, and starts
// another; what the turn committed is in IndexedDB already. The send
// request `stopped` ends as stopped, the other pending requests fail.
function restartWorker(stopped) {
  worker.terminate();
  const left = [...pending];
  pending.clear();
  startWorker();
  for (const [id, p] of left) {
    if (id === stopped) p.resolve({ aborted: true });
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

let session = localStorage.getItem(SESSION_KEY);
let catalogue = null; // the last describe
let running = null; // the send request in progress

function showError(text) {
  $("error").textContent = text;
}

function line(text, cls) {
  const d = document.createElement("div");
  d.textContent = text;
  if (cls) d.className = cls;
  log.append(d);
  scroll();
  return d;
}

function scroll() {
  log.scrollTop = log.scrollHeight;
}

function short(s, n = 200) {
  s = String(s ?? "");
  return s.length > n ? s.slice(0, n) + "…" : s;
}

// collapsible renders a summary line, the whole text inside.
function collapsible(summary, body, cls) {
  const d = document.createElement("details");
  d.className = cls;
  const s = document.createElement("summary");
  s.textContent = summary;
  const pre = document.createElement("pre");
  pre.textContent = body;
  d.append(s, pre);
  log.append(d);
  scroll();
  return d;
}

// IMAGE_TYPES are the types a tool result's images may have: the module
// keeps no others, and none that could run script (no SVG).
const IMAGE_TYPES = ["image/png", "image/jpeg", "image/gif", "image/webp"];

// pictures shows a tool result's images, as the model saw them.
function pictures(tool, images) {
  const box = document.createElement("div");
  box.className = "pictures";
  for (const [i, img] of images.entries()) {
    if (!IMAGE_TYPES.includes(img?.mime_type) || typeof img.data !== "string" || !/^[A-Za-z0-9+/]*={0,2}$/.test(img.data)) continue;
    const el = document.createElement("img");
    el.src = `data:${img.mime_type};base64,${img.data}`;
    el.alt = `image ${i + 1} from ${tool}`;
    el.loading = "lazy";
    box.append(el);
  }
  if (box.childElementCount > 0) {
    log.append(box);
    scroll();
  }
}

function pretty(input) {
  try {
    return JSON.stringify(JSON.parse(input), null, 2);
  } catch {
    return input;
  }
}

// WHAT says what a tool does, from its requiredPermissions.
const WHAT = { write: "changes your data", send: "sends to other people", delete: "deletes", share: "shares with other people",
  google: "uses your Google account", read: "reads your data", run_code: "runs code",
  memories: "keeps memories", history: "reads past chats", settings: "changes settings", env: "sets variables tools read",
  tools: "enables or disables tools", secrets: "may ask for secrets" };

// askApproval shows the calls a turn asks about, each with Allow once, Allow
// for this session and Deny, and answers when every call has its answer.
function askApproval(calls) {
  const box = document.createElement("section");
  box.className = "approval";
  box.setAttribute("role", "group");
  box.setAttribute("aria-label", "Approve tool calls");
  const answers = new Map();
  for (const c of calls) {
    const card = document.createElement("div");
    card.className = "approval-call";
    const title = document.createElement("p");
    const what = (c.required_permissions ?? []).map((p) => WHAT[p] ?? p).join(", ");
    title.textContent = `Allow ${c.tool} to run?` + (what ? ` It ${what}.` : "");
    const pre = document.createElement("pre");
    pre.textContent = JSON.stringify(c.input ?? {}, null, 2);
    // The secrets the call asks to read: granted only if left ticked.
    const grants = [];
    const secrets = document.createElement("fieldset");
    if (c.secrets?.length) {
      const legend = document.createElement("legend");
      legend.textContent = "It asks to read your secrets:";
      secrets.append(legend);
      for (const name of c.secrets) {
        const label = document.createElement("label");
        const box = document.createElement("input");
        box.type = "checkbox";
        box.checked = true;
        box.value = name;
        label.append(box, " " + (name === "google" ? "your Google account" : name));
        secrets.append(label);
        grants.push(box);
      }
    }
    const buttons = document.createElement("div");
    buttons.className = "approval-buttons";
    const outcome = document.createElement("p");
    outcome.className = "muted";
    outcome.setAttribute("role", "status");
    for (const [answer, label] of [["once", "Allow once"], ["session", "Allow for this session"], ["deny", "Deny"]]) {
      const b = document.createElement("button");
      b.type = "button";
      b.textContent = label;
      b.dataset.answer = answer;
      b.onclick = async () => {
        for (const x of [...buttons.querySelectorAll("button"), ...grants]) x.disabled = true;
        answers.set(c.id, { id: c.id, answer, grant: answer === "deny" ? [] : grants.filter((g) => g.checked).map((g) => g.value) });
        outcome.textContent = answer === "deny" ? "Denied: it will not run." : answer === "session" ? "Allowed for this session." : "Allowed once.";
        if (answers.size === calls.length) {
          try {
            await call({ type: "approve", session, answers: calls.map((x) => answers.get(x.id)) });
          } catch (e) {
            showError("the answer was not taken: " + e.message);
          }
        }
      };
      buttons.append(b);
    }
    card.append(title, pre, ...(grants.length ? [secrets] : []), buttons, outcome);
    box.append(card);
  }
  log.append(box);
  scroll();
  box.querySelector("button")?.focus();
}

function groupLine(name, tools) {
  line(`[loaded group ${name}: ${tools.join(", ")}]`, "group");
}

// message renders one message of the log. calls maps tool_call ids to their
// calls, for the group lines of a log read back.
function message(m, calls, fromLog) {
  switch (m.type) {
    case "user":
      line("you: " + m.content, "user");
      break;
    case "assistant":
      if (m.content) line(m.content, "assistant");
      break;
    case "approval":
      line(`[${m.tool_name}: ${m.content === "deny" ? "denied" : m.content === "session" ? "allowed for this session" : "allowed once"}]`, "group");
      break;
    case "tool_call": {
      calls?.set(m.tool_call_id, m);
      const input = m.tool_input || "{}";
      collapsible(`→ ${m.tool_name} ${short(input, 160)}`, pretty(input), "tool");
      break;
    }
    case "tool_result": {
      const failed = m.status && m.status !== "success";
      const text = m.content ?? "";
      const first = short(text.split("\n")[0], 200) + (text.includes("\n") ? " …" : "");
      collapsible(`← ${failed ? "failed" + (m.error_type ? ` (${m.error_type})` : "") + ": " : ""}${first}`, text, "result" + (failed ? " failed" : ""));
      if (Array.isArray(m.images) && m.images.length > 0) pictures(m.tool_name, m.images);
      const c = calls?.get(m.tool_call_id);
      if (fromLog && c?.tool_name === "load_tool_group" && !failed) {
        let name = "";
        try {
          name = JSON.parse(c.tool_input).group_name;
        } catch {}
        const g = catalogue?.groups?.find((x) => x.name === name);
        if (g) groupLine(g.name, g.tools);
      }
      break;
    }
  }
}

// WELCOME are the prompts a new chat offers: each works in every host with
// no account connected (the demo model answers them with tools too).
const WELCOME = ["What time is it?", "Load the calendar tools", "Write a note: water the plants", "What can you do?"];

// welcome shows a new chat what toolroute does and prompts to try; a click
// sends one as if typed.
function welcome() {
  const box = document.createElement("section");
  box.id = "welcome";
  box.setAttribute("aria-label", "Try a prompt");
  const p = document.createElement("p");
  p.textContent = "toolroute sends the model its tool groups' names, not every tool's schema: a group's tools are loaded when the model asks for them, and stay loaded for the rest of the chat. Try:";
  const row = document.createElement("div");
  row.className = "prompts";
  for (const text of WELCOME) {
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = text;
    b.onclick = () => {
      $("message").value = text;
      $("composer").requestSubmit();
    };
    row.append(b);
  }
  box.append(p, row);
  log.append(box);
}

async function showSession() {
  const s = await call({ type: "sessions", action: "get", session });
  $("session-title").textContent = s?.title || "New chat";
  log.textContent = "";
  const msgs = await call({ type: "messages", session });
  const calls = new Map();
  for (const m of msgs) message(m, calls, true);
  if (msgs.length === 0) welcome();
}

async function newSession() {
  const s = await call({ type: "sessions", action: "create" });
  session = s.id;
  localStorage.setItem(SESSION_KEY, session);
  await showSession();
  await refresh();
}

async function refresh() {
  await Promise.all([refreshTools(), refreshSessions()]);
}

async function refreshTools() {
  try {
    catalogue = await call({ type: "describe", session });
  } catch (e) {
    showError(e.message);
    $("provider-label").textContent = "not ready";
    return;
  }
  const d = catalogue;
  $("provider-label").textContent = `${d.provider}${d.model ? " · " + d.model : ""}`;
  const ul = $("active-tools");
  ul.textContent = "";
  for (const name of d.active) {
    const li = document.createElement("li");
    li.textContent = name;
    ul.append(li);
  }
  const m = d.meter;
  const pct = m.all > 0 ? Math.round((100 * m.active) / m.all) : 0;
  $("meter").textContent = m.unit === "tokens"
    ? `Schema tokens (${m.encoding}): ${m.active} of ${m.all} for all tools (${pct}%)`
    : `Schema bytes: ${m.active} of ${m.all} bytes for all tools (${pct}%)`;
  $("loaded-groups").textContent = d.loaded_groups.length ? "Loaded groups: " + d.loaded_groups.join(", ") : "No group loaded yet.";
  renderCatalogue(d);
}

function renderCatalogue(d) {
  const box = $("catalogue");
  box.textContent = "";
  const add = (tag, text, cls) => {
    const e = document.createElement(tag);
    e.textContent = text;
    if (cls) e.className = cls;
    box.append(e);
    return e;
  };
  const byName = new Map(d.tools.map((t) => [t.name, t]));
  const inFile = new Set();
  const toolList = (names) => {
    const ul = document.createElement("ul");
    for (const n of names) {
      const t = byName.get(n);
      const li = document.createElement("li");
      li.textContent = n + (t && !t.enabled ? " (disabled)" : "") + (t?.description ? ": " + short(t.description, 100) : "");
      ul.append(li);
    }
    box.append(ul);
  };
  const mcpGroups = new Set((d.mcp ?? []).map((m) => m.group));
  add("h3", "Groups");
  const gl = document.createElement("ul");
  for (const g of d.groups) {
    const li = document.createElement("li");
    const kind = mcpGroups.has(g.name) ? ", MCP server" : g.origin?.kind === "host" ? ", built in" : "";
    li.textContent = `${g.name} (${g.tools.length} tools${kind}): ${g.description}`;
    gl.append(li);
  }
  box.append(gl);
  if ((d.mcp ?? []).length || (d.mcp_problems ?? []).length) {
    add("h3", "MCP servers");
    const ml = document.createElement("ul");
    for (const m of d.mcp ?? []) {
      const li = document.createElement("li");
      li.textContent = m.status === "ready" ? `${m.key}: connected, ${m.tools} tools (group ${m.group})` : `${m.key}: ${m.status}${m.error ? " · " + m.error : ""}`;
      if (m.status !== "ready") li.className = "problem";
      ml.append(li);
    }
    for (const p of (d.mcp_problems ?? []).filter((p) => !(d.mcp ?? []).some((m) => p.startsWith(`MCP server '${m.key}' (`)))) {
      const li = document.createElement("li");
      li.textContent = p;
      li.className = "problem";
      ml.append(li);
    }
    box.append(ml);
  }
  for (const f of d.files ?? []) {
    add("h3", f.group ? `${f.group}` : f.file);
    add("div", `${f.file} · ${f.source}`, "file");
    toolList(f.tools);
    f.tools.forEach((t) => inFile.add(t));
  }
  const rest = d.tools.filter((t) => !inFile.has(t.name)).map((t) => t.name);
  if (rest.length) {
    add("h3", "Built-in tools");
    toolList(rest);
  }
}

async function refreshSessions() {
  const list = await call({ type: "sessions" });
  const ul = $("sessions");
  ul.textContent = "";
  for (const s of list) {
    const li = document.createElement("li");
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = (s.title || "(empty)") + ` · ${s.messages} messages`;
    if (s.id === session) {
      b.setAttribute("aria-current", "true");
      $("session-title").textContent = s.title || "New chat";
    }
    b.onclick = async () => {
      session = s.id;
      localStorage.setItem(SESSION_KEY, session);
      await showSession();
      await refresh();
    };
    li.append(b);
    ul.append(li);
  }
}

async function send(text) {
  showError("");
  $("welcome")?.remove();
  line("you: " + text, "user");
  $("stop").disabled = false;
  let reply = null, streamed = false;
  const req = ask({ type: "send", session, text }, (ev) => {
    switch (ev.type) {
      case "model_call":
        reply = null;
        streamed = false;
        break;
      case "text":
        streamed = true;
        reply ??= line("", "assistant");
        reply.textContent += ev.text;
        scroll();
        break;
      case "message": {
        const m = ev.message;
        if (m.type === "user") break;
        if (m.type === "assistant" && streamed) {
          if (reply && m.content) reply.textContent = m.content;
          break;
        }
        message(m, null, false);
        break;
      }
      case "group_loaded":
        groupLine(ev.group.name, ev.group.added ?? []);
        refreshTools();
        break;
      case "approval":
        askApproval(ev.calls ?? []);
        break;
      case "retry":
        line(`[the provider answered ${ev.retry.status}: trying again in ${Math.round(ev.retry.wait_ms / 1000)} s]`, "group");
        break;
      case "failed":
        line("failed: " + (ev.failure?.message ?? "the turn failed"), "error");
        break;
    }
  });
  running = req.id;
  try {
    const r = await req.done;
    if (r?.aborted) line("[stopped]", "group");
  } catch (e) {
    line("error: " + e.message, "error");
  } finally {
    running = null;
    $("stop").disabled = true;
    await refresh().catch(() => {});
  }
}

$("composer").onsubmit = async (e) => {
  e.preventDefault();
  const input = $("message");
  const text = input.value.trim();
  if (!text || running !== null) return;
  running = 0; // busy: no second send before this one starts
  input.value = "";
  try {
    await ready; // the log read back first, then what is sent now
    if (text === "/clear") await newSession();
    else await send(text);
  } catch (err) {
    showError(err.message);
  } finally {
    running = null;
  }
  input.focus();
};

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

$("settings").onsubmit = async (e) => {
  e.preventDefault();
  const set = {
    provider: $("set-provider").value,
    model: $("set-model").value.trim(),
    baseURL: $("set-base").value.trim(),
    mcp: $("set-mcp").value.trim(),
  };
  const key = $("set-key").value.trim();
  if (key) set.apiKey = key;
  try {
    const s = await call({ type: "settings", set });
    $("set-key").value = "";
    $("set-key").placeholder = s.hasKey ? "a key is saved (type to replace)" : "kept in this browser (IndexedDB)";
    $("settings-status").textContent = (s.effective?.error ? s.effective.error : `Saved: ${s.effective.label} · ${s.effective.model || "default model"}`) +
      (s.mcp_problems?.length ? " · " + s.mcp_problems.join(" · ") : "");
    await refreshTools();
  } catch (err) {
    $("settings-status").textContent = err.message;
  }
};

async function loadSettings() {
  const s = await call({ type: "settings" });
  $("set-provider").value = s.provider;
  $("set-model").value = s.model;
  $("set-base").value = s.baseURL;
  $("set-mcp").value = s.mcp ?? "";
  if (s.hasKey) $("set-key").placeholder = "a key is saved (type to replace)";
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
        showError("the new tools could not be loaded: " + err.message);
      }
    }
    seen = generation;
  });
}

const ready = (async () => {
  try {
    // A kept id with no stored session yet (nothing sent) is still ours: a
    // session is stored with its first message.
    if (!session) {
      session = (await call({ type: "sessions", action: "create" })).id;
      localStorage.setItem(SESSION_KEY, session);
    }
    await loadSettings();
    await refreshTools(); // the catalogue first: the log's group lines need it
    watchCatalogue();
    await showSession();
    await refreshSessions();
  } catch (e) {
    showError(e.message);
  }
})();
