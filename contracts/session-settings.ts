import { z } from 'zod';
import { modelIdSchema } from './models';

/**
 * A session's settings and the runtime record the session workflow persists in the store's session
 * metadata (under `strand.*` keys, written with `metadata_patch` so no other writer's keys are
 * touched). The workflow owns these facts; the store keeps them across idle completion and restarts.
 */

export const thinkingLevelSchema = z.enum(['off', 'minimal', 'low', 'medium', 'high', 'xhigh']);
export type ThinkingLevel = z.infer<typeof thinkingLevelSchema>;

/** Which tool calls need a person's yes, and what happens when nobody answers. */
export const approvalPolicySchema = z.object({
  /** read_file, list_files, search_files, git_status, git_diff run without asking. */
  auto_approve_readonly: z.boolean().default(true),
  /** Tools a person answered "always" for. */
  always_allow: z.array(z.string()).default([]),
  timeout_s: z.number().int().positive().default(600),
  /** The decision taken when the timeout passes. */
  default_decision: z.enum(['reject', 'approve']).default('reject'),
  /**
   * Plan mode (docs/plan-mode.md): the agent may only read, search and plan. Every call of a tool that
   * is not read-only is refused with a result the model reads, never run and never asked about.
   * Part of the approval policy rather than a setting of its own because it is one more rule about
   * which calls run (approval-policy.ts decides all of them in one function), and the policy already
   * reaches both the workflow and the activity that announces calls; ACP's modes are views of it.
   */
  plan_mode: z.boolean().default(false),
});
export type ApprovalPolicy = z.infer<typeof approvalPolicySchema>;

/**
 * A change of the approval policy: the given fields only. Not `approvalPolicySchema.partial()`, which
 * fills a missing field with its default (zod 4 applies defaults inside optional), so a change of one
 * field put the others back to their defaults.
 */
export const approvalPolicyChangeSchema = z.strictObject({
  auto_approve_readonly: z.boolean().optional(),
  always_allow: z.array(z.string()).optional(),
  timeout_s: z.number().int().positive().optional(),
  default_decision: z.enum(['reject', 'approve']).optional(),
  plan_mode: z.boolean().optional(),
});

/**
 * Spending caps (docs/budgets.md). A turn pauses in phase `waiting_budget` before a model step once
 * the session's spent cost or tokens reach a cap; absent or null means no cap. No defaults inside:
 * a session without caps keeps exactly the settings it had (and its turns the histories they had).
 */
export const budgetSchema = z.object({
  /** Dollars the session may spend (the sum of its recorded steps' cost). */
  max_cost_usd: z.number().nonnegative().nullable().optional(),
  /** Tokens the session may use (input, output, cache read and cache write of its recorded steps). */
  max_tokens: z.number().int().nonnegative().nullable().optional(),
});
export type Budget = z.infer<typeof budgetSchema>;

/** A change of the caps: the given fields replace, null clears a cap, absent ones stay. */
export const budgetChangeSchema = z.strictObject({
  max_cost_usd: z.number().nonnegative().nullable().optional(),
  max_tokens: z.number().int().nonnegative().nullable().optional(),
});
export type BudgetChange = z.infer<typeof budgetChangeSchema>;

/** The caps after `change`: fields merged, cleared ones (null) dropped; undefined when no cap is left. */
export function mergeBudget(current: Budget | undefined, change: BudgetChange): Budget | undefined {
  const merged = { ...current, ...change };
  const next: Budget = {};
  if (typeof merged.max_cost_usd === 'number') next.max_cost_usd = merged.max_cost_usd;
  if (typeof merged.max_tokens === 'number') next.max_tokens = merged.max_tokens;
  return Object.keys(next).length > 0 ? next : undefined;
}

export const sessionSettingsSchema = z.object({
  model: modelIdSchema,
  thinking_level: thinkingLevelSchema.default('off'),
  /** Off: a retryable provider error ends the turn with the error instead of retrying. */
  auto_retry: z.boolean().default(true),
  auto_compaction: z.boolean().default(true),
  approval: approvalPolicySchema.default(approvalPolicySchema.parse({})),
  name: z.string().optional(),
  /** Spending caps; absent: none (docs/budgets.md). */
  budget: budgetSchema.optional(),
});
export type SessionSettings = z.infer<typeof sessionSettingsSchema>;

/** A prompt already accepted, remembered so a retried request starts nothing new. */
export const seenRequestSchema = z.object({ request_id: z.string(), turn_id: z.string(), turn_number: z.number().int().positive() });
export type SeenRequest = z.infer<typeof seenRequestSchema>;

/** How many request ids a session remembers (oldest forgotten first). */
const MAX_SEEN_REQUESTS = 256;

/**
 * Metadata keys of the runtime record. The gateway writes the first settings when it creates the
 * session (contracts/session-record.ts); from then on the workflow is their only writer.
 */
export const RUNTIME_KEYS = {
  settings: 'strand.settings',
  lastTurn: 'strand.last_turn',
  requests: 'strand.requests',
} as const;

/**
 * Metadata keys the gateway writes when it creates a session. The model is not one of them: it lives
 * in the settings (`strand.settings`); readSessionRecord still reads the `model` key of older records.
 */
export const SESSION_METADATA_KEYS = {
  projectPath: 'project_path',
  config: 'config',
  owner: 'owner',
} as const;

/** What the session workflow reads from the store when a run starts fresh (decoded by readSessionRecord). */
export const sessionRecordSchema = z.object({
  project_path: z.string(),
  settings: sessionSettingsSchema,
  last_turn: z.number().int().nonnegative(),
  requests: z.array(seenRequestSchema),
});
export type SessionRecord = z.infer<typeof sessionRecordSchema>;

/** Keeps the newest `MAX_SEEN_REQUESTS` entries. */
export function boundSeenRequests(requests: SeenRequest[]): SeenRequest[] {
  return requests.length > MAX_SEEN_REQUESTS ? requests.slice(requests.length - MAX_SEEN_REQUESTS) : requests;
}
