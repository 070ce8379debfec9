import { z } from 'zod';
import { jobNotifySchema } from './job-notify';
import { mcpToolName } from './mcp';
import { modelIdSchema } from './models';
import { thinkingLevelSchema } from './session-settings';
import { TOOL_DEFINITIONS } from './tools';
import { TASK_TOOL } from './subagents';

/**
 * An unattended job's spec (docs/jobs.md): a task handed over with a policy, limits and a deadline.
 * Versioned (`version: 1`) and strict at every depth, so a misspelt key is refused rather than
 * silently ignored; every default is written next to its field and repeated in docs/jobs.md.
 */

/** What becomes of a tool call: it runs, it is refused, or it waits for a person (an escalation). */
export const jobRuleSchema = z.enum(['allow', 'deny', 'escalate']);
type JobRule = z.infer<typeof jobRuleSchema>;

/** The built-in tools a job's policy may name (and `task`, the sub-agent tool). */
export const JOB_TOOL_NAMES: readonly string[] = [...TOOL_DEFINITIONS.map((t) => t.name), TASK_TOOL];

/** An MCP tool as `<server>/<tool>`, or `<server>/*` for every tool of that server. */
const mcpToolKeySchema = z.string().regex(/^[^/]+\/[^/]+$/, 'MCP tools are named <server>/<tool> or <server>/*');

const escalationSchema = z.strictObject({
  /** How long a person has to answer an escalated call. Default 3600 (one hour). */
  timeout_s: z.number().int().positive().max(7 * 24 * 3600).default(3600),
  /**
   * What happens when nobody answers in time. Default `deny`: the call is refused and the model told
   * so. `skip`: the call is not run and the model is told it was skipped (not refused). `abort`: the
   * job stops and reports `needs_human`.
   */
  on_timeout: z.enum(['deny', 'skip', 'abort']).default('deny'),
  /**
   * After `abort`: how long the job, having reported `needs_human`, waits for a person to resume it
   * (`POST /api/jobs/{id}/resume`, docs/jobs.md "Resuming a job that needs a person"). Default 86400
   * (a day); 0: it ends `needs_human` at once. Past it, it ends `needs_human`.
   */
  resume_wait_s: z.number().int().nonnegative().max(30 * 24 * 3600).default(86400),
});

const jobPolicySchema = z.strictObject({
  /** The rule for every tool not named below. Default `allow`: the workspace confines every tool. */
  default: jobRuleSchema.default('allow'),
  /** Rules per built-in tool (`shell_exec`, `write_file`, …). Default none. */
  tools: z
    .record(z.string(), jobRuleSchema)
    .default({})
    .superRefine((tools, ctx) => {
      for (const name of Object.keys(tools)) if (!JOB_TOOL_NAMES.includes(name)) ctx.addIssue({ code: 'custom', path: [name], message: `unknown tool ${name}; built-in tools are ${JOB_TOOL_NAMES.join(', ')}` });
    }),
  /** Rules per MCP tool, `<server>/<tool>` or `<server>/*` (the exact name wins). Default none. */
  mcp_tools: z.record(mcpToolKeySchema, jobRuleSchema).default({}),
  escalation: escalationSchema.default(escalationSchema.parse({})),
});
export type JobPolicy = z.infer<typeof jobPolicySchema>;

const jobLimitsSchema = z
  .strictObject({
    /** Dollars the job may spend (its session's recorded steps). Default: no cap. */
    max_cost_usd: z.number().positive().optional(),
    /** Tokens the job may use (input, output and cache of its recorded steps). Default: no cap. */
    max_tokens: z.number().int().positive().optional(),
    /** Model calls (steps of the agent loop, the issue's "turns") the work may take. Default 200. */
    max_steps: z.number().int().positive().max(10_000).default(200),
    /** Seconds from the job's start to its hard deadline. Default 3600 (one hour). */
    deadline_s: z.number().int().positive().max(7 * 24 * 3600).default(3600),
    /** The wrap-up turn starts this many seconds before the deadline. Default 300 (five minutes). */
    wrap_up_before_s: z.number().int().nonnegative().default(300),
    /** Share of the cost, token and step caps at which the wrap-up turn runs. Default 0.8. */
    soft_share: z.number().gt(0).lte(1).default(0.8),
    /**
     * The watchdog: a running turn that reports no progress for this many seconds (no new step, no
     * tool started or ended, no phase change) while not waiting for a person or the budget is cut
     * and retried once as a new turn; a second stall ends the job `failed`. Default 300.
     */
    stall_s: z.number().int().min(10).max(24 * 3600).default(300),
  })
  .refine((l) => l.wrap_up_before_s < l.deadline_s, { message: 'wrap_up_before_s must be less than deadline_s', path: ['wrap_up_before_s'] });

