import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';

/**
 * The scripted provider's script files (format documented in scripts/README.md): a list of steps,
 * each answering one model call, each a list of actions played in order.
 */

const count = z.number().int().nonnegative();
/** A string is streamed as word-sized deltas; a list of strings is streamed exactly as given. */
const streamed = z.union([z.string(), z.array(z.string())]);

const scriptActionSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text'), text: streamed }),
  z.object({ type: z.literal('thinking'), text: streamed, signature: z.string().optional() }),
  z.object({
    type: z.literal('tool_call'),
    name: z.string().min(1),
    args: z.record(z.string(), z.unknown()).optional(),
    /** Sent instead of `args`, verbatim: lets a script send arguments that are not valid JSON. */
    raw_args: z.string().optional(),
    id: z.string().optional(),
  }),
  z.object({ type: z.literal('usage'), input: count.optional(), output: count.optional(), cache_read: count.optional(), cache_write: count.optional(), reasoning: count.optional() }),
  z.object({ type: z.literal('stop'), reason: z.enum(['end', 'length', 'function_call']), native: z.string().optional() }),
  z.object({ type: z.literal('delay'), ms: count }),
  /** Waits until the request is aborted (the caller's stall watchdog or a user abort). */
  z.object({ type: z.literal('stall') }),
  z.object({
    type: z.literal('error'),
    kind: z.enum(['rate_limited', 'overloaded', 'transient', 'auth', 'context_overflow', 'permanent']),
    message: z.string().optional(),
    status: z.number().int().optional(),
    retry_after_ms: count.optional(),
    /** Fail only on the first `times` calls of this step (later calls skip the error and go on). */
    times: z.number().int().positive().optional(),
    /** Fail only on these calls of this step (1 = the first call, 2 = its first retry, …). */
    on_calls: z.array(z.number().int().positive()).optional(),
  }),
]);
export type ScriptAction = z.infer<typeof scriptActionSchema>;

export const scriptSchema = z.object({
  description: z.string().optional(),
  steps: z.array(z.array(scriptActionSchema)).min(1),
  /** Answer calls past the last step with the last step (else they fail as permanent errors). */
  repeat_last_step: z.boolean().default(false),
  /** Where call counts live for `times` / `on_calls` (overrides STRAND_SCRIPTS_STATE_DIR). */
  state_dir: z.string().optional(),
});
export type Script = z.infer<typeof scriptSchema>;

/** Script names are file names: no separators, no leading dot (nothing outside the folders). */
const NAME = /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/;

/** The scripts shipped with strand. */
export const PACKAGED_SCRIPTS_DIR = path.join(__dirname, 'scripts');

/**
 * Finds and parses `<name>.json` in the given folders, first match wins. Read on every call, so a
 * test may write or change a script while the stack runs. Undefined when no folder has it.
 */
export function loadScriptFile(name: string, dirs: string[]): Script | undefined {
  if (!NAME.test(name)) return undefined;
  for (const dir of dirs) {
    const file = path.join(dir, `${name}.json`);
    let text: string;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch (err) {
      throw new Error(`script ${file} is not valid JSON: ${(err as Error).message}`);
    }
    const parsed = scriptSchema.safeParse(data);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new Error(`script ${file} is not a valid script: ${issue?.path.join('.') || '(top level)'}: ${issue?.message}`);
    }
    return parsed.data;
  }
  return undefined;
}

/** Names of the scripts in the folders (for error messages). */
export function listScriptFiles(dirs: string[]): string[] {
  const names = new Set<string>();
  for (const dir of dirs) {
    try {
      for (const f of fs.readdirSync(dir)) if (f.endsWith('.json')) names.add(f.slice(0, -'.json'.length));
    } catch {
      // a folder that does not exist has no scripts
    }
  }
  return [...names].sort();
}

/** Replaces `{{user}}`, `{{tool_result}}` and `{{tool_result_first_line}}`; other `{{…}}` stay as written. */
export function renderTemplate(text: string, vars: Record<string, string>): string {
  return text.replace(/\{\{(\w+)\}\}/g, (all, key: string) => vars[key] ?? all);
}
