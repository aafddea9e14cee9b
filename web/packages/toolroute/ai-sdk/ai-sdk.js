// toolroute/ai-sdk: toolroute's routing for an app that keeps its own Vercel
// AI SDK loop (generateText, streamText, ToolLoopAgent). The app passes
// router.tools and router.prepareStep; before every step prepareStep hands
// the module the step's messages, as toolroute's log (docs/reference/routing.md), and answers
// with the tools the module would send (activeTools) and its system prompt
// (instructions: the app's, then the tool groups to load). The groups a
// conversation loaded are found again in its messages on every step of
// every later turn: the app saves its messages as it likes and toolroute
// keeps no state of its own.
//
// The tools run here: load_tool_group and load_skill answer from the
// catalogue, JS tools through options.runJS (jsrun's Runner.call), host
// tools through options.native. A tool whose requiredPermissions say it
// writes, sends, deletes, shares or takes secrets has needsApproval: the
// AI SDK asks the app before it runs. A call of a tool that is not active (its
// group not loaded) is refused by the AI SDK itself (NoSuchToolError), as
// activeTools leaves it out; the model reads that refusal.
import { jsonSchema } from "ai";
import { loadToolroute } from "../index.js";
import { typedCatalogue, withTyped, nativeWith, refusedTyped } from "../tools.js";

// createRouter makes a router. options:
//   module: a driver instance (Toolroute) or a function (sync or async)
//     making one; the package's toolroute.wasm by default;
//   tools: host tools as code (tool() and group() from "toolroute"):
//     an array of tools and groups, or an object of them by name; loaded
//     after the catalogue's, each run by its execute;
//   catalogue: the catalogue toolroute_load takes (wasm/ABI.md);
//   sources: JS sources by the manifests' source references: a Map, an
//     object or a function(ref) giving the text (or a promise of it);
//   runJS: async (call) => {status, output, error_type, message}, as
//     jsrun's Runner.call: runs the JS tools;
//   native: {name: async (input, {signal}) => string}: host tools;
//   env: the variables JS tools may read (each only those its manifest
//     declares): an object or a function(name);
//   instructions: the app's own system prompt, before the group listing;
//   memories: texts the module lists in the system prompt.
export async function createRouter(options = {}) {
  const made = options.module ?? (() => loadToolroute());
  const inst = typeof made === "function" ? await made() : made;
  if (!inst || typeof inst.describe !== "function") {
    throw new Error("ai-sdk: options.module must be a Toolroute instance or a function making one");
  }
  return new Router(inst, options);
}

// Router holds one module instance loaded with the catalogue. Its
// methods are synchronous module calls, safe from concurrent turns.
export class Router {
  #inst;
  #o;
  #catalogue;
  #all; // describe() of the catalogue, no history
  #tools;

  constructor(inst, options) {
    this.#inst = inst;
    const typed = typedCatalogue(options.tools);
    this.#o = { ...options, native: nativeWith(options.native, typed) };
    this.#catalogue = withTyped(options.catalogue ?? {}, typed);
    this.report = inst.load(this.#catalogue);
    this.#all = inst.describe({});
    // A typed tool the module refused is a bug in the app's code: say so now.
    const refused = refusedTyped(typed, this.#all, this.report);
    if (refused) throw refused;
    this.#tools = this.#makeTools();
  }

  // tools are every enabled tool of the catalogue and the meta-tools, as AI
  // SDK tools: give them all to generateText/streamText; prepareStep
  // chooses the active ones.
  get tools() {
    return this.#tools;
  }

  // prepareStep is the AI SDK's prepareStep: the step's active tools and
  // system prompt, from its messages. Bound, to pass as it is.
  prepareStep = ({ messages }) => {
    const d = this.describe(messages);
    return { activeTools: d.active.filter((n) => Object.hasOwn(this.#tools, n)), instructions: d.system_prompt };
  };

  // describe is toolroute_describe for a conversation given as AI SDK
  // messages: system_prompt, active, loaded_groups, groups...
  describe(messages = []) {
    return this.#inst.describe({
      system_prompt: this.#o.instructions ?? "",
      memories: this.#o.memories ?? [],
      history: toHistory(messages),
    });
  }

  // loadedGroups are the groups the messages loaded (docs/reference/routing.md).
  loadedGroups(messages = []) {
    return this.describe(messages).loaded_groups ?? [];
  }

  #makeTools() {
    const out = {};
    for (const t of this.#all.tools) {
      if (!t.enabled) continue;
      out[t.name] = {
        description: t.description,
        inputSchema: jsonSchema(t.parameters ?? { type: "object", properties: {} }),
        // A tool that acts on the world asks first, as toolroute's hosts
        // ask by default: through the AI SDK's own approval requests.
        needsApproval: (t.required_permissions ?? []).some((p) => ASKING.has(p)),
        execute: (input, opts = {}) => this.#run(t, input ?? {}, opts),
      };
    }
    return out;
  }

  async #run(t, input, { abortSignal } = {}) {
    if (t.origin?.kind === "meta") {
      if (t.name === "load_tool_group") return this.#loadGroup(input.group_name);
      if (t.name === "load_skill") return this.#loadSkill(input.name);
      throw new Error(`ai-sdk: toolroute's ${t.name} is not offered by this adapter`);
    }
    if (t.origin?.kind === "js") return this.#runJS(t, input, abortSignal);
    const fn = this.#o.native?.[t.name];
    if (typeof fn !== "function") throw toolError("execution_error", `host tool '${t.name}' has no implementation: give it in options.native`);
    try {
      return String(await fn(input, { signal: abortSignal }));
    } catch (e) {
      throw toolError(e?.type ?? e?.error_type ?? "execution_error", e?.message ?? String(e));
    }
  }

  #loadGroup(name) {
    const g = this.#all.groups.find((x) => x.name === name && x.available);
    if (!g) {
      const names = this.#all.groups.filter((x) => x.available).map((x) => x.name);
      throw toolError("not_found", `Tool group '${name}' not found. Available groups: ${names.join(", ") || "none"}`);
    }
    // The module's answer to load_tool_group, which the demo model reads too.
    const lines = g.tools.map((name) => `- ${name}: ${this.#all.tools.find((t) => t.name === name)?.description ?? ""}`);
    return `Loaded ${g.tools.length} tools from group '${g.display_name || g.name}':\n${lines.join("\n")}`;
  }

