import type { ToolResult } from '../../contracts/tools';

export type { ToolResult };

/** Per-call context the tool activity passes in. */
export interface ToolContext {
  /** The session's workspace root (`project_path`); tools never reach outside its real path. */
  workspace: string;
  /** Fires when the turn is aborted: running tools stop and `execute` throws `signal.reason`. */
  signal: AbortSignal;
  /** Receives shell output as it arrives (streamed to clients as `tool.output`). */
  onOutput?: (chunk: string) => void;
  /**
   * The activity attempt (1 on the first run). On a re-run after a crash an edit whose `new` text
   * contains its `old` text can only be recognised as applied with this hint (see planEdit).
   */
  attempt?: number;
}

/** Settings every tool reads, fixed when the executor is created. */
export interface ToolSettings {
  /** Directory where full shell / git output is kept when the result shows only part of it. */
  spillDir: string;
  now: () => number;
  defaultShellTimeoutS: number;
  maxShellTimeoutS: number;
  /** Bytes of command output kept in a result (head + tail). */
  outputCapBytes: number;
  /** Grace between SIGTERM and SIGKILL when a process group is stopped. */
  killGraceMs: number;
  /** Environment for shell_exec (default: the worker's own). */
  shellEnv: NodeJS.ProcessEnv;
}

export function ok(content: string, extra: Omit<ToolResult, 'content' | 'is_error'> = {}): ToolResult {
  return { content, is_error: false, ...extra };
}

export function fail(content: string, details?: Record<string, unknown>): ToolResult {
  return details ? { content, is_error: true, details } : { content, is_error: true };
}

/** Throws the abort reason so the caller can tell a cancelled tool from a failed one. */
export function throwIfAborted(signal: AbortSignal): void {
  if (signal.aborted) throw signal.reason;
}

/** Node error code, when the value is an errno error. */
export function errnoCode(err: unknown): string | undefined {
  return typeof err === 'object' && err !== null && 'code' in err && typeof err.code === 'string' ? err.code : undefined;
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** A short, model-readable explanation of a file-system error on `rel`. */
export function describeFsError(err: unknown, rel: string): string {
  switch (errnoCode(err)) {
    case 'ENOENT':
      return `${rel} does not exist.`;
    case 'EACCES':
    case 'EPERM':
      return `Permission denied: ${rel}.`;
    case 'EISDIR':
      return `${rel} is a directory.`;
    case 'ENOTDIR':
      return `A parent of ${rel} is not a directory.`;
    case 'ELOOP':
      return `${rel}: too many levels of symbolic links.`;
    default:
      return `${rel}: ${errorMessage(err)}`;
  }
}

/** File contents that look binary: a NUL byte early on (what git and grep use too). */
export function looksBinary(buf: Buffer): boolean {
  return buf.subarray(0, 8192).includes(0);
}
