// Replays the golden transcripts of testdata/transcripts the way the Go
// harness (internal/transcript) does, for the JS hosts' tests: the log is
// kept from the append actions, a start event without history gets it, and
// "clear": true starts a new session.

// parseTxtar splits a txtar archive into its comment and named sections.
export function parseTxtar(text) {
  const sections = [];
  let comment = "";
  for (const line of text.split(/(?<=\n)/)) {
    const m = /^-- (.+) --\r?\n?$/.exec(line);
    if (m) {
      sections.push({ name: m[1], data: "" });
    } else if (sections.length === 0) {
      comment += line;
    } else {
      sections[sections.length - 1].data += line;
    }
  }
  return { comment, sections };
}

// loadTranscript turns a transcript's text into its catalogue, events and
// golden output lines.
export function loadTranscript(text) {
  const { comment, sections } = parseTxtar(text);
  let catalogue = null;
  const manifests = [];
  let events = [];
  let golden = [];
  for (const s of sections) {
    if (s.name === "catalogue.json") catalogue = JSON.parse(s.data);
    else if (s.name.startsWith("manifests/") && s.name.endsWith(".json")) {
      const file = s.name.slice("manifests/".length);
      manifests.push({ file, text: s.data.replace(/\n$/, "\n"), source: file.replace(/\.json$/, ".js") });
    } else if (s.name === "events.jsonl") events = lines(s.data);
    else if (s.name === "actions.jsonl") golden = lines(s.data);
  }
  if (!catalogue) throw new Error("no catalogue.json section");
  catalogue.manifests = [...(catalogue.manifests ?? []), ...manifests];
  return { comment, catalogue, events, golden };
}

function lines(data) {
  return data.split("\n").filter((l) => l.trim() !== "").map((l) => JSON.parse(l));
}

// replay runs a transcript's events through a driver, an object with
// build(catalogue), newTurn(), event(obj) and chunk(string), each returning
// actions or throwing an error whose code is "bad_event" for refused events.
// It returns the output lines as objects. With options.sessions it is a
// host naming its sessions (wasm/ABI.md, "Sessions"): a start event that
// continues the log carries the session's name, the fingerprint of the
// last turn's cache action and the messages logged since, and goes again
// with the whole history on need_history; cache and need_history actions
// are left out of the output, which must then be the same; options.resumed
// is called for each start the engine took without the whole history.
export async function replay(t, driver, options = {}) {
  await driver.build(t.catalogue);
  const out = [];
  let log = [];
  let session = 1;
  let kept = null; // {fingerprint, messages}
  for (const [i, raw] of t.events.entries()) {
    let ev = { ...raw };
    if (ev.clear === true) {
      log = [];
      delete ev.clear;
      session++;
      kept = null;
    }
    let full = null;
    if (ev.type === "start") {
      await driver.newTurn();
      if ("history" in ev) {
        // The history given is the session's log, as a host's store holds
        // it, in a session of its own.
        log = Array.isArray(ev.history) ? [...ev.history] : [];
        session++;
        kept = null;
      } else {
        if (log.length > 0) ev.history = log;
        if (options.sessions) {
          ev.session = `s${session}`;
          if (kept) {
            full = ev;
            ev = { ...ev, fingerprint: kept.fingerprint, history: log.slice(kept.messages) };
          }
        }
      }
    }
    let actions;
    try {
      actions = ev.type === "chunk" ? await driver.chunk(ev.data) : await driver.event(ev);
      if (full && actions.length === 1 && actions[0].type === "need_history") actions = await driver.event(full);
      else if (full) options.resumed?.();
    } catch (err) {
      if (err.code !== "bad_event") throw err;
      out.push({ event: i, error: err.message });
      continue;
    }
    for (const a of actions) {
      if (a.type === "cache") {
        kept = a.cache;
        continue;
      }
      if (a.type === "need_history") continue;
      out.push({ event: i, action: a });
      if (a.type === "append") log = log.concat(a.messages);
    }
  }
  return out;
}
