import { z } from 'zod';
import { metadataSchema, originSchema, sessionEntrySchema, sessionMetaSchema, sessionStatusSchema } from './entities';
import { contentBlockSchema, customPayloadSchema, messageSchema, messageRoleSchema } from './messages';

/**
 * Request and reply of every store function (docs/store.md, "Functions").
 * Requests are strict: an unknown key is a shape error (`session/invalid_request`), like a wrong type.
 */

const id = z.string().min(1, 'must not be empty');
const limit = z.number().int().nonnegative();

const createRequestSchema = z.strictObject({
  title: z.string().optional(),
  description: z.string().optional(),
  metadata: metadataSchema.optional(),
});
const createReplySchema = z.object({ session_id: z.string(), meta: sessionMetaSchema });

const ensureRequestSchema = createRequestSchema.extend({ session_id: id });
const ensureReplySchema = createReplySchema.extend({ created: z.boolean() });

const getRequestSchema = z.strictObject({ session_id: id });
const getReplySchema = z.object({ meta: sessionMetaSchema }).nullable();

const listOrderSchema = z.enum(['updated_desc', 'created_asc', 'created_desc']);
const listRequestSchema = z.strictObject({
  limit: limit.optional(),
  cursor: z.string().optional(),
  status: sessionStatusSchema.optional(),
  metadata: metadataSchema.optional(),
  order: listOrderSchema.optional(),
});
const listReplySchema = z.object({ sessions: z.array(sessionMetaSchema), next_cursor: z.string().optional() });

const setMetaRequestSchema = z.strictObject({
  session_id: id,
  title: z.string().optional(),
  description: z.string().optional(),
  metadata: metadataSchema.optional(),
  /**
   * Extension: key-level change of `metadata`, applied atomically under the session's lock: a given
   * key replaces that key, `null` removes it, other keys stay. Lets two writers that own different
   * keys (the gateway: owner, project; the session workflow: its settings) never overwrite each other.
   * Giving both `metadata` and `metadata_patch` is `session/invalid_request`.
   */
  metadata_patch: z.record(z.string(), z.unknown()).optional(),
});
const setMetaReplySchema = z.object({ meta: sessionMetaSchema });

const setStatusRequestSchema = z.strictObject({ session_id: id, status: sessionStatusSchema, reason: z.string().optional() });
const setStatusReplySchema = z.object({ status: sessionStatusSchema, previous_status: sessionStatusSchema });

const appendRequestSchema = z
  .strictObject({
    session_id: id,
    message: messageSchema.optional(),
    custom: customPayloadSchema.optional(),
    entry_id: id.optional(),
    parent_id: id.optional(),
    origin: originSchema.optional(),
  })
  .refine((r) => (r.message === undefined) !== (r.custom === undefined), { message: 'exactly one of message or custom is required' });
const appendReplySchema = z.object({ entry_id: z.string(), parent_id: z.string().nullable(), timestamp: z.number().int() });

const appendManyRequestSchema = z.strictObject({
  session_id: id,
  messages: z.array(messageSchema),
  parent_id: id.optional(),
  origin: originSchema.optional(),
});
const appendManyReplySchema = z.object({ entry_ids: z.array(z.string()), last_entry_id: z.string() });

const updateMessageRequestSchema = z.strictObject({
  session_id: id,
  entry_id: id,
  content: z.array(contentBlockSchema),
  details: z.unknown().optional(),
  expected_revision: z.number().int().nonnegative().optional(),
  origin: originSchema.optional(),
});
const updateMessageReplySchema = z.object({ updated: z.boolean(), revision: z.number().int().nonnegative() });

const forkRequestSchema = z.strictObject({ session_id: id, entry_id: id, title: z.string().optional() });
const forkReplySchema = z.object({ session_id: z.string(), meta: sessionMetaSchema });

/** `entry_id: null` points the leaf at the session's root: the active branch is empty (undo of a first turn). */
const setActiveLeafRequestSchema = z.strictObject({ session_id: id, entry_id: id.nullable() });
const setActiveLeafReplySchema = z.object({ active_leaf: z.string().nullable() });

const deleteRequestSchema = z.strictObject({ session_id: id });
const deleteReplySchema = z.object({ deleted: z.boolean() });

const getMessageRequestSchema = z.strictObject({ session_id: id, entry_id: id });
const getMessageReplySchema = z.object({ entry: sessionEntrySchema }).nullable();

const messagesRequestSchema = z.strictObject({
  session_id: id,
  limit: limit.optional(),
  cursor: z.string().optional(),
  roles: z.array(messageRoleSchema).optional(),
  from_entry_id: id.optional(),
  include_custom: z.boolean().optional(),
});
const messageItemSchema = z.object({
  entry_id: z.string(),
  message: messageSchema.optional(),
  custom: customPayloadSchema.optional(),
  origin: originSchema.optional(),
});
export const messagesReplySchema = z.object({ messages: z.array(messageItemSchema), next_cursor: z.string().optional() }).nullable();

const configStatusRequestSchema = z.strictObject({});
const configStatusReplySchema = z.object({
  last_outcome: z.enum(['ok', 'error']),
  last_error: z.string().optional(),
  rejected_reloads: z.number().int().nonnegative(),
});

/** Every served function: its wire name (subject suffix) and schemas. */
export const storeFunctions = {
  create: { wire: 'create', request: createRequestSchema, reply: createReplySchema },
  ensure: { wire: 'ensure', request: ensureRequestSchema, reply: ensureReplySchema },
  get: { wire: 'get', request: getRequestSchema, reply: getReplySchema },
  list: { wire: 'list', request: listRequestSchema, reply: listReplySchema },
  setMeta: { wire: 'set-meta', request: setMetaRequestSchema, reply: setMetaReplySchema },
  setStatus: { wire: 'set-status', request: setStatusRequestSchema, reply: setStatusReplySchema },
  delete: { wire: 'delete', request: deleteRequestSchema, reply: deleteReplySchema },
  append: { wire: 'append', request: appendRequestSchema, reply: appendReplySchema },
  appendMany: { wire: 'append-many', request: appendManyRequestSchema, reply: appendManyReplySchema },
  updateMessage: { wire: 'update-message', request: updateMessageRequestSchema, reply: updateMessageReplySchema },
  fork: { wire: 'fork', request: forkRequestSchema, reply: forkReplySchema },
  setActiveLeaf: { wire: 'set-active-leaf', request: setActiveLeafRequestSchema, reply: setActiveLeafReplySchema },
  getMessage: { wire: 'get-message', request: getMessageRequestSchema, reply: getMessageReplySchema },
  messages: { wire: 'messages', request: messagesRequestSchema, reply: messagesReplySchema },
  configStatus: { wire: 'config-status', request: configStatusRequestSchema, reply: configStatusReplySchema },
} as const;

export type StoreFunction = keyof typeof storeFunctions;
export type StoreRequest<F extends StoreFunction> = z.input<(typeof storeFunctions)[F]['request']>;
/** A request after validation (defaults applied): what the store's domain works on. */
export type ParsedRequest<F extends StoreFunction> = z.infer<(typeof storeFunctions)[F]['request']>;
export type StoreReply<F extends StoreFunction> = z.infer<(typeof storeFunctions)[F]['reply']>;

export type MessageItem = z.infer<typeof messageItemSchema>;

