// The toolroute bridge's operations over a JS host's storage: what the
// built-in JS tools save_memory and search_history reach, the same as the Go
// program's (internal/builtin/ops.go), answered in the same shapes (and the
// config group's, configOps below):
//   memories.save {text}          -> {id, text, time}
//   memories.list {}              -> [{id, text, time}], oldest first
//   history.search {query, limit} -> [{session, seq, type, time, snippet}]
// Every host checks a memory the same way; history search here scans the
// logs (the Go program's SQLite full-text index ranks by bm25, this by
// recency), matching as it does: every word of the query, whole words,
// a hyphenated one as a phrase, ignoring case and accents.

import { checked, checkName } from "./checks.js";

// MAX_MEMORY_CHARS bounds one memory: it goes into every system prompt.
export const MAX_MEMORY_CHARS = 2000;
// MAX_SEARCH_HITS bounds what one history.search answers.
export const MAX_SEARCH_HITS = 50;
// SEARCHED_TYPES are the messages history.search looks at.
const SEARCHED_TYPES = new Set(["user", "assistant", "tool_result"]);

function toolError(type, message) {
  return Object.assign(new Error(message), { type });
}

// memoryText checks a memory's text as the Go program's memoryText does.
export function memoryText(s) {
  s = String(s ?? "").trim();
  if (s === "") throw toolError("invalid_arguments", "memories.save: the text is empty: give what to remember");
  if ([...s].length > MAX_MEMORY_CHARS) throw toolError("invalid_arguments", "memories.save: the text is over 2000 characters: save one or two sentences");
  return s;
}

// storeOps gives the operations over:
//   memories: {list() -> [{id, text, time}], add(text, time) -> {id, text, time}}
//   sessions() -> [{id}], messages(id) -> [message]: the logs to search;
//   now() -> Date.
export function storeOps({ memories, sessions, messages, now = () => new Date() }) {
  return {
    "memories.save": async (args) => memories.add(memoryText(args?.text), stamp(now())),
    "memories.list": async () => memories.list(),
    "history.search": async (args) => {
      const phrases = phrasesOf(args?.query);
      if (phrases.length === 0) return [];
      const limit = args?.limit > 0 ? Math.min(Math.floor(args.limit), MAX_SEARCH_HITS) : 10;
      const hits = [];
      for (const s of await sessions()) {
        const log = await messages(s.id);
        log.forEach((m, seq) => {
          if (!SEARCHED_TYPES.has(m.type) || typeof m.content !== "string") return;
          const text = String(m.content).replace(/\s+/g, " ").trim();
          const found = matches(tokensOf(text), phrases);
          if (found) {
            hits.push({ session: s.id, seq, type: m.type, time: m.time ? stamp(new Date(m.time)) : "", snippet: snippet(text, found) });
          }
        });
      }
      // Newest first; within a time, the session and place in its log.
      hits.sort((a, b) => (a.time < b.time ? 1 : a.time > b.time ? -1 : a.session < b.session ? -1 : a.session > b.session ? 1 : a.seq - b.seq));
      return hits.slice(0, limit);
    },
  };
}

// searchSessions is a search of the chats, as serve's GET
// /api/sessions?q= answers one: of sessions (in the order given), those
// whose title or messages (user, assistant, tool results) have every word
// of query, matched as history.search matches, each with the snippet of
// its newest matching message (none when the title alone matched).
// messages(id) reads a session's log.
export async function searchSessions(sessions, messages, query) {
  const phrases = phrasesOf(query);
  if (phrases.length === 0) return [];
  const out = [];
  for (const s of sessions) {
    const log = await messages(s.id);
    let found = "";
    for (let i = log.length - 1; i >= 0 && !found; i--) {
      const m = log[i];
      if (!SEARCHED_TYPES.has(m.type) || typeof m.content !== "string") continue;
      const text = String(m.content).replace(/\s+/g, " ").trim();
      const at = matches(tokensOf(text), phrases);
      if (at) found = snippet(text, at);
    }
    if (found) out.push({ ...s, snippet: found });
    else if (matches(tokensOf(String(s.title ?? "")), phrases)) out.push({ ...s });
  }
  return out;
}

