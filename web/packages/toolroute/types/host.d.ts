// Types of toolroute/host (host/host.js): the session loop. It drives the
// module, calls the model, runs the tools and keeps the message log.
import type { Toolroute, Catalogue, LoadReport, Description, Message, Attachment, Bytes, Usage, ToolDefinitions } from "./index.js";
import type { JSCall, JSResult, ModuleCheck } from "./jsrun.js";

export type { Usage } from "./index.js";

export declare const MAX_RESULT_CHARS: number;
export declare const DEFAULT_MAX_PARALLEL_TOOLS: number;
export declare const MAX_RESPONSE_BODY: number;
export declare const FORMATS: readonly ["openai", "anthropic", "responses", "gemini"];

/** The demo model's name, which a demo provider calls when it names no model. */
export declare const DEMO_MODEL: "toolroute-demo";

export type Format = "openai" | "anthropic" | "responses" | "gemini";

/** Where the message logs are kept: methods sync or async. */
export interface Store {
  messages(id: string): Message[] | Promise<Message[]>;
  append(id: string, messages: Message[]): void | Promise<void>;
  /** The messages after the first n, and how many the log holds. */
  messagesFrom?(id: string, n: number): { messages: Message[]; total: number } | Promise<{ messages: Message[]; total: number }>;
}

/** Message logs kept in memory. */
export declare class MemoryStore implements Store {
  messages(id: string): Promise<Message[]>;
  messagesFrom(id: string, n: number): Promise<{ messages: Message[]; total: number }>;
  append(id: string, messages: Message[]): Promise<void>;
}

export interface Provider {
  format: Format;
  /** Where the model calls go, such as "https://api.openai.com/v1". */
  baseURL?: string;
  apiKey?: string;
  model?: string;
  headers?: Record<string, string>;
  /** POST the module's whole model request here (`toolroute serve`'s /api/model) instead. */
  proxyURL?: string;
  /** Add Anthropic's direct-browser-access header (default true). */
  browser?: boolean;
  /** Answer with the module's demo model (format "openai", no URL needed; model defaults to DEMO_MODEL). */
  demo?: boolean;
}

/** A turn's settings, in camelCase as every option; the module's snake_case names still work. */
export interface Settings {
  systemPrompt?: string;
  maxModelCalls?: number;
  maxTokens?: number;
  temperature?: number;
  stream?: boolean;
  routing?: "classic" | "native";
  /** Offer search_tools (and unload_tool_group). */
  searchTools?: boolean;
  /** Tokens of tool schemas per call. */
  toolBudget?: number;
  /** The model's window in tokens, for compaction. */
  contextLimit?: number;
  /** How the user allows a tool that asks when no one can be asked, "{tool}" standing for its name: the sentence that ends the refusal (wasm/ABI.md, settings.allow_hint). */
  allowHint?: string;
  /** @deprecated Still taken; use systemPrompt. */
  system_prompt?: string;
  /** @deprecated Still taken; use maxModelCalls. */
  max_model_calls?: number;
  /** @deprecated Still taken; use maxTokens. */
  max_tokens?: number;
  /** @deprecated Still taken; use searchTools. */
  search_tools?: boolean;
  /** @deprecated Still taken; use toolBudget. */
  tool_budget?: number;
  /** @deprecated Still taken; use contextLimit. */
  context_limit?: number;
  /** @deprecated Still taken; use allowHint. */
  allow_hint?: string;
}

export type Sources = Map<string, string> | Record<string, string> | ((ref: string) => string | undefined | Promise<string | undefined>);

/** What a host-native tool's call is given beside its input. */
export interface NativeToolOptions {
  /** Aborts when the turn is stopped or the call is timed out. */
  signal?: AbortSignal;
  /** The secrets the user granted the call when asked. */
  granted: string[];
  /** The module's check (wasm/ABI.md, toolroute_check), answering at once. */
  check?: ModuleCheck;
  /** Says the work goes on (an MCP server's progress): the call's timeout starts again. */
  progress?: (p?: { progress: number; total?: number; message?: string }) => void;
  /** The model's id of the call. */
  callId?: string;
}

/**
 * A host-native tool: its result (text, or a value given as JSON); a thrown
 * error is a failure the model reads, its type error.type. toolroute/host,
 * toolroute/mcp and toolroute/ai-sdk all take them.
 */
