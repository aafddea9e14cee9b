// Types of toolroute, the package's main entry (index.js): the ABI driver of
// toolroute.wasm (wasm/ABI.md) and the loading of the package's wasm files.

/** The ABI version this driver speaks. */
export declare const ABI_VERSION: 2;
/** The largest input the module takes in one call, in bytes (256 MiB). */
export declare const MAX_INPUT: number;
/** The memory past which a host replaces an instance with a new one, in bytes (256 MiB). */
export declare const RECYCLE_MEMORY: number;

/** A refusal from the module: the request was bad, the instance still works. */
export declare class ToolrouteError extends Error {
  constructor(code: string, message: string);
  /** One of the ABI's error codes, such as "bad_json" or "no_catalogue". */
  code: string;
}

/** The instance trapped or exited and must be thrown away. */
export declare class TrapError extends Error {
  constructor(cause: unknown);
}

/**
 * Bytes, as the package takes them: an ArrayBuffer or a view of one (a
 * Uint8Array, a Buffer). The DOM's BufferSource, declared without the DOM
 * lib so that a Node project needs none.
 */
export type Bytes = ArrayBuffer | ArrayBufferView;

/**
 * A compiled WebAssembly module: WebAssembly.Module where the project's lib
 * declares it (the DOM's, a worker's); TypeScript's ES libs and Node's types
 * do not, and there it is any object.
 */
export type WasmModule = typeof globalThis extends { WebAssembly: { Module: { prototype: infer M } } } ? M : object;

/** What a model call cost, as the provider reported it. */
export interface Usage {
  input_tokens?: number;
  output_tokens?: number;
  /** Input tokens read from the provider's prompt cache (counted in input_tokens too). */
  cached_tokens?: number;
}

/** A message of a session's log (wasm/ABI.md, "Messages"). */
export interface Message {
  type: "user" | "assistant" | "tool_call" | "tool_result" | "approval" | "summary" | "turn_end";
  /** The text: the user's, the model's, a result as the model reads it, an approval's answer (once, session, deny), a summary, or what ended a turn. */
  content?: string;
  tool_call_id?: string;
  tool_name?: string;
  /** A call's arguments as the model sent them, JSON text. */
  tool_input?: string;
  /** A call's or a result's status: success, error, pending, awaiting_approval. */
  status?: string;
  /** A failed result's or a turn's end's type (turn_end: model_error, bad_response, iteration_limit, token_limit, stopped, interrupted). */
  error_type?: string;
  /** A call's place in its response. */
  index?: number;
  /** An opaque token the provider wants back with a call (Gemini's thought signature). */
  signature?: string;
  /** What an assistant's or a summary's model call cost. */
  usage?: Usage;
  /** The secrets an approval granted. */
  grant?: string[];
  /** How many messages before a summary are still sent. */
  keep?: number;
  /** The tools a search_tools call loaded. */
  loaded?: string[];
  /** The tools a load or unload_tool_group call took off. */
  unloaded?: string[];
  /** A result's images the model sees (base64 data). */
  images?: { mime_type: string; data: string }[];
  time?: string;
  /** A user message's files: images (mime_type, data in base64) and text files (mime_type "text/plain", text). */
  attachments?: Attachment[];
  [field: string]: unknown;
}

/** A file attached to a user message (wasm/ABI.md, Attachments): sent as its name and bytes in base64 (data) or its text; logged with its mime_type. */
export interface Attachment {
  name: string;
  mime_type?: string;
  data?: string;
  text?: string;
}

/** A catalogue for toolroute_load (wasm/ABI.md, "toolroute_load"). */
export interface Catalogue {
  groups?: { name: string; display_name?: string; description?: string }[];
  tools?: {
    name: string;
    description: string;
    group?: string;
    parameters?: Record<string, unknown>;
    timeout_seconds?: number;
    required_permissions?: string[];
    env?: string[];
  }[];
  /** JS tools: each a manifest's text (NAME.json), its file name and the host's reference to NAME.js. */
  manifests?: { file: string; source: string; text: string; override?: boolean }[];
  skills?: { name: string; description: string; content: string }[];
  disabled?: string[];
}

/** What loading a catalogue did. */
export interface LoadReport {
  manifests: {
    file: string;
    group?: string;
    loaded: { tool: string; entry: number; replaced?: unknown }[];
    skipped: { file: string; entry: number; tool?: string; reason: string }[];
    warnings: { file: string; entry: number; tool?: string; reason: string }[];
  }[];
  errors: string[];
}