// settingsMemories keeps memories in a settings store ({settings(),
// setSettings(patch)}): one key memory.ID each, ids never reused (the next
// one is kept under memory.next).
export function settingsMemories(store) {
  const PREFIX = "memory.";
  return {
    async list() {
      const s = await store.settings();
      return Object.keys(s)
        .filter((k) => k.startsWith(PREFIX) && /^\d+$/.test(k.slice(PREFIX.length)))
        .map((k) => JSON.parse(s[k]))
        .sort((a, b) => a.id - b.id);
    },
    async add(text, time) {
      const s = await store.settings();
      const id = Math.max(Number(s[PREFIX + "next"] ?? 1), 1);
      const m = { id, text, time };
      await store.setSettings({ [PREFIX + id]: JSON.stringify(m), [PREFIX + "next"]: String(id + 1) });
      return m;
    },
  };
}

// ENV_NAME is what a variable's name may be: letters, digits and _, not
// starting with a digit (the Go program's ValidEnvName).
export const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

// configOps gives the config group's operations (manifests/config.*), in
// the shapes and with the refusals of the Go program's (internal/builtin/ops.go):
//   settings.list {}               -> [{key, value, default, description}],
//                                     value "" when none is set
//   settings.set {key, value}      -> that setting now; "" restores the default
//   env.list {}                    -> [name], sorted: never a value
//   env.set {name, value}          -> {name, set}; "" removes it
//   tools.list {}                  -> [{name, group, origin, enabled}]
//   tools.setEnabled {name, enabled} -> that tool's state now
// over what the host has, each part optional (an operation left out is one
// the host does not offer, and the host must not offer the tool using it):
//   settings: {list() -> [{key, value, default, description}],
//     check?(key, value) -> a refusal's text or "", set?(key, value)};
//   env: {names() -> [name], set?(name, value)};
//   tools: {list() -> [{name, group, origin, enabled}], setEnabled?(name, enabled)}.
export function configOps({ settings, env, tools } = {}) {
  const ops = {};
  if (settings) {
    ops["settings.list"] = async () => settings.list();
    if (settings.set) {
      ops["settings.set"] = async (args) => {
        const key = String(args?.key ?? ""), value = String(args?.value ?? "");
        const all = await settings.list();
        if (!all.some((s) => s.key === key)) {
          throw toolError("not_found", `no setting ${JSON.stringify(key)}: use one of ${all.map((s) => s.key).join(", ")}`);
        }
        const refusal = value === "" ? "" : await settings.check?.(key, value);
        if (refusal) throw toolError("invalid_arguments", refusal);
        await settings.set(key, value);
        return (await settings.list()).find((s) => s.key === key);
      };
    }
  }
  if (env) {
    ops["env.list"] = async () => [...(await env.names())].sort();
    if (env.set) {
      ops["env.set"] = async (args, ctx) => {
        const name = String(args?.name ?? ""), value = String(args?.value ?? "");
        await checkName(ctx, "variable_name", name);
        await env.set(name, value);
        return { name, set: value !== "" };
      };
    }
  }
  if (tools) {
    ops["tools.list"] = async () => tools.list();
    if (tools.setEnabled) {
      ops["tools.setEnabled"] = async (args) => {
        const name = String(args?.name ?? ""), enabled = args?.enabled;
        if (enabled === undefined || enabled === null) throw toolError("invalid_arguments", "enabled is missing: give true or false");
        if (typeof enabled !== "boolean") throw toolError("invalid_arguments", "the arguments do not match the parameters: enabled is not true or false");
        const state = (await tools.list()).find((t) => t.name === name);
        if (!state) throw toolError("not_found", `no tool ${JSON.stringify(name)}: list_tool_states lists them`);
        if (state.origin === "meta" && !enabled) throw toolError("invalid_arguments", `${name} cannot be disabled`);
        await tools.setEnabled(name, enabled);
        return { ...state, enabled };
      };
    }
  }
  return ops;
}

