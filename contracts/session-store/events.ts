import { z } from 'zod';
import { metadataSchema, originSchema, sessionStatusSchema } from './entities';
import { customPayloadSchema, messageSchema } from './messages';
import type { StoreEventType } from './subjects';

/** Payloads of the six store events (docs/store.md, "Events"). */
export const storeEventPayloadSchemas = {
  created: z.object({
    session_id: z.string(),
    title: z.string(),
    description: z.string(),
    status: sessionStatusSchema,
    forked_from: z.string().optional(),
    created_at: z.number().int(),
    metadata: metadataSchema.optional(),
  }),
  'message-added': z.object({
    session_id: z.string(),
    entry_id: z.string(),
    parent_id: z.string().nullable(),
    message: messageSchema.optional(),
    custom: customPayloadSchema.optional(),
    origin: originSchema.optional(),
    timestamp: z.number().int(),
  }),
  'message-updated': z.object({
    session_id: z.string(),
    entry_id: z.string(),
    message: messageSchema,
    revision: z.number().int().nonnegative(),
    origin: originSchema.optional(),
    timestamp: z.number().int(),
  }),
  'status-changed': z.object({
    session_id: z.string(),
    status: sessionStatusSchema,
    previous_status: sessionStatusSchema,
    status_reason: z.string().optional(),
    timestamp: z.number().int(),
  }),
  'meta-updated': z.object({
    session_id: z.string(),
    title: z.string(),
    description: z.string(),
    metadata: metadataSchema.optional(),
    timestamp: z.number().int(),
  }),
  /** `metadata` is the session's metadata as it was at deletion, so metadata filters still apply. */
  deleted: z.object({ session_id: z.string(), timestamp: z.number().int(), metadata: metadataSchema.optional() }),
} satisfies Record<StoreEventType, z.ZodType>;

export type StoreEventPayload<T extends StoreEventType> = z.infer<(typeof storeEventPayloadSchemas)[T]>;

const roles = z.array(z.enum(['user', 'assistant', 'function_result', 'custom']));

/**
 * What a binding may filter on, per event type. Strict: an unknown key, `roles` on a type without
 * roles, or `session_id` on `created` is rejected when the binding is made.
 */
export const bindingFilterSchemas = {
  created: z.strictObject({ metadata: metadataSchema.optional() }),
  'message-added': z.strictObject({ session_id: z.string().min(1).optional(), roles: roles.optional(), metadata: metadataSchema.optional() }),
  'message-updated': z.strictObject({ session_id: z.string().min(1).optional(), roles: roles.optional(), metadata: metadataSchema.optional() }),
  'status-changed': z.strictObject({ session_id: z.string().min(1).optional(), metadata: metadataSchema.optional() }),
  'meta-updated': z.strictObject({ session_id: z.string().min(1).optional(), metadata: metadataSchema.optional() }),
  deleted: z.strictObject({ session_id: z.string().min(1).optional(), metadata: metadataSchema.optional() }),
} satisfies Record<StoreEventType, z.ZodType>;

export type BindingFilter<T extends StoreEventType> = z.input<(typeof bindingFilterSchemas)[T]>;
