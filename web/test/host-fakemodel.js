// A scripted model server on loopback for the JS host's tests, the port of
// host/internal/fakemodel: it answers each request with the next reply of
// its script, in the OpenAI Chat Completions or Anthropic Messages wire
// format, whole or streamed as server-sent events (as the request's
// "stream" asks), and records every request it receives.
import http from "node:http";

// Replies: {text}, {calls: [{name, args}]}, {status, errorBody, retryAfter};
// any of them with wait, a promise the answer waits for.
export const text = (t) => ({ text: t });
export const toolCall = (name, args) => ({ calls: [{ name, args }] });
export const error = (status, errorBody, retryAfter) => ({ status, errorBody, retryAfter });

export async function startFakeModel(format, ...replies) {
  const script = [...replies];
  const requests = [];
  let calls = 0;
  const server = http.createServer((req, res) => {
    const parts = [];
    req.on("data", (d) => parts.push(d));
    req.on("end", async () => {
      const body = Buffer.concat(parts).toString("utf8");
      requests.push({ path: req.url, headers: req.headers, body, json: safeJSON(body) });
      const reply = calls < script.length ? script[calls] : null;
      calls++;
      const id = "r" + calls;
      const want = format === "openai" ? "/v1/chat/completions" : "/v1/messages";
      const fail = (status, msg) => {
        res.writeHead(status, { "content-type": "application/json" });
        res.end(msg);
      };
      if (req.method !== "POST" || req.url !== want) {
        return fail(404, JSON.stringify({ error: { message: `no route ${req.method} ${req.url}`, type: "invalid_request_error" } }));
      }
      if (!reply) return fail(500, '{"error":{"message":"the script has no more replies","type":"server_error"}}');
      if (reply.wait) await reply.wait;
      if (reply.status) {
        const h = { "content-type": "application/json" };
        if (reply.retryAfter) h["retry-after"] = reply.retryAfter;
        res.writeHead(reply.status, h);
        return res.end(reply.errorBody ?? "");
      }
      if (safeJSON(body)?.stream) {
        res.writeHead(200, { "content-type": "text/event-stream" });
        for (const ev of events(format, id, reply)) res.write(ev);
        return res.end();
      }
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(whole(format, id, reply)));
    });
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${server.address().port}`;
  return {
    url,
    baseURL: format === "openai" ? url + "/v1" : url,
    requests,
    add: (...r) => script.push(...r),
    close: () => new Promise((r) => server.close(r)),
  };
}

// toolNames lists the names of the tools a request offered, in order.
export function toolNames(req) {
  return (req.json?.tools ?? []).map((t) => t.function?.name ?? t.name);
}

function safeJSON(s) {
  try {
    return JSON.parse(s);
  } catch {
    return null;
  }
}

const orEmpty = (a) => (a && a.trim() ? a : "{}");

function whole(format, id, r) {
  const calls = r.calls ?? [];
  if (format === "anthropic") {
    const content = [];
    if (r.text) content.push({ type: "text", text: r.text });
    calls.forEach((c, i) => content.push({ type: "tool_use", id: `toolu_${id}_${i}`, name: c.name, input: JSON.parse(orEmpty(c.args)) }));
    return { id: "msg_" + id, type: "message", role: "assistant", model: "fake", content,
      stop_reason: calls.length ? "tool_use" : "end_turn", stop_sequence: null, usage: { input_tokens: 10, output_tokens: 5 } };
  }
  const msg = { role: "assistant", content: r.text || null };
  if (calls.length) {
    msg.tool_calls = calls.map((c, i) => ({ id: `call_${id}_${i}`, type: "function", function: { name: c.name, arguments: orEmpty(c.args) } }));
  }
  return { id: "chatcmpl-" + id, object: "chat.completion", model: "fake",
    choices: [{ index: 0, message: msg, finish_reason: calls.length ? "tool_calls" : "stop" }],
    usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } };
}

// events streams a reply: text in two deltas, each call's arguments in two
// fragments, as the providers do.
function events(format, id, r) {
  const out = [];
  const calls = r.calls ?? [];
  const data = (event, v) => out.push((event ? `event: ${event}\n` : "") + `data: ${JSON.stringify(v)}\n\n`);
  const half = (s) => [s.slice(0, s.length >> 1), s.slice(s.length >> 1)];
  if (format === "anthropic") {
    data("message_start", { type: "message_start", message: { id: "msg_" + id, type: "message", role: "assistant", content: [], model: "fake", usage: { input_tokens: 10, output_tokens: 1 } } });
    let idx = 0;
    if (r.text) {
      data("content_block_start", { type: "content_block_start", index: idx, content_block: { type: "text", text: "" } });
      for (const t of half(r.text)) data("content_block_delta", { type: "content_block_delta", index: idx, delta: { type: "text_delta", text: t } });
      data("content_block_stop", { type: "content_block_stop", index: idx });
      idx++;
    }
    calls.forEach((c, i) => {
      data("content_block_start", { type: "content_block_start", index: idx, content_block: { type: "tool_use", id: `toolu_${id}_${i}`, name: c.name, input: {} } });
      for (const p of ["", ...half(orEmpty(c.args))]) data("content_block_delta", { type: "content_block_delta", index: idx, delta: { type: "input_json_delta", partial_json: p } });
      data("content_block_stop", { type: "content_block_stop", index: idx });
      idx++;
    });
    data("message_delta", { type: "message_delta", delta: { stop_reason: calls.length ? "tool_use" : "end_turn" }, usage: { output_tokens: 5 } });
    data("message_stop", { type: "message_stop" });
    return out;
  }
  const chunk = (delta, finish) => data("", { id: "chatcmpl-" + id, object: "chat.completion.chunk", model: "fake", choices: [{ index: 0, delta, finish_reason: finish }] });
  if (r.text) {
    const [a, b] = half(r.text);
    chunk({ role: "assistant", content: a }, null);
    chunk({ content: b }, null);
  }
  calls.forEach((c, i) => {
    const [a, b] = half(orEmpty(c.args));
    chunk({ tool_calls: [{ index: i, id: `call_${id}_${i}`, type: "function", function: { name: c.name, arguments: a } }] }, null);
    chunk({ tool_calls: [{ index: i, function: { arguments: b } }] }, null);
  });
  chunk({}, calls.length ? "tool_calls" : "stop");
  out.push("data: [DONE]\n\n");
  return out;
}
