// Types of toolroute/ai-sdk (ai-sdk/ai-sdk.js): toolroute's routing in an
// app's own Vercel AI SDK loop.
import type { ModelMessage, PrepareStepFunction, ToolSet } from "ai";
import type { Toolroute, Catalogue, Description, LoadReport, Message, Bytes, ToolDefinitions } from "./index.js";
import type { JSCall, JSResult } from "./jsrun.js";
import type { Sources, NativeTool, Policy, GroupLoaded } from "./host.js";

/** A turn's settings the router takes (wasm/ABI.md, settings), in camelCase as every option; the module's snake_case names still work. */
export interface RouterSettings {
  /** Offer search_tools, which finds tools by what they do and loads them. */
  searchTools?: boolean;
  /** The most tokens of tool schemas one step sends; loads past it unload the least recently used groups (and unload_tool_group is offered). */
  toolBudget?: number;
  /** The sentence ending a refusal of a tool that asks when no one can be asked, "{tool}" for its name. */
  allowHint?: string;
  /** The most model calls of one turn (1000 by default: the app's stopWhen ends its loop). */
  maxModelCalls?: number;
  /** The tool groups the conversation may load; none is every group. */
  allowedGroups?: string[];
  /** @deprecated Still taken; use searchTools. */
  search_tools?: boolean;
  /** @deprecated Still taken; use toolBudget. */
  tool_budget?: number;
  /** @deprecated Still taken; use allowHint. */
  allow_hint?: string;
  /** @deprecated Still taken; use maxModelCalls. */
  max_model_calls?: number;
  /** @deprecated Still taken; use allowedGroups. */
  allowed_groups?: string[];
}

/** What the module did, told to options.onEvent. */
export type RouterEvent =
  | { type: "group_loaded"; session: string; group: GroupLoaded }
  | { type: "message"; session: string; message: Message };

export interface RouterOptions {
  /** A driver instance or a function making one; the package's toolroute.wasm by default. */
  module?: Toolroute | (() => Toolroute | Promise<Toolroute>);
  /** Host tools as code (tool() and group() from "toolroute"), loaded after the catalogue's; each runs by its execute. */
  tools?: ToolDefinitions;
  catalogue?: Catalogue;
  sources?: Sources;
  /** Runs JS tools: a Runner from toolroute/jsrun (warmed while the model answers a step that offers a JS tool), or a function running a call, as a Runner's call. */
  runJS?: { call(call: JSCall): Promise<JSResult>; warm?(): Promise<void> } | ((call: JSCall) => Promise<JSResult>);
  /** Host tools' implementations, by name, as toolroute/host takes them (McpServers.native() gives an MCP server's). */
  native?: Record<string, NativeTool>;
  env?: Record<string, string> | ((name: string) => string | undefined);
  /** The app's system prompt, before the tool groups' listing. */
  instructions?: string;
  memories?: string[] | (() => string[] | Promise<string[]>);
  settings?: RouterSettings;
  /** The user's rules, read at each turn's start. */
  policies?: Policy[] | (() => Policy[] | Promise<Policy[]>);
  /** Put calls that ask to the user through the AI SDK's approval requests (true, the default); false refuses them with how to allow them. */
  approvals?: boolean;
  /** Add JS tools' console output to successful results too. */
  showConsole?: boolean;
  /** The word vector table search_tools ranks with (loadWordVectors() from "toolroute"), given to the module only with settings.searchTools on. */
  wordVectors?: Bytes | (() => Bytes | Promise<Bytes>);
  /** The memory in bytes past which an instance made by the module function is replaced (RECYCLE_MEMORY, 256 MiB). */
  recycleMemory?: number;
  /** The clock stamped on the module's log. */
  now?: () => Date;
  onEvent?: (event: RouterEvent) => void;
}

/** One conversation: give its tools and prepareStep to generateText, streamText or a ToolLoopAgent, one loop at a time. */
export interface Session {
  readonly id: string;
  /** Every enabled tool and the meta-tools, as AI SDK tools: pass them all; each asks through needsApproval when the module says it asks. */
  readonly tools: ToolSet;
  /** The AI SDK's prepareStep: the step's activeTools and instructions, the module given the step's new messages. */
  readonly prepareStep: PrepareStepFunction<ToolSet>;
}

export declare class Router {
  /** What loading the catalogue did. */
  readonly report: LoadReport | null;
  /** The session of a conversation, by the app's id for it (the same object for the same id). */
  session(id?: string): Session;
  /** The default session's tools, for an app with one conversation at a time. */
  readonly tools: ToolSet;
  /** The default session's prepareStep. */
  readonly prepareStep: PrepareStepFunction<ToolSet>;
  /** toolroute_describe for a conversation given as AI SDK messages (its whole history). */
  describe(messages?: ModelMessage[]): Description;
  /** The groups the messages loaded (restored from the log). */
  loadedGroups(messages?: ModelMessage[]): string[];
}

/** Makes a router with its catalogue loaded. */
export declare function createRouter(options?: RouterOptions): Promise<Router>;

/** A tool's failure as the model reads it: "Error (TYPE): MESSAGE". */
export declare class ToolError extends Error {
  constructor(type: string, message: string);
  type: string;
}

/** AI SDK model messages as toolroute's log. */
export declare function toHistory(messages: ModelMessage[]): Message[];