  #loadSkill(name) {
    const s = (this.#catalogue.skills ?? []).find((x) => x.name === name);
    if (!s) throw toolError("not_found", `Skill '${name}' not found. Available skills: ${this.#all.skills.map((x) => x.name).join(", ") || "none"}`);
    return s.content;
  }

  async #runJS(t, input, signal) {
    if (typeof this.#o.runJS !== "function") {
      throw toolError("execution_error", `JS tool '${t.name}' cannot run: give options.runJS (a Runner's call, from toolroute/jsrun)`);
    }
    const source = await this.#source(t.origin.source);
    if (source === undefined) throw toolError("execution_error", `the source ${t.origin.source} of JS tool '${t.name}' is missing from options.sources`);
    const r = await this.#o.runJS({
      tool: t.name,
      sourceRef: t.origin.source,
      source,
      function: t.origin.function,
      params: input,
      env: this.#env(t.env),
      timeoutMs: (t.timeout_seconds ?? 30) * 1000,
      signal,
      // The module words the bridges' refusals (web/packages/toolroute/jsrun/words.js).
      check: (op, args) => this.#inst.check({ op, args }),
    });
    if (r.status !== "success") throw toolError(r.error_type ?? "execution_error", r.message ?? "the tool failed");
    return typeof r.output === "string" ? r.output : JSON.stringify(r.output);
  }

  async #source(ref) {
    const s = this.#o.sources;
    if (!s) return undefined;
    if (typeof s === "function") return s(ref);
    if (s instanceof Map) return s.get(ref);
    return Object.hasOwn(s, ref) ? s[ref] : undefined;
  }

  #env(names) {
    const e = this.#o.env;
    const out = {};
    for (const name of names ?? []) {
      const v = typeof e === "function" ? e(name) : e && Object.hasOwn(e, name) ? e[name] : undefined;
      if (v !== undefined && v !== null) out[name] = String(v);
    }
    return out;
  }
}

// ASKING are the requiredPermissions whose tools ask the user before they
// run (registry.DefaultDecision; secrets always asks).
const ASKING = new Set(["write", "send", "delete", "share", "secrets"]);

// ToolError is a tool's failure: the AI SDK gives the model the error as
// text ("NAME: MESSAGE"), the call's error result, which reads as
// toolroute's hosts give a failure to the model: "Error (TYPE): MESSAGE".
export class ToolError extends Error {
  constructor(type, message) {
    super(message);
    this.name = `Error (${type})`;
    this.type = type;
  }
}

const toolError = (type, message) => new ToolError(type, message);

// ERROR_OUTPUTS are the AI SDK tool result outputs that are failures.
const ERROR_OUTPUTS = new Set(["error-text", "error-json", "execution-denied"]);

// toHistory converts AI SDK model messages (ModelMessage: system, user,
// assistant, tool) to toolroute's log (wasm/ABI.md, "Messages"): a tool
// call's status is its result's (success or error), "pending" while it has
// none. System messages are left out: the router makes the system prompt.
export function toHistory(messages) {
  if (!Array.isArray(messages)) throw new Error("ai-sdk: messages must be an array of AI SDK model messages");
  const results = new Map();
  for (const m of messages) {
    if (m?.role !== "tool" || !Array.isArray(m.content)) continue;
    for (const p of m.content) if (p?.type === "tool-result") results.set(p.toolCallId, p);
  }
  const out = [];
  for (const m of messages) {
    switch (m?.role) {
      case "user":
        out.push({ type: "user", content: textOf(m.content) });
        break;
      case "assistant": {
        const text = textOf(m.content);
        if (text !== "") out.push({ type: "assistant", content: text });
        if (!Array.isArray(m.content)) break;
        let index = 0;
        for (const p of m.content) {
          if (p?.type !== "tool-call") continue;
          const r = results.get(p.toolCallId);
          out.push({
            type: "tool_call",
            tool_call_id: p.toolCallId,
            tool_name: p.toolName,
            tool_input: typeof p.input === "string" ? p.input : JSON.stringify(p.input ?? {}),
            status: r ? statusOf(r.output) : "pending",
            index: index++,
          });
        }
        break;
      }
      case "tool":
        for (const p of Array.isArray(m.content) ? m.content : []) {
          if (p?.type !== "tool-result") continue;
          out.push({ type: "tool_result", tool_call_id: p.toolCallId, tool_name: p.toolName, content: outputText(p.output), status: statusOf(p.output) });
        }
        break;
      default: // system: the router's; anything else is not the model's
    }
  }
  return out;
}

function statusOf(output) {
  return ERROR_OUTPUTS.has(output?.type) ? "error" : "success";
}

function textOf(content) {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.filter((p) => p?.type === "text").map((p) => p.text).join("");
}

function outputText(o) {
  if (!o) return "";
  if (o.type === "text" || o.type === "error-text") return String(o.value);
  if (o.type === "json" || o.type === "error-json") return JSON.stringify(o.value);
  if (o.type === "execution-denied") return o.reason ?? "denied";
  if (o.type === "content") return (o.value ?? []).filter((p) => p.type === "text").map((p) => p.text).join("");
  return "";
}
