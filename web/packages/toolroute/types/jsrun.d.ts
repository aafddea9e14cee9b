// Types of toolroute/jsrun (jsrun/runner.js): JS tools run in QuickJS, each
// call in a fresh runtime, with the Go host's bridges and limits.
import type { WasmModule } from "./index.js";

/** A file store for the fs bridge: MemoryStore, or one of yours with the same methods. */
export interface FileStore {
  root: string;
  stat(rel: string): { dir: boolean; size: number } | null;
  read(rel: string): string | Uint8Array;
  readBytes(rel: string): Uint8Array;
  write(rel: string, content: string | Uint8Array, append?: boolean): void;
}

/** Sandbox files kept in memory, by path. */
export declare class MemoryStore implements FileStore {
  constructor(files?: Record<string, string | Uint8Array>);
  root: string;
  files: Map<string, string | Uint8Array>;
  stat(rel: string): { dir: boolean; size: number } | null;
  read(rel: string): string | Uint8Array;
  readBytes(rel: string): Uint8Array;
  write(rel: string, content: string | Uint8Array, append?: boolean): void;
}

export declare class AccessDenied extends Error {}
/** Thrown by a google option's functions when no account is connected. */
export declare class NotConnected extends Error {}

export declare const DEFAULT_MEMORY_LIMIT: number;
export declare const DEFAULT_STACK_SIZE: number;
export declare const DEFAULT_TIMEOUT_MS: number;
/** How long after its deadline a call QuickJS's interrupt could not stop (one built-in call running on) is stopped hard. */
export declare const HARD_STOP_AFTER_MS: number;
export declare const MAX_FILE_BYTES: number;
export declare const MAX_TRANSFER_BYTES: number;

/** A library folder: name to source. */
export type Library = Map<string, string> | Record<string, string> | ((name: string) => string | undefined);

export interface RunnerOptions {
  /** The fs bridge's store; none: fs says no sandbox folder is configured. */
  store?: FileStore;
  /** The library folders, built-in first. */
  libraries?: Library[];
  fetch?: {
    fetch?: typeof fetch;
    allowPrivate?: boolean;
    rewrites?: { from: string; to: string }[];
    timeoutMs?: number;
    maxBody?: number;
    /** The fetch is a browser's, bound by CORS. */
    cors?: boolean;
  };
  google?: {
    accessToken(o: { signal?: AbortSignal }): Promise<string>;
    accountEmail(o: { signal?: AbortSignal }): Promise<string>;
  };
  memoryLimit?: number;
  maxStackSize?: number;
  now?: () => Date;
  /**
   * The compiled QuickJS module (loadQuickJS() from "toolroute", or
   * "toolroute/quickjs.wasm" imported in a worker), or a function giving it.
   * Needed in browsers and workers; Node reads and patches its own.
   */
  wasmModule?: WasmModule | (() => WasmModule | Promise<WasmModule>);
  /** Another quickjs-emscripten sync variant, run on the caller's thread. */
  variant?: unknown;
  /**
   * In Node each call runs in a worker thread (kept for the next call), so
   * that the caller's timers and signal handlers run meanwhile and a cancel
   * stops the JS at once; false runs it on the caller's thread.
   */
  thread?: boolean;
  /**
   * The module's check (a Toolroute instance's check, answering at once),
   * for the calls that give none: the bridges' rules and refusals are the
   * module's (wasm/ABI.md, toolroute_check's js_bridge). A host gives each
   * call its own.
   */
  check?: ModuleCheck;
}

/** The module's check: {} when the arguments pass, {args} to use, or {error}. */
export type ModuleCheck = (op: string, args: unknown) => { args?: unknown; error?: { type: string; message: string } };

/** One call of a JS tool, as the host (toolroute/host's runJS) gives it. */
export interface JSCall {
  tool?: string;
  sourceRef?: string;
  /** The tool file's text. */
  source: string;
  /** The JS function to call. */
  function: string;
  /** The arguments, an object or its JSON text. */
  params?: Record<string, unknown> | string;
  env?: Record<string, string>;
  google?: boolean;
  ops?: (op: string, args: unknown, o: { signal?: AbortSignal }) => Promise<unknown>;
  /** The module's check, which words the bridges' refusals (the runner's by default). */
  check?: ModuleCheck;
  timeoutMs?: number;
  signal?: AbortSignal;
}

export interface Log {
  level: string;
  text: string;
}

/** A call's outcome: it never throws. */
export type JSResult =
  | { status: "success"; output: string; logs: Log[] }
  | { status: "error"; error_type: string; message: string; logs: Log[] };

export declare class Runner {
  constructor(options?: RunnerOptions);
  /** Runs one call in a fresh QuickJS runtime. */
  call(c: JSCall): Promise<JSResult>;
  /** Readies the runner for its first call (QuickJS compiled and, in Node, loaded in a worker thread); never throws. */
  warm(): Promise<void>;
  /** Compiles a tool's source without running it: "" when it compiles, else the error. */
  check(file: string, source: string): Promise<string>;
}
