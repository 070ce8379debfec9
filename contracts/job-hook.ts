import { z } from 'zod';
import { defineQuery, defineUpdate } from '@temporalio/workflow';
import { jobIdSchema, jobSpecSchema } from './job-spec';

/**
 * Triggers (docs/jobs.md, "Triggers"): a hook is a named template of a job spec that a signed web
 * delivery (`POST /api/hooks/{name}`) fills from its body and starts as a job. The definition holds the
 * *name* of the gateway's environment variable with the HMAC secret, never the secret: definitions
 * are stored in a NATS KV bucket and deliveries cross Temporal, and neither may carry it.
 */

/** Hook names are safe in a KV key, a workflow id and a job id (`hook-<name>-<12 hex>`). */
export const hookNameSchema = z.string().regex(/^[a-z0-9][a-z0-9-]{0,39}$/, 'hook names are 1-40 lowercase letters, digits and dashes');

/** A `${placeholder}` name. */
const placeholderNameSchema = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, 'placeholder names are letters, digits and _ (not starting with a digit)');

/** A JSON pointer (RFC 6901) into the delivery's body: `""` is the whole body, `/ref`, `/repository/full_name`. */
const jsonPointerSchema = z.string().max(500).regex(/^(\/.*)?$/, 'a JSON pointer is empty or starts with /');

/** What a new delivery does to a job of the same key that is still running (or queued). */
const hookSupersedeSchema = z.enum(['cancel', 'queue', 'ignore']);

/** The body of `PUT /api/hooks/{name}`. */
export const hookDefinitionBodySchema = z.strictObject({
  /** A job spec (contracts/job-spec.ts) whose string fields may hold `${placeholder}`s; it must parse as a spec once filled. */
  template: z.record(z.string(), z.unknown()).describe('A job spec whose string fields may hold `${placeholder}`s (docs/jobs.md, "Triggers").'),
  /** Where each placeholder's value is in the delivery's body. */
  values: z.record(placeholderNameSchema, jsonPointerSchema).default({}),
  /** The name of the gateway's environment variable holding the HMAC secret (never the secret itself). */
  secret_env: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/, 'secret_env names an environment variable'),
  /** The placeholder whose value is the supersede key (a branch, a pull request); none: every delivery runs on its own. */
  key: placeholderNameSchema.optional(),
  /** Default `queue`. */
  supersede: hookSupersedeSchema.default('queue'),
});
export type HookDefinitionBody = z.infer<typeof hookDefinitionBodySchema>;

/** A stored hook definition (the KV entry). */
export const hookDefinitionSchema = hookDefinitionBodySchema.extend({
  name: hookNameSchema,
  created_at: z.string(),
  updated_at: z.string(),
});
export type HookDefinition = z.infer<typeof hookDefinitionSchema>;

/** What became of a delivery. */
const hookOutcomeSchema = z.enum(['started', 'queued', 'ignored', 'duplicate']);

/** The answer to a delivery, once its coordinator has recorded it. */
export const hookDeliveryReplySchema = z.strictObject({
  delivery_id: z.string(),
  job_id: z.string().nullable(),
  outcome: hookOutcomeSchema,
});
export type HookDeliveryReply = z.infer<typeof hookDeliveryReplySchema>;

/** One delivery as `GET /api/hooks/{name}` lists it: an accepted one, or one refused after its signature was checked. */
export const hookDeliveryRecordSchema = z.strictObject({
  delivery_id: z.string(),
  at: z.string(),
  outcome: z.enum(['started', 'queued', 'ignored', 'duplicate', 'rejected']),
  job_id: z.string().nullable(),
  /** The supersede key's value, when the hook has one. */
  key: z.string().nullable(),
  /** Why a rejected delivery was refused. */
  reason: z.string().optional(),
});
export type HookDeliveryRecord = z.infer<typeof hookDeliveryRecordSchema>;

/** The signature header strand documents, and the forge's one it also reads (same `sha256=<hex>` form). */
export const SIGNATURE_HEADERS = ['x-strand-signature', 'x-hub-signature-256'] as const;
/** Delivery id headers, in the order they are read: strand's, GitHub's, Gitea's. */
export const DELIVERY_ID_HEADERS = ['x-strand-delivery', 'x-github-delivery', 'x-gitea-delivery'] as const;

// --- the coordinator workflow: one per (hook, key) -------------------------------------------------

export const HOOK_COORDINATOR_WORKFLOW_TYPE = 'hookCoordinatorWorkflow';

/** `hook:<name>:<key>`; a hook without a key has one coordinator, `hook:<name>` (hook names hold no colon). */
export function hookCoordinatorId(name: string, key: string | null): string {
  return key === null ? `hook:${name}` : `hook:${name}:${key}`;
}

/**
 * How a delivery meets a running job of its key: the hook's supersede rule, or `parallel` for a hook
 * without a key (every delivery starts its job at once; deduplication still applies).
 */
const hookDeliveryModeSchema = z.enum(['cancel', 'queue', 'ignore', 'parallel']);
export type HookDeliveryMode = z.infer<typeof hookDeliveryModeSchema>;

/** What the gateway hands the coordinator: the filled spec (the secret never crosses Temporal). */
export const hookDeliverySchema = z.strictObject({
  delivery_id: z.string().min(1).max(200),
  job_id: jobIdSchema,
  spec: jobSpecSchema,
  mode: hookDeliveryModeSchema,
});
export type HookDelivery = z.input<typeof hookDeliverySchema>;

export interface HookCoordinatorInput {
  hook: string;
  key: string | null;
  /** Delivery ids already answered, oldest first, carried across continue-as-new. */
  seen?: Array<{ delivery_id: string; job_id: string | null }>;
  /** The coordinator ends after this long with nothing running or queued. Default one hour. */
  idle_timeout_ms?: number;
}

export interface HookCoordinatorView {
  running: string[];
  queued: string[];
  /** How many delivery ids it remembers. */
  seen: number;
}

export const hookDeliveryUpdate = defineUpdate<HookDeliveryReply, [HookDelivery]>('hookDelivery');
export const hookCoordinatorViewQuery = defineQuery<HookCoordinatorView>('hookCoordinatorView');
