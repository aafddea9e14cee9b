// Types of toolroute/mcp (host/mcp.js): Streamable HTTP MCP servers as tool
// groups of host-native tools, for toolroute/host.
import type { Catalogue } from "./index.js";
import type { NativeTool } from "./host.js";

export interface McpServerConfig {
  key: string;
  url: string;
  headers?: Record<string, string>;
  timeoutSeconds: number;
}

/** Reads an mcp.json text ({"mcpServers": {KEY: {url, headers, disabled, timeoutSeconds}}}). */
export declare function parseMcpConfig(text: string): { servers: McpServerConfig[]; problems: string[] };

export interface McpServersOptions {
  /** The mcp.json text. */
  config: string;
  /** Where the config is, as the user knows it (in the texts): "the MCP config" by default. */
  configName?: string;
  /** Called when a server's tools changed: load the catalogue again (withMcp). */
  onChange?: () => void;
  fetch?: typeof fetch;
  now?: () => number;
  setTimer?: (fn: () => void, ms: number) => unknown;
  clearTimer?: (timer: unknown) => void;
  /**
   * The module's check (Host.check), which reads whether a server's answer refused the host
   * for want of authorization (toolroute_check's mcp_refusal). Without it, the last listing's:
   * a server refused before any listing counts as down until the next listing asks.
   */
  check?: ((op: string, args: unknown) => Promise<unknown>) | null;
  /**
   * Asks the user a server's question during a call (elicitation/create), as the module reads it;
   * check gives the module's verdict on an answer before it is given. Without it, questions are
   * refused in the module's words.
   */
  onElicit?: (
    question: { server: string; asks?: string; message?: string; fields?: unknown[]; call_id?: string },
    options: { signal?: AbortSignal; check: (answer: unknown) => Promise<unknown> },
  ) => Promise<{ action: "accept"; content?: Record<string, unknown> } | { action: "decline" } | { action: "cancel" }>;
}

export declare class McpServers {
  constructor(options: McpServersOptions);
  /** Connects to every server; resolves once each is connected or has failed (and is tried again). */
  start(): Promise<void>;
  /** Whether the config has a server to connect to. */
  readonly configured: boolean;
  /**
   * The servers' groups and tools for the module's catalogue, as the module names them
   * (toolroute_check's mcp_catalogue): base is the catalogue without them; check is Host.check.
   */
  catalogue(check: ((op: string, args: unknown) => Promise<unknown>) | null, base?: Catalogue): Promise<{ groups: NonNullable<Catalogue["groups"]>; tools: NonNullable<Catalogue["tools"]> }>;
  /** The host-native tools' implementations, by name. */
  native(): Record<string, NativeTool>;
  /** What is wrong now, one text each. */
  problems(): string[];
  /**
   * Each server's state: status "connecting", "ready", "down" or "needs_authorization" (it refused
   * the host for want of a token: advice says what the user does; it is not tried again until
   * retry() or a new config).
   */
  status(): { key: string; group: string; url: string; status: string; error: string; tools: number; advice?: string }[];
  /** Connects now to the servers whose next try is due. */
  retryDue(): void;
  /** Connects now to every server not connected, those that need authorization included (the user asked); resolves once each is up or has failed again. */
  retry(): Promise<void>;
  close(): Promise<void>;
}

/** The default timeout of a server's calls, in seconds. */
export declare const DEFAULT_TIMEOUT_SECONDS: number;
/** A call's failure the model reads, with its type (tool_error, mcp_error, unavailable). */
export declare class McpToolError extends Error {
  constructor(type: string, message: string);
  type: string;
}
/**
 * catalogue with the servers' groups and tools after its own, as the module names them (check:
 * Host.check; without it, none); native is made to hold their implementations and fixed's.
 */
export declare function withMcp(
  catalogue: Catalogue,
  mcp: McpServers,
  native: Record<string, NativeTool>,
  fixed?: Record<string, NativeTool>,
  check?: ((op: string, args: unknown) => Promise<unknown>) | null,
): Promise<Catalogue>;