/** A tool as toolroute_describe gives it. */
export interface ToolInfo {
  name: string;
  description: string;
  parameters?: Record<string, unknown>;
  group?: string;
  timeout_seconds?: number;
  required_permissions?: string[];
  env?: string[];
  origin: { kind: "meta" | "host" | "js"; file?: string; source?: string; function?: string };
  enabled: boolean;
}

/** A group as toolroute_describe gives it. */
export interface GroupInfo {
  name: string;
  display_name: string;
  description: string;
  origin: { kind: string; file?: string; source?: string };
  tools: string[];
  available: boolean;
}

/** toolroute_describe's request (every field optional). */
export interface DescribeRequest {
  system_prompt?: string;
  memories?: string[];
  history?: Message[];
  tools_json?: boolean;
  format?: "openai" | "anthropic" | "responses" | "gemini";
  routing?: "classic" | "native";
  search_tools?: boolean;
  tool_budget?: number;
  /** Describe the catalogue an agent with this allowlist of groups sees. */
  allowed_groups?: string[];
}

/** toolroute_describe's answer. */
export interface Description {
  system_prompt: string;
  groups: GroupInfo[];
  tools: ToolInfo[];
  files: { file: string; source: string; group?: string; tools: string[] }[];
  skills: { name: string; description: string }[];
  /** The tools the session's next model call sends, in order. */
  active: string[];
  /** The groups the history loaded that exist (restored from the log). */
  loaded_groups: string[];
  routing?: { asked: string; used: string; note?: string };
  tools_json?: { active: unknown; all: unknown };
}

/** An action the module asks of the host (wasm/ABI.md, "Actions"). */
export interface Action {
  type: string;
  [field: string]: unknown;
}

export interface InstantiateOptions {
  /** Receives the module's standard error, line by line. */
  stderr?: (line: string) => void;
  stdout?: (line: string) => void;
  /** The word vector table (loadWordVectors()) handed to the instance. */
  wordVectors?: Bytes;
}

/** toolroute_word_vectors's answer: the table's size, zeros when taken away. */
export interface WordVectorsInfo {
  words: number;
  dimensions: number;
}

/** One instance of toolroute.wasm. Its calls are synchronous. */
export declare class Toolroute {
  /** Makes an instance from a compiled module or the module's bytes. */
  static instantiate(source: WasmModule | Bytes, options?: InstantiateOptions): Promise<Toolroute>;
  /** The trap that killed the instance, or null. */
  readonly broken: TrapError | null;
  /** The instance's linear memory in bytes. */
  readonly memorySize: number;
  /** Builds the registry from a catalogue (an object or its JSON text). */
  load(catalogue: Catalogue | string): LoadReport;
  /**
   * Gives search_tools a word vector table to rank with beside shared words
   * (empty bytes take it away); a table that does not read throws a
   * ToolrouteError "bad_vectors".
   */
  wordVectors(table: Bytes): WordVectorsInfo;
  /** The catalogue for display, and a session's active tools when request.history is given. */
  describe(request?: DescribeRequest | string): Description;
  /** Answers an OpenAI Chat Completions request body as the demo model does. */
  demo(body: object | string): Record<string, unknown>;
  /** Decides whether a model call made outside a turn (a model proxy's) is tried again: a retry to wait for, or {} to give up. */
  retry(request: { status: number; retry_after?: string; body?: string; attempt: number; now?: string; retries: { count: number; backoff_ms?: number; max_backoff_ms?: number } }):
    { retry?: { status: number; attempt: number; wait_ms: number; message: string } };
  /** Asks whether a host operation's arguments pass the module's rules (toolroute_check): {} they pass, {args} use these, {error} the refusal. */
  check(request: { op: string; args: Record<string, unknown> }):
    { args?: Record<string, unknown>; error?: { type: string; message: string } };
  /** Opens a turn and gives its handle. */
  turnNew(): number;
  /** Feeds a turn one event and gives its actions. */
  turnEvent(turn: number, event: object | string): Action[];
  /** Feeds a turn raw bytes of a streamed response and gives its actions. */
  turnChunk(turn: number, chunk: Uint8Array | string): Action[];
  /** The request body of the turn's last call_model action, once, or null. */
  turnBody(turn: number): Uint8Array | null;
  /** Closes a turn. */
  turnFree(turn: number): void;
}