export type NativeTool = (input: Record<string, unknown>, o: NativeToolOptions) => unknown;

/** A user's rule for a tool or a tool group (wasm/ABI.md, Approval). */
export interface Policy {
  tool?: string;
  group?: string;
  decision: "ask" | "allow" | "deny";
}

/** A tool call the module lets through, to run (run_tools) or to ask about first (ask_approval): wasm/ABI.md, Actions. */
export interface Call {
  id: string;
  tool: string;
  /** The arguments, checked by the module. */
  input: Record<string, unknown>;
  /** How to run it: a JS tool's file, source reference and function, a host tool, or a search. */
  origin: { kind: "js" | "host" | "search" | string; file?: string; source?: string; function?: string };
  timeout_seconds: number;
  env?: string[];
  required_permissions?: string[];
  /** The secrets the call asks for, which the user may grant. */
  secrets?: string[];
  /** The secrets the user granted it. */
  granted?: string[];
}

/** A call put to the user (the approval event, options.approve). */
export type ApprovalCall = Call;

/** What a load did (the group_loaded event): a group's, or a search_tools call's (query), or an unload's. */
export interface GroupLoaded {
  /** The group; empty for a search_tools load. */
  name: string;
  display_name: string;
  /** The tools the load added to the active list: null for an unload. */
  added: string[] | null;
  /** The whole active list the next model call sends. */
  active: string[];
  /** What a search_tools call searched. */
  query?: string;
  /** The tools taken off: by unload_tool_group, or to stay within the tool budget. */
  unloaded?: string[];
}

/** What a model call spends on tool schemas, in bytes of the OpenAI tools JSON (wasm/ABI.md, Actions). */
export interface Schema {
  core_tools: number;
  group_listing: number;
  loaded_groups?: { group: string; tools: string[]; bytes: number; text?: string }[];
  core_tools_text?: string;
  group_listing_text?: string;
}

/** An agent: who a turn is (its prompt, model, the groups it may load) and its limits. */
export interface Agent {
  name?: string;
  systemPrompt?: string;
  model?: string;
  /** The tool groups it may load; none is every group. */
  groups?: string[];
  maxModelCalls?: number;
  maxTurnTokens?: number;
  /** The most tokens of tool schemas one of its model calls may send. */
  toolBudget?: number;
  /** @deprecated Still taken; use systemPrompt. */
  system_prompt?: string;
  /** @deprecated Still taken; use maxModelCalls. */
  max_model_calls?: number;
  /** @deprecated Still taken; use maxTurnTokens. */
  max_turn_tokens?: number;
  /** @deprecated Still taken; use toolBudget. */
  tool_budget?: number;
}

/** What an op knows of the turn whose call runs it (agents.run nests a sub-agent's turn in it). */
export interface TurnInfo {
  depth: number;
  askAs: string;
  unattended: boolean;
  relay: (event: Event) => void;
}

export interface HostOptions {
  /** A driver instance, or a function making one (a trapped instance is then replaced). */
  module: Toolroute | (() => Toolroute | Promise<Toolroute>);
  /** Host tools as code (tool() and group() from "toolroute"), loaded after the catalogue's; each runs by its execute. */
  tools?: ToolDefinitions;
  catalogue?: Catalogue;
  sources?: Sources;
  provider: Provider;
  settings?: Settings;
  /** The base system prompt at the start of each turn, instead of settings.system_prompt. */
  prompt?: () => Promise<string> | string;
  memories?: string[] | (() => string[] | Promise<string[]>);
  store?: Store;
  /** Runs JS tools: a Runner from toolroute/jsrun (readied as the host starts when the catalogue has JS tools), or a function running a call, as a Runner's call. */
  runJS?: { call(call: JSCall): Promise<JSResult>; warm?(): Promise<void> } | ((call: JSCall) => Promise<JSResult>);
  native?: Record<string, NativeTool>;
  env?: Record<string, string> | ((name: string) => string | undefined);
  approve?: (sessionId: string, calls: ApprovalCall[], o: { signal?: AbortSignal }) => Promise<{ id: string; answer: "once" | "session" | "deny"; grant?: string[] }[]>;
  policies?: Policy[] | (() => Policy[] | Promise<Policy[]>);
  secrets?: { name: string; value: string }[] | (() => { name: string; value: string }[] | Promise<{ name: string; value: string }[]>);
  ops?: Record<string, (args: unknown, o: { signal?: AbortSignal; granted: string[]; turn?: TurnInfo }) => Promise<unknown>>;
  /** The agent a session's turns are (one it was started with), or null. */
  agentOf?: (sessionId: string) => Agent | null | Promise<Agent | null>;
  showConsole?: boolean;
  fetch?: typeof fetch;
  now?: () => Date;
  retries?: { count?: number; backoffMs?: number; maxBackoffMs?: number; sleep?: (ms: number, signal?: AbortSignal) => Promise<void> };
  maxParallelTools?: number;
  /** The memory in bytes past which an instance made by the module function is replaced with a new one (RECYCLE_MEMORY, 256 MiB). */
  recycleMemory?: number;
  /** The word vector table search_tools ranks with (loadWordVectors() from "toolroute"), handed to every instance. */
  wordVectors?: Bytes | (() => Bytes | Promise<Bytes>);
}