const jobTaskSchema = z.strictObject({
  /** What the agent is asked to do. */
  prompt: z.string().min(1, 'the prompt must not be empty').max(100_000),
  /** The project the job works on: an absolute path on the worker's machine. */
  project_path: z.string().regex(/^\//, 'project_path must be absolute'),
  /** A git ref (branch, tag, commit) the job's branch starts from. Default: the repository's HEAD. Ignored for a folder that is no repository. */
  ref: z.string().min(1).max(250).optional(),
  model: modelIdSchema,
  /** Default `off`. */
  thinking_level: thinkingLevelSchema.default('off'),
});

const jobWorkspaceSchema = z.strictObject({
  /**
   * `auto` (the default): a git worktree on branch `strand/job-<id>` when the project is a git
   * repository, else a plain copy of the folder. `git_worktree` refuses a folder that is no repository.
   */
  kind: z.enum(['auto', 'git_worktree', 'copy']).default('auto'),
});

const jobDeliverableSchema = z.strictObject({
  /** Write the job's diff as a patch file (docs/jobs.md says where). Default true. */
  patch_file: z.boolean().default(true),
});

export const jobSpecSchema = z.strictObject({
  version: z.literal(1),
  task: jobTaskSchema,
  policy: jobPolicySchema.default(jobPolicySchema.parse({})),
  limits: jobLimitsSchema.default(jobLimitsSchema.parse({})),
  workspace: jobWorkspaceSchema.default(jobWorkspaceSchema.parse({})),
  deliverable: jobDeliverableSchema.default(jobDeliverableSchema.parse({})),
  /** A signed webhook for the job's end and its escalations (docs/jobs.md, "Notification"). Default none. */
  notify: jobNotifySchema.optional(),
});
export type JobSpec = z.infer<typeof jobSpecSchema>;
export type JobSpecInput = z.input<typeof jobSpecSchema>;

/** Job ids are safe in a branch name, a folder name and a workflow id. */
export const jobIdSchema = z.string().regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'job ids are 1-63 lowercase letters, digits and dashes');

/** The branch a job's git worktree is on. */
export function jobBranch(jobId: string): string {
  return `strand/job-${jobId}`;
}

/** Which rule decided a tool call, and where in the policy it is written (for the report). */
export interface JobRuleMatch {
  rule: JobRule;
  /** `tools.shell_exec`, `mcp_tools.github/create_issue`, `mcp_tools.github/*` or `default`. */
  source: string;
}

/** The rule for a tool call by the name the model used (built-in, or `mcp__<server>__<tool>`). */
export function jobRuleFor(policy: JobPolicy, toolName: string): JobRuleMatch {
  const builtIn = policy.tools[toolName];
  if (builtIn) return { rule: builtIn, source: `tools.${toolName}` };
  const entries = Object.entries(policy.mcp_tools);
  for (const [key, rule] of entries) {
    const [server, tool] = key.split('/') as [string, string];
    if (tool !== '*' && mcpToolName(server, tool) === toolName) return { rule, source: `mcp_tools.${key}` };
  }
  for (const [key, rule] of entries) {
    const [server, tool] = key.split('/') as [string, string];
    if (tool === '*' && toolName.startsWith(mcpToolName(server, ''))) return { rule, source: `mcp_tools.${key}` };
  }
  return { rule: policy.default, source: 'default' };
}
