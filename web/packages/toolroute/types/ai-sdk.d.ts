// Types of toolroute/ai-sdk (ai-sdk/ai-sdk.js): toolroute's routing in an
// app's own Vercel AI SDK loop.
import type { ModelMessage, PrepareStepFunction, ToolSet } from "ai";
import type { Toolroute, Catalogue, Description, LoadReport, Message, ToolDefinitions } from "./index.js";
import type { JSCall, JSResult } from "./jsrun.js";
import type { Sources } from "./host.js";

export interface RouterOptions {
  /** A driver instance or a function making one; the package's toolroute.wasm by default. */
  module?: Toolroute | (() => Toolroute | Promise<Toolroute>);
  /** Host tools as code (tool() and group() from "toolroute"), loaded after the catalogue's; each runs by its execute. */
  tools?: ToolDefinitions;
  catalogue?: Catalogue;
  sources?: Sources;
  /** Runs JS tools: a Runner's call, from toolroute/jsrun. */
  runJS?: (call: JSCall) => Promise<JSResult>;
  /** Host tools' implementations, by name: the result text. */
  native?: Record<string, (input: Record<string, unknown>, o: { signal?: AbortSignal }) => unknown>;
  env?: Record<string, string> | ((name: string) => string | undefined);
  /** The app's system prompt, before the tool groups' listing. */
  instructions?: string;
  memories?: string[];
}

export declare class Router {
  /** What loading the catalogue did. */
  readonly report: LoadReport;
  /** Every enabled tool and the meta-tools, as AI SDK tools: pass them all. */
  readonly tools: ToolSet;
  /** The AI SDK's prepareStep: the step's activeTools and instructions, from its messages. */
  readonly prepareStep: PrepareStepFunction<ToolSet>;
  /** toolroute_describe for a conversation given as AI SDK messages. */
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