/** An event of a turn, as the Go host's Event JSON. */
export type Event =
  /** Text the model streamed. */
  | { type: "text"; text: string }
  /** A message logged (and stored) before the turn goes on. */
  | { type: "message"; message: Message }
  /** A model call going out: the tools it offers, its number in the turn, its routing ("native", absent for classic) and what its tool schemas cost. */
  | { type: "model_call"; tools: string[]; call: number; routing?: "native"; schema?: Schema }
  /** Calls about to run. */
  | { type: "tool_calls"; calls: Call[] }
  | { type: "group_loaded"; group: GroupLoaded }
  /** A failed model call tried again after wait (ns) or wait_ms; message says so. */
  | { type: "retry"; retry: { status: number; attempt: number; wait: number; wait_ms: number; message: string } }
  /** Calls put to the user (options.approve). */
  | { type: "approval"; calls: Call[] }
  /** A running call's progress, as the tool reports it (an MCP server's notifications/progress): serve's progress event. */
  | { type: "progress"; call_id: string; progress: number; total?: number; message?: string }
  | { type: "done"; text: string; usage?: Usage }
  | { type: "failed"; failure: { code: "model_error" | "bad_response" | "iteration_limit" | "token_limit" | "stopped" | (string & {}); message: string }; usage?: Usage };

/** Runs sessions' turns on one module instance. */
export declare class Host {
  constructor(options: HostOptions);
  init(): Promise<void>;
  readonly store: Store;
  /** What loading the catalogue did. */
  readonly report: LoadReport | null;
  readonly provider: Provider;
  /** Hands the module a new catalogue. */
  load(catalogue: Catalogue, sources?: Sources): Promise<LoadReport>;
  /** A session's log. */
  messages(sessionId: string): Promise<Message[]>;
  /** The catalogue for display, with a session's active tools. */
  describe(sessionId?: string, options?: { toolsJSON?: boolean }): Promise<Description>;
  /** Answers a model request's body as the demo model does. */
  demo(body: object | string): Promise<Record<string, unknown>>;
  /** Asks the module whether a host operation's arguments pass (toolroute_check): {}, {args} to use instead, or {error: {type, message}}. */
  check(op: string, args: Record<string, unknown>): Promise<{ args?: Record<string, unknown>; error?: { type: string; message: string } }>;
  /** Runs one turn and yields its events; the last is done or failed. */
  send(sessionId: string, text: string, options?: { signal?: AbortSignal; unattended?: boolean; agent?: Agent; parent?: TurnInfo; attachments?: Attachment[] }): AsyncGenerator<Event, void, void>;
  /** Summarises the session's earlier messages now and yields that turn's events. */
  compact(sessionId: string, options?: { signal?: AbortSignal }): AsyncGenerator<Event, void, void>;
}

/** Makes a host and loads its catalogue. */
export declare function createHost(options: HostOptions): Promise<Host>;

/** A native tool's result with images the model sees. */
export declare function toolOutput(text: string, images?: { mime_type: string; data: string }[], documents?: { mime_type: string; data: string; name?: string }[]): unknown;
/** Waits ms, or rejects when signal aborts. */
export declare function sleep(ms: number, signal?: AbortSignal): Promise<void>;
/** The header of a model proxy's answer to a failed call: its provider's retry policy ({count, backoff_ms, max_backoff_ms}, JSON), which a turn calling through the proxy tries the call again with; the proxy sends each call once. */
export declare const RETRIES_HEADER: string;
