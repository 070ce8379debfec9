import fs from 'node:fs';
import path from 'node:path';
import type { z } from 'zod';
import { TOOL_DEFINITIONS, toolDefinition, type ToolDefinition, type ToolName } from '../../contracts/tools';
import { deleteFile } from './delete-file';
import { editFile } from './edit-file';
import { gitDiff, gitStatus } from './git';
import { listFiles } from './list-files';
import { readFile } from './read-file';
import { searchFiles } from './search-files';
import { shellExec } from './shell-exec';
import { errorMessage, fail, type ToolContext, type ToolResult, type ToolSettings } from './types';
import { writeFile } from './write-file';

;
;
;
;

export interface ToolExecutorOptions {
  /** Where full command output is kept when a result shows only its head and tail. */
  spillDir: string;
  now?: () => number;
  /** shell_exec timeout when the model gives none (default 120 s). */
  defaultShellTimeoutS?: number;
  /** Longest shell_exec timeout honoured (default 600 s); longer requests are clamped with a note. */
  maxShellTimeoutS?: number;
  /** Bytes of command output kept in a result (default 64 KiB). */
  outputCapBytes?: number;
  /** SIGTERM → SIGKILL grace when a process group is stopped (default 2000 ms). */
  killGraceMs?: number;
  /** Environment for shell_exec (default: the worker's environment). */
  shellEnv?: NodeJS.ProcessEnv;
}

export interface ToolExecutor {
  definitions: readonly ToolDefinition[];
  execute(name: string, params: unknown, ctx: ToolContext): Promise<ToolResult>;
}

type Handler = (params: never, ctx: ToolContext) => Promise<ToolResult>;

/**
 * The built-in tools (docs/architecture.md, "Tools and providers") behind one call. Everything a tool can get wrong — unknown
 * name, invalid parameters, a path outside the workspace, a failing command, an unexpected
 * exception — comes back as an error result for the model to read. The one exception is
 * cancellation: when `ctx.signal` fires, the running tool is stopped and `execute` throws the
 * signal's reason, so the caller can tell an abort from a tool failure.
 */
export function createToolExecutor(opts: ToolExecutorOptions): ToolExecutor {
  const settings: ToolSettings = {
    spillDir: path.resolve(opts.spillDir),
    now: opts.now ?? Date.now,
    defaultShellTimeoutS: opts.defaultShellTimeoutS ?? 120,
    maxShellTimeoutS: opts.maxShellTimeoutS ?? 600,
    outputCapBytes: opts.outputCapBytes ?? 64 * 1024,
    killGraceMs: opts.killGraceMs ?? 2000,
    shellEnv: opts.shellEnv ?? process.env,
  };
  const handlers: Record<ToolName, Handler> = {
    read_file: (p, ctx) => readFile(p, ctx, spillRoots(settings.spillDir)),
    write_file: (p, ctx) => writeFile(p, ctx),
    edit_file: (p, ctx) => editFile(p, ctx),
    delete_file: (p, ctx) => deleteFile(p, ctx),
    list_files: (p, ctx) => listFiles(p, ctx, settings.killGraceMs),
    search_files: (p, ctx) => searchFiles(p, ctx, settings.killGraceMs),
    shell_exec: (p, ctx) => shellExec(p, ctx, settings),
    git_status: (p, ctx) => gitStatus(p, ctx, settings),
    git_diff: (p, ctx) => gitDiff(p, ctx, settings),
    // The turn runs task calls as child workflows (workflows/subagent); a call that reaches the tools module was misrouted.
    task: async () => fail('task runs as a sub-agent workflow, not as a workspace tool.'),
  };

  return {
    definitions: TOOL_DEFINITIONS,
    async execute(name, params, ctx) {
      if (ctx.signal.aborted) throw ctx.signal.reason;
      const def = toolDefinition(name);
      if (!def) return fail(`Unknown tool ${JSON.stringify(name)}. Available tools: ${TOOL_DEFINITIONS.map((d) => d.name).join(', ')}.`);
      const parsed = def.schema.safeParse(withoutNulls(params));
      if (!parsed.success) return fail(`Invalid parameters for ${name}: ${formatIssues(parsed.error)}`, { invalid_params: true });
      try {
        return await (handlers[def.name] as (p: unknown, c: ToolContext) => Promise<ToolResult>)(parsed.data, ctx);
      } catch (err) {
        if (ctx.signal.aborted) throw ctx.signal.reason;
        return fail(`${name} failed unexpectedly: ${errorMessage(err)}`, { unexpected: true });
      }
    },
  };
}

/**
 * Models send `null` or nothing for a tool without parameters, and `null` for an optional parameter
 * they leave out (OpenAI's strict function calling makes every parameter required and nullable):
 * both mean "absent".
 */
function withoutNulls(params: unknown): unknown {
  if (params === null || params === undefined) return {};
  if (typeof params !== 'object' || Array.isArray(params)) return params;
  return Object.fromEntries(Object.entries(params).filter(([, v]) => v !== null));
}

/** One line per zod issue, each naming the parameter it is about. */
function formatIssues(error: z.ZodError): string {
  return error.issues
    .map((i) => {
      const where = i.path.length > 0 ? i.path.join('.') : undefined;
      return where ? `${where}: ${i.message}` : i.message;
    })
    .join('; ');
}

/**
 * The spill directory's real path, which read_file may read besides the workspace so a cut shell
 * output stays retrievable. Absent until the first spill, hence resolved per call.
 */
function spillRoots(spillDir: string): string[] {
  try {
    return [fs.realpathSync(spillDir)];
  } catch {
    return [];
  }
}
