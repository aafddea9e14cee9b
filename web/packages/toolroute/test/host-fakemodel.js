// A scripted model server on loopback for the JS host's tests, the port of
// internal/fakemodel: it answers each request with the next reply of
// its script, in one of the four wire formats (OpenAI Chat Completions,
// Anthropic Messages, the OpenAI Responses API, Gemini), whole or streamed
// as server-sent events (as the request's "stream", or Gemini's path, asks),
// and records every request it receives. It refuses what the real APIs
// refuse, in their words, without spending a scripted reply: an unknown
// top-level field, a Responses function_call_output without its call,
// Gemini function responses that do not answer the calls before them, and
// a call of the current turn without its thought signature.
import http from "node:http";

export const FORMATS = ["openai", "anthropic", "responses", "gemini"];

// Replies: {text}, {calls: [{name, args}]}, {status, errorBody, retryAfter};
// any of them with wait, a promise the answer waits for; or a function that
// gives one when its request comes (a reply holding a time counted from
// then), as internal/fakemodel's Reply.Make.
export const text = (t) => ({ text: t });
export const toolCall = (name, args) => ({ calls: [{ name, args }] });
export const error = (status, errorBody, retryAfter) => ({ status, errorBody, retryAfter });

// rateLimited is format's 429 asking to wait seconds: Retry-After for all
// but Gemini, which says it in the body's google.rpc.RetryInfo.
export function rateLimited(format, seconds) {
  switch (format) {
    case "anthropic":
      return error(429, '{"type":"error","error":{"type":"rate_limit_error","message":"This request would exceed the rate limit for your organization of 50 requests per minute."}}', String(seconds));
    case "gemini":
      return error(429, JSON.stringify({ error: { code: 429, message: "You exceeded your current quota, please check your plan and billing details.", status: "RESOURCE_EXHAUSTED",
        details: [{ "@type": "type.googleapis.com/google.rpc.QuotaFailure", violations: [{ quotaId: "GenerateRequestsPerMinutePerProjectPerModel-FreeTier" }] },
          { "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: `${seconds}s` }] } }));
  }
  return error(429, JSON.stringify({ error: { message: `Rate limit reached for fake in organization org-fake on requests per min (RPM): Limit 3, Used 3, Requested 1. Please try again in ${seconds}s.`,
    type: "requests", param: null, code: "rate_limit_exceeded" } }), String(seconds));
}

// overloaded is format's answer when the provider has no capacity.
export function overloaded(format) {
  switch (format) {
    case "anthropic":
      return error(529, '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}');
    case "gemini":
      return error(503, '{"error":{"code":503,"message":"The model is overloaded. Please try again later.","status":"UNAVAILABLE"}}');
  }
  return error(503, '{"error":{"message":"The server is overloaded or not ready yet.","type":"server_error","param":null,"code":null}}');
}

// contextTooLong is format's 400 for a conversation over the context window.
export function contextTooLong(format) {
  switch (format) {
    case "anthropic":
      return error(400, '{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 208310 tokens > 200000 maximum"}}');
    case "responses":
      return error(400, '{"error":{"message":"Your input exceeds the context window of this model. Please adjust your input and try again.","type":"invalid_request_error","param":"input","code":"context_length_exceeded"}}');
    case "gemini":
      return error(400, '{"error":{"code":400,"message":"The input token count (1204857) exceeds the maximum number of tokens allowed (1048576).","status":"INVALID_ARGUMENT"}}');
  }
  return error(400, '{"error":{"message":"This model\'s maximum context length is 128000 tokens. However, your messages resulted in 131072 tokens. Please reduce the length of the messages.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}');
}

// unknownField is format's 400 for a request field the API does not have.
export function unknownField(format, name) {
  switch (format) {
    case "anthropic":
      return error(400, JSON.stringify({ type: "error", error: { type: "invalid_request_error", message: `${name}: Extra inputs are not permitted` } }));
    case "responses":
      return error(400, JSON.stringify({ error: { message: `Unknown parameter: '${name}'.`, type: "invalid_request_error", param: name, code: "unknown_parameter" } }));
    case "gemini": {
      const message = `Invalid JSON payload received. Unknown name "${name}": Cannot find field.`;
      return error(400, JSON.stringify({ error: { code: 400, message, status: "INVALID_ARGUMENT",
        details: [{ "@type": "type.googleapis.com/google.rpc.BadRequest", fieldViolations: [{ description: message }] }] } }));
    }
  }
  return error(400, JSON.stringify({ error: { message: `Unrecognized request argument supplied: ${name}`, type: "invalid_request_error", param: null, code: null } }));
}

function badRequest(format, message) {
  switch (format) {
    case "anthropic":
      return error(400, JSON.stringify({ type: "error", error: { type: "invalid_request_error", message } }));
    case "gemini":
      return error(400, JSON.stringify({ error: { code: 400, message, status: "INVALID_ARGUMENT" } }));
  }
  return error(400, JSON.stringify({ error: { message, type: "invalid_request_error", param: "input", code: null } }));
}

// KNOWN_FIELDS are each format's request fields, as its API reference lists
// them (internal/fakemodel's list).
const KNOWN_FIELDS = {
  openai: ["audio", "frequency_penalty", "logit_bias", "logprobs", "max_completion_tokens", "max_tokens", "messages", "metadata",
    "modalities", "model", "n", "parallel_tool_calls", "prediction", "presence_penalty", "prompt_cache_key", "reasoning_effort",
    "response_format", "safety_identifier", "seed", "service_tier", "stop", "store", "stream", "stream_options", "temperature",
    "tool_choice", "tools", "top_logprobs", "top_p", "user", "verbosity", "web_search_options"],
  anthropic: ["container", "context_management", "max_tokens", "mcp_servers", "messages", "metadata", "model", "service_tier",
    "stop_sequences", "stream", "system", "temperature", "thinking", "tool_choice", "tools", "top_k", "top_p"],
  responses: ["background", "context_management", "conversation", "include", "input", "instructions", "max_output_tokens",
    "max_tool_calls", "metadata", "model", "parallel_tool_calls", "previous_response_id", "prompt", "prompt_cache_key",
    "prompt_cache_retention", "reasoning", "safety_identifier", "service_tier", "store", "stream", "stream_options",
    "temperature", "text", "tool_choice", "tools", "top_logprobs", "top_p", "truncation", "user"],
  gemini: ["cachedContent", "contents", "generationConfig", "safetySettings", "systemInstruction", "toolConfig", "tools"],
};

// check gives the refusal of a request the provider would refuse, or null.
function check(format, json) {
  if (json === null || typeof json !== "object" || Array.isArray(json)) return badRequest(format, "the request body is not a JSON object");
  for (const k of Object.keys(json).sort()) if (!KNOWN_FIELDS[format].includes(k)) return unknownField(format, k);
  if (format === "anthropic") {
    // Deferred tools and cache breakpoints, as the Messages API checks them.
    const tools = Array.isArray(json.tools) ? json.tools : [];
    const deferred = new Set(tools.filter((t) => t.defer_loading).map((t) => t.name));
    if (tools.length && deferred.size === tools.length) return badRequest(format, "At least one tool must have defer_loading=false; all tools cannot be deferred.");
    let breakpoints = tools.filter((t) => t.cache_control).length + (Array.isArray(json.system) ? json.system.filter((b) => b.cache_control).length : 0);
    for (const [i, m] of (json.messages ?? []).entries()) {
      for (const [j, b] of (Array.isArray(m.content) ? m.content : []).entries()) {
        if (b.cache_control) breakpoints++;
        if (b.type !== "tool_result" || !Array.isArray(b.content)) continue;
        for (const c of b.content) {
          if (c.type === "tool_reference" && !deferred.has(c.tool_name)) {
            return badRequest(format, `messages.${i}.content.${j}: tool_reference to '${c.tool_name}', which is not a deferred tool (defer_loading: true) of the request's tools.`);
          }
        }
      }
    }
    if (breakpoints > 4) return badRequest(format, `A maximum of 4 blocks with cache_control may be provided. Found ${breakpoints}.`);
  }
  if (format === "responses") {
    const sh = shape(json);
    const tools = Array.isArray(json.tools) ? json.tools : [];
    if (tools.some((t) => t.defer_loading || (t.tools ?? []).some((f) => f.defer_loading)) && !tools.some((t) => t.type === "tool_search")) {
      return badRequest(format, "Deferred tools (defer_loading: true) require the tool_search tool in 'tools'.");
    }
    for (const it of Array.isArray(json.input) ? json.input : []) {
      if (it.type === "function_call" && it.namespace && sh.namespace.get(it.name) !== it.namespace) {
        return badRequest(format, `Invalid 'input[].namespace': no namespace '${it.namespace}' with function '${it.name}' in 'tools'.`);
      }
    }
    const searched = new Set();
    for (const it of Array.isArray(json.input) ? json.input : []) {
      if (it.type === "tool_search_call") searched.add(it.call_id);
      if (it.type === "tool_search_output" && !searched.has(it.call_id)) return badRequest(format, `No tool search call found for tool_search_output with call_id ${it.call_id}.`);
    }
  }
  if (format === "responses" && Array.isArray(json.input)) {
    const called = new Set();
    for (const it of json.input) {
      if (it.type === "function_call") {
        if (it.id && !String(it.id).startsWith("fc")) return badRequest(format, `Invalid 'input[].id': '${it.id}'. Expected an ID that begins with 'fc'.`);
        called.add(it.call_id);
      }
      if (it.type === "function_call_output" && !called.has(it.call_id)) return badRequest(format, `No tool call found for function call output with call_id ${it.call_id}.`);
    }
  }
  if (format === "gemini") {
    const turns = Array.isArray(json.contents) ? json.contents : [];
    if (turns.length === 0) return badRequest(format, "* GenerateContentRequest.contents: contents is not specified");
    let current = 0;
    turns.forEach((t, i) => {
      if (t.role === "user" && (t.parts ?? []).some((p) => typeof p.text === "string")) current = i;
    });
    let calls = 0;
    for (const [i, t] of turns.entries()) {
      const parts = t.parts ?? [];
      const first = parts.find((p) => p.functionCall);
      if (first && i > current && !first.thoughtSignature) {
        return badRequest(format, `Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call \`default_api:x\` , position ${i + 1}.`);
      }
      const responses = parts.filter((p) => p.functionResponse).length;
      if (responses > 0 && responses !== calls) {
        return badRequest(format, "Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.");
      }
      calls = parts.filter((p) => p.functionCall).length;
    }
  }
  return null;
}

// route checks the method and path: {stream, ok}.
function route(format, method, url, json) {
  if (method !== "POST") return { ok: false };
  const u = new URL(url, "http://x");
  const paths = { openai: "/v1/chat/completions", anthropic: "/v1/messages", responses: "/v1/responses" };
  if (format !== "gemini") return { ok: u.pathname === paths[format], stream: !!json?.stream };
  const m = /^\/v1beta\/models\/[^/:]+:(generateContent|streamGenerateContent)$/.exec(u.pathname);
  if (!m) return { ok: false };
  return { ok: true, stream: m[1] === "streamGenerateContent" && u.searchParams.get("alt") === "sse", array: m[1] === "streamGenerateContent" && u.searchParams.get("alt") !== "sse" };
}

export async function startFakeModel(format, ...replies) {
  const script = [...replies];
  const requests = [];
  let calls = 0;
  const server = http.createServer((req, res) => {
    const parts = [];
    req.on("data", (d) => parts.push(d));
    req.on("end", async () => {
      const body = Buffer.concat(parts).toString("utf8");
      const json = safeJSON(body);
      requests.push({ path: req.url, headers: req.headers, body, json });
      const where = route(format, req.method, req.url, json);
      const refused = where.ok ? check(format, json) : null;
      let reply = refused;
      if (!refused) {
        reply = calls < script.length ? script[calls] : null;
        calls++;
        if (typeof reply === "function") reply = reply();
        if (reply && format === "responses") reply = shaped(shape(json), reply);
      }
      const id = "r" + calls;
      const fail = (status, msg) => {
        res.writeHead(status, { "content-type": "application/json" });
        res.end(msg);
      };
      if (!where.ok) {
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
      if (where.array) {
        res.writeHead(200, { "content-type": "application/json" });
        return res.end("[" + geminiChunks(id, reply).join(",\n") + "]");
      }
      if (where.stream) {
        res.writeHead(200, { "content-type": "text/event-stream" });
        for (const ev of events(format, id, reply, !!json?.stream_options?.include_usage)) res.write(ev);
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
    baseURL: format === "openai" || format === "responses" ? url + "/v1" : url,
    requests,
    add: (...r) => script.push(...r),
    close: () => new Promise((r) => server.close(r)),
  };
}

// toolNames lists the names of the tools a request offered, in order, in
// any of the formats.
export function toolNames(req) {
  return (req.json?.tools ?? []).flatMap((t) => (t.functionDeclarations ? t.functionDeclarations.map((d) => d.name) : [t.function?.name ?? t.name]));
}

function safeJSON(s) {
  try {
    return JSON.parse(s);
  } catch {
    return null;
  }
}

const orEmpty = (a) => (a && a.trim() ? a : "{}");
const half = (s) => [s.slice(0, s.length >> 1), s.slice(s.length >> 1)];

// signature is the thought signature the fake Gemini gives a reply's first
// call, base64 as the API sends bytes.
export const signature = (id) => Buffer.from("signature of " + id).toString("base64");

function responsesObject(id, r, status) {
  const output = [];
  if (status === "completed") {
    if (r.text) output.push(responsesMessage(id, r.text, "completed"));
    (r.calls ?? []).forEach((c, i) => output.push(responsesCall(id, i, c, orEmpty(c.args), "completed")));
  }
  return { id: "resp_" + id, object: "response", created_at: 1772355600, status, error: null, incomplete_details: null, model: "fake", output, store: false,
    usage: status === "completed" ? { input_tokens: 10, input_tokens_details: { cached_tokens: 0 }, output_tokens: 5, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 15 } : null };
}

function responsesMessage(id, text, status) {
  return { id: "msg_" + id, type: "message", status, role: "assistant", content: text ? [{ type: "output_text", text, annotations: [] }] : [] };
}

// shape is how a Responses request's native tools change a reply's calls:
// load_tool_group is a client tool search when the request offers one, and
// a call of a namespace's function names its namespace.
function shape(json) {
  const sh = { search: false, namespace: new Map() };
  for (const t of Array.isArray(json?.tools) ? json.tools : []) {
    if (t.type === "tool_search" && t.execution === "client") sh.search = true;
    if (t.type === "namespace") for (const f of t.tools ?? []) sh.namespace.set(f.name, t.name);
  }
  return sh;
}

function shaped(sh, r) {
  if (!r.calls) return r;
  return { ...r, calls: r.calls.map((c) => ({ ...c, search: sh.search && c.name === "load_tool_group", namespace: sh.namespace.get(c.name) })) };
}

function responsesCall(id, i, c, args, status) {
  if (c.search) {
    return { id: `tsc_${id}_${i}`, type: "tool_search_call", status, execution: "client", call_id: `call_${id}_${i}`, arguments: args ? JSON.parse(args) : {} };
  }
  const call = { id: `fc_${id}_${i}`, type: "function_call", status, call_id: `call_${id}_${i}`, name: c.name, arguments: args };
  if (c.namespace) call.namespace = c.namespace;
  return call;
}

function geminiParts(id, text, calls = []) {
  const parts = [];
  if (text) parts.push({ text });
  calls.forEach((c, i) => {
    const p = { functionCall: { id: `fc_${id}_${i}`, name: c.name, args: JSON.parse(orEmpty(c.args)) } };
    if (i === 0) p.thoughtSignature = signature(id);
    parts.push(p);
  });
  return parts;
}

function geminiChunk(id, parts, last) {
  const cand = { content: { role: "model", parts }, index: 0 };
  if (last) cand.finishReason = "STOP";
  const usageMetadata = last ? { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 } : { promptTokenCount: 10, totalTokenCount: 10 };
  return JSON.stringify({ candidates: [cand], usageMetadata, modelVersion: "fake", responseId: "resp_" + id });
}

// geminiChunks stream a reply: text in two chunks, then the calls, whole,
// with the finishReason.
function geminiChunks(id, r) {
  const calls = r.calls ?? [];
  const [a, b] = half(r.text ?? "");
  const out = [];
  if (!calls.length) {
    if (a) out.push(geminiChunk(id, geminiParts(id, a), false));
    out.push(geminiChunk(id, geminiParts(id, b), true));
    return out;
  }
  for (const t of [a, b]) if (t) out.push(geminiChunk(id, geminiParts(id, t), false));
  out.push(geminiChunk(id, geminiParts(id, "", calls), true));
  return out;
}

function whole(format, id, r) {
  const calls = r.calls ?? [];
  if (format === "anthropic") {
    const content = [];
    if (r.text) content.push({ type: "text", text: r.text });
    calls.forEach((c, i) => content.push({ type: "tool_use", id: `toolu_${id}_${i}`, name: c.name, input: JSON.parse(orEmpty(c.args)) }));
    return { id: "msg_" + id, type: "message", role: "assistant", model: "fake", content,
      stop_reason: calls.length ? "tool_use" : "end_turn", stop_sequence: null, usage: { input_tokens: 10, output_tokens: 5 } };
  }
  if (format === "responses") return responsesObject(id, r, "completed");
  if (format === "gemini") return JSON.parse(geminiChunk(id, geminiParts(id, r.text, calls), true));
  const msg = { role: "assistant", content: r.text || null };
  if (calls.length) {
    msg.tool_calls = calls.map((c, i) => ({ id: `call_${id}_${i}`, type: "function", function: { name: c.name, arguments: orEmpty(c.args) } }));
  }
  return { id: "chatcmpl-" + id, object: "chat.completion", model: "fake",
    choices: [{ index: 0, message: msg, finish_reason: calls.length ? "tool_calls" : "stop" }],
    usage: OPENAI_USAGE };
}

// OPENAI_USAGE is what every OpenAI reply costs, whole or streamed.
const OPENAI_USAGE = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };

// events streams a reply: text in two deltas, each call's arguments in two
// fragments, as the providers do; usage: an OpenAI request asked for its
// usage.
function events(format, id, r, usage) {
  const out = [];
  const calls = r.calls ?? [];
  const data = (event, v) => out.push((event ? `event: ${event}\n` : "") + `data: ${JSON.stringify(v)}\n\n`);
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
  if (format === "responses") {
    let seq = 0;
    const ev = (type, fields) => data(type, { type, sequence_number: seq++, ...fields });
    ev("response.created", { response: responsesObject(id, r, "in_progress") });
    let idx = 0;
    if (r.text) {
      ev("response.output_item.added", { output_index: idx, item: responsesMessage(id, "", "in_progress") });
      for (const t of half(r.text)) ev("response.output_text.delta", { item_id: "msg_" + id, output_index: idx, content_index: 0, delta: t, logprobs: [] });
      ev("response.output_text.done", { item_id: "msg_" + id, output_index: idx, content_index: 0, text: r.text, logprobs: [] });
      ev("response.output_item.done", { output_index: idx, item: responsesMessage(id, r.text, "completed") });
      idx++;
    }
    calls.forEach((c, i) => {
      const args = orEmpty(c.args);
      if (c.search) {
        ev("response.output_item.added", { output_index: idx, item: responsesCall(id, i, c, "", "in_progress") });
        ev("response.output_item.done", { output_index: idx, item: responsesCall(id, i, c, args, "completed") });
        idx++;
        return;
      }
      const itemID = `fc_${id}_${i}`;
      ev("response.output_item.added", { output_index: idx, item: responsesCall(id, i, c, "", "in_progress") });
      for (const p of half(args)) ev("response.function_call_arguments.delta", { item_id: itemID, output_index: idx, delta: p });
      ev("response.function_call_arguments.done", { item_id: itemID, output_index: idx, name: c.name, arguments: args });
      ev("response.output_item.done", { output_index: idx, item: responsesCall(id, i, c, args, "completed") });
      idx++;
    });
    ev("response.completed", { response: responsesObject(id, r, "completed") });
    return out;
  }
  if (format === "gemini") return geminiChunks(id, r).map((c) => `data: ${c}\r\n\r\n`);
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
  // Asked for (stream_options.include_usage), the usage comes last, in a chunk with no choices.
  if (usage) data("", { id: "chatcmpl-" + id, object: "chat.completion.chunk", model: "fake", choices: [], usage: OPENAI_USAGE });
  out.push("data: [DONE]\n\n");
  return out;
}
