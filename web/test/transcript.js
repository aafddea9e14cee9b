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
// It returns the output lines as objects.
export async function replay(t, driver) {
  await driver.build(t.catalogue);
  const out = [];
  let log = [];
  for (const [i, raw] of t.events.entries()) {
    const ev = { ...raw };
    if (ev.clear === true) {
      log = [];
      delete ev.clear;
    }
    if (ev.type === "start") {
      await driver.newTurn();
      // A start with history makes it the session's log, as a host's store
      // holds it; one without is given the log so far.
      if ("history" in ev) log = Array.isArray(ev.history) ? [...ev.history] : [];
      else if (log.length > 0) ev.history = log;
    }
    let actions;
    try {
      actions = ev.type === "chunk" ? await driver.chunk(ev.data) : await driver.event(ev);
    } catch (err) {
      if (err.code !== "bad_event") throw err;
      out.push({ event: i, error: err.message });
      continue;
    }
    for (const a of actions) {
      out.push({ event: i, action: a });
      if (a.type === "append") log = log.concat(a.messages);
    }
  }
  return out;
}
