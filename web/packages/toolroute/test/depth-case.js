// Replays testdata/depth/cases.json, JSON nested 10^3 to 10^6 levels deep
// to every export of the module and through every path to JSON inside one
// (its "about" says how; internal/module/depth_test.go is the Go host's
// replay), for every JS host here: Node, a Chromium page and worker, and
// workerd. Nothing in this file needs Node.
import { ToolrouteError, TrapError } from "../driver/toolroute.js";

// replayDepthCases runs file (the parsed cases.json) on one instance from
// instantiate() and returns a line per case and depth, {name, problem},
// problem null when the answer is the one wanted, then a last line for
// the instance and the session it keeps. A trap is a problem; the replay
// goes on in a new instance.
export async function replayDepthCases(file, instantiate) {
  const lines = [];
  let tr = await instantiate();
  tr.load(file.catalogue);
  // A session the instance keeps: its next turn must resume.
  const settings = { format: "openai", model: "m" };
  let turn = tr.turnNew();
  tr.turnEvent(turn, { type: "start", session: "s1", user: "hi", settings });
  const kept = tr.turnEvent(turn, { type: "response", body: JSON.stringify({ choices: [{ message: { content: "Hello." }, finish_reason: "stop" }] }) }).find((a) => a.type === "cache")?.cache;
  tr.turnFree(turn);
  let trapped = null;

  for (const c of file.cases) {
    for (const n of c.depths ?? file.depths) {
      const name = `${c.name} ${n}`;
      const input = c.input[0] + "[".repeat(n) + (c.closed === false ? "" : "]".repeat(n)) + c.input[1];
      let out, err;
      const actions = [];
      const feed = (f, data) => {
        const acts = f(turn, data);
        actions.push(...acts);
        if (acts.some((a) => a.type === "call_model")) tr.turnBody(turn);
      };
      try {
        if (c.export === "load") out = tr.load(input);
        else if (c.export === "describe") out = tr.describe(input);
        else if (c.export === "demo") out = tr.demo(input);
        else {
          turn = tr.turnNew();
          try {
            const before = c.start ? [{ type: "start", user: "hi", settings: c.start }] : [];
            for (const e of [...before, ...(c.setup ?? [])]) feed((h, d) => tr.turnEvent(h, d), e);
            actions.length = 0;
            try {
              feed(c.export === "turn_chunk" ? (h, d) => tr.turnChunk(h, d) : (h, d) => tr.turnEvent(h, d), input);
            } catch (e) {
              if (!(e instanceof ToolrouteError)) throw e;
              err = e;
            }
            for (const e of c.then ?? []) feed((h, d) => tr.turnEvent(h, d), e);
          } finally {
            if (!tr.broken) tr.turnFree(turn);
          }
        }
      } catch (e) {
        if (!(e instanceof ToolrouteError)) {
          if (e instanceof TrapError) {
            trapped ??= `${name}: ${e.message}`;
            tr = await instantiate();
            tr.load(file.catalogue);
          }
          lines.push({ name, problem: `${e.name}: ${e.message}` });
          continue;
        }
        err = e;
      }
      lines.push({ name, problem: check(tr, c, out, err, actions) });
      if (c.export === "load") tr.load(file.catalogue);
    }
  }

  // The instance serves on, and kept the session.
  let problem = trapped && `the instance trapped (${trapped}), losing the session it kept`;
  if (!problem) {
    turn = tr.turnNew();
    const acts = tr.turnEvent(turn, { type: "start", session: "s1", fingerprint: kept?.fingerprint, user: "again", settings });
    if (acts.at(-1)?.type !== "call_model") problem = `the kept session's next start answered ${JSON.stringify(acts)}, not call_model`;
  }
  lines.push({ name: "the instance serves on and kept its session", problem });
  return lines;
}

// check compares an answer with the case's want, giving what differs.
function check(tr, c, out, err, actions) {
  const w = c.want;
  const starts = (s) => typeof s === "string" && s.startsWith(w.message ?? "");
  if (w.error) {
    if (err?.code !== w.error || !starts(err.message)) return `got ${err ? err.code + " " + err.message : "no error"}, want ${w.error} ${w.message}`;
  } else if (err) {
    return `got ${err.code} ${err.message}`;
  }
  const last = actions.at(-1);
  if (w.failed && (last?.type !== "failed" || last.error.code !== w.failed || !starts(last.error.message))) {
    return `last action ${JSON.stringify(last)}, want failed ${w.failed} ${w.message}`;
  }
  if (w.result) {
    const result = actions.flatMap((a) => a.messages ?? []).findLast((m) => m.type === "tool_result");
    if (result?.error_type !== w.result || !starts(result.content)) return `tool result ${JSON.stringify(result)}, want ${w.result} ${w.message}`;
  }
  if (w.last && last?.type !== w.last) return `last action ${last?.type}, want ${w.last}`;
  if (w.errors && (out.errors.length !== 1 || !out.errors[0].startsWith(w.errors))) return `errors ${JSON.stringify(out.errors)}, want one starting ${w.errors}`;
  const skipped = out?.manifests?.[0]?.skipped;
  if (w.skipped && (skipped?.length !== 1 || !skipped[0].reason.startsWith(w.skipped))) return `manifests ${JSON.stringify(out.manifests)}, want one skipped ${w.skipped}`;
  if (w.tools) {
    const names = tr.describe({}).tools.map((t) => t.name);
    const missing = w.tools.filter((t) => !names.includes(t));
    if (missing.length) return `${missing.join(", ")} did not load`;
  }
  return null;
}