// toolStates are the tool states of a module's describe answer, as
// tools.list answers them.
export function toolStates(description) {
  return (description?.tools ?? []).map((t) => ({ name: t.name, group: t.group ?? "", origin: t.origin?.kind ?? "", enabled: !!t.enabled }));
}

// withoutTools is catalogue without the JS tools named: their entries are
// taken out of the manifests' text (a manifest left with no tool is
// dropped), and groups' descriptions replaced where describe says, for a
// host that cannot offer the tools.
export function withoutTools(catalogue, names, describe = {}) {
  const drop = new Set(names);
  const manifests = [];
  for (const m of catalogue?.manifests ?? []) {
    let parsed;
    try {
      parsed = JSON.parse(m.text);
    } catch {
      manifests.push(m); // the module reports it
      continue;
    }
    if (!Array.isArray(parsed)) {
      if (!drop.has(parsed?.name)) manifests.push(m);
      continue;
    }
    const kept = parsed.filter((e) => e?._meta || !drop.has(e?.name));
    if (!kept.some((e) => !e?._meta)) continue;
    const group = m.file.replace(/^.*\//, "").replace(/\.json$/, "");
    if (Object.hasOwn(describe, group)) {
      for (const e of kept) if (e?._meta) e.description = describe[group];
    }
    manifests.push(kept.length === parsed.length && !Object.hasOwn(describe, group) ? m : { ...m, text: JSON.stringify(kept) });
  }
  return { ...catalogue, manifests };
}

// fold lowers case and drops accents, so cafe finds café.
function fold(s) {
  return String(s).normalize("NFD").replace(/\p{M}/gu, "").toLowerCase();
}

// The search matches as the Go program's SQLite full-text search does:
// text is words (runs of letters and digits, folded), a query is words
// separated by spaces, and a query word that punctuation splits
// ("conformance-herons-7731") is a phrase whose words must follow each
// other. Every query word must match, whole words only.

// tokensOf gives a text's words, folded, with where each is in the text.
function tokensOf(text) {
  return [...text.matchAll(/[\p{L}\p{N}]+/gu)].map((m) => ({ word: fold(m[0]), start: m.index, end: m.index + m[0].length }));
}

// phrasesOf gives a query's phrases: each a list of folded words.
function phrasesOf(q) {
  return String(q ?? "").split(/\s+/).map((w) => tokensOf(w).map((t) => t.word)).filter((p) => p.length > 0);
}

// matches gives where each phrase is found in tokens ([start, end] in the
// text), or null when one is not.
function matches(tokens, phrases) {
  const found = [];
  for (const p of phrases) {
    let any = false;
    for (let i = 0; i + p.length <= tokens.length; i++) {
      if (p.every((w, k) => tokens[i + k].word === w)) {
        found.push([tokens[i].start, tokens[i + p.length - 1].end]);
        any = true;
      }
    }
    if (!any) return null;
  }
  return found.sort((x, y) => x[0] - y[0]);
}

// snippet is up to about 160 characters of text around the first match,
// each match marked **like this**, "…" where text is left out.
function snippet(text, found) {
  const start = Math.max(0, found[0][0] - 60);
  const end = Math.min(text.length, start + 160);
  let out = "";
  let at = start;
  for (const [a, b] of found) {
    if (a < at || b > end) continue; // overlapping, or past the window
    out += text.slice(at, a) + "**" + text.slice(a, b) + "**";
    at = b;
  }
  out += text.slice(at, end);
  return (start > 0 ? "…" : "") + out + (end < text.length ? "…" : "");
}

// stamp is a time as the bridge answers it: UTC to the second.
function stamp(d) {
  return d.toISOString().replace(/\.\d{3}Z$/, "Z");
}

// toolFileOps gives the toolfiles operations of the js_tool_management
// group (manifests/js_tool_management.*), in the shapes and with the
// checks of the Go program's (internal/builtin/toolfiles.go):
//   toolfiles.list {}                         -> {place, files: [{file, tools: [{name, description}], problems}]}
//   toolfiles.read {name}                     -> {name, manifest, code}
//   toolfiles.write {manifest, code, replace} -> {name, manifest (as kept), place, handEdit}
//   toolfiles.remove {name}                   -> {name}
// The host checks what the tool's code cannot be trusted to: a name free
// (or, to replace, a tool of that name), code that compiles, a manifest
// that loads, and secrets: a new tool holds exactly those the user granted
// the call at approval, a changed one no new ones, and one that holds
// secrets keeps its code. Over:
//   files: {list() -> [{name, manifest (its JSON text), code}], put(name,
//     manifest, code), remove(name)}: where the host keeps them;
//   apply(files) -> [{file, loaded, skipped}]: loads the host's catalogue
//     with these files (file NAME.json each) and answers the module's
//     report on them, in order;
//   loaded(files) -> [{file, loaded, skipped}]: the report of the
//     catalogue the host has loaded now on these files, in order (listing
//     loads nothing);
//   check(file, code) -> "" or why the code does not compile;
//   tools() -> [{name, origin: {kind, file}}]: the catalogue's tools;
//   place: where the tools are kept, as the answers say it ("in this
//     browser").
export function toolFileOps({ files, apply, loaded, check, tools, place }) {
  const sorted = async () => [...(await files.list())].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const read = async (name, ctx) => {
    await checkName(ctx, "tool_name", name);
    const f = (await files.list()).find((x) => x.name === name);
    if (!f || f.manifest.trim().startsWith("[")) await checked(ctx, "tool_file", { name, place, found: !!f, group: !!f });
    let m;
    try {
      m = JSON.parse(f.manifest);
    } catch (e) {
      throw toolError("invalid_manifest", `${name}.json is not valid: ${e.message}`);
    }
    return { manifest: keptFields(m), code: f.code };
  };
  return {
    "toolfiles.list": async () => {
      const all = await sorted();
      const report = all.length > 0 ? await loaded(all) : [];
      return {
        place,
        files: all.map((f, i) => {
          let entries = [];
          try {
            const parsed = JSON.parse(f.manifest);
            entries = Array.isArray(parsed) ? parsed : [parsed];
          } catch {
            // the report says why
          }
          const r = report[i] ?? { loaded: [], skipped: [] };
          return {
            file: `${f.name}.json`,
            tools: (r.loaded ?? []).map((l) => ({ name: l.tool, description: String((l.entry >= 0 ? entries[l.entry] : entries[0])?.description ?? "") })),
            problems: (r.skipped ?? []).map((p) => p.reason),
          };
        }),
      };
    },
    "toolfiles.read": async (args, ctx) => {
      const name = String(args?.name ?? "");
      return { name, ...(await read(name, ctx)) };
    },
    "toolfiles.write": async (args, ctx = {}) => {
      const granted = ctx.granted ?? [];
      const m = keptFields(args?.manifest ?? {});
      const code = args?.code;
      const replace = !!args?.replace;
      await checkName(ctx, "tool_name", typeof m.name === "string" ? m.name : "");
      if (typeof code !== "string") throw toolError("invalid_arguments", "toolfiles.write: the code is missing");
      const all = await sorted();
      // The secrets a model may give: the module's (tool_secrets), as the
      // Go program's checkSecrets.
      const secrets = { name: m.name, env: m.env ?? [], required_permissions: m.requiredPermissions ?? [], replace, granted, hand_edit: false };
      if (!replace) {
        const a = await checked(ctx, "tool_secrets", { ...secrets, exists: all.some((f) => f.name === m.name) });
        delete m.env;
        delete m.requiredPermissions;
        if (a.env.length > 0) m.env = a.env;
        if (a.required_permissions.length > 0) m.requiredPermissions = a.required_permissions;
      } else {
        const old = await read(m.name, ctx);
        await checked(ctx, "tool_secrets", { ...secrets, held_env: old.manifest.env ?? [], held_permissions: old.manifest.requiredPermissions ?? [], code_changed: code !== old.code });
      }
      if (!replace) {
        const taken = (await tools()).find((t) => t.name === m.name);
        if (taken) throw toolError("exists", `a tool named ${m.name} exists already (${originText(taken.origin)}): choose another name`);
      }
      await checked(ctx, "tool_code", { code });
      const why = await check(`${m.name}.js`, code);
      if (why) throw toolError("invalid_code", `the tool was not saved: ${why}`);
      const text = JSON.stringify(m, null, 2) + "\n";
      const next = [...all.filter((f) => f.name !== m.name), { name: m.name, manifest: text, code }].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      const report = await apply(next);
      const mine = report[next.findIndex((f) => f.name === m.name)] ?? { skipped: [] };
      if ((mine.skipped ?? []).length > 0 || (mine.loaded ?? []).length === 0) {
        await apply(all);
        const why = (mine.skipped ?? []).map((p) => p.reason).join("; ") || "it defines no tool";
        throw toolError("invalid_manifest", `the tool was not saved: ${m.name}.json: ${why}`);
      }
      try {
        await files.put(m.name, text, code);
      } catch (e) {
        await apply(all);
        throw new Error(`the tool was not saved: ${e?.message ?? e}`);
      }
      return { name: m.name, manifest: m, place, handEdit: "" };
    },
    "toolfiles.remove": async (args, ctx) => {
      const name = String(args?.name ?? "");
      await checkName(ctx, "tool_name", name);
      const all = await sorted();
      if (!all.some((f) => f.name === name)) await checked(ctx, "tool_file", { name, place, found: false, remove: true });
      await files.remove(name);
      await apply(all.filter((f) => f.name !== name));
      return { name };
    },
  };
}

// keptFields is a single-tool manifest as a user tool is kept: the fields
// the Go program writes, in its order.
function keptFields(m) {
  const out = { name: typeof m?.name === "string" ? m.name : String(m?.name ?? "") };
  out.description = typeof m?.description === "string" ? m.description : "";
  if (m?.parameters !== undefined && m.parameters !== null) out.parameters = m.parameters;
  if (Array.isArray(m?.env) && m.env.length > 0) out.env = m.env.map(String);
  if (Number.isInteger(m?.timeoutSeconds) && m.timeoutSeconds !== 0) out.timeoutSeconds = m.timeoutSeconds;
  if (Array.isArray(m?.requiredPermissions) && m.requiredPermissions.length > 0) out.requiredPermissions = m.requiredPermissions.map(String);
  return out;
}

function originText(o) {
  if (o?.kind === "js") return `from ${o.file}`;
  if (o?.kind === "meta") return "a meta-tool";
  return "a built-in tool";
}

// USER_TOOLS is the folder a JS host's own user tools have in its
// catalogue by default: user/NAME.json, user/NAME.js.
export const USER_TOOLS = "user/";

// withUserTools is catalogue and sources with the user's tool files
// ([{name, manifest, code}]) after the bundle's, in the folder dir.
export function withUserTools(catalogue, sources, files, dir = USER_TOOLS) {
  const manifests = [...(catalogue?.manifests ?? [])];
  const out = { ...sources };
  for (const f of files) {
    manifests.push({ file: `${dir}${f.name}.json`, text: f.manifest, source: `${dir}${f.name}.js` });
    out[`${dir}${f.name}.js`] = f.code;
  }
  return { catalogue: { ...catalogue, manifests }, sources: out };
}

// userReports picks the report's entries of the user's files, in order.
export function userReports(report, files, dir = USER_TOOLS) {
  const byFile = new Map((report?.manifests ?? []).map((r) => [r.file, r]));
  return files.map((f) => byFile.get(`${dir}${f.name}.json`) ?? { file: `${f.name}.json`, loaded: [], skipped: [{ reason: "the module did not report it" }] });
}
