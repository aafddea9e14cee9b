// The toolroute bridge's operations over a JS host's storage: what the
// built-in JS tools save_memory and search_history reach, the same as the Go
// program's (host/builtin/ops.go), answered in the same shapes:
//   memories.save {text}          -> {id, text, time}
//   memories.list {}              -> [{id, text, time}], oldest first
//   history.search {query, limit} -> [{session, seq, type, time, snippet}]
// Every host checks a memory the same way; history search here scans the
// logs (the Go program's SQLite full-text index ranks by bm25, this by
// recency), matching every word of the query, ignoring case and accents.

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
      const words = wordsOf(args?.query);
      if (words.length === 0) return [];
      const limit = args?.limit > 0 ? Math.min(Math.floor(args.limit), MAX_SEARCH_HITS) : 10;
      const hits = [];
      for (const s of await sessions()) {
        const log = await messages(s.id);
        log.forEach((m, seq) => {
          if (!SEARCHED_TYPES.has(m.type) || typeof m.content !== "string") return;
          const folded = fold(m.content);
          if (words.every((w) => folded.includes(w))) {
            hits.push({ session: s.id, seq, type: m.type, time: m.time ? stamp(new Date(m.time)) : "", snippet: snippet(m.content, words) });
          }
        });
      }
      // Newest first; within a time, the session and place in its log.
      hits.sort((a, b) => (a.time < b.time ? 1 : a.time > b.time ? -1 : a.session < b.session ? -1 : a.session > b.session ? 1 : a.seq - b.seq));
      return hits.slice(0, limit);
    },
  };
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

// fold lowers case and drops accents, so cafe finds café.
function fold(s) {
  return String(s).normalize("NFD").replace(/\p{M}/gu, "").toLowerCase();
}

// wordsOf splits a query into words at anything not a letter or digit.
function wordsOf(q) {
  return fold(q ?? "").split(/[^\p{L}\p{N}]+/u).filter(Boolean);
}

// snippet is up to about 160 characters around the first word found, the
// found words marked **like this**, "…" where text is left out.
function snippet(content, words) {
  const text = String(content).replace(/\s+/g, " ").trim();
  const folded = fold(text);
  let at = text.length;
  for (const w of words) {
    const i = folded.indexOf(w);
    if (i >= 0 && i < at) at = i;
  }
  // fold keeps one character per character of the text for most scripts;
  // where it does not, the marks may be off by a little, never wrong text.
  const start = Math.max(0, at - 60);
  const end = Math.min(text.length, start + 160);
  let out = text.slice(start, end);
  for (const w of words) {
    out = out.replace(new RegExp(w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"), "gi"), (m) => `**${m}**`);
  }
  return (start > 0 ? "…" : "") + out + (end < text.length ? "…" : "");
}

// stamp is a time as the bridge answers it: UTC to the second.
function stamp(d) {
  return d.toISOString().replace(/\.\d{3}Z$/, "Z");
}
