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
  /** Called when a server's tools changed: load the catalogue again (withMcp). */
  onChange?: () => void;
  fetch?: typeof fetch;
  now?: () => number;
  setTimer?: (fn: () => void, ms: number) => unknown;
  clearTimer?: (timer: unknown) => void;
}

export declare class McpServers {
  constructor(options: McpServersOptions);
  /** Connects to every server; resolves once each is connected or has failed (and is tried again). */
  start(): Promise<void>;
  /** The servers' groups and tools for the module's catalogue. */
  catalogue(taken?: Set<string>): { groups: NonNullable<Catalogue["groups"]>; tools: NonNullable<Catalogue["tools"]> };
  /** The host-native tools' implementations, by name. */
  native(): Record<string, NativeTool>;
  /** What is wrong now, one text each. */
  problems(): string[];
  status(): { key: string; group: string; url: string; status: string; error: string; tools: number }[];
  /** Connects now to the servers whose next try is due. */
  retryDue(): void;
  close(): Promise<void>;
}

/** The names of a catalogue's tools. */
export declare function catalogueToolNames(catalogue: Catalogue): Set<string>;
/** catalogue with the servers' groups and tools after its own; native is made to hold their implementations and fixed's. */
export declare function withMcp(catalogue: Catalogue, mcp: McpServers, native: Record<string, NativeTool>, fixed?: Record<string, NativeTool>): Catalogue;