/** Where something to compile comes from. */
export type WasmSource = WasmModule | Bytes | Response | URL | string;

/** The URL of one of the package's wasm files, beside its code. */
export declare function wasmURL(name: "toolroute.wasm" | "quickjs.wasm"): URL;
/** Compiles a module, bytes, a Response, or a URL (fetched; a file: URL read in Node). */
export declare function compileWasm(source: WasmSource): Promise<WasmModule>;
/** An instance of source, or of the package's toolroute.wasm. */
export declare function loadToolroute(source?: WasmSource, options?: InstantiateOptions): Promise<Toolroute>;
/** The word vector table: source's bytes (fetched; a file: URL read in Node), or the package's wordvec.bin. */
export declare function loadWordVectors(source?: Bytes | Response | URL | string): Promise<Bytes>;
/** The QuickJS module for the runner's wasmModule option: source, or the package's patched quickjs.wasm. */
export declare function loadQuickJS(source?: WasmSource): Promise<WasmModule>;

// Typed tool definitions (tools.js): host tools as code, for createHost's
// and createRouter's tools option.

/** A JSON Schema object, as a tool's parameters. */
export type JSONSchema = { [keyword: string]: unknown };

/**
 * A schema that gives its own JSON Schema: Standard JSON Schema
 * (standardschema.dev), which zod 4.2 and newer, ArkType and Valibot's adapter have.
 * Input is the type of the values it accepts.
 */
export interface StandardJSONSchema<Input = unknown> {
  readonly "~standard": {
    readonly version: 1;
    readonly vendor: string;
    readonly types?: { readonly input: Input; readonly output: unknown } | undefined;
    readonly jsonSchema: { readonly input: (options: { readonly target: "draft-07" }) => Record<string, unknown> };
  };
}

/** A tool's input schema: JSON Schema, or a schema library's (zod 4.2+...). */
export type ToolInputSchema = JSONSchema | StandardJSONSchema<any>;

/** The arguments execute receives: a schema library's input type, else an object. */
export type ToolInput<S> = S extends StandardJSONSchema<infer Input> ? Input : Record<string, unknown>;

/** What execute is given beside the arguments. */
export interface ToolContext {
  /** Aborted when the turn is canceled or the call times out. */
  signal?: AbortSignal;
  /** The secrets the user granted the call at approval. */
  granted?: string[];
  /** Asks the module whether an operation's arguments pass (toolroute_check). */
  check?: (op: string, args: unknown) => { args?: unknown; error?: { type: string; message: string } };
}

/**
 * A host tool as code. The module checks the definition when it loads and
 * every call's arguments against inputSchema before execute runs.
 */
export interface ToolDefinition<S extends ToolInputSchema = ToolInputSchema> {
  /** snake_case, at most 64 characters; in an object of tools, its key. */
  name?: string;
  description: string;
  /** Its parameters; none when left out. */
  inputSchema?: S;
  /** Runs a call: its result, a string or any JSON value (or toolOutput's); a thrown error is a failure the model reads. */
  execute(args: ToolInput<S>, context: ToolContext): unknown;
  /** 1 to 3600; 30 when left out. */
  timeoutSeconds?: number;
  /** Such as ["write"]: a tool that writes, sends, deletes, shares or takes secrets asks the user first. */
  requiredPermissions?: string[];
  /** The environment variables it may read. */
  env?: string[];
}

/** A tool group as code: the model loads its tools with load_tool_group. */
export interface GroupDefinition {
  /** snake_case; in an object of groups, its key. */
  name?: string;
  displayName?: string;
  description: string;
  tools: ToolDefinition<any>[] | { [name: string]: ToolDefinition<any> };
}

/** createHost's and createRouter's tools: tools (offered on every call) and groups, in an array or by name. */
export type ToolDefinitions = (ToolDefinition<any> | GroupDefinition)[] | { [name: string]: ToolDefinition<any> | GroupDefinition };

/** Defines a tool: gives back its definition, typed (execute's arguments from inputSchema). */
export declare function tool<S extends ToolInputSchema = JSONSchema>(definition: ToolDefinition<S>): ToolDefinition<S>;
/** Defines a group of tools: gives back its definition. */
export declare function group(definition: GroupDefinition): GroupDefinition;
